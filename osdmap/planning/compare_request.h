// What `crushkit plan` is asked to compare, turned into alternatives and
// planned: the alternatives given (change files, --do), those generated for
// a question (--place-hosts, --drain-order), and the --steps sweep of one
// change. The functions of plan_compare.h do the work; this puts them
// together as one request, so a command only reads its flags and prints.
// Not installed: the tools' entry to plan_compare.h.
//
// Thread-safety: as plan_compare.h (the planning runs its own threads and
// reads its inputs only).
#ifndef CRUSHKIT_OSDMAP_PLANNING_COMPARE_REQUEST_H_
#define CRUSHKIT_OSDMAP_PLANNING_COMPARE_REQUEST_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/changes/change_ops.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/planning/plan_compare.h"

namespace crushkit::osdmap {

struct CompareRequest {
  std::vector<PlanAlternative> given;     // change files and --do, in that order
  std::optional<ChangeList> place_hosts;  // add-host operations to place (--place-hosts)
  std::vector<std::string> drain_order;   // hosts to drain in turn (--drain-order); empty: none
  int steps = 0;  // > 0: the one alternative at once and staged in 2..steps steps
};

// Every alternative of `request` on `state`, in the order they are listed
// when ranks tie: the given ones, then PlaceHostsAlternatives, then
// DrainOrderAlternatives. Empty when nothing was asked. Errors: those of
// the two generators (kInvalidArgument).
absl::StatusOr<std::vector<PlanAlternative>> RequestedAlternatives(const ClusterState& state,
                                                                   const CompareRequest& request);

// Plans and ranks `alternatives` (from RequestedAlternatives): with
// request.steps > 0 the first one swept (CompareStepSweep), else all of
// them side by side (ComparePlans). Errors and cost: those functions'.
absl::StatusOr<PlanComparison> CompareRequested(const ClusterState& state,
                                                const CompareRequest& request,
                                                const std::vector<PlanAlternative>& alternatives,
                                                const CompareOptions& options);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_COMPARE_REQUEST_H_
