#include "tools/strategies/straw2.h"

#include <utility>

#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"

namespace crushkit::strategies {

absl::StatusOr<Straw2Strategy> Straw2Strategy::Build(const Topology& topo, const StrategyOptions&,
                                                     const Straw2Strategy*) {
  if (topo.model == nullptr || topo.nodes.empty()) {
    return absl::InvalidArgumentError("straw2: topology has no map or no nodes");
  }
  CRUSH_ASSIGN_OR_RETURN(crush::CrushMap map, crush::CrushMap::Build(*topo.model));
  if (!map.RuleExists(topo.rule)) {
    return absl::NotFoundError(absl::StrCat("straw2: rule ", topo.rule, " does not exist"));
  }
  Straw2Strategy s;
  s.map_ = std::make_shared<const crush::CrushMap>(std::move(map));
  s.ws_ = std::make_unique<crush::Workspace>(*s.map_, kMaxReplicas);
  s.reweights_.assign(static_cast<std::size_t>(s.map_->max_devices()), crush::kWeightOne);
  s.choose_args_ = s.map_->ResolveChooseArgs(crush::kCompatChooseArgs);
  s.rule_ = topo.rule;
  s.member_.assign(static_cast<std::size_t>(topo.nodes.back().id) + 1, 0);
  for (const Node& n : topo.nodes) s.member_[static_cast<std::size_t>(n.id)] = 1;
  std::size_t items = 0;
  for (const crush::Bucket& b : topo.model->buckets) items += b.items.size();
  s.memory_bytes_ = sizeof(s) + sizeof(crush::CrushMap) +
                    topo.model->buckets.size() * sizeof(crush::internal::FlatBucket) +
                    items * (sizeof(ItemId) + sizeof(crush::Weight)) +
                    s.map_->perm_scratch_size() * sizeof(std::uint32_t) +
                    s.reweights_.size() * sizeof(crush::Weight) + s.member_.size();
  return s;
}

}  // namespace crushkit::strategies
