// How long a change backfills: an event-driven simulation of Ceph's backfill
// throttle over the PG moves a movement report lists (osdmap/planning/movement.h,
// MovementOptions::keep_moves). It answers the operator's questions after
// `crushkit diff` / `crushkit plan`: when is the cluster clean again, which
// OSDs and hosts gate it, how fast the misplaced ratio falls, which PGs wait
// longest.
//
// The model (Pacific/Reef defaults, ceph-planning-notes.md sections 1-2):
//  * Every OSD has a local and a remote reserver, each granting at most
//    `max_backfills` (osd_max_backfills, default 1) reservations at a time,
//    highest priority first, FIFO within a priority (AsyncReserver).
//  * A PG first queues for a local slot on its primary; holding it, it asks
//    its targets for remote slots one after another, in ascending OSD order
//    (PeeringState WaitLocalBackfillReserved, then WaitRemoteBackfillReserved
//    over remote_shards_to_reserve_backfill: targets unique per OSD, minus the
//    primary), keeping what it holds while it waits.
//  * That hold and wait is what Ceph does (BackfillOptions::hold_and_wait,
//    the default of the crushkit commands since issue 35's debug_osd 10
//    logs of seven Pacific changes, tools/dev/README.md): on a drain PGs
//    held a local slot 110 s in all while waiting for a target, against 84 s
//    backfilling; on a host move 320 s against 65 s, and remote slots 184 s
//    (2/3 of it by PGs still waiting for another target). The spread
//    changes (add a host, drain, move) ran 1.6-2.1 PGs at a time where the
//    work-conserving order below runs 2-3, and came out 0.5-0.75x of
//    measured under it. Two more parts of Ceph's behaviour, both in the
//    same logs, are modelled with it: a stray deletion preempting a PG that
//    still waits for a target leaks that PG's local slot (below), and a
//    primary pushing more backfills than max_backfills shares its recovery
//    among them (recovery runs through the OSD's one recovery queue:
//    OSD::do_recovery defers each round by the OSD's recovery sleep,
//    OSDService::defer_recovery_until; osd_recovery_max_active bounds the
//    OSD's ops in flight), each at max_backfills / running of its pace.
//    hold_and_wait false (kept for the tests of the work-conserving order
//    and as --reservations all-at-once) takes the slots all at once: a PG starts when
//    its primary's local slot and every target's remote slot are free, in
//    the reservers' order (priority, then oldest request), and holds
//    nothing while it waits: the optimistic side of Ceph. A slot an OSD
//    frees is offered to the first 16 PGs waiting for it, tried together
//    with those of the other OSDs freed at that instant in the reservers'
//    order; if none of them can take it, the next 16 are tried at the next
//    event (at once when nothing runs), which keeps large schedules fast.
//    Both are deadlock-free.
//  * Holding everything it backfills for a fixed duration, then releases all.
//    The primary pushes each object to every target at once, so the PG moves
//    at the pace of its slowest OSD: duration = max(bytes_per_target / the
//    lowest bytes rate among primary and targets, objects_per_target / the
//    primary's objects rate). EC read sources other than the primary hold no
//    reservation and are not modelled.
//  * All PGs request at the start delay, in input order (FIFO order within a
//    priority); a PG refused for space asks again at the end of that order.
//  * backfill_toofull (when BackfillOsdInfo gives capacities and a ratio is
//    set): a target checks its projected use when a remote request arrives
//    (PG::try_reserve_recovery_space -> OSDService::tentative_backfill_full):
//    its use now (what `ceph osd df` showed, plus every backfill into it that
//    has reserved since, counted whole from its reservation as Ceph's
//    pg_stat_adjust does, minus the copies deleted so far, each from its
//    deletion + stray_freed_lag_seconds, when the OSD's statfs shows it)
//    plus this PG's bytes for it (all at once: when the PG would start);
//    above `backfillfull_ratio` x capacity it refuses. The PG releases
//    everything it holds (WaitRemoteBackfillReserved's
//    RemoteReservationRejectedTooFull -> retry) and asks again from the start
//    after osd_backfill_retry_interval (30 s). A PG's old copies are deleted
//    after its backfill ends (the primary purges strays once the PG is clean),
//    which is what lets a stalled PG proceed. When nothing runs any more and
//    every waiting PG has been refused twice with nothing started or freed in
//    between, the rest can never proceed: they are reported and left unscheduled.
// Simplifications, each on the optimistic or the neutral side:
//  * concurrent backfills on one OSD do not share its bandwidth (each runs at
//    its full rate, so max_backfills N allows N times the throughput);
//  * preemption only by stray deletions (below); a degraded PG's backfill
//    waits for the holder to finish instead of preempting it (AsyncReserver
//    preempts a lower-priority holder when a strictly higher-priority
//    request queues on a full reserver); no log-based recovery sharing the
//    slots, no message latency, no client load;
//  * toofull is checked only when the reservation is asked for (Ceph also
//    revokes a running backfill whose target crosses the ratio mid-way,
//    do_scan's check_backfill_full; a reservation counting the PG's bytes
//    whole makes that rare), EC shards count their bytes without Ceph's
//    per-object chunk padding, and client writes do not grow any OSD;
//  * the misplaced curve counts a PG's objects down evenly while it pushes
//    (Ceph counts them down object by object: update_calc_stats), between
//    the halves of its per-PG part; a preempted PG is counted down over its
//    first start to its end, the pause included.
// Stray deletions preempt backfills (BackfillOptions::
// stray_delete_delay_seconds): when a PG's backfill ends, every OSD it
// leaves deletes its old copy once the PG is clean in its final interval
// (the monitor drops the pg_temp, the PG peers, the primary purges its
// strays). The deletion takes that OSD's local reservation at
// OSD_DELETE_PRIORITY_NORMAL (ToDelete's WaitDeleteReserved, priority 179,
// released at once), so on a full local reserver AsyncReserver::preempt_one
// revokes the lowest-priority backfill holding a slot there (then the
// lowest PG id): a running PG gets DeferBackfill(0)
// (Backfilling::react(DeferBackfill)), releases every slot, keeps
// what it copied (the targets' last_backfill) and asks again at once, at the
// end of the reservers' order; when it starts again it scans again (the
// per-PG part of its hold once more). With hold and wait the holder may
// still be waiting for a target (WaitRemoteBackfillReserved): that state has
// no reaction to DeferBackfill (PeeringState.h), so the PG drops the event,
// keeps its remote reservations and its place in the targets' queues, and
// backfills when they are granted, without a local slot, while the reserver
// grants the freed slot to the primary's next PG (Pacific 16.2.15, issue 35:
// "DeferBackfill: delay 0" logged by a PG in backfill_wait that then
// backfilled beside another PG of its primary). Seen with debug_reserver 10 on a
// Pacific loopback cluster (issue 35, tools/dev/README.md): 3 preemptions
// by deletions in a reweight of 13 PGs, the deletions 1.1-2.0 s (mean
// 1.55 s) after their PG's backfill ended; in the 7 earlier Pacific changes
// PGs went from backfilling back to backfill_wait 26 times. The deletion
// itself then runs without a reservation (osd_delete_sleep_hdd 5 s between
// its transactions on Pacific; 0 under mClock).
// The rates are assumptions (see DefaultBackfillRates()); override them per
// device class with what the cluster shows in `ceph -s` recovery io.
//
// Thread-safety: SimulateBackfill() is a pure function of its arguments (the
// trace callback runs on the calling thread); results are plain values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_BACKFILL_SCHEDULE_H_
#define CRUSHKIT_OSDMAP_PLANNING_BACKFILL_SCHEDULE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/types.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/planning/movement.h"

namespace crushkit::osdmap {

// Ceph's backfill priorities (osd_types.h OSD_BACKFILL_PRIORITY_BASE 100,
// OSD_BACKFILL_DEGRADED_PRIORITY_BASE 140) plus the 10 that
// PeeringState::clamp_recovery_priority adds for a pool recovery_priority of
// 0; a plain misplaced backfill queues at 110 (observed on 16.2.15).
inline constexpr int kBackfillPriority = 110;
inline constexpr int kBackfillDegradedPriority = 150;
// A stray PG copy's deletion asks its OSD's local reserver at this priority
// (OSD_DELETE_PRIORITY_NORMAL; observed 179 on 16.2.15, debug_reserver 10).
inline constexpr int kDeletePriority = 179;

// One PG to backfill.
struct BackfillJob {
  PgId pg;
  // Holds the local reservation and reads; crush::kItemNone: none known
  // (PgMove::source is the before set's first position, a hole for an EC PG
  // that had lost shard 0), then only the targets are reserved.
  std::int32_t primary = crush::kItemNone;
  // OSDs receiving a copy or shard (an OSD may appear twice for two EC shards
  // and may be the primary itself); remote slots are taken once per distinct
  // OSD other than the primary. Must not be empty.
  std::vector<std::int32_t> targets;
  std::uint64_t bytes_per_target = 0;
  std::uint64_t objects_per_target = 0;
  int priority = kBackfillPriority;  // higher is served first
  // OSDs whose copy (or shard) of the PG is deleted when its backfill ends,
  // bytes_per_target each (PgMove::leaving); only the backfill_toofull check
  // reads them.
  std::vector<std::int32_t> leaving;
  // An erasure-coded pool's PG: its hold is BackfillRate::ec_hold_factor
  // times a replicated one's of the same objects and bytes.
  bool erasure = false;
};

// One job per move: primary = the move's pusher (the primary peering picks,
// osdmap/planning/backfill_pusher.h), priority kBackfillDegradedPriority
// when the move is degraded, else kBackfillPriority; leaving = the move's.
// Cost O(moves x targets).
std::vector<BackfillJob> JobsFromMoves(std::span<const PgMove> moves);

// What one backfill sustains on an OSD of a device class.
struct BackfillRate {
  double bytes_per_second = 0;    // must be > 0
  double objects_per_second = 0;  // 0: no object-rate limit
  // The per-PG cost model (osdmap/planning/backfill_cost.h) sets these: a fixed hold
  // per PG (the primary's, or the first target's without a primary), and
  // duration = per_pg_seconds + objects / objects rate + bytes / bytes rate
  // (additive) instead of the larger of the two rates' times.
  double per_pg_seconds = 0;
  bool additive = false;
  // An erasure-coded PG's hold (BackfillJob::erasure) is this times the
  // above, the rescan after a preemption too (the lead OSD's rate: the
  // primary's, or the first target's; backfill_cost.h). Must be > 0.
  double ec_hold_factor = 1;
};

// The assumed per-class figures (assumptions, not measurements; override
// them): "hdd" 100 MiB/s and 10 objects/s (Pacific osd_recovery_sleep_hdd
// 0.1 s between recovery starts on a primary bounds it to ~10 pushes/s),
// "ssd" 400 MiB/s (a SATA SSD's ~500 MB/s less client I/O; recovery sleep 0),
// "nvme" 1 GiB/s (a 10 GbE link's ~1.16 GiB/s bounds one stream).
std::map<std::string, BackfillRate, std::less<>> DefaultBackfillRates();

// Per-OSD facts, indexed by OSD id; ids past the end or empty strings mean
// unknown (the default rate; no host).
struct BackfillOsdInfo {
  std::vector<std::string> device_class;
  std::vector<std::string> host;  // all empty: no per-host report
  // `ceph osd df` capacity and use in bytes, for the backfill_toofull check;
  // capacity 0 or past the end: unknown, the OSD never refuses.
  std::vector<std::uint64_t> capacity_bytes;
  std::vector<std::uint64_t> used_bytes;
};

// device_class and host of every OSD in the movement report (Movement::osds),
// and capacity and use (used_before) of those whose capacity came from
// `ceph osd df` (OsdMovement::capacity_from_osd_df).
BackfillOsdInfo OsdInfoFromMovement(const Movement& movement);

// Describes one reservation change or job transition (tests, debugging).
struct BackfillTraceEvent {
  enum class Kind {
    kLocalGranted,    // `osd` (the primary) granted a local slot to `job`
    kRemoteGranted,   // `osd` granted a remote slot to `job`
    kStarted,         // `job` holds everything and starts moving data
    kLocalReleased,   // `job` finished and freed its local slot on `osd`
    kRemoteReleased,  // `job` finished (or was refused) and freed its remote slot on `osd`
    kTooFull,         // `osd` refused `job`'s remote request: backfill_toofull
    kRetry,           // `job` asks again after osd_backfill_retry_interval
    kPreempted,       // a stray deletion on `osd` (its primary) revoked running `job`
  };
  Kind kind = Kind::kStarted;
  double seconds = 0;
  std::size_t job = 0;  // index into the jobs given
  std::int32_t osd = crush::kItemNone;
};

struct BackfillOptions {
  int max_backfills = 1;  // osd_max_backfills; must be >= 1
  std::map<std::string, BackfillRate, std::less<>> class_rates = DefaultBackfillRates();
  // For OSDs without a class or with a class not in class_rates (the "hdd"
  // figures: the pessimistic choice).
  BackfillRate default_rate = {100.0 * 1024 * 1024, 10};
  // Denominator of the misplaced ratio: every object copy in the cluster
  // (Movement::totals.objects_total, Ceph's sum of num_object_copies); 0:
  // ratios are reported as 0.
  std::uint64_t objects_total = 0;
  // The curve keeps at most this many points (the first point at or after
  // each of evenly spaced instants, always the first and last); 0 keeps
  // every point where it bends. 1 or 2: its two ends only, without the
  // O(jobs log jobs) sort that builds the rest.
  std::size_t curve_max_points = 1000;
  std::size_t top_waits = 20;                            // how many longest-waiting PGs to report
  std::function<void(const BackfillTraceEvent&)> trace;  // optional
  // A target refuses a PG whose bytes would take its projected use above
  // this share of its capacity (OSDService uses max(backfillfull_ratio,
  // nearfull_ratio) of the osdmap). nullopt: SimulateBackfill checks
  // nothing; SimulateMovementBackfill takes the movement's ratios.
  std::optional<double> backfillfull_ratio;
  // osd_backfill_retry_interval (Ceph's default 30 s, src/common/options/
  // global.yaml.in): a refused PG asks again after this long; must be > 0.
  double backfill_retry_seconds = 30;
  // The monitor's commits around the backfill (>= 0; see ApplyBackfillCost
  // for Ceph's figures): no PG asks for its reservations before
  // start_delay_seconds (the change's PGs first need their pg_temp, which
  // the monitor commits in a later map, then peer under it and wait for the
  // map that records their primary's up_thru: WaitUpThru), and the change
  // ends end_delay_seconds after the last backfill (the monitor's commit of
  // the map that drops the last pg_temp). The misplaced curve still opens at
  // 0; makespan_seconds includes both (0 without jobs); job timings include
  // the start delay, not the end delay.
  double start_delay_seconds = 0;
  double end_delay_seconds = 0;
  // How a PG takes its slots (see the file comment). true (the default, as
  // the OSD logs show Ceph does): its state machine taken literally, the
  // local slot first, then the remote ones one at a time, keeping what it
  // holds while it waits. false: all at once, when its primary's local slot
  // and every target's remote slot are free, holding nothing while it waits.
  bool hold_and_wait = true;
  // Stray deletions preempting backfills (see the file comment): each OSD a PG leaves deletes its
  // old copy this long after the PG's backfill ends, and that deletion revokes the lowest-priority
  // backfill holding the OSD's last local slot. < 0: not modelled.
  // ApplyBackfillCost sets the monitor's end delay + one propose interval.
  double stray_delete_delay_seconds = -1;
  // From a stray deletion to when a target's backfillfull check sees the
  // space it freed (>= 0; with stray deletions modelled): the check reads
  // the OSD's osd_stat, which OSD::heartbeat refreshes from the store's
  // statfs every 0.5 + U{0, 0.1, .., 0.9} x osd_heartbeat_interval (6 s), so
  // a deletion waits ~2 s on average for the next refresh. Without stray
  // deletions a leaving copy's bytes are given back at its PG's end.
  double stray_freed_lag_seconds = 2;
  // A cluster-wide slowdown k (issue 35): while n backfills run anywhere in
  // the cluster, each runs at 1 / (1 + k (n - 1)) of its pace (after its
  // primary's share), re-timed whenever n changes. It stands for time spent
  // outside the backfills that grows with how many run at once (peering,
  // reservation round trips, the monitor, a loaded host); a change
  // funnelled through one OSD runs one at a time and does not feel it.
  // `crushkit calibrate` fits it from three or more changes
  // (backfill_calibrate.h). 0 (the default): none, the schedule is exactly
  // the one without it. The running jobs' work advances on a clock that
  // runs at 1 / (1 + k (n - 1)) of real time, so a change of n moves no
  // end: O(1) per start and end beside the event queue's O(log jobs).
  // Must be finite and >= 0.
  double concurrency_slowdown = 0;
  // The most backfills at once the slowdown is applied for: with n running
  // each runs at 1 / (1 + k (min(n, this) - 1)) of its pace, so a k fitted
  // on a small cluster (a few at once) is never extrapolated to hundreds
  // (issue 35: k 0.1 fitted on 8 OSDs made 10,000 OSDs' backfill 48x long).
  // `crushkit calibrate` records the most its changes' simulations ran at
  // once (backfill_cost.h, ConcurrencySlowdown::max_running). 0: no cap.
  std::uint32_t concurrency_slowdown_max_running = 0;
};

// A point of the misplaced curve; the curve is linear between two points
// (two points at one instant: a drop at once).
struct MisplacedPoint {
  double seconds = 0;
  // Over the PGs not finished: objects x targets, less what a running PG
  // has pushed (rounded to the nearest object).
  std::uint64_t objects_misplaced = 0;
  double ratio = 0;  // objects_misplaced / objects_total
};

struct OsdBackfillLoad {
  std::int32_t osd = 0;
  double busy_seconds = 0;      // holding at least one reservation (local or remote)
  double transfer_seconds = 0;  // at least one of its backfills moving data
  std::uint32_t jobs_as_primary = 0;
  std::uint32_t jobs_as_target = 0;  // jobs with this OSD among their targets
  std::uint64_t bytes_in = 0;        // bytes written to it
};

struct HostBackfillLoad {
  std::string host;
  double busy_seconds = 0;      // at least one of its OSDs holding a reservation
  double osd_busy_seconds = 0;  // sum of its OSDs' busy_seconds
  std::uint32_t osds = 0;       // its OSDs taking part
};

struct BackfillJobTiming {
  double start_seconds = 0;  // all reservations held, data starts moving
  double end_seconds = 0;    // done, reservations released
  // backfill_toofull: refusals, the last OSD that refused, and the time from
  // the first refusal to the start (to the end of the simulation for a job
  // that never starts; then start_seconds = end_seconds = that end).
  std::uint32_t toofull_refusals = 0;
  std::int32_t toofull_osd = crush::kItemNone;
  double toofull_seconds = 0;
  bool never_starts = false;
  // Times a stray deletion revoked it while it ran (start_seconds is its
  // first start).
  std::uint32_t preemptions = 0;
};

// A PG that waited in backfill_toofull.
struct BackfillStall {
  std::size_t job = 0;  // index into the jobs given
  PgId pg;
  std::int32_t osd = crush::kItemNone;  // the target that refused it last
  std::uint32_t refusals = 0;
  double first_seconds = 0;  // when it was first refused
  double seconds = 0;        // from the first refusal to its start
  bool never_starts = false;
};

struct BackfillWait {
  std::size_t job = 0;  // index into the jobs given
  PgId pg;
  int priority = 0;
  double wait_seconds = 0;  // from the request (time 0) to start
  double start_seconds = 0;
  double end_seconds = 0;
};

struct BackfillSchedule {
  double makespan_seconds = 0;  // last end + end delay; 0 with no jobs
  // BackfillOptions::end_delay_seconds: a PG's pg_temp is dropped this long
  // after its end (osdmap/planning/fill_timeline.h deletes the copies it replaced then).
  double end_delay_seconds = 0;
  std::uint64_t bytes_total = 0;            // sum of bytes_per_target x targets
  std::vector<MisplacedPoint> misplaced;    // (0, all) .. (last end, what never started)
  std::vector<OsdBackfillLoad> osds;        // every OSD taking part, busiest first
  std::vector<HostBackfillLoad> hosts;      // busiest first; empty without hosts
  std::vector<BackfillWait> longest_waits;  // longest first, then job order
  std::vector<BackfillJobTiming> jobs;      // per job, in input order
  // Every PG refused at least once: those that never start first, then the
  // longest stalls, then job order. Jobs that never start are not in
  // longest_waits, and makespan_seconds is the last end of those that ran.
  std::vector<BackfillStall> stalls;
  std::uint32_t jobs_never_starting = 0;
  std::uint32_t preemptions = 0;  // sum of jobs[].preemptions
  // The mean number of backfills running at once over the time at least
  // one runs (1 for a change funnelled through one OSD's slot; 0 without
  // jobs). backfill_calibrate.h tells funnelled from spread changes by it.
  double mean_running = 0;
  // The most backfills running at once at any instant (0 without jobs):
  // what `crushkit calibrate` records as the slowdown's fitted range, and
  // what a plan compares with it.
  std::uint32_t max_running = 0;
};

// The longest one PG's backfill may hold its reservations (31 million
// years): any sum of such holds, slowed by any slowdown, stays finite.
inline constexpr double kMaxHoldSeconds = 1e15;

// Simulates the backfill of `jobs` under Ceph's reservation throttle (see the
// file comment). Deterministic: the same input gives the same schedule.
// Errors (kInvalidArgument, naming the PG where there is one): max_backfills
// < 1 (nothing could ever be reserved), backfill_retry_seconds not > 0 with
// a ratio set, a job without targets, an OSD id that
// is negative (other than a kItemNone primary) or above 2^24, a bytes rate
// that is not > 0 or an objects rate < 0 for an OSD a job uses, a job whose
// hold would pass kMaxHoldSeconds.
// Cost: O((jobs x targets) log jobs) time, O(jobs x targets + max OSD id)
// memory; for 100,000 jobs on 1,000 OSDs ~0.2 s with hold_and_wait, ~1 s
// all at once (16 tries per freed slot).
absl::StatusOr<BackfillSchedule> SimulateBackfill(std::span<const BackfillJob> jobs,
                                                  const BackfillOsdInfo& osd_info,
                                                  const BackfillOptions& options = {});

// `options` as a movement report's schedule is simulated with: when
// options.objects_total is 0, movement.totals.objects_total as the ratio's
// denominator, and when options.backfillfull_ratio is unset,
// max(backfillfull_ratio, nearfull_ratio) of movement.risks.
BackfillOptions MovementBackfillOptions(const Movement& movement, BackfillOptions options);

// The schedule of a movement report made with MovementOptions::keep_moves:
// JobsFromMoves(movement.moves), OsdInfoFromMovement(movement) and
// MovementBackfillOptions(movement, options).
// Errors and cost: SimulateBackfill's.
absl::StatusOr<BackfillSchedule> SimulateMovementBackfill(const Movement& movement,
                                                          BackfillOptions options = {});

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_BACKFILL_SCHEDULE_H_
