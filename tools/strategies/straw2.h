// CRUSH itself as a placement strategy: the key hash (folded to 32 bits) is
// the input x of the topology's rule, run by the real mapper
// (crush/mapper.h) on the topology's map with every device fully in and the
// compat weight set if the map has one. Weighted (straw2 draws) and
// failure-domain aware (the rule's choose/chooseleaf type).
// Thread-safety: Place() is non-const because it uses the strategy's own
// mapper Workspace; use one Straw2Strategy per thread.
#ifndef CRUSHKIT_TOOLS_STRATEGIES_STRAW2_H_
#define CRUSHKIT_TOOLS_STRATEGIES_STRAW2_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/map.h"
#include "crush/mapper.h"
#include "tools/strategies/strategy.h"
#include "tools/strategies/topology.h"

namespace crushkit::strategies {

class Straw2Strategy {
 public:
  static constexpr std::string_view kName = "straw2";

  // Errors: whatever CrushMap::Build() reports for an invalid map.
  static absl::StatusOr<Straw2Strategy> Build(const Topology& topo, const StrategyOptions& opts,
                                              const Straw2Strategy* previous);

  // Runs the rule; drops kItemNone holes (indep rules), non-device results
  // and devices outside the topology (a second `take` in the rule) so `out`
  // holds only topology nodes, in rule order.
  int Place(std::uint64_t key_hash, std::span<ItemId> out) {
    const auto x = static_cast<std::uint32_t>(key_hash ^ (key_hash >> 32));
    const int n = crush::DoRule(*map_, rule_, x, reweights_, *ws_, out, choose_args_);
    int count = 0;
    for (int i = 0; i < n; ++i) {
      const ItemId id = out[static_cast<std::size_t>(i)];
      if (id >= 0 && static_cast<std::size_t>(id) < member_.size() &&
          member_[static_cast<std::size_t>(id)] != 0) {
        out[static_cast<std::size_t>(count++)] = id;
      }
    }
    return count;
  }

  // The mapper's flat arrays (bucket headers, items, weights) plus the
  // workspace scratch; names and the editable model are not counted.
  std::size_t MemoryBytes() const { return memory_bytes_; }

 private:
  std::shared_ptr<const crush::CrushMap> map_;
  std::unique_ptr<crush::Workspace> ws_;
  std::vector<crush::Weight> reweights_;
  std::vector<std::uint8_t> member_;  // by device id: 1 if in the topology
  crush::ChooseArgsRef choose_args_;
  int rule_ = 0;
  std::size_t memory_bytes_ = 0;
};

}  // namespace crushkit::strategies

#endif  // CRUSHKIT_TOOLS_STRATEGIES_STRAW2_H_
