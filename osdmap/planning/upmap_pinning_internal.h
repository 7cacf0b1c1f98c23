// The upmap way's internals (upmap_pinning.h): its batches
// (upmap_pin_batches.cc). Not installed.
// Thread-safety: plain functions of their arguments.
#ifndef CRUSHKIT_OSDMAP_PLANNING_UPMAP_PINNING_INTERNAL_H_
#define CRUSHKIT_OSDMAP_PLANNING_UPMAP_PINNING_INTERNAL_H_

#include "absl/status/status.h"

#include "osdmap/planning/backfill_schedule.h"
#include "osdmap/planning/movement.h"
#include "osdmap/planning/upmap_pinning.h"

namespace crushkit::osdmap::internal {

// Batches `plan`'s pins (plan->pins, their unpin commands filled): the moves
// of PGs without a pin go at once (plan->immediate), the pins are removed
// in greedy batches in PG order, each under `max_misplaced` of the cluster
// and, when `at_once` has `ceph osd df` capacities and max_fill > 0,
// keeping every target under `max_fill` (fill_limit.h); every batch's
// backfill simulated with `backfill`. Sets the plan's batches, immediate,
// fill fields and total_seconds. Errors: the simulation's.
absl::Status MakePinBatches(const Movement& at_once, const BackfillOptions& backfill,
                            double max_misplaced, double max_fill, UpmapPinPlan* plan);

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_PLANNING_UPMAP_PINNING_INTERNAL_H_
