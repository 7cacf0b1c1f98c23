#include "osdmap/planning/backfill_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

#include "crush/util/text_excerpt.h"

namespace crushkit::osdmap {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// background_recovery's reservation in mClockScheduler::
// set_config_defaults_from_profile (Reef and later).
double RecoveryShare(MclockProfile p) {
  switch (p) {
    case MclockProfile::kHighClientOps:
      return 0.4;
    case MclockProfile::kBalanced:
      return 0.5;
    case MclockProfile::kHighRecoveryOps:
      return 0.7;
  }
  return 0.5;
}

bool Rotational(absl::string_view device_class) { return device_class == "hdd"; }

// What the user wrote, for a message: at most ~80 bytes, control bytes escaped.
std::string Excerpt(absl::string_view text) {
  return util::TerminalExcerpt(std::string_view(text.data(), text.size()));
}

// "150MiB", "2GiB", "1e8", "150 MB": bytes; nullopt if not a positive size.
std::optional<double> ParseBytes(absl::string_view text) {
  std::string t(absl::StripAsciiWhitespace(text));
  std::size_t unit = t.find_first_not_of("0123456789.eE+-");
  // "1e8" has no unit; "2GiB" must not read its 'e'-less unit as exponent.
  double value = 0;
  if (!absl::SimpleAtod(t.substr(0, unit), &value) || !std::isfinite(value) || value <= 0) {
    return std::nullopt;
  }
  const std::string u =
      unit == std::string::npos ? "" : std::string(absl::StripAsciiWhitespace(t.substr(unit)));
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1},      {"B", 1},      {"K", 1024},    {"KB", 1024},    {"KiB", 1024},   {"M", kMiB},
      {"MB", kMiB}, {"MiB", kMiB}, {"G", 1 << 30}, {"GB", 1 << 30}, {"GiB", 1 << 30}};
  for (const auto& [name, scale] : kUnits) {
    if (u == name) return value * scale;
  }
  return std::nullopt;
}

std::optional<double> ParseWithSuffix(absl::string_view text, absl::string_view suffix) {
  if (!absl::EndsWith(text, suffix)) return std::nullopt;
  double v = 0;
  if (!absl::SimpleAtod(text.substr(0, text.size() - suffix.size()), &v) || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

absl::Status CheckCost(absl::string_view cls, const BackfillCost& c) {
  if (!(c.bytes_per_second > 0) || !std::isfinite(c.bytes_per_second) ||
      !(c.seconds_per_object >= 0) || !std::isfinite(c.seconds_per_object) ||
      !(c.per_pg_seconds >= 0) || !std::isfinite(c.per_pg_seconds)) {
    return absl::InvalidArgumentError(
        absl::StrCat("backfill cost of class '", Excerpt(cls), "': per-PG ", c.per_pg_seconds,
                     " s, ", c.seconds_per_object, " s per object, ", c.bytes_per_second,
                     " bytes/s; expected a bytes rate > 0 and times >= 0"));
  }
  if (c.ec_hold_factor &&
      !(*c.ec_hold_factor >= kMinEcHoldFactor && *c.ec_hold_factor <= kMaxEcHoldFactor)) {
    return absl::InvalidArgumentError(
        absl::StrCat("backfill cost of class '", Excerpt(cls), "': EC hold factor ",
                     *c.ec_hold_factor, "; expected ", kMinEcHoldFactor, " .. ", kMaxEcHoldFactor));
  }
  return absl::OkStatus();
}

}  // namespace

const char* SchedulerName(RecoveryScheduler s) {
  return s == RecoveryScheduler::kWpq ? "wpq" : "mclock";
}

const char* ProfileName(MclockProfile p) {
  switch (p) {
    case MclockProfile::kHighClientOps:
      return "high_client_ops";
    case MclockProfile::kBalanced:
      return "balanced";
    case MclockProfile::kHighRecoveryOps:
      return "high_recovery_ops";
  }
  return "balanced";
}

const char* CostSourceName(CostSource s) {
  switch (s) {
    case CostSource::kModel:
      return "model";
    case CostSource::kCalibration:
      return "calibration";
    case CostSource::kFlag:
      return "--backfill-rate";
  }
  return "model";
}

RecoveryScheduler DefaultScheduler(crush::CephRelease release) {
  return release == crush::CephRelease::kPacific ? RecoveryScheduler::kWpq
                                                 : RecoveryScheduler::kMclock;
}

DeviceRecoveryOptions CephDeviceDefaults(bool rotational) {
  DeviceRecoveryOptions d;
  if (rotational) {
    d.recovery_sleep_seconds = 0.1;              // osd_recovery_sleep_hdd
    d.recovery_max_active = 3;                   // osd_recovery_max_active_hdd
    d.mclock_capacity_iops = 315;                // osd_mclock_max_capacity_iops_hdd
    d.sequential_bytes_per_second = 150 * kMiB;  // osd_mclock_max_sequential_bandwidth_hdd
  } else {
    d.recovery_sleep_seconds = 0;                 // osd_recovery_sleep_ssd
    d.recovery_max_active = 10;                   // osd_recovery_max_active_ssd
    d.mclock_capacity_iops = 21500;               // osd_mclock_max_capacity_iops_ssd
    d.sequential_bytes_per_second = 1200 * kMiB;  // osd_mclock_max_sequential_bandwidth_ssd
  }
  return d;
}

BackfillCost ModelBackfillCost(const DeviceRecoveryOptions& device, RecoveryScheduler scheduler,
                               MclockProfile profile, int max_backfills) {
  BackfillCost c;
  const double iops = std::max(device.mclock_capacity_iops, 1.0);
  if (scheduler == RecoveryScheduler::kWpq) {
    c.seconds_per_object = std::max(device.recovery_sleep_seconds, 1 / iops);
    c.per_pg_seconds = 2 * device.recovery_sleep_seconds + kPgMessagingSeconds;
    c.bytes_per_second = device.sequential_bytes_per_second;
  } else {
    const double share = RecoveryShare(profile);
    c.seconds_per_object = 1 / (share * iops);
    c.per_pg_seconds = kPgMessagingSeconds;
    c.bytes_per_second = share * device.sequential_bytes_per_second;
  }
  const int n = std::max(max_backfills, 1);
  const double slowdown = n / (1 + (n - 1) * kParallelEfficiency);
  c.seconds_per_object *= slowdown;
  c.bytes_per_second /= slowdown;
  return c;
}

BackfillRate RateFromCost(const BackfillCost& cost) {
  BackfillRate r;
  r.bytes_per_second = cost.bytes_per_second;
  r.objects_per_second = cost.seconds_per_object > 0 ? 1 / cost.seconds_per_object : 0;
  r.per_pg_seconds = cost.per_pg_seconds;
  r.additive = true;
  r.ec_hold_factor = cost.ec_hold_factor.value_or(1);
  return r;
}

absl::StatusOr<BackfillCostReport> ApplyBackfillCost(const BackfillCostSettings& settings,
                                                     crush::CephRelease release,
                                                     BackfillOptions* options) {
  BackfillCostReport report;
  report.scheduler = settings.scheduler.value_or(DefaultScheduler(release));
  report.scheduler_from_release = !settings.scheduler.has_value();
  report.profile = settings.profile;
  report.max_backfills = options->max_backfills;
  report.calibration_source = settings.calibration_source;
  std::map<std::string, int, std::less<>> classes = {{"hdd", 0}, {"ssd", 0}, {"nvme", 0}};
  for (const auto& [cls, c] : options->class_rates) classes[cls];
  for (const auto& [cls, c] : settings.calibrated) classes[cls];
  for (const auto& [cls, o] : settings.overrides) {
    if (!cls.empty()) classes[cls];
  }
  options->class_rates.clear();
  for (const auto& [cls, unused] : classes) {
    AppliedClassCost a;
    a.device_class = cls;
    a.cost = ModelBackfillCost(CephDeviceDefaults(Rotational(cls)), report.scheduler,
                               settings.profile, options->max_backfills);
    if (auto it = settings.calibrated.find(cls); it != settings.calibrated.end()) {
      a.cost = it->second;
      a.per_pg_source = a.objects_source = a.bytes_source = CostSource::kCalibration;
      if (a.cost.ec_hold_factor) a.ec_source = CostSource::kCalibration;
    }
    for (const absl::string_view key : {absl::string_view(), absl::string_view(cls)}) {
      auto it = settings.overrides.find(key);
      if (it == settings.overrides.end()) continue;
      const BackfillRateOverride& o = it->second;
      if (o.bytes_per_second) {
        a.cost.bytes_per_second = *o.bytes_per_second;
        a.bytes_source = CostSource::kFlag;
      }
      if (o.objects_per_second) {
        a.cost.seconds_per_object = *o.objects_per_second > 0 ? 1 / *o.objects_per_second : 0;
        a.objects_source = CostSource::kFlag;
      }
      if (o.per_pg_seconds) {
        a.cost.per_pg_seconds = *o.per_pg_seconds;
        a.per_pg_source = CostSource::kFlag;
      }
    }
    if (absl::Status s = CheckCost(cls, a.cost); !s.ok()) return s;
    options->class_rates[cls] = RateFromCost(a.cost);
    if (cls == "hdd") options->default_rate = RateFromCost(a.cost);
    report.classes.push_back(std::move(a));
  }
  // The pg_temp's commit, then the primary's up_thru's (the file comment).
  options->start_delay_seconds = report.start_delay_seconds = 2 * kPaxosProposeIntervalSeconds;
  options->end_delay_seconds = report.end_delay_seconds = kPaxosProposeIntervalSeconds / 2;
  if (settings.concurrency_slowdown) {
    const auto [k, max_running] = *settings.concurrency_slowdown;
    if (!(k >= 0 && k <= kMaxConcurrencySlowdown)) {
      return absl::InvalidArgumentError(
          absl::StrCat("concurrency slowdown ", k, ": expected 0 .. ", kMaxConcurrencySlowdown));
    }
    if (k > 0 && !(max_running >= 1 && max_running <= kMaxSlowdownRange)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "concurrency slowdown ", k, " with a range of ", max_running,
          " backfills at once: expected 1 .. ", kMaxSlowdownRange,
          " (the most at once it was fitted with; without it k would be extrapolated)"));
    }
    options->concurrency_slowdown = k;
    options->concurrency_slowdown_max_running = max_running;
    report.concurrency_slowdown_calibrated = true;
  }
  report.concurrency_slowdown = options->concurrency_slowdown;
  report.concurrency_slowdown_max_running = options->concurrency_slowdown_max_running;
  // The stray copies go once their PG is clean in its final interval: the
  // map dropping the pg_temp (the end delay), then peering and the primary's
  // purge, about one more interval (measured 1.1-2.0 s, mean 1.55 s).
  options->stray_delete_delay_seconds = report.stray_delete_delay_seconds =
      options->end_delay_seconds + kPaxosProposeIntervalSeconds;
  return report;
}

absl::Status ParseBackfillRateWords(const std::vector<std::string>& words,
                                    BackfillCostSettings* settings) {
  for (const std::string& w : words) {
    const std::size_t eq = w.find('=');
    const std::string cls = eq == std::string::npos ? "" : w.substr(0, eq);
    const std::string spec = eq == std::string::npos ? w : w.substr(eq + 1);
    auto fail = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--backfill-rate '", Excerpt(w), "': ", why,
          "; expected [CLASS=]SPEC, SPEC a comma list of a bytes rate per second (150MiB, "
          "2GiB), an objects rate per second (8obj) and a per-PG hold (1.5s), e.g. "
          "hdd=50MiB,8obj"));
    };
    if (eq != std::string::npos && cls.empty()) return fail("no device class before '='");
    BackfillRateOverride& o = settings->overrides[cls];
    if (spec.empty()) return fail("nothing after the class");
    for (absl::string_view part : absl::StrSplit(spec, ',')) {
      part = absl::StripAsciiWhitespace(part);
      if (std::optional<double> v = ParseWithSuffix(part, "obj")) {
        if (!(*v > 0)) return fail("an objects rate must be > 0");
        o.objects_per_second = *v;
      } else if (std::optional<double> s = ParseWithSuffix(part, "s");
                 s && !absl::EndsWith(part, "Bs")) {
        if (!(*s >= 0)) return fail("a per-PG hold must be >= 0");
        o.per_pg_seconds = *s;
      } else if (std::optional<double> b = ParseBytes(part)) {
        o.bytes_per_second = *b;
      } else {
        return fail(absl::StrCat("'", Excerpt(part), "' is no rate"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<RecoveryScheduler> ParseScheduler(absl::string_view text) {
  if (text == "wpq") return RecoveryScheduler::kWpq;
  if (text == "mclock" || text == "mclock_scheduler") return RecoveryScheduler::kMclock;
  return absl::InvalidArgumentError(
      absl::StrCat("--recovery-scheduler '", Excerpt(text), "': expected wpq or mclock"));
}

absl::StatusOr<MclockProfile> ParseProfile(absl::string_view text) {
  for (MclockProfile p :
       {MclockProfile::kHighClientOps, MclockProfile::kBalanced, MclockProfile::kHighRecoveryOps}) {
    if (text == ProfileName(p)) return p;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--mclock-profile '", Excerpt(text),
                   "': expected high_client_ops, balanced or high_recovery_ops"));
}

namespace {

// A calibration line's figures, fields[1 ..] (fields[0] is its class): each
// of the three, and optionally ec_hold_factor, as NAME=NUMBER, once each.
// Returns why they are not, else "".
std::string ParseCostFigures(const std::vector<absl::string_view>& fields, BackfillCost* c) {
  int seen = 0;
  for (std::size_t i = 1; i < fields.size(); ++i) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(fields[i], '=');
    double v = 0;
    if (!absl::SimpleAtod(kv.second, &v) || !std::isfinite(v)) {
      return absl::StrCat("'", Excerpt(fields[i]), "' is not NAME=NUMBER");
    }
    if (kv.first == "per_pg_seconds") {
      c->per_pg_seconds = v;
    } else if (kv.first == "seconds_per_object") {
      c->seconds_per_object = v;
    } else if (kv.first == "bytes_per_second") {
      c->bytes_per_second = v;
    } else if (kv.first == "ec_hold_factor") {
      if (c->ec_hold_factor) return "a second ec_hold_factor";
      c->ec_hold_factor = v;
      continue;
    } else {
      return absl::StrCat("unknown figure '", Excerpt(kv.first), "'");
    }
    ++seen;
  }
  return seen == 3 ? "" : "three figures needed";
}

}  // namespace

absl::StatusOr<Calibration> ParseCalibration(absl::string_view text) {
  Calibration out;
  ConcurrencySlowdown slowdown;
  int k_line = 0;  // the lines that gave them, 0: none
  int range_line = 0;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    if (const std::size_t hash = line.find('#'); hash != absl::string_view::npos) {
      line = line.substr(0, hash);
    }
    std::vector<absl::string_view> fields =
        absl::StrSplit(absl::StripAsciiWhitespace(line), ' ', absl::SkipEmpty());
    if (fields.empty()) continue;
    auto fail = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("calibration line ", line_no, ": ", why,
                       "; expected CLASS per_pg_seconds=S seconds_per_object=S bytes_per_second=B, "
                       "concurrency_slowdown=K or concurrency_slowdown_max_running=N"));
    };
    if (absl::StartsWith(fields[0], "concurrency_slowdown=")) {
      double k = 0;
      if (fields.size() != 1 || !absl::SimpleAtod(fields[0].substr(fields[0].find('=') + 1), &k) ||
          !(k >= 0 && k <= kMaxConcurrencySlowdown)) {
        return fail(absl::StrCat("'", Excerpt(line), "': the slowdown must be a number in 0 .. ",
                                 kMaxConcurrencySlowdown));
      }
      if (k_line > 0) return fail("a second concurrency_slowdown");
      k_line = line_no;
      slowdown.k = k;
      continue;
    }
    if (absl::StartsWith(fields[0], "concurrency_slowdown_max_running=")) {
      std::uint32_t n = 0;
      if (fields.size() != 1 || !absl::SimpleAtoi(fields[0].substr(fields[0].find('=') + 1), &n) ||
          n < 1 || n > kMaxSlowdownRange) {
        return fail(absl::StrCat("'", Excerpt(line), "': the range must be a whole number in 1 .. ",
                                 kMaxSlowdownRange));
      }
      if (range_line > 0) return fail("a second concurrency_slowdown_max_running");
      range_line = line_no;
      slowdown.max_running = n;
      continue;
    }
    BackfillCost c;
    if (std::string why = ParseCostFigures(fields, &c); !why.empty()) return fail(why);
    if (absl::Status s = CheckCost(fields[0], c); !s.ok()) return fail(s.message());
    out.costs[std::string(fields[0])] = c;
  }
  if (out.costs.empty()) return absl::InvalidArgumentError("calibration: no device class line");
  if (range_line > 0 && k_line == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("calibration line ", range_line,
                     ": concurrency_slowdown_max_running without a concurrency_slowdown=K line"));
  }
  if (slowdown.k > 0 && range_line == 0) {
    // A k without the range it was fitted on would be applied to any number
    // of backfills at once: the 8-OSD cluster's k made 10,000 OSDs' backfill
    // tens of times longer (issue 35).
    return absl::InvalidArgumentError(absl::StrCat(
        "calibration line ", k_line, ": concurrency_slowdown=", slowdown.k,
        " without concurrency_slowdown_max_running=N, the most backfills at once it was fitted "
        "with (a file from before crushkit recorded it): without it k would be extrapolated to "
        "any number at once; run crushkit calibrate again (it writes both lines), add the line, "
        "or set concurrency_slowdown=0"));
  }
  if (k_line > 0) out.concurrency_slowdown = slowdown;
  return out;
}

std::string FormatCalibration(const Calibration& c, absl::string_view comment) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(comment, '\n')) {
    if (!line.empty()) absl::StrAppend(&out, "# ", line, "\n");
  }
  for (const auto& [cls, cost] : c.costs) {
    absl::StrAppendFormat(&out,
                          "%s per_pg_seconds=%.10g seconds_per_object=%.10g "
                          "bytes_per_second=%.10g",
                          cls, cost.per_pg_seconds, cost.seconds_per_object, cost.bytes_per_second);
    if (cost.ec_hold_factor)
      absl::StrAppendFormat(&out, " ec_hold_factor=%.10g", *cost.ec_hold_factor);
    out += "\n";
  }
  if (c.concurrency_slowdown) {
    absl::StrAppendFormat(&out, "concurrency_slowdown=%.10g\n", c.concurrency_slowdown->k);
    if (c.concurrency_slowdown->max_running > 0) {
      absl::StrAppend(
          &out, "concurrency_slowdown_max_running=", c.concurrency_slowdown->max_running, "\n");
    }
  }
  return out;
}

}  // namespace crushkit::osdmap
