#include "tools/strategies/rendezvous.h"

namespace crushkit::strategies {

absl::StatusOr<RendezvousStrategy> RendezvousStrategy::Build(const Topology& topo,
                                                             const StrategyOptions& opts,
                                                             const RendezvousStrategy*) {
  if (topo.nodes.empty()) return absl::InvalidArgumentError("rendezvous: no nodes");
  RendezvousStrategy s;
  const std::uint64_t salt = Mix64(opts.seed ^ 0x687277ULL);  // "hrw"
  for (const Node& n : topo.nodes) {
    s.ids_.push_back(n.id);
    s.weights_.push_back(n.weight);
    s.salts_.push_back(Hash2(salt, static_cast<std::uint32_t>(n.id)));
  }
  return s;
}

}  // namespace crushkit::strategies
