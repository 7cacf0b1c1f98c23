// Is a change safe: what `crushkit diff` / `crushkit plan` say about space,
// from the movement (movement.h), its simulated backfill
// (backfill_schedule.h) and `ceph osd df`:
//   * every pool's MAX AVAIL (pool_max_avail.h) before the change, at its
//     lowest while the change backfills, and after it;
//   * every OSD's peak fill during the move and when (fill_timeline.h), and
//     the riskiest OSD;
//   * the PGs that stall in backfill_toofull, and those that never start
//     (BackfillSchedule::stalls);
//   * an estimate of the osdmaps the change adds to every OSD (OsdmapGrowth),
//     which the MAX AVAIL figures leave out.
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

// The osdmap epochs a change creates, stored on every OSD. An OSD keeps each
// epoch it receives, the full map and its incremental, as objects of its
// meta collection (`ceph osd df` counts them: memstore in its data, BlueStore
// in its DB), until the monitor trims the epoch; the monitor trims no epoch
// newer than the oldest last_epoch_clean of any PG (OSDMonitor::get_trim_to)
// and keeps at least mon_min_osdmap_epochs (500). So every map committed
// while PGs backfill stays on every OSD at least until the change ends, and
// after it while the cluster holds fewer than 500 epochs in all. Measured
// on the loopback clusters (issue 35, tools/dev/README.md "MAX AVAIL after
// and the osdmaps"): every OSD that neither received nor gave anything grew
// by the same 5.6-6.9 KiB per epoch of the change (`ceph osd getmap` 5.0-5.9
// KiB plus the incremental), and 40 epochs that moved nothing grew each OSD
// by 40 x (3,254 + 228) bytes. Both figures are estimates, so they stay out
// of PoolAvailChange. The epochs are the monitor's commits, one per
// paxos_propose_interval that has something to commit (EpochsOf in the .cc;
// the same count over the measured pg_temp drops gives the epochs of the 12
// loopback changes of one command within -1 .. 0), so their number follows the times the
// PGs finish, which the schedule predicts only within its own error (and an
// operator's extra commands, flags set and unset, add theirs); the full
// map's size is estimated from the state, which keeps the crush map, not the
// binary OSDMap.
struct OsdmapGrowth {
  std::uint64_t bytes_per_epoch = 0;  // full map + incremental, estimated
  // Epochs while the change runs: the propose intervals in which the
  // schedule has the monitor commit (the change, its pg_temp, up_thru, each
  // PG's pg_temp dropped and its primary's up_thru after it); 0 without a
  // schedule.
  std::uint32_t epochs = 0;
  // Of those, what a monitor still keeps once every PG is clean: all of
  // them while the map's epoch stays under mon_min_osdmap_epochs, else
  // what 500 epochs leave room for (0 for a state already past 500).
  std::uint32_t epochs_kept = 0;
  // Per pool, as ChangeSafety::pools: MAX AVAIL after with epochs_kept x
  // bytes_per_epoch more used on every OSD.
  std::vector<std::uint64_t> max_avail_after;
};

// What an OSDMap's encoded size grows with.
struct OsdmapSizeInputs {
  std::uint64_t crush_bytes = 0;  // EncodeCrush(state).size()
  std::uint64_t osds = 0;         // max_osd
  std::uint64_t pools = 0;
  std::uint64_t ec_pools = 0;      // each also carries its profile
  std::uint64_t temp_entries = 0;  // pg_temp, primary_temp, upmap entries
  std::uint64_t moving_pgs = 0;    // PGs of the change (their pg_temp)
};

// `state`'s figures (moving_pgs 0). Cost: encoding its crush map.
OsdmapSizeInputs OsdmapSizeInputsOf(const ClusterState& state);

// An estimate of the bytes one osdmap epoch of the change takes on an OSD:
// the full map (crush bytes + 360 per OSD + 300 per pool + 290 per EC pool
// + 24 per temp or upmap entry + 450: within 0.5% of `ceph osd getmap` on
// the loopback clusters of both releases, 4-8 OSDs, 2-3 pools), half the
// moving PGs' pg_temp entries (the map's average while they finish) and 500
// for the incremental (228 bytes for a flag alone): within 2% of the growth
// per epoch measured on those clusters. Cost: O(1).
std::uint64_t EstimateOsdmapEpochBytes(const OsdmapSizeInputs& in);

// mon_min_osdmap_epochs' default.
inline constexpr std::uint32_t kMonMinOsdmapEpochs = 500;

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
  // The osdmaps the change leaves on every OSD; absent without MAX AVAIL.
  std::optional<OsdmapGrowth> osdmaps;
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
  // The after state's map (OsdmapGrowth), its moving PGs counted later, and
  // the epoch the change starts from.
  OsdmapSizeInputs osdmap_size;
  std::uint32_t epoch_before = 0;
};

// Errors: MaxAvailModel::Create's, naming the side ("before: ", "after: ").
absl::StatusOr<SafetyInputs> PrepareSafety(const ClusterState& before, const ClusterState& after);

// The report. `schedule` may be null (no fill timeline, peak = after);
// `fill_options` say when the copies a PG leaves are deleted.
// REQUIRES: `schedule` (if any) was simulated from `movement.moves`.
// Errors: ComputeFillTimeline's. Cost: a fill timeline plus four MAX
// AVAIL evaluations (the fourth for ChangeSafety::osdmaps, which
// PrepareSafety sized by encoding the after state's crush map).
absl::StatusOr<ChangeSafety> AssessChangeSafety(const SafetyInputs& in, const Movement& movement,
                                                const BackfillSchedule* schedule,
                                                const FillTimelineOptions& fill_options = {});

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_CHANGE_SAFETY_H_
