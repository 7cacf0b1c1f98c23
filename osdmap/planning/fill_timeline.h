// How full every OSD gets while a change backfills, not only before and
// after it: a new copy lands on its target while its PG backfills, but the
// copy it replaces stays on the old OSD until the PG is clean again (the
// primary then purges its strays). An OSD that both receives and gives up
// data can therefore peak above both its before and its after fill.
//
// The model, from a movement report (movement.h, keep_moves) and the
// simulated schedule of its moves (backfill_schedule.h, one job per move in
// the same order):
//   * an OSD starts at its `ceph osd df` use (OsdMovement::used_before);
//   * copies that leave without any backfill (a PG that only loses members)
//     are deleted at time 0;
//   * each target gains a PG's bytes_per_target evenly over the job's
//     [start, end];
//   * each leaving OSD (PgMove::leaving) loses bytes_per_target when the PG
//     is clean again: at the job's end + schedule.end_delay_seconds (the
//     monitor's commit of the map that drops its pg_temp; the primary then
//     purges the stray copy). Measured on the loopback clusters (issue 35,
//     tools/dev/README.md): `osd df` showed the deletion about 2 s after the
//     pg_temp drop (1 s of it the mgr's report period), never at the end;
//   * a job that never starts (backfill_toofull for good) moves nothing.
// Use is piecewise linear and only falls at deletions, so the peak is just
// before a deletion or at the last event. At one instant the
// deletions are taken after the arrivals (pessimistic by at most one PG).
// Thread-safety: pure functions over values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_FILL_TIMELINE_H_
#define CRUSHKIT_OSDMAP_PLANNING_FILL_TIMELINE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/types.h"
#include "osdmap/planning/backfill_schedule.h"
#include "osdmap/planning/movement.h"

namespace crushkit::osdmap {

struct OsdFillPeak {
  std::int32_t osd = 0;
  std::uint64_t capacity_bytes = 0;  // OsdMovement::capacity_bytes
  bool capacity_from_osd_df = false;
  std::uint64_t used_before = 0;
  std::uint64_t used_peak = 0;
  std::uint64_t used_after = 0;  // at the end of the schedule
  double fill_before = 0;        // used / capacity
  double fill_peak = 0;
  double fill_after = 0;
  double peak_seconds = 0;  // the first time the peak is reached
};

struct FillTimeline {
  // Every OSD of the movement report, highest peak fill first (then id).
  std::vector<OsdFillPeak> osds;
  // The OSD with the highest peak fill and when (kItemNone with no OSDs).
  std::int32_t riskiest_osd = crush::kItemNone;
  double riskiest_fill = 0;
  double riskiest_seconds = 0;
};

// The fill of every OSD of `movement` over `schedule`. REQUIRES nothing of
// the order of `movement.osds`. Errors: kInvalidArgument when
// schedule.jobs.size() != movement.moves.size() (the schedule is not of
// these moves, or the movement was made without keep_moves).
// Cost: O(moves x (targets + leaving) + events log events).
absl::StatusOr<FillTimeline> ComputeFillTimeline(const Movement& movement,
                                                 const BackfillSchedule& schedule);

// One OSD's use (bytes) at `seconds` under the same model. Errors: as
// ComputeFillTimeline; kNotFound if `osd` is not in movement.osds.
// Cost: O(moves x (targets + leaving)).
absl::StatusOr<std::uint64_t> OsdUsedAt(const Movement& movement, const BackfillSchedule& schedule,
                                        std::int32_t osd, double seconds);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_FILL_TIMELINE_H_
