#include "osdmap/planning/compare_request.h"

#include <iterator>

namespace crushkit::osdmap {

absl::StatusOr<std::vector<PlanAlternative>> RequestedAlternatives(const ClusterState& state,
                                                                   const CompareRequest& request) {
  std::vector<PlanAlternative> out = request.given;
  if (request.place_hosts) {
    absl::StatusOr<std::vector<PlanAlternative>> more =
        PlaceHostsAlternatives(state, *request.place_hosts);
    if (!more.ok()) return more.status();
    out.insert(out.end(), std::make_move_iterator(more->begin()),
               std::make_move_iterator(more->end()));
  }
  if (!request.drain_order.empty()) {
    absl::StatusOr<std::vector<PlanAlternative>> more =
        DrainOrderAlternatives(state, request.drain_order);
    if (!more.ok()) return more.status();
    out.insert(out.end(), std::make_move_iterator(more->begin()),
               std::make_move_iterator(more->end()));
  }
  return out;
}

absl::StatusOr<PlanComparison> CompareRequested(const ClusterState& state,
                                                const CompareRequest& request,
                                                const std::vector<PlanAlternative>& alternatives,
                                                const CompareOptions& options) {
  if (request.steps > 0 && !alternatives.empty()) {
    return CompareStepSweep(state, alternatives.front(), request.steps, options);
  }
  return ComparePlans(state, alternatives, options);
}

}  // namespace crushkit::osdmap
