// Is a change safe: what `crushkit diff` / `crushkit plan` say about space,
// from the movement (movement.h), its simulated backfill
// (backfill_schedule.h) and `ceph osd df`:
//   * every pool's MAX AVAIL (pool_max_avail.h) before the change, at its
//     lowest while the change backfills, and after it;
//   * every OSD's peak fill during the move and when (fill_timeline.h), and
//     the riskiest OSD;
//   * the PGs that stall in backfill_toofull, and those that never start
//     (BackfillSchedule::stalls).
// The lowest MAX AVAIL during the move is exact under the fill model: MAX
// AVAIL is a minimum over OSDs of a figure that depends only on that OSD's
// use, so its minimum over time is the formula over every OSD at its own
// peak. During and after the move the after state's crush map, reweights
// and full ratio apply.
// Thread-safety: pure functions over values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_CHANGE_SAFETY_H_
#define CRUSHKIT_OSDMAP_PLANNING_CHANGE_SAFETY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/types.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pool_max_avail.h"
#include "osdmap/planning/backfill_schedule.h"
#include "osdmap/planning/fill_timeline.h"
#include "osdmap/planning/movement.h"

namespace crushkit::osdmap {

struct PoolAvailChange {
  std::int64_t pool_id = 0;
  std::string pool_name;
  std::uint64_t before = 0;  // `ceph df` MAX AVAIL, bytes
  std::uint64_t peak = 0;    // the lowest during the move (= after without a schedule)
  std::uint64_t after = 0;
  std::int32_t limiting_before = crush::kItemNone;  // the OSD that bounds it
  std::int32_t limiting_peak = crush::kItemNone;
  std::int32_t limiting_after = crush::kItemNone;
};

struct ChangeSafety {
  // Per pool, in pool id order; empty without `ceph osd df` figures.
  std::vector<PoolAvailChange> pools;
  // Fill over time; absent without a schedule.
  std::optional<FillTimeline> fill;
  // The ratio a backfill target refuses above (max of backfillfull and
  // nearfull) and what the schedule found: stalls (longest first, those
  // that never start first), PGs that never start.
  double backfillfull_ratio = 0;
  std::vector<BackfillStall> stalls;
  std::uint32_t pgs_never_starting = 0;
  std::vector<std::string> notes;  // one sentence each
};

// The two states' crush sides and the usage the report starts from, taken
// before the states are handed on (DiffStates consumes them).
struct SafetyInputs {
  MaxAvailModel before;
  MaxAvailModel after;
  std::map<std::int32_t, OsdUsage> usage_before;  // before.osd_usage
  // Per OSD what the movement starts from: after.osd_usage, else before's
  // (as OsdMovement::used_before is made).
  std::map<std::int32_t, OsdUsage> usage_start;
};

// Errors: MaxAvailModel::Create's, naming the side ("before: ", "after: ").
absl::StatusOr<SafetyInputs> PrepareSafety(const ClusterState& before, const ClusterState& after);

// The report. `schedule` may be null (no fill timeline, peak = after);
// `fill_options` say when the copies a PG leaves are deleted.
// REQUIRES: `schedule` (if any) was simulated from `movement.moves`.
// Errors: ComputeFillTimeline's. Cost: a fill timeline plus three MAX
// AVAIL evaluations.
absl::StatusOr<ChangeSafety> AssessChangeSafety(const SafetyInputs& in, const Movement& movement,
                                                const BackfillSchedule* schedule,
                                                const FillTimelineOptions& fill_options = {});

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_CHANGE_SAFETY_H_
