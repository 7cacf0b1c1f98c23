#include "tools/strategies/mod_n.h"

namespace crushkit::strategies {

absl::StatusOr<ModNStrategy> ModNStrategy::Build(const Topology& topo, const StrategyOptions&,
                                                 const ModNStrategy*) {
  if (topo.nodes.empty()) return absl::InvalidArgumentError("mod-n: no nodes");
  ModNStrategy s;
  s.nodes_.reserve(topo.nodes.size());
  for (const Node& n : topo.nodes) s.nodes_.push_back(n.id);
  return s;
}

}  // namespace crushkit::strategies
