// `crushkit calibrate`: the per-PG cost figures (osdmap/planning/backfill_cost.h) that
// make the simulated backfill of a finished change match what the cluster
// measured (issue 35).
//
// Input: the change's backfill jobs (JobsFromMoves of the before/after
// report), the measured duration (from the change to the last pg_temp
// dropped, loopback-change.py's pg_temp_duration_seconds) and, optionally,
// when each PG's backfill ended (its pg_temp dropped: result.json's
// pgs[].pg_temp_end_seconds).
//
// The fit (every OSD gets the same figures; a change on one device class
// calibrates that class):
//  1. The three parts of a PG's hold are normalised so each is 1 s for the
//     average job (per-PG; objects x 1/mean objects; bytes x 1/mean bytes).
//  2. For weights (a, b, c) of the three parts, the simulated makespan is
//     the monitor's fixed delays (options.start/end_delay_seconds) plus a
//     part linear in a common scale (every hold scales with it, the
//     reservation order does not change), so the scale that matches the
//     measured duration is (measured - fixed) / (simulated - fixed) (two
//     passes, in case toofull retries make it not quite linear). A PG's
//     simulated end is compared after the end delay (the measured one is
//     its pg_temp's removal).
//  3. Without per-PG end times the weights are the model's own proportions
//     (BackfillCostModel's figures for the class): only the scale is fitted.
//     With them, the weights minimise the RMS difference between the
//     simulated and the measured completion curves (the k-th PG to end,
//     sorted, against the k-th measured: Ceph grants reservations in an order
//     the simulation cannot know, so PG identities are not compared): a grid
//     over {0, 1/8 .. 8}^3, then a pattern search in log space. The free
//     fit replaces the model's proportions only when its RMS is at least
//     half a second (half the monitor's propose interval, the rounding of a
//     measured end) below theirs; otherwise it fitted noise.
// Deterministic; cost ~1,000 simulations of the change (milliseconds for a
// few hundred PGs).
#ifndef CRUSHKIT_OSDMAP_PLANNING_BACKFILL_CALIBRATE_H_
#define CRUSHKIT_OSDMAP_PLANNING_BACKFILL_CALIBRATE_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/planning/backfill_cost.h"
#include "osdmap/planning/backfill_schedule.h"

namespace crushkit::osdmap {

struct CalibrationInput {
  std::span<const BackfillJob> jobs;
  BackfillOsdInfo osd_info;
  BackfillOptions options;      // max_backfills etc.; its rates are replaced
  double measured_seconds = 0;  // > 0
  // Measured end of a PG's backfill, seconds after the change; PGs not
  // listed (or not among the jobs) are not compared.
  std::map<PgId, double> measured_end_seconds;
  // The model's proportions, used when there are no per-PG ends.
  BackfillCost model;
  // Every simulation's EC hold factor (BackfillRate::ec_hold_factor); the
  // fitted cost carries it.
  double ec_hold_factor = 1;
};

struct CalibrationResult {
  BackfillCost cost;                 // the fitted figures
  double simulated_seconds = 0;      // the makespan with them
  double rms_end_error_seconds = 0;  // completion curves, over the compared PGs; 0 without ends
  std::size_t pgs_compared = 0;
  std::size_t simulations = 0;
  // The figures are the model's proportions scaled, kept because the best
  // free fit's RMS (free_fit_rms_seconds) did not beat theirs by half the
  // monitor's propose interval (the rounding of the measured ends).
  bool model_proportions = false;
  double free_fit_rms_seconds = 0;
};

// Errors (kInvalidArgument): no jobs with objects or bytes, measured_seconds
// not > 0, and SimulateBackfill's.
absl::StatusOr<CalibrationResult> FitBackfillCost(const CalibrationInput& input);

// Two or more changes fitted together. One change cannot tell the figures
// apart when its PGs are alike, and a change whose PGs all pass through one
// OSD's reservation measures the hold per PG while one spread over every
// OSD also measures how many run at once: on the Pacific loopback cluster
// (issue 35) a reweight's fit made an `osd out` 1.7x too long, and spread
// changes came out 0.5-0.8x with figures from a funnelled one. The per-PG
// and per-object figures minimise, summed over the changes, log(simulated /
// measured makespan)^2 plus a quarter of (the completion curves' RMS /
// measured)^2: a pattern search in log space (each figure, both together,
// one traded against the other) from the model's figures and from two
// tilts of them. The bandwidth stays the model's (inputs[0].model): with it
// free, two changes were matched by a bytes-only figure that predicted the
// others 1.5x too long. Deterministic; a few hundred simulations of each
// change.
//
// With fit_slowdown the cluster-wide concurrency slowdown k
// (BackfillOptions::concurrency_slowdown) is fitted with the figures: the
// search above for each k of 0, 0.05 .. kMaxConcurrencySlowdown, then at
// +-0.025 and +-0.0125 around the best; the k and figures with the lowest
// objective win (about 15 times the cost). Bounded: on the Tentacle
// loopback clusters (issue 35, tools/dev/README.md) k settled at 0.1-0.5
// fitted from six changes, while pairs ran to the grid's edge (>= 1.0),
// absorbing whatever else told the two changes apart. Without it every
// input keeps its options' k.
struct JointFitOptions {
  bool fit_slowdown = false;
};

struct JointCalibrationResult {
  BackfillCost cost;
  double concurrency_slowdown = 0;            // fitted, or inputs[0]'s options' k
  std::vector<double> simulated_seconds;      // per input, with `cost`
  std::vector<double> rms_end_error_seconds;  // per input; 0 without ends
  double objective = 0;                       // the sum above, at the result
  std::size_t simulations = 0;
};

// Errors (kInvalidArgument): no inputs, a model figure not > 0, and
// FitBackfillCost's for any input.
absl::StatusOr<JointCalibrationResult> FitBackfillCostJointly(
    std::span<const CalibrationInput> inputs, const JointFitOptions& options = {});

// A change is funnelled when its backfills run, on average, fewer than this
// many at once (BackfillSchedule::mean_running with the model's figures and
// no slowdown), spread otherwise. On the Pacific and Tentacle loopback
// series (issue 35, tools/dev/README.md): `osd out`/`osd in` of one OSD 1.00
// (every PG through that OSD's one slot), a reweight of one OSD to 0.5
// 1.31-1.33 (most PGs leave it), a host added, drained or moved and a pool's
// rule changed 1.68-2.34.
inline constexpr double kFunnelledMeanRunning = 1.5;

// A finished change of a cluster, as `crushkit calibrate` takes it.
struct ChangeMeasurement {
  double seconds = 0;                  // to the last pg_temp dropped
  std::map<PgId, double> end_seconds;  // per PG, optional
  // The PG state samples, when recorded: for every PG with an end, how many
  // samples showed it backfilling (0 for a backfill between two samples),
  // and the mean time between samples (0: no samples).
  std::map<PgId, std::uint32_t> backfilling_samples;
  double sample_interval_seconds = 0;
};

// loopback-change.py's result.json: pg_temp_duration_seconds (else
// duration_seconds), every pgs[].pg_temp_end_seconds that is a number, and
// from samples[] (t, pgs: PG -> [state, ...]) the backfilling counts and
// interval when there are two samples or more.
// Errors (kInvalidArgument): not JSON, no duration.
absl::StatusOr<ChangeMeasurement> ParseChangeResultJson(absl::string_view json);

// One PG's measured backfill hold, for FitEcHoldFactor.
struct PgHoldSample {
  double objects = 0;  // per target
  bool erasure = false;
  double hold_seconds = 0;  // backfilling samples x the sampling interval
};

// The EC hold factor (BackfillCost::ec_hold_factor) from sampled holds:
// the replicated PGs' holds regressed on their objects (least squares, the
// slope kept >= 0), then the EC PGs' total hold over what that line gives
// for their objects. Sampled about once a second, a hold is coarse (most of
// Tentacle's backfills fell between two samples), so the factor is fitted
// only when there are kMinPgsPerKindForEcFit PGs or more of each kind, each
// kind sampled backfilling at least once, and the estimate's standard error
// in log (the delta method over both kinds' scatter) is at most
// kMaxEcFactorLogError; it is then held within [1, kMaxFittedEcHoldFactor].
// Otherwise the factor is 1. `note` says which, with the counts. O(PGs).
struct EcHoldFactorFit {
  double factor = 1;
  bool fitted = false;
  double estimate = 0;  // before the bounds; 0: none
  double log_standard_error = 0;
  std::size_t replicated = 0;
  std::size_t erasure = 0;
  double replicated_mean_hold = 0;  // seconds
  double erasure_mean_hold = 0;
  std::string note;
};

inline constexpr std::size_t kMinPgsPerKindForEcFit = 8;
inline constexpr double kMaxEcFactorLogError = 0.2;
inline constexpr double kMaxFittedEcHoldFactor = 3;

EcHoldFactorFit FitEcHoldFactor(std::span<const PgHoldSample> pgs);

// One change as the calibration saw it.
struct CalibratedChange {
  std::string name;  // what CalibrationFile says it came from
  std::size_t jobs = 0;
  double measured_seconds = 0;
  double model_seconds = 0;      // the makespan with the model's figures
  double simulated_seconds = 0;  // with the fitted ones
  double rms_end_error_seconds = 0;
  // Backfills running at once on average (model's figures, no slowdown),
  // and whether that makes it spread (>= kFunnelledMeanRunning).
  double mean_running = 0;
  bool spread = false;
  // The most backfills at once with the fitted figures and slowdown.
  std::uint32_t max_running = 0;
};

struct ChangeCalibration {
  std::string device_class;  // the class the figures are for
  BackfillCost model;        // the model's figures it started from
  // The first change's: its makespan with the model's figures, PGs that
  // backfill, measured duration; the fit (one change: FitBackfillCost's;
  // several: the joint figures, simulated_seconds and RMS of the first).
  double model_seconds = 0;
  CalibrationResult fit;
  std::size_t jobs = 0;
  double measured_seconds = 0;
  std::vector<CalibratedChange> changes;  // every change fitted, in order
  // The cluster-wide slowdown k fitted with the figures (CalibrateChanges),
  // 0 when it was not fitted, and why or how (for the file's comment).
  double concurrency_slowdown = 0;
  bool slowdown_fitted = false;
  std::string slowdown_note;
  // The range k was fitted on: the most of changes[].max_running. The file
  // records it (concurrency_slowdown_max_running) and a plan holds the
  // slowdown at n = this beyond it.
  std::uint32_t slowdown_max_running = 0;
  // The EC hold factor, from every change's sampled holds pooled
  // (FitEcHoldFactor), fit.cost.ec_hold_factor; the figures and k are fitted
  // with it.
  EcHoldFactorFit ec;
};

// A change for CalibrateChanges.
struct ChangeToCalibrate {
  ClusterState before;
  ClusterState after;
  ChangeMeasurement measured;
  std::string name;
};

// Fits the figures on the change from `before` to `after` (the moves of
// DiffTwoStates, the pushers peering picks) for one device class:
// `device_class`, or when empty the class most of the moving PGs' targets
// have ("hdd" when none has one). settings give the scheduler and profile
// of the model the fit starts from; max_backfills is osd_max_backfills
// during the change; hold_and_wait the reservation order the simulation
// uses (BackfillOptions::hold_and_wait: a calibration holds for plans made
// with the same order).
absl::StatusOr<ChangeCalibration> CalibrateChange(ClusterState before, ClusterState after,
                                                  const ChangeMeasurement& measured,
                                                  const BackfillCostSettings& settings,
                                                  int max_backfills,
                                                  const std::string& device_class = "",
                                                  bool hold_and_wait = true);

// CalibrateChange for one change or more, fitted together
// (FitBackfillCostJointly) when there are several; the device class is the
// one most targets of all of them have. The concurrency slowdown k is fitted
// with the figures (JointFitOptions::fit_slowdown) only when fit_slowdown
// is set and there are three or more changes, at least one funnelled and
// one spread (CalibratedChange::spread): one funnelled and one spread change
// do not determine it (the fitted k depended on which spread change was
// paired, issue 35), and without a funnelled change nothing separates k from
// the per-PG figures. Otherwise k is 0 and slowdown_note says why. With
// fit_ec_factor the EC hold factor is fitted first (FitEcHoldFactor on the
// changes' sampled holds, ChangeCalibration::ec), else it is 1. Errors:
// CalibrateChange's, and kInvalidArgument without changes.
absl::StatusOr<ChangeCalibration> CalibrateChanges(
    std::vector<ChangeToCalibrate> changes, const BackfillCostSettings& settings, int max_backfills,
    const std::string& device_class = "", bool hold_and_wait = true, bool fit_slowdown = true,
    bool fit_ec_factor = true);

// Whether CalibrateChanges fits the slowdown for these changes (their
// `spread` set): `asked` and three or more changes, at least one funnelled
// and one spread. *note says why or why not, naming the counts.
bool DecideSlowdownFit(std::span<const CalibratedChange> changes, bool asked, std::string* note);

// The calibration file for `c` (FormatCalibration, with a comment saying
// what it was fitted on: `what` for one change, every change's name, PGs,
// durations and backfills at once for several; and the slowdown's lines,
// k and its range slowdown_max_running, with slowdown_note).
std::string CalibrationFile(const ChangeCalibration& c, absl::string_view what);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_BACKFILL_CALIBRATE_H_
