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
//   * each leaving OSD (PgMove::leaving) deletes its copy once the PG is
//     clean again (FillTimelineOptions): the monitor commits the map that
//     drops the pg_temp, the PG peers, the primary's purge_strays sends
//     MOSDPGRemove, the stray PG goes to ToDelete (WaitDeleteReserved, then
//     Deleting); PG::do_delete_work then removes osd_target_transaction_size
//     (30) objects per transaction, the first at once and each next one
//     osd_delete_sleep later (Pacific's wpq: osd_delete_sleep_hdd 5 s on a
//     rotational OSD, 0 on ssd; mClock sets the sleeps to 0). So a PG of n
//     objects frees its bytes in ceil(n / 30) steps, 30 objects' share each,
//     from the job's end + the delay on. Measured on Pacific loopback
//     clusters (issue 35, tools/dev/README.md): the deletion began 1.1-2.0 s
//     (mean 1.55 s) after the PG's backfill ended and `osd df` showed it about
//     1 s later (the mgr's report period);
//   * a job that never starts (backfill_toofull for good) moves nothing.
// The default options delete a PG's copy in one step at the job's end +
// schedule.end_delay_seconds; the planner passes CephFillTimelineOptions.
// Use is piecewise linear and only falls at deletions, so the peak is just
// before a deletion or at the last event. At one instant the
// deletions are taken after the arrivals (pessimistic by at most one PG).
// Thread-safety: pure functions over values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_FILL_TIMELINE_H_
#define CRUSHKIT_OSDMAP_PLANNING_FILL_TIMELINE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/types.h"
#include "osdmap/planning/backfill_cost.h"
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
  // fill_peak's smallest and largest over the request orders simulated
  // (FillTimeline::request_orders; fill_peak itself with none).
  double fill_peak_min = 0;
  double fill_peak_max = 0;
};

// When the copies a PG leaves are deleted (see the file comment).
struct FillTimelineOptions {
  // From a job's end to its leaving OSDs' first delete transaction; < 0:
  // the schedule's end_delay_seconds.
  double delete_delay_seconds = -1;
  // osd_target_transaction_size (Ceph's default 30): objects per delete
  // transaction; 0: a PG's copy goes in one step.
  std::uint32_t delete_objects_per_transaction = 30;
  // osd_delete_sleep between two transactions, by the leaving OSD's device
  // class (OsdMovement::device_class); classes not listed sleep 0.
  std::map<std::string, double, std::less<>> delete_sleep_seconds;
  // Threads for the per-OSD sweeps (the result does not depend on it): 0,
  // one per CPU when there are 100,000 events or more, else one.
  int threads = 0;
};

// Ceph's figures for a release's scheduler: wpq sleeps
// osd_delete_sleep_hdd (5 s) on "hdd" OSDs (the class CephDeviceDefaults
// takes as rotational) and osd_delete_sleep_ssd (0) on others, mClock 0;
// the deletion starts `delete_delay_seconds` after the PG's end
// (BackfillOptions::stray_delete_delay_seconds, -1: the end delay).
FillTimelineOptions CephFillTimelineOptions(RecoveryScheduler scheduler,
                                            double delete_delay_seconds);

struct FillTimeline {
  // Every OSD of the movement report, highest peak fill first (then id).
  std::vector<OsdFillPeak> osds;
  // The OSD with the highest peak fill and when (kItemNone with no OSDs).
  std::int32_t riskiest_osd = crush::kItemNone;
  double riskiest_fill = 0;
  double riskiest_seconds = 0;
  // The request orders the peaks' ranges span (backfill_orders.h; 0: one
  // order, the schedule's): which of an OSD's outgoing and incoming PGs go
  // first is Ceph's reservation order, which no dump records, so an OSD
  // that gives and receives peaks anywhere in its range. riskiest_fill's
  // range over them: the fullest OSD's peak in each order (not always the
  // same OSD).
  int request_orders = 0;
  double riskiest_fill_min = 0;
  double riskiest_fill_max = 0;
};

// Every OSD's peak fill over several schedules of the same moves (request
// orders): its smallest and largest, and the fullest OSD's.
struct FillPeakRange {
  int orders = 0;
  std::map<std::int32_t, std::pair<double, double>> osds;  // fill_peak: min, max
  double riskiest_min = 0;
  double riskiest_max = 0;
};

// Widens `range` by one order's timeline `t`. Cost: O(OSDs log OSDs).
void WidenFillPeakRange(const FillTimeline& t, FillPeakRange& range);

// Sets `t`'s ranges (OsdFillPeak::fill_peak_min/max, request_orders,
// riskiest_fill_min/max) from `range`, widened by `t`'s own peaks; an OSD
// the range lacks gets its own peak. With range.orders == 0 the ranges are
// the peaks and request_orders 0. Cost: O(OSDs log OSDs).
void ApplyFillPeakRange(const FillPeakRange& range, FillTimeline& t);

// The fill of every OSD of `movement` over `schedule`. REQUIRES nothing of
// the order of `movement.osds`. Errors: kInvalidArgument when
// schedule.jobs.size() != movement.moves.size() (the schedule is not of
// these moves, or the movement was made without keep_moves).
// Cost: O(moves x (targets + leaving) + events log events), the sort and
// sweep on options.threads.
absl::StatusOr<FillTimeline> ComputeFillTimeline(const Movement& movement,
                                                 const BackfillSchedule& schedule,
                                                 const FillTimelineOptions& options = {});

// One OSD's use (bytes) at `seconds` under the same model. Errors: as
// ComputeFillTimeline; kNotFound if `osd` is not in movement.osds.
// Cost: O(moves x (targets + leaving)).
absl::StatusOr<std::uint64_t> OsdUsedAt(const Movement& movement, const BackfillSchedule& schedule,
                                        std::int32_t osd, double seconds,
                                        const FillTimelineOptions& options = {});

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_FILL_TIMELINE_H_
