#include "osdmap/planning/backfill_calibrate.h"

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
#include "osdmap/planning/planner.h"

namespace crushkit::osdmap {
namespace {

// Half the monitor's propose interval (paxos_propose_interval 1 s): how far
// a measured PG end (its pg_temp's removal) is from the backfill's end.
constexpr double kEndRoundingSeconds = 0.5;

// A cost from normalised weights: each part is weight x its unit.
struct Units {
  double per_pg = 1;      // seconds per PG at weight 1
  double per_object = 0;  // seconds per object at weight 1
  double per_byte = 0;    // seconds per byte at weight 1
};

BackfillCost CostOf(const Units& u, const std::array<double, 3>& w, double scale) {
  BackfillCost c;
  c.per_pg_seconds = scale * w[0] * u.per_pg;
  c.seconds_per_object = scale * w[1] * u.per_object;
  const double per_byte = scale * w[2] * u.per_byte;
  c.bytes_per_second = per_byte > 0 ? 1 / per_byte : 1e300;
  return c;
}

class Fitter {
 public:
  explicit Fitter(const CalibrationInput& in) : in_(in), options_(in.options) {
    options_.curve_max_points = 2;
    options_.top_waits = 0;
    options_.trace = nullptr;
  }

  absl::StatusOr<BackfillSchedule> Simulate(const BackfillCost& c) {
    ++simulations_;
    options_.class_rates.clear();
    options_.default_rate = RateFromCost(c);
    options_.default_rate.ec_hold_factor = in_.ec_hold_factor;
    return SimulateBackfill(in_.jobs, in_.osd_info, options_);
  }

  // Scales weights w so the makespan matches; returns the cost and fills *err
  // with the RMS end-time difference (0 without measured ends).
  absl::StatusOr<BackfillCost> Match(const Units& u, const std::array<double, 3>& w, double* err,
                                     double* makespan) {
    double scale = 1;
    BackfillCost c = CostOf(u, w, scale);
    absl::StatusOr<BackfillSchedule> s;
    // The monitor's delays do not scale with the holds: the makespan is
    // fixed + scale x (the rest).
    const double fixed = options_.start_delay_seconds + options_.end_delay_seconds;
    const double target = std::max(in_.measured_seconds - fixed, 0.1 * in_.measured_seconds);
    for (int pass = 0; pass < 2; ++pass) {
      s = Simulate(c);
      if (!s.ok()) return s.status();
      if (!(s->makespan_seconds - fixed > 0)) break;
      scale *= target / (s->makespan_seconds - fixed);
      c = CostOf(u, w, scale);
    }
    s = Simulate(c);
    if (!s.ok()) return s.status();
    *makespan = s->makespan_seconds;
    *err = EndError(*s);
    return c;
  }

  // The RMS difference between the simulated and the measured completion
  // curves, not PG by PG: Ceph grants reservations in an order the
  // simulation does not know (message arrival), so which PG ends when
  // differs while how many have ended by when does not. 0 without ends.
  double EndError(const BackfillSchedule& s) {
    std::vector<double> simulated;
    std::vector<double> measured;
    for (std::size_t j = 0; j < in_.jobs.size(); ++j) {
      auto it = in_.measured_end_seconds.find(in_.jobs[j].pg);
      if (it == in_.measured_end_seconds.end()) continue;
      // Measured: when the monitor dropped the PG's pg_temp, after its end.
      simulated.push_back(s.jobs[j].end_seconds + options_.end_delay_seconds);
      measured.push_back(it->second);
    }
    std::sort(simulated.begin(), simulated.end());
    std::sort(measured.begin(), measured.end());
    double sum = 0;
    const std::size_t n = simulated.size();
    for (std::size_t k = 0; k < n; ++k) {
      const double d = simulated[k] - measured[k];
      sum += d * d;
    }
    compared_ = n;
    return n > 0 ? std::sqrt(sum / static_cast<double>(n)) : 0;
  }

  std::size_t simulations() const { return simulations_; }

  std::size_t compared() const { return compared_; }

 private:
  const CalibrationInput& in_;
  BackfillOptions options_;
  std::size_t simulations_ = 0;
  std::size_t compared_ = 0;
};

// The job totals a fit normalises by: per object and per byte at weight 1
// are one average job's worth. Errors: nothing moves.
absl::StatusOr<Units> UnitsOf(const CalibrationInput& input) {
  double objects = 0;
  double bytes = 0;
  std::size_t moving = 0;
  for (const BackfillJob& j : input.jobs) {
    if (j.objects_per_target == 0 && j.bytes_per_target == 0) continue;
    objects += static_cast<double>(j.objects_per_target);
    bytes += static_cast<double>(j.bytes_per_target);
    ++moving;
  }
  if (moving == 0) {
    return absl::InvalidArgumentError(
        "calibrate: the change backfills no objects or bytes; nothing to calibrate on");
  }
  Units u;
  u.per_object = objects > 0 ? static_cast<double>(moving) / objects : 0;
  u.per_byte = bytes > 0 ? static_cast<double>(moving) / bytes : 0;
  return u;
}

// A cost's figures as weights in the normalised units.
std::array<double, 3> WeightsOf(const BackfillCost& c, const Units& u) {
  return {c.per_pg_seconds / u.per_pg, u.per_object > 0 ? c.seconds_per_object / u.per_object : 0,
          u.per_byte > 0 && c.bytes_per_second > 0 ? 1 / c.bytes_per_second / u.per_byte : 0};
}

absl::Status CheckMeasured(const CalibrationInput& input) {
  if (!(input.measured_seconds > 0) || !std::isfinite(input.measured_seconds)) {
    return absl::InvalidArgumentError(
        absl::StrCat("calibrate: measured duration ", input.measured_seconds, " s; expected > 0"));
  }
  return absl::OkStatus();
}

// The best of the weights tried so far, scaled to the measured duration.
class ScaledSearch {
 public:
  ScaledSearch(const CalibrationInput& in, const Units& u) : fit_(in), u_(u) {}

  absl::Status Consider(const std::array<double, 3>& w) {
    if (w[0] + w[1] + w[2] <= 0) return absl::OkStatus();
    double err = 0;
    double makespan = 0;
    absl::StatusOr<BackfillCost> c = fit_.Match(u_, w, &err, &makespan);
    if (!c.ok()) return c.status();
    if (err < best_err_ - 1e-12) {
      best_err_ = err;
      best_.cost = *c;
      best_.simulated_seconds = makespan;
      best_.rms_end_error_seconds = err;
      best_.pgs_compared = fit_.compared();
    }
    return absl::OkStatus();
  }

  // A grid over {0, 1/8 .. 8}^3, then a pattern search in log space around
  // the best point (a zero weight stays zero unless a step from a small
  // value finds better).
  absl::Status FreeFit() {
    static constexpr double kGrid[] = {0, 0.125, 0.25, 0.5, 1, 2, 4, 8};
    for (double a : kGrid) {
      for (double b : kGrid) {
        for (double c : kGrid) CRUSH_RETURN_IF_ERROR(Consider({a, b, c}));
      }
    }
    std::array<double, 3> w = WeightsOf(best_.cost, u_);
    const double sum = w[0] + w[1] + w[2];
    for (double& x : w) x /= sum;
    for (double step = 0.5; step > 0.01; step /= 2) {
      bool improved = true;
      while (improved) {
        improved = false;
        for (int k = 0; k < 3; ++k) {
          for (double f : {1 + step, 1 / (1 + step)}) {
            std::array<double, 3> t = w;
            t[k] = t[k] > 0 ? t[k] * f : (f > 1 ? 0.01 * step : 0);
            const double before = best_err_;
            CRUSH_RETURN_IF_ERROR(Consider(t));
            if (best_err_ < before - 1e-9) {
              w = t;
              improved = true;
            }
          }
        }
      }
    }
    return absl::OkStatus();
  }

  const CalibrationResult& best() const { return best_; }

  double best_err() const { return best_err_; }

  std::size_t simulations() const { return fit_.simulations(); }

 private:
  Fitter fit_;
  Units u_;
  CalibrationResult best_;
  double best_err_ = std::numeric_limits<double>::infinity();
};

}  // namespace

absl::StatusOr<CalibrationResult> FitBackfillCost(const CalibrationInput& input) {
  CRUSH_RETURN_IF_ERROR(CheckMeasured(input));
  CRUSH_ASSIGN_OR_RETURN(const Units u, UnitsOf(input));
  ScaledSearch search(input, u);
  CRUSH_RETURN_IF_ERROR(search.Consider(WeightsOf(input.model, u)));
  const CalibrationResult with_model = search.best();
  const double model_err = search.best_err();
  if (!input.measured_end_seconds.empty() && with_model.pgs_compared > 0) {
    CRUSH_RETURN_IF_ERROR(search.FreeFit());
  }
  // The measured ends are the monitor's commits, about one propose interval
  // apart: a free fit that beats the model's proportions by less than half
  // an interval has fitted that rounding (on the Pacific loopback cluster a
  // reweight's ends chose bytes only, 0.8 MB/s, which made an `osd out`
  // through one target 1.7x too long; the proportions, mostly per object,
  // gave 1.06x), so the proportions stay.
  CalibrationResult best = search.best();
  best.free_fit_rms_seconds = search.best_err();
  if (model_err - search.best_err() < kEndRoundingSeconds) {
    best = with_model;
    best.free_fit_rms_seconds = search.best_err();
    best.model_proportions = true;
  }
  best.simulations = search.simulations();
  return best;
}

namespace {

// The joint fit's objective for one cost: per change, log(simulated /
// measured)^2 plus a quarter of (completion-curve RMS / measured)^2.
class JointObjective {
 public:
  explicit JointObjective(std::span<const CalibrationInput> inputs) {
    for (const CalibrationInput& in : inputs) fitters_.emplace_back(in);
    for (const CalibrationInput& in : inputs) measured_.push_back(in.measured_seconds);
  }

  absl::StatusOr<double> Evaluate(const BackfillCost& c, JointCalibrationResult* out) {
    double sum = 0;
    out->simulated_seconds.clear();
    out->rms_end_error_seconds.clear();
    for (std::size_t i = 0; i < fitters_.size(); ++i) {
      CRUSH_ASSIGN_OR_RETURN(const BackfillSchedule s, fitters_[i].Simulate(c));
      const double rms = fitters_[i].EndError(s);
      const double miss = std::log(std::max(s.makespan_seconds, 1e-9) / measured_[i]);
      sum += miss * miss + 0.25 * (rms / measured_[i]) * (rms / measured_[i]);
      out->simulated_seconds.push_back(s.makespan_seconds);
      out->rms_end_error_seconds.push_back(rms);
    }
    out->cost = c;
    return sum;
  }

  // Evaluate at log figures x (CostFromLogs), remembered: the pattern
  // search comes back to points it has tried (the reverse of a step taken,
  // a sweep that found nothing at a step the next one repeats, another
  // start converging), which were half its simulations. Points within 1e-9
  // in log space are the same point.
  absl::StatusOr<double> EvaluateAt(const std::array<double, 3>& x, JointCalibrationResult* out);

  std::size_t simulations() const {
    std::size_t n = 0;
    for (const Fitter& f : fitters_) n += f.simulations();
    return n;
  }

 private:
  std::vector<Fitter> fitters_;
  std::vector<double> measured_;
  std::map<std::array<std::int64_t, 3>, std::pair<double, JointCalibrationResult>> tried_;
};

// The cost from log figures: per-PG seconds, seconds per object, seconds
// per byte.
BackfillCost CostFromLogs(const std::array<double, 3>& x) {
  return BackfillCost{std::exp(x[0]), std::exp(x[1]), 1 / std::exp(x[2])};
}

absl::StatusOr<double> JointObjective::EvaluateAt(const std::array<double, 3>& x,
                                                  JointCalibrationResult* out) {
  std::array<std::int64_t, 3> key;
  for (std::size_t i = 0; i < 3; ++i) key[i] = std::llround(x[i] * 1e9);
  if (auto it = tried_.find(key); it != tried_.end()) {
    *out = it->second.second;
    return it->second.first;
  }
  CRUSH_ASSIGN_OR_RETURN(const double j, Evaluate(CostFromLogs(x), out));
  tried_.emplace(key, std::pair(j, *out));
  return j;
}

// A pattern search in log space from `x` over the per-PG and per-object
// figures: each alone, both together (the overall speed), and one traded
// against the other (a funnelled and a spread change pull apart along
// that), steps from x e down to x 1.01. The bytes figure stays. Returns the
// best objective.
absl::StatusOr<double> PatternSearch(JointObjective& objective, std::array<double, 3> x,
                                     JointCalibrationResult* best) {
  static constexpr std::array<std::array<int, 2>, 4> kDirections = {
      {{1, 0}, {0, 1}, {1, 1}, {1, -1}}};
  CRUSH_ASSIGN_OR_RETURN(double best_j, objective.EvaluateAt(x, best));
  JointCalibrationResult trial;
  for (double step = 1.0; step > 0.01; step /= 2) {
    bool improved = true;
    while (improved) {
      improved = false;
      for (const std::array<int, 2>& dir : kDirections) {
        for (const double d : {step, -step}) {
          std::array<double, 3> t = x;
          t[0] += d * dir[0];
          t[1] += d * dir[1];
          CRUSH_ASSIGN_OR_RETURN(const double j, objective.EvaluateAt(t, &trial));
          if (j < best_j - 1e-12) {
            best_j = j;
            *best = trial;
            x = t;
            improved = true;
          }
        }
      }
    }
  }
  return best_j;
}

}  // namespace

namespace {

// The joint search at the inputs' own slowdown.
absl::StatusOr<JointCalibrationResult> FitAtSlowdown(std::span<const CalibrationInput> inputs) {
  const BackfillCost& model = inputs[0].model;
  JointObjective objective(inputs);
  JointCalibrationResult best;
  double best_j = std::numeric_limits<double>::infinity();
  // From the model's figures, and from a tenth of one with ten times the
  // other (the search then finds the scale); the bandwidth stays the
  // model's (two changes pin two figures: with the bytes free, a reweight
  // and a drain on the Pacific loopback cluster were matched by a
  // bytes-only 0.9 MB/s that made `osd out` 1.5x too long).
  for (const double tilt : {1.0, 10.0, 0.1}) {
    const std::array<double, 3> x = {std::log(model.per_pg_seconds * tilt),
                                     std::log(model.seconds_per_object / tilt),
                                     std::log(1 / model.bytes_per_second)};
    JointCalibrationResult found;
    CRUSH_ASSIGN_OR_RETURN(const double j, PatternSearch(objective, x, &found));
    if (j < best_j - 1e-12) {
      best_j = j;
      best = std::move(found);
    }
  }
  best.objective = best_j;
  best.concurrency_slowdown = inputs[0].options.concurrency_slowdown;
  best.simulations = objective.simulations();
  return best;
}

}  // namespace

absl::StatusOr<JointCalibrationResult> FitBackfillCostJointly(
    std::span<const CalibrationInput> inputs, const JointFitOptions& options) {
  if (inputs.empty()) return absl::InvalidArgumentError("calibrate: no change to fit");
  for (const CalibrationInput& in : inputs) {
    CRUSH_RETURN_IF_ERROR(CheckMeasured(in));
    CRUSH_RETURN_IF_ERROR(UnitsOf(in).status());
  }
  const BackfillCost& model = inputs[0].model;
  if (!(model.per_pg_seconds > 0) || !(model.seconds_per_object > 0) ||
      !(model.bytes_per_second > 0)) {
    return absl::InvalidArgumentError(
        "calibrate: fitting changes together needs the model's per-PG, per-object and bytes "
        "figures above 0");
  }
  if (!options.fit_slowdown) return FitAtSlowdown(inputs);
  std::vector<CalibrationInput> at(inputs.begin(), inputs.end());
  std::size_t simulations = 0;
  std::map<double, JointCalibrationResult> tried;
  auto fit = [&](double k) -> absl::Status {
    k = std::clamp(k, 0.0, kMaxConcurrencySlowdown);
    if (tried.contains(k)) return absl::OkStatus();
    for (CalibrationInput& in : at) in.options.concurrency_slowdown = k;
    CRUSH_ASSIGN_OR_RETURN(JointCalibrationResult r, FitAtSlowdown(at));
    simulations += r.simulations;
    tried.emplace(k, std::move(r));
    return absl::OkStatus();
  };
  auto best_k = [&] {
    double k = 0;
    double j = std::numeric_limits<double>::infinity();
    for (const auto& [tk, r] : tried) {  // ascending k: a tie keeps the smaller
      if (r.objective < j - 1e-12) {
        j = r.objective;
        k = tk;
      }
    }
    return k;
  };
  constexpr int kSteps = 10;
  for (int i = 0; i <= kSteps; ++i) {
    CRUSH_RETURN_IF_ERROR(fit(kMaxConcurrencySlowdown * i / kSteps));
  }
  for (double step = kMaxConcurrencySlowdown / kSteps / 2; step > 0.01; step /= 2) {
    const double k = best_k();
    CRUSH_RETURN_IF_ERROR(fit(k - step));
    CRUSH_RETURN_IF_ERROR(fit(k + step));
  }
  JointCalibrationResult best = std::move(tried.at(best_k()));
  best.simulations = simulations;
  return best;
}

namespace {

// result.json's samples[]: each {t, pgs: {PG: [state, up, acting, primary]}}.
// Counts, for every PG with an end, the samples whose state has
// "backfilling" (not backfill_wait or backfill_toofull), and the mean time
// between samples; nothing without two samples with a time.
void ReadBackfillingSamples(const google::protobuf::ListValue& samples, ChangeMeasurement* m) {
  std::map<std::string, std::uint32_t, std::less<>> counts;
  std::vector<double> times;
  for (const google::protobuf::Value& v : samples.values()) {
    if (!v.has_struct_value()) continue;
    const auto& sf = v.struct_value().fields();
    auto t = sf.find("t");
    if (t == sf.end() || !t->second.has_number_value() ||
        !std::isfinite(t->second.number_value())) {
      continue;
    }
    times.push_back(t->second.number_value());
    auto pgs = sf.find("pgs");
    if (pgs == sf.end() || !pgs->second.has_struct_value()) continue;
    for (const auto& [pg, state] : pgs->second.struct_value().fields()) {
      const google::protobuf::Value* s = &state;
      if (s->has_list_value() && s->list_value().values_size() > 0) s = &s->list_value().values(0);
      if (s->has_string_value() && s->string_value().find("backfilling") != std::string::npos) {
        ++counts[pg];
      }
    }
  }
  if (times.size() < 2) return;
  const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
  const double interval = (*hi - *lo) / static_cast<double>(times.size() - 1);
  if (!(interval > 0) || !std::isfinite(interval)) return;
  m->sample_interval_seconds = interval;
  for (const auto& [pg, end] : m->end_seconds) {
    auto c = counts.find(FormatPgId(pg));
    m->backfilling_samples[pg] = c == counts.end() ? 0 : c->second;
  }
}

}  // namespace

absl::StatusOr<ChangeMeasurement> ParseChangeResultJson(absl::string_view json) {
  google::protobuf::Struct root;
  const auto parsed = google::protobuf::util::JsonStringToMessage(std::string(json), &root);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "result JSON: not a JSON object (",
        LocateJsonError(std::string_view(json.data(), json.size()), std::string(parsed.message())),
        ")"));
  }
  ChangeMeasurement m;
  const auto& f = root.fields();
  for (const char* key : {"pg_temp_duration_seconds", "duration_seconds"}) {
    auto it = f.find(key);
    if (it != f.end() && it->second.has_number_value() && it->second.number_value() > 0) {
      m.seconds = it->second.number_value();
      break;
    }
  }
  if (!(m.seconds > 0)) {
    return absl::InvalidArgumentError(
        "result JSON: no pg_temp_duration_seconds or duration_seconds above 0 "
        "(expected loopback-change.py's result.json)");
  }
  if (auto it = f.find("pgs"); it != f.end() && it->second.has_list_value()) {
    for (const google::protobuf::Value& v : it->second.list_value().values()) {
      if (!v.has_struct_value()) continue;
      const auto& pf = v.struct_value().fields();
      auto pg = pf.find("pg");
      auto end = pf.find("pg_temp_end_seconds");
      if (pg == pf.end() || end == pf.end() || !end->second.has_number_value()) continue;
      std::optional<PgId> id = ParsePgId(pg->second.string_value());
      if (id) m.end_seconds[*id] = end->second.number_value();
    }
  }
  if (auto it = f.find("samples"); it != f.end() && it->second.has_list_value()) {
    ReadBackfillingSamples(it->second.list_value(), &m);
  }
  return m;
}

}  // namespace crushkit::osdmap
