// Calibrating from whole changes: each change's before and after states
// and its measured result prepared into a CalibrationInput, the figures (and
// the concurrency slowdown) fitted to them together, and the calibration
// file written with what was fitted on (backfill_calibrate.h). The fitting
// itself is backfill_calibrate.cc's.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

#include "crush/status_macros.h"
#include "osdmap/formats/input_sniff.h"
#include "osdmap/planning/backfill_calibrate.h"
#include "osdmap/planning/planner.h"

namespace crushkit::osdmap {

namespace {

// One change made ready to fit: its jobs (owned here; the input's span
// points into them) and the input without the model's figures.
struct PreparedChange {
  std::string name;
  std::vector<BackfillJob> jobs;
  CalibrationInput input;
  std::map<PgId, std::uint32_t> backfilling_samples;  // ChangeMeasurement's
  double sample_interval_seconds = 0;
};

absl::StatusOr<PreparedChange> Prepare(ChangeToCalibrate change, int max_backfills,
                                       bool hold_and_wait, crush::CephRelease* release) {
  *release = change.before.ceph_release;
  PlanOptions plan;
  plan.schedule = false;
  plan.movement.keep_moves = true;
  absl::StatusOr<PlanReport> report =
      DiffTwoStates(std::move(change.before), std::move(change.after), plan);
  if (!report.ok()) return report.status();
  PreparedChange p;
  p.name = std::move(change.name);
  p.jobs = JobsFromMoves(report->movement.moves);
  p.input.osd_info = OsdInfoFromMovement(report->movement);
  p.input.options.max_backfills = max_backfills;
  p.input.options.hold_and_wait = hold_and_wait;
  p.input.measured_seconds = change.measured.seconds;
  p.input.measured_end_seconds = std::move(change.measured.end_seconds);
  p.backfilling_samples = std::move(change.measured.backfilling_samples);
  p.sample_interval_seconds = change.measured.sample_interval_seconds;
  return p;
}

// Every change's sampled PGs with objects, pooled.
std::vector<PgHoldSample> SampledHolds(const std::vector<PreparedChange>& changes) {
  std::vector<PgHoldSample> out;
  for (const PreparedChange& c : changes) {
    if (!(c.sample_interval_seconds > 0)) continue;
    for (const BackfillJob& j : c.jobs) {
      auto it = c.backfilling_samples.find(j.pg);
      if (j.objects_per_target == 0 || it == c.backfilling_samples.end()) continue;
      out.push_back({.objects = static_cast<double>(j.objects_per_target),
                     .erasure = j.erasure,
                     .hold_seconds = it->second * c.sample_interval_seconds});
    }
  }
  return out;
}

// The class most of the moving PGs' targets have ("hdd" when none has one).
std::string MostTargetsClass(const std::vector<PreparedChange>& changes) {
  std::map<std::string, std::size_t> votes;
  for (const PreparedChange& c : changes) {
    for (const BackfillJob& j : c.jobs) {
      for (std::int32_t t : j.targets) {
        const auto k = static_cast<std::size_t>(t);
        const std::vector<std::string>& classes = c.input.osd_info.device_class;
        if (k < classes.size() && !classes[k].empty()) ++votes[classes[k]];
      }
    }
  }
  std::string best = "hdd";
  std::size_t most = 0;
  for (const auto& [cls, n] : votes) {
    if (n > most) {
      most = n;
      best = cls;
    }
  }
  return best;
}

// The model's figures for the class, and the monitor's delays and the stray
// deletions' delay every input is simulated with.
absl::Status ApplyModel(const BackfillCostSettings& settings, crush::CephRelease release,
                        int max_backfills, std::vector<PreparedChange>* changes,
                        ChangeCalibration* out) {
  BackfillOptions model_options;
  model_options.max_backfills = max_backfills;
  BackfillCostSettings model_settings = settings;
  model_settings.calibrated.clear();
  model_settings.concurrency_slowdown.reset();
  model_settings.overrides.clear();
  model_settings.overrides[out->device_class];  // the class is among those reported
  absl::StatusOr<BackfillCostReport> model =
      ApplyBackfillCost(model_settings, release, &model_options);
  if (!model.ok()) return model.status();
  for (const AppliedClassCost& a : model->classes) {
    if (a.device_class == out->device_class) out->model = a.cost;
  }
  for (PreparedChange& c : *changes) {
    c.input.jobs = c.jobs;
    c.input.model = out->model;
    c.input.options.start_delay_seconds = model_options.start_delay_seconds;
    c.input.options.end_delay_seconds = model_options.end_delay_seconds;
    c.input.options.stray_delete_delay_seconds = model_options.stray_delete_delay_seconds;
  }
  return absl::OkStatus();
}

// The change simulated with `cost` at slowdown k (uncapped).
absl::StatusOr<BackfillSchedule> Schedule(const CalibrationInput& in, const BackfillCost& cost,
                                          double k) {
  BackfillOptions o = in.options;
  o.concurrency_slowdown = k;
  o.concurrency_slowdown_max_running = 0;
  o.class_rates.clear();
  o.default_rate = RateFromCost(cost);
  o.curve_max_points = 2;
  o.top_waits = 0;
  return SimulateBackfill(in.jobs, in.osd_info, o);
}

// The fit of one change (FitBackfillCost) or of several (jointly).
absl::Status Fit(const std::vector<PreparedChange>& changes, bool fit_slowdown,
                 ChangeCalibration* out) {
  if (changes.size() == 1) {
    CRUSH_ASSIGN_OR_RETURN(out->fit, FitBackfillCost(changes[0].input));
    out->changes[0].simulated_seconds = out->fit.simulated_seconds;
    out->changes[0].rms_end_error_seconds = out->fit.rms_end_error_seconds;
    return absl::OkStatus();
  }
  std::vector<CalibrationInput> inputs;
  for (const PreparedChange& c : changes) inputs.push_back(c.input);
  CRUSH_ASSIGN_OR_RETURN(const JointCalibrationResult joint,
                         FitBackfillCostJointly(inputs, {.fit_slowdown = fit_slowdown}));
  out->fit.cost = joint.cost;
  out->concurrency_slowdown = joint.concurrency_slowdown;
  out->fit.simulations = joint.simulations;
  out->fit.simulated_seconds = joint.simulated_seconds[0];
  out->fit.rms_end_error_seconds = joint.rms_end_error_seconds[0];
  for (std::size_t i = 0; i < changes.size(); ++i) {
    out->changes[i].simulated_seconds = joint.simulated_seconds[i];
    out->changes[i].rms_end_error_seconds = joint.rms_end_error_seconds[i];
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ChangeCalibration> CalibrateChanges(
    std::vector<ChangeToCalibrate> changes, const BackfillCostSettings& settings, int max_backfills,
    const std::string& device_class, bool hold_and_wait, bool fit_slowdown, bool fit_ec_factor) {
  if (changes.empty()) return absl::InvalidArgumentError("calibrate: no change to fit");
  std::vector<PreparedChange> prepared;
  crush::CephRelease release{};
  for (ChangeToCalibrate& c : changes) {
    CRUSH_ASSIGN_OR_RETURN(PreparedChange p,
                           Prepare(std::move(c), max_backfills, hold_and_wait, &release));
    prepared.push_back(std::move(p));
  }
  ChangeCalibration out;
  out.device_class = device_class.empty() ? MostTargetsClass(prepared) : device_class;
  CRUSH_RETURN_IF_ERROR(ApplyModel(settings, release, max_backfills, &prepared, &out));
  if (fit_ec_factor) {
    out.ec = FitEcHoldFactor(SampledHolds(prepared));
  } else {
    out.ec.note = "EC hold factor 1: not fitted (--no-ec-factor)";
  }
  for (PreparedChange& p : prepared) p.input.ec_hold_factor = out.ec.factor;
  for (const PreparedChange& p : prepared) {
    CalibratedChange c;
    c.name = p.name;
    c.jobs = p.jobs.size();
    c.measured_seconds = p.input.measured_seconds;
    CRUSH_ASSIGN_OR_RETURN(const BackfillSchedule s, Schedule(p.input, out.model, 0));
    c.model_seconds = s.makespan_seconds;
    c.mean_running = s.mean_running;
    c.spread = s.mean_running >= kFunnelledMeanRunning;
    out.changes.push_back(std::move(c));
  }
  out.slowdown_fitted = DecideSlowdownFit(out.changes, fit_slowdown, &out.slowdown_note);
  CRUSH_RETURN_IF_ERROR(Fit(prepared, out.slowdown_fitted, &out));
  out.fit.cost.ec_hold_factor = out.ec.factor;
  // The range k was fitted on: the most backfills at once each change ran
  // with the fitted figures and k (a plan holds the slowdown there beyond).
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    CRUSH_ASSIGN_OR_RETURN(const BackfillSchedule s,
                           Schedule(prepared[i].input, out.fit.cost, out.concurrency_slowdown));
    out.changes[i].max_running = s.max_running;
    out.slowdown_max_running = std::max(out.slowdown_max_running, s.max_running);
  }
  out.model_seconds = out.changes[0].model_seconds;
  out.jobs = out.changes[0].jobs;
  out.measured_seconds = out.changes[0].measured_seconds;
  return out;
}

absl::StatusOr<ChangeCalibration> CalibrateChange(ClusterState before, ClusterState after,
                                                  const ChangeMeasurement& measured,
                                                  const BackfillCostSettings& settings,
                                                  int max_backfills,
                                                  const std::string& device_class,
                                                  bool hold_and_wait) {
  std::vector<ChangeToCalibrate> one;
  one.push_back(ChangeToCalibrate{std::move(before), std::move(after), measured, ""});
  return CalibrateChanges(std::move(one), settings, max_backfills, device_class, hold_and_wait);
}

bool DecideSlowdownFit(std::span<const CalibratedChange> changes, bool asked, std::string* note) {
  std::size_t spread = 0;
  for (const CalibratedChange& c : changes) spread += c.spread ? 1 : 0;
  const std::size_t funnelled = changes.size() - spread;
  const std::string kinds = absl::StrFormat(
      "%u funnelled and %u spread (fewer than %.3g backfills running at once on average, or "
      "more, with the model's figures)",
      funnelled, spread, kFunnelledMeanRunning);
  if (!asked) {
    *note = "concurrency slowdown k = 0: not fitted (--no-slowdown)";
    return false;
  }
  if (changes.size() < 3 || funnelled == 0 || spread == 0) {
    *note = absl::StrFormat(
        "concurrency slowdown k = 0: fitting it needs three or more changes, at least one "
        "funnelled and one spread; given %u, %s",
        changes.size(), kinds);
    return false;
  }
  *note = absl::StrFormat(
      "concurrency slowdown k fitted within 0 .. %.3g with the figures on %u changes, %s: every "
      "backfill runs at 1 / (1 + k (n - 1)) of its pace while n run in the cluster",
      kMaxConcurrencySlowdown, changes.size(), kinds);
  return true;
}

namespace {

// The replicated PGs' hold against their objects: least squares, the slope
// kept >= 0 and the intercept >= 0 (a line through 0 and the means then).
std::pair<double, double> ReplicatedLine(std::span<const PgHoldSample> pgs) {
  double n = 0, so = 0, sh = 0;
  for (const PgHoldSample& p : pgs) {
    if (p.erasure) continue;
    n += 1;
    so += p.objects;
    sh += p.hold_seconds;
  }
  const double mo = so / n;
  const double mh = sh / n;
  double sxx = 0, sxy = 0;
  for (const PgHoldSample& p : pgs) {
    if (p.erasure) continue;
    sxx += (p.objects - mo) * (p.objects - mo);
    sxy += (p.objects - mo) * (p.hold_seconds - mh);
  }
  double b = sxx > 0 ? std::max(sxy / sxx, 0.0) : 0;
  double a = mh - b * mo;
  if (a < 0) {
    a = 0;
    b = mo > 0 ? mh / mo : 0;
  }
  return {a, b};
}

// One kind's share of the estimate's squared standard error in log: the
// variance of its holds about `predicted` (times scale) over n x mean^2.
double LogVarianceOf(std::span<const PgHoldSample> pgs, bool erasure, double a, double b,
                     double scale, double mean, double n) {
  double sum = 0;
  for (const PgHoldSample& p : pgs) {
    if (p.erasure != erasure) continue;
    const double d = p.hold_seconds - scale * (a + b * p.objects);
    sum += d * d;
  }
  return sum / n / (n * mean * mean);
}

}  // namespace

EcHoldFactorFit FitEcHoldFactor(std::span<const PgHoldSample> pgs) {
  EcHoldFactorFit f;
  double rep_hold = 0, ec_hold = 0;
  std::size_t rep_seen = 0, ec_seen = 0;  // sampled backfilling at least once
  for (const PgHoldSample& p : pgs) {
    (p.erasure ? f.erasure : f.replicated) += 1;
    (p.erasure ? ec_hold : rep_hold) += p.hold_seconds;
    if (p.hold_seconds > 0) (p.erasure ? ec_seen : rep_seen) += 1;
  }
  const std::string rule = absl::StrFormat(
      "the EC hold factor is fitted from the sampled backfill holds when there are %u PGs or more "
      "of each kind, each kind seen backfilling, and its standard error in log is at most %.2g",
      kMinPgsPerKindForEcFit, kMaxEcFactorLogError);
  if (f.replicated < kMinPgsPerKindForEcFit || f.erasure < kMinPgsPerKindForEcFit ||
      rep_seen == 0 || ec_seen == 0) {
    f.note = absl::StrFormat(
        "EC hold factor 1: %u replicated and %u EC PGs sampled (%u and %u "
        "seen backfilling); %s",
        f.replicated, f.erasure, rep_seen, ec_seen, rule);
    return f;
  }
  const double nr = static_cast<double>(f.replicated);
  const double ne = static_cast<double>(f.erasure);
  f.replicated_mean_hold = rep_hold / nr;
  f.erasure_mean_hold = ec_hold / ne;
  const auto [a, b] = ReplicatedLine(pgs);
  double line_ec = 0;
  for (const PgHoldSample& p : pgs) {
    if (p.erasure) line_ec += a + b * p.objects;
  }
  f.estimate = line_ec > 0 ? ec_hold / line_ec : 0;
  f.log_standard_error =
      std::sqrt(LogVarianceOf(pgs, false, a, b, 1, f.replicated_mean_hold, nr) +
                LogVarianceOf(pgs, true, a, b, f.estimate, f.erasure_mean_hold, ne));
  const std::string counts = absl::StrFormat(
      "%u EC PGs held %.2f s on average, %u replicated ones %.2f s (%.3g s + %.3g s per object)",
      f.erasure, f.erasure_mean_hold, f.replicated, f.replicated_mean_hold, a, b);
  if (!(f.estimate > 0) || !(f.log_standard_error <= kMaxEcFactorLogError)) {
    f.note = absl::StrFormat(
        "EC hold factor 1: the estimate %.3g has a standard error of %.2f in "
        "log; %s; %s",
        f.estimate, f.log_standard_error, counts, rule);
    return f;
  }
  f.fitted = true;
  f.factor = std::clamp(f.estimate, 1.0, kMaxFittedEcHoldFactor);
  f.note = absl::StrFormat(
      "EC hold factor %.3g (estimate %.3g, standard error %.2f in log, held within 1 .. %.3g): "
      "%s; %s",
      f.factor, f.estimate, f.log_standard_error, kMaxFittedEcHoldFactor, counts, rule);
  return f;
}

std::string CalibrationFile(const ChangeCalibration& c, absl::string_view what) {
  Calibration file;
  file.costs[c.device_class] = c.fit.cost;
  file.concurrency_slowdown =
      ConcurrencySlowdown{.k = c.concurrency_slowdown, .max_running = c.slowdown_max_running};
  std::string slowdown = c.slowdown_note;
  if (c.slowdown_fitted) {
    absl::StrAppendFormat(&slowdown,
                          ": k = %.3g, fitted with up to %u backfills at once "
                          "(concurrency_slowdown_max_running): a plan running more holds the "
                          "slowdown at its value there",
                          c.concurrency_slowdown, c.slowdown_max_running);
  }
  if (c.changes.size() > 1) {
    std::string comment = absl::StrFormat(
        "crushkit calibrate: %u changes fitted together (the sum of log(simulated / measured)^2 "
        "and the completion curves' RMS)",
        c.changes.size());
    for (const CalibratedChange& ch : c.changes) {
      absl::StrAppendFormat(&comment,
                            "\n%s: %u backfilling PGs, measured %.2f s, simulated %.2f s with "
                            "these figures (%.2f s with the model's), RMS %.2f s; %.2f at once "
                            "(%s), at most %u",
                            ch.name, ch.jobs, ch.measured_seconds, ch.simulated_seconds,
                            ch.model_seconds, ch.rms_end_error_seconds, ch.mean_running,
                            ch.spread ? "spread" : "funnelled", ch.max_running);
    }
    absl::StrAppend(&comment, "\n", slowdown, "\n", c.ec.note);
    return FormatCalibration(file, comment);
  }
  return FormatCalibration(
      file, absl::StrFormat("crushkit calibrate: %s\n%u backfilling PGs, measured %.2f s, "
                            "simulated %.2f s with these figures (%.2f s with the model's); "
                            "%u PG ends compared, RMS %.2f s%s\n%s\n%s",
                            std::string(what), c.jobs, c.measured_seconds, c.fit.simulated_seconds,
                            c.model_seconds, c.fit.pgs_compared, c.fit.rms_end_error_seconds,
                            c.fit.model_proportions && c.fit.pgs_compared > 0
                                ? absl::StrFormat("\nthe model's proportions scaled: a free fit "
                                                  "(RMS %.2f s) is not half a second better",
                                                  c.fit.free_fit_rms_seconds)
                                : std::string(),
                            slowdown, c.ec.note));
}

}  // namespace crushkit::osdmap
