// How long one PG's backfill holds its reservations, from Ceph's own recovery
// code and options (issue 35). The schedule (osdmap/planning/backfill_schedule.h)
// simulates the reservations; this file gives every device class the three
// figures a PG's hold is made of:
//
//   hold = per_pg_seconds + objects x seconds_per_object + bytes / bytes_per_second
//
// and where each figure came from (the model, a `crushkit calibrate` file, or
// `--backfill-rate`), so that every output can say so.
//
// The model per scheduler (the state's Ceph release decides: Pacific runs
// wpq, Quincy and later mClock, unless --recovery-scheduler says otherwise):
//
// wpq (Pacific):
//  * seconds_per_object = max(osd_recovery_sleep_<kind>, 1 / the device's
//    IOPS). OSD::do_recovery defers every recovery round by the sleep
//    (OSDService::defer_recovery_until) and OSD::_maybe_queue_recovery starts
//    at most osd_recovery_max_single_start (1) op per round, so the sleep
//    (0.1 s for a rotational OSD, osd_recovery_sleep_hdd; 0 for ssd) gates
//    every object; osd_recovery_max_active_{hdd 3, ssd 10} bounds the ops in
//    flight, which a 100 ms sleep never reaches. Without a sleep a push costs
//    about one device IO.
//  * per_pg_seconds = 2 x the sleep (the backfill's first round scans the
//    primary and the targets, MOSDPGScan; its last finds nothing left and
//    sends Backfilled: two rounds without an object,
//    PrimaryLogPG::recover_backfill) + kPgMessagingSeconds.
//  * bytes_per_second = the device's sequential bandwidth (Ceph's own figure,
//    osd_mclock_max_sequential_bandwidth_{hdd 150 MiB, ssd 1200 MiB}).
// mClock (Quincy+):
//  * the recovery sleeps are forced to 0 (OSD::maybe_override_sleep_options_
//    for_qos);
//  * recovery is guaranteed its profile's reservation share of the OSD's
//    bandwidth (mClockScheduler::set_config_defaults_from_profile:
//    background_recovery reservation 0.4 high_client_ops, 0.5 balanced,
//    0.7 high_recovery_ops; limit max), times osd_mclock_max_sequential_
//    bandwidth_<kind>: bytes_per_second = share x bandwidth;
//  * every op costs at least osd_bandwidth_cost_per_io = bandwidth /
//    osd_mclock_max_capacity_iops_<kind> bytes (mClockScheduler::
//    calc_scaled_cost): seconds_per_object = 1 / (share x capacity IOPS)
//    (hdd 315, ssd 21500 IOPS). Adding it to the bytes' time overcounts an
//    object by at most one IO.
//  * per_pg_seconds = kPgMessagingSeconds.
//  The reservation is what recovery gets on a busy OSD; an idle one lets it
//  run up to the limit (all of it), up to 1/share faster: calibrate.
// Concurrent backfills on one OSD (osd_max_backfills N > 1) share its
// device: the object and byte parts of every hold are multiplied by
// N / (1 + (N - 1) x kParallelEfficiency), so N backfills move
// 1 + (N - 1) x 0.75 times as much as one (measured 1.75x for N = 2 on
// Pacific, issue 35); the per-PG part is not shared.
// Both schedulers, erasure-coded PGs: an EC object's recovery first reads
// the shards it needs from the other OSDs holding them
// (ECBackend::continue_recovery_op: get_min_avail_to_read_shards, the
// sub-reads, the decode, then the push), a replicated one reads the
// primary's own store (ReplicatedBackend::prep_push): more work per object,
// some of it on OSDs that hold no reservation for the PG. The model has no
// figure for it (Ceph's options give none): an EC PG's hold is
// ec_hold_factor x the above, 1 unless a calibration fitted it
// (backfill_calibrate.h: the loopback clusters' EC PGs held their
// reservations 1.1-1.6x as long as replicated ones of as many objects,
// issue 35). A factor on the whole hold, not on the per-object part alone:
// the records cannot tell the per-PG from the per-object part (every PG
// held 9-11 or 26-32 objects) and Tentacle's calibrated per-object part is
// a few percent of the hold.
// Both schedulers: stray deletions preempting backfills one propose interval
// after the end delay (BackfillOptions::stray_delete_delay_seconds).
// Both schedulers: the monitor's commits around the backfill
// (BackfillOptions::start_delay_seconds / end_delay_seconds). The monitor
// proposes a map no sooner than paxos_propose_interval (1 s) after its last
// commit (PaxosService::should_propose). The change's own map is such a
// commit; its PGs peer, ask for pg_temp (PeeringState::choose_acting) and
// get it one interval later. Under the pg_temp they peer again, and a new
// interval's primary needs its up_thru recorded in the map before it may
// activate (PeeringState::GetMissing posts NeedUpThru, WaitUpThru waits for
// the map; the OSD asks with MOSDAlive, OSD::queue_want_up_thru, and
// OSDMonitor::prepare_alive commits it): a second interval. No backfill
// starts before: start delay 2 s. Measured with debug_osd 10 (issue 35,
// tools/dev/README.md): the first backfills began 2.1-2.5 s after the
// change on Pacific (1.5 s where the pg_temp came early), 1.6-2.1 s on
// Tentacle, each PG leaving WaitUpThru for Activating at the commit one
// interval after its pg_temp (0.96-0.99 s, the median of each change).
// The change ends when the map dropping the last pg_temp commits, between
// paxos_min_wait (0.05 s) and one interval after the previous commit (maps
// commit about every interval while PGs finish): end delay half an interval.
// Measured on the loopback clusters: pg_temp came 1.00 s after the change's
// map on both releases, and the maps then committed 1.00 s apart.
// Not modelled: objects larger than osd_recovery_max_chunk (8 MiB) take one
// op (and one sleep) per chunk; osd_recovery_sleep_hybrid (0.025 s); client
// load under wpq.
//
// Thread-safety: pure functions of their arguments.
#ifndef CRUSHKIT_OSDMAP_PLANNING_BACKFILL_COST_H_
#define CRUSHKIT_OSDMAP_PLANNING_BACKFILL_COST_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

#include "crush/ceph_release.h"
#include "osdmap/planning/backfill_schedule.h"

namespace crushkit::osdmap {

enum class RecoveryScheduler { kWpq, kMclock };
enum class MclockProfile { kHighClientOps, kBalanced, kHighRecoveryOps };

const char* SchedulerName(RecoveryScheduler s);  // "wpq", "mclock"
const char* ProfileName(MclockProfile p);        // Ceph's option values

// osd_op_queue's default per release: wpq before Quincy, mclock_scheduler
// from Quincy (src/common/options/osd.yaml.in).
RecoveryScheduler DefaultScheduler(crush::CephRelease release);

// Reservation round trips (MBackfillReserve to every target and back) and
// peering into the change's interval on a LAN: an assumption, a few message
// round trips and store commits.
inline constexpr double kPgMessagingSeconds = 0.05;
// Share of one more concurrent backfill's throughput an OSD adds (measured:
// osd_max_backfills 2 moved 1.75x, issue 35).
inline constexpr double kParallelEfficiency = 0.75;
// paxos_propose_interval's default (src/common/options/global.yaml.in).
inline constexpr double kPaxosProposeIntervalSeconds = 1.0;

// Ceph's recovery options for one device kind (Ceph's defaults in
// src/common/options/osd.yaml.in / global.yaml.in).
struct DeviceRecoveryOptions {
  double recovery_sleep_seconds = 0;       // osd_recovery_sleep_{hdd 0.1, ssd 0}
  int recovery_max_active = 0;             // osd_recovery_max_active_{hdd 3, ssd 10}
  double mclock_capacity_iops = 0;         // osd_mclock_max_capacity_iops_{hdd 315, ssd 21500}
  double sequential_bytes_per_second = 0;  // osd_mclock_max_sequential_bandwidth_{hdd,ssd}
};

// Ceph's defaults for a rotational or a solid-state OSD. The classes "hdd"
// is rotational; "ssd", "nvme" and any other class are not.
DeviceRecoveryOptions CephDeviceDefaults(bool rotational);

// One device class's figures (see the file comment).
struct BackfillCost {
  double per_pg_seconds = 0;
  double seconds_per_object = 0;
  double bytes_per_second = 0;  // > 0
  // An erasure-coded PG's hold over a replicated one's (file comment),
  // within [kMinEcHoldFactor, kMaxEcHoldFactor]; unset: the model's 1.
  std::optional<double> ec_hold_factor = std::nullopt;
};

// The range a calibration file's EC hold factor may take (a fit keeps within [1,
// kMaxFittedEcHoldFactor], backfill_calibrate.h).
inline constexpr double kMinEcHoldFactor = 0.1;
inline constexpr double kMaxEcHoldFactor = 10;

// The model's figures for one backfill on an OSD of these options.
// max_backfills >= 1.
BackfillCost ModelBackfillCost(const DeviceRecoveryOptions& device, RecoveryScheduler scheduler,
                               MclockProfile profile, int max_backfills);

// The schedule's rate for a cost (BackfillRate::additive).
BackfillRate RateFromCost(const BackfillCost& cost);

// What the operator set; unset figures come from a calibration, then the model.
struct BackfillRateOverride {
  std::optional<double> bytes_per_second;
  std::optional<double> objects_per_second;
  std::optional<double> per_pg_seconds;
};

// A calibration's cluster-wide concurrency slowdown (BackfillOptions::
// concurrency_slowdown) and the range of n it was fitted on: the most
// backfills the calibrating changes' simulations ran at once
// (BackfillOptions::concurrency_slowdown_max_running; the slowdown is held
// at its value there beyond it).
struct ConcurrencySlowdown {
  double k = 0;                   // 0 .. kMaxConcurrencySlowdown
  std::uint32_t max_running = 0;  // >= 1 when k > 0; 0: not recorded
};

struct BackfillCostSettings {
  std::optional<RecoveryScheduler> scheduler;        // unset: DefaultScheduler(release)
  MclockProfile profile = MclockProfile::kBalanced;  // osd_mclock_profile's default since 17.2.6
  // --backfill-rate; the key "" applies to every class.
  std::map<std::string, BackfillRateOverride, std::less<>> overrides;
  // A `crushkit calibrate` file (ParseCalibration); calibration_source names it.
  std::map<std::string, BackfillCost, std::less<>> calibrated;
  std::string calibration_source;
  // The calibration's cluster-wide slowdown k and its range (BackfillOptions::
  // concurrency_slowdown and _max_running); unset (a file from before it, or
  // none): the options' own stay.
  std::optional<ConcurrencySlowdown> concurrency_slowdown;
};

enum class CostSource { kModel, kCalibration, kFlag };
const char* CostSourceName(CostSource s);  // "model", "calibration", "--backfill-rate"

struct AppliedClassCost {
  std::string device_class;
  BackfillCost cost;
  CostSource per_pg_source = CostSource::kModel;
  CostSource objects_source = CostSource::kModel;
  CostSource bytes_source = CostSource::kModel;
  CostSource ec_source = CostSource::kModel;  // cost.ec_hold_factor's
};

// What the schedule was simulated with, for the reports.
struct BackfillCostReport {
  RecoveryScheduler scheduler = RecoveryScheduler::kWpq;
  bool scheduler_from_release = true;  // false: --recovery-scheduler
  MclockProfile profile = MclockProfile::kBalanced;
  int max_backfills = 1;
  std::string calibration_source;         // empty: none
  std::vector<AppliedClassCost> classes;  // "hdd", "ssd", "nvme" and any other named
  double start_delay_seconds = 0;         // the monitor's commits (file comment)
  double end_delay_seconds = 0;
  // BackfillOptions::stray_delete_delay_seconds: a PG's old copies are
  // deleted this long after its backfill ends, and the deletion preempts the
  // backfill holding that OSD's local slot (backfill_schedule.h).
  double stray_delete_delay_seconds = -1;
  // BackfillOptions::concurrency_slowdown and _max_running as simulated (0:
  // no cap), and whether the calibration file gave them (calibration_source
  // names the file).
  double concurrency_slowdown = 0;
  std::uint32_t concurrency_slowdown_max_running = 0;
  bool concurrency_slowdown_calibrated = false;
};

// Fills options->class_rates and default_rate (the "hdd" figures) from the
// model, then the calibration, then the overrides, for max_backfills of
// *options, the monitor's start and end delays, and the calibration's
// concurrency slowdown and its range when it has one. Errors
// (kInvalidArgument): a figure not > 0 (per-PG: < 0), a slowdown not within
// [0, kMaxConcurrencySlowdown], a slowdown above 0 without its range
// (max_running 0: it would be extrapolated to any number at once).
absl::StatusOr<BackfillCostReport> ApplyBackfillCost(const BackfillCostSettings& settings,
                                                     crush::CephRelease release,
                                                     BackfillOptions* options);

// `--backfill-rate` words: CLASS=SPEC or SPEC (every class), SPEC a comma
// list of a bytes rate (150MiB, 2GiB, 1e8), an objects rate (8obj) and a
// per-PG hold (1.5s), e.g. hdd=50MiB,8obj or ssd=400MiB,0.2s.
absl::Status ParseBackfillRateWords(const std::vector<std::string>& words,
                                    BackfillCostSettings* settings);

absl::StatusOr<RecoveryScheduler> ParseScheduler(absl::string_view text);  // wpq | mclock
absl::StatusOr<MclockProfile> ParseProfile(absl::string_view text);

// The largest cluster-wide slowdown k a calibration may give (backfill_calibrate.h
// fits within [0, this]).
inline constexpr double kMaxConcurrencySlowdown = 0.5;
// The largest range a calibration file may record (the OSD ids' bound).
inline constexpr std::uint32_t kMaxSlowdownRange = 1u << 24;

// A calibration file's content.
struct Calibration {
  std::map<std::string, BackfillCost, std::less<>> costs;
  // The concurrency_slowdown= and concurrency_slowdown_max_running= lines;
  // unset in files written before them.
  std::optional<ConcurrencySlowdown> concurrency_slowdown;
};

// A calibration file: '#' comments and lines
//   CLASS per_pg_seconds=S seconds_per_object=S bytes_per_second=B [ec_hold_factor=F]
// (F within [kMinEcHoldFactor, kMaxEcHoldFactor]; without it the model's 1)
// and at most one each of
//   concurrency_slowdown=K                (0 <= K <= kMaxConcurrencySlowdown)
//   concurrency_slowdown_max_running=N    (1 <= N <= kMaxSlowdownRange)
// A K above 0 needs its N (the most backfills at once it was fitted with):
// a file written between the two lines' introductions (a2600f6, issue 35)
// or by hand with K alone is refused, naming the line to add, rather than
// read as a slowdown that grows without bound with the backfills at once
// (k 0.25 fitted with 4 at once would make 380 at once 96x slower). A file
// without K (older, or hand-written) keeps working: no slowdown. N alone is
// refused too. Errors (kInvalidArgument) name the line.
absl::StatusOr<Calibration> ParseCalibration(absl::string_view text);
// The lines for `c` after `comment`'s lines as '#' comments; a class's
// ec_hold_factor only when set, the slowdown lines only when
// c.concurrency_slowdown is set (its range when above 0).
std::string FormatCalibration(const Calibration& c, absl::string_view comment);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_BACKFILL_COST_H_
