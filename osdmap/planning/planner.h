// The change planner's entry points: a cluster state and a proposed change
// (another crush map, or a list of operations) -> the movement report of
// osdmap/planning/movement.h. After a change the monitor's upmap cleanup runs
// (upmap_cleanup.h) unless PlanOptions::keep_upmaps asks for osdmaptool's
// raw behaviour; the report says how many entries it dropped.
// Thread-safety: each call runs its own mapping threads; inputs are values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_PLANNER_H_
#define CRUSHKIT_OSDMAP_PLANNING_PLANNER_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/changes/change_ops.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/planning/backfill_cost.h"
#include "osdmap/planning/backfill_orders.h"
#include "osdmap/planning/backfill_schedule.h"
#include "osdmap/planning/movement.h"
#include "osdmap/planning/plan_report.h"

namespace crushkit::osdmap {

struct PlanOptions {
  MovementOptions movement;
  // Simulate the backfill of the whole change (PlanReport::schedule).
  bool schedule = true;
  BackfillOptions backfill;
  // With the schedule, the same jobs in other request orders as well
  // (PlanReport::request_orders; backfill_orders.h); orders < 2: none.
  RequestOrderOptions request_orders;
  // When set, the backfill rates come from the per-PG cost model for the
  // before state's release, a calibration and --backfill-rate
  // (backfill_cost.h), replacing backfill.class_rates and default_rate.
  std::optional<BackfillCostSettings> backfill_cost;
  // Keep upmap entries the change makes invalid (osdmaptool --import-crush
  // does); by default they are dropped as the monitor's clean_pg_upmaps does.
  bool keep_upmaps = false;
  // PlanChange only: also plan the change in steps that each misplace at
  // most this share (staged_plan.h), e.g. 0.05.
  std::optional<double> max_misplaced;
  // PlanChange only, with max_misplaced: also the upmap way (upmap_pinning.h).
  bool upmap_remapped = false;
  // PlanChange only, with max_misplaced: the staged plan and the upmap way
  // keep every receiving OSD under this fill (fill_limit.h); unset: the
  // state's backfillfull_ratio (as the movement's risks give it); 0: none.
  std::optional<double> max_fill;
  std::function<void(double, int)> staging_progress;  // StagedPlanOptions::progress
};

// Two states of one cluster. `after`'s upmaps are cleaned as the monitor
// does on every epoch it commits (CleanUpmapsAfterChange, unless
// keep_upmaps): a no-op for a state a monitor wrote, which it has already
// cleaned; for a hand-made `after` (BEFORE's dump with a new crush map) it
// drops what the monitor would. `before` is taken as it is.
// Errors: the upmap cleanup's; as DiffStates (movement.h), and the simulation's.
absl::StatusOr<PlanReport> DiffTwoStates(ClusterState before, ClusterState after,
                                         const PlanOptions& options = {});

// `before` against the same state with its crush map replaced by
// `crush_bytes` (Ceph's binary encoding), at the next epoch.
// Errors: the decoder's; the crush map build error ("after: ...");
// the upmap cleanup's; the simulation's.
absl::StatusOr<PlanReport> DiffNewCrushMap(ClusterState before, std::string crush_bytes,
                                           const PlanOptions& options = {});

// `before` against `before` with every operation of `change` applied
// (apply_change.h), at the next epoch. The report's `change` lists the
// operations. With options.max_misplaced, also the staged plan
// (PlanStagedChange). Errors: ApplyChange's located diagnostics
// (kInvalidArgument); then as DiffNewCrushMap and PlanStagedChange.
absl::StatusOr<PlanReport> PlanChange(ClusterState before, const ChangeList& change,
                                      const PlanOptions& options = {});

// Movement of `before` -> `after` plus the schedule (the last step of every
// entry point; `after` is already cleaned). Errors: as DiffStates, and the
// simulation's.
absl::StatusOr<PlanReport> Report(ClusterState before, ClusterState after,
                                  const PlanOptions& options);

// Applies "CLASS=RATE" or "RATE" words (RATE: a number of bytes per second
// with an optional binary unit: 150MiB, 2GiB, 800M, 1.5G; "/s" allowed) to
// options->class_rates (a bare RATE sets every class and the default).
// Errors: kInvalidArgument naming the word and what was expected.
absl::Status ParseBackfillRates(const std::vector<std::string>& words, BackfillOptions* options);

// "5%" or "0.05" -> 0.05: a share in (0, 1]. Errors: kInvalidArgument
// naming the text and what was expected.
absl::StatusOr<double> ParseMisplacedLimit(std::string_view text);

// --max-fill: "85%" or "0.85" -> 0.85, a share in (0, 1]; "none" -> 0 (no
// limit). Errors: kInvalidArgument naming the text and what was expected.
absl::StatusOr<double> ParseFillLimit(std::string_view text);

// The cleanup step the entry points share: cleans `after`'s upmaps (unless
// keep_upmaps) and records what went in `risks`.
absl::Status CleanUpmapsAfterChange(ClusterState& after, const PlanOptions& options,
                                    MovementRisks* risks);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_PLANNER_H_
