#include "tools/strategies/jump.h"

#include <algorithm>

namespace crushkit::strategies {

absl::StatusOr<JumpStrategy> JumpStrategy::Build(const Topology& topo, const StrategyOptions&,
                                                 const JumpStrategy* previous) {
  if (topo.nodes.empty()) return absl::InvalidArgumentError("jump: no nodes");
  JumpStrategy s;
  if (previous != nullptr) {
    s.directory_ = previous->directory_;
    // Removing bucket b: the last bucket's node moves into b and the last
    // bucket disappears. Keys of the last bucket that jump hash sends to b
    // therefore stay on their node; only b's old keys and the rest of the
    // last bucket's keys move.
    for (std::size_t b = 0; b < s.directory_.size();) {
      if (topo.IndexOf(s.directory_[b]) < 0) {
        s.directory_[b] = s.directory_.back();
        s.directory_.pop_back();
      } else {
        ++b;
      }
    }
  }
  std::vector<ItemId> present = s.directory_;
  std::sort(present.begin(), present.end());
  for (const Node& n : topo.nodes) {  // ascending ids, so appends are in id order
    if (!std::binary_search(present.begin(), present.end(), n.id)) s.directory_.push_back(n.id);
  }
  return s;
}

}  // namespace crushkit::strategies
