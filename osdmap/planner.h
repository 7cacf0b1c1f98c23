// The change planner's entry points: a cluster state and a proposed change
// (another crush map, or a list of operations) -> the movement report of
// osdmap/movement.h. After a change the monitor's upmap cleanup runs
// (upmap_cleanup.h) unless PlanOptions::keep_upmaps asks for osdmaptool's
// raw behaviour; the report says how many entries it dropped.
// Thread-safety: each call runs its own mapping threads; inputs are values.
#ifndef CRUSHKIT_OSDMAP_PLANNER_H_
#define CRUSHKIT_OSDMAP_PLANNER_H_

#include <string>

#include "absl/status/statusor.h"
#include "osdmap/cluster_state.h"
#include "osdmap/movement.h"

namespace crushkit::osdmap {

struct PlanOptions {
  MovementOptions movement;
  // Keep upmap entries the change makes invalid (osdmaptool --import-crush
  // does); by default they are dropped as the monitor's clean_pg_upmaps does.
  bool keep_upmaps = false;
};

// `before` against the same state with its crush map replaced by
// `crush_bytes` (Ceph's binary encoding), at the next epoch.
// Errors: the decoder's; the crush map build error ("after: ...");
// the upmap cleanup's.
absl::StatusOr<Movement> DiffNewCrushMap(ClusterState before, std::string crush_bytes,
                                         const PlanOptions& options = {});

// The cleanup step both entry points share: cleans `after`'s upmaps (unless
// keep_upmaps) and records what went in `risks`.
absl::Status CleanUpmapsAfterChange(ClusterState& after, const PlanOptions& options,
                                    MovementRisks* risks);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNER_H_
