// Fuzz target: the backfill planner's text inputs, the holders' log tails
// (osdmap::ParseLogTailsJson, ParseLogVersion: `crushkit plan --log-tails`),
// the step limits (osdmap::ParseFillLimit for --max-fill, ParseMisplacedLimit
// for --max-misplaced), the cost inputs of `plan` and `calibrate`
// (ParseCalibration: --calibration; ParseBackfillRateWords: --backfill-rate,
// one word per line; ParseScheduler, ParseProfile: --recovery-scheduler,
// --mclock-profile; ParseChangeResultJson: calibrate's result.json) and
// `plan --rank-by` (ParseRankBy).
//
// For any input each parser returns. A failure is kInvalidArgument with a
// short message without control bytes. Accepted log tails name valid PGs
// and OSD ids (0..2^24), every PG has at least one holder, and Find returns
// exactly what the map holds. An accepted fill limit is in (0, 1], or 0 for
// "none"; an accepted misplaced limit is in (0, 1] and the fill limit agrees
// with it. An accepted calibration has a class, figures ApplyBackfillCost
// takes, a slowdown k in [0, kMaxConcurrencySlowdown] with its range when
// above 0, EC hold factors in [kMinEcHoldFactor, kMaxEcHoldFactor], and formats to a file that
// parses to what it formats again (the first formatting rounds to 10 digits). Accepted rate words
// leave ApplyBackfillCost either applying them or refusing. Either then drives SimulateBackfill
// (its k and range from the input) over eight PGs, six on OSDs of their own: it succeeds, or
// refuses figures that make a hold too long; every PG ends, at or after its start, and those six
// end no sooner with the slowdown than without and no later with its range than without; every odd
// PG is erasure-coded (its hold times the class's EC hold factor). An accepted result.json has a
// duration above 0, a sampling interval that is 0 or a finite number above 0, backfilling counts
// only for PGs with an end, and FitEcHoldFactor over them returns a factor in [1,
// kMaxFittedEcHoldFactor].
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

#include "osdmap/planning/backfill_calibrate.h"
#include "osdmap/planning/backfill_cost.h"
#include "osdmap/planning/backfill_pusher.h"
#include "osdmap/planning/backfill_schedule.h"
#include "osdmap/planning/plan_compare.h"
#include "osdmap/planning/planner.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

namespace osdmap = crushkit::osdmap;

void CheckLimit(const std::string& text) {
  absl::StatusOr<double> misplaced = osdmap::ParseMisplacedLimit(text);
  if (misplaced.ok()) {
    FUZZ_CHECK(*misplaced > 0 && *misplaced <= 1, text);
  } else {
    crushkit::fuzz::CheckRefusal(misplaced.status());
  }
  absl::StatusOr<double> fill = osdmap::ParseFillLimit(text);
  if (!fill.ok()) {
    crushkit::fuzz::CheckRefusal(fill.status());
    FUZZ_CHECK(!misplaced.ok(), "a misplaced limit that is not a fill limit: " + text);
    return;
  }
  FUZZ_CHECK(*fill == 0 || (*fill > 0 && *fill <= 1), text);
  if (*fill > 0) FUZZ_CHECK(misplaced.ok() && *misplaced == *fill, text);
}

// The option names: a failure is a clean refusal.
void CheckNames(const std::string& text) {
  absl::StatusOr<osdmap::RecoveryScheduler> s = osdmap::ParseScheduler(text);
  if (!s.ok()) crushkit::fuzz::CheckRefusal(s.status());
  absl::StatusOr<osdmap::MclockProfile> p = osdmap::ParseProfile(text);
  if (!p.ok()) crushkit::fuzz::CheckRefusal(p.status());
  absl::StatusOr<osdmap::RankBy> r = osdmap::ParseRankBy(text);
  if (r.ok()) {
    FUZZ_CHECK(osdmap::RankByName(*r) == text, text);
  } else {
    crushkit::fuzz::CheckRefusal(r.status());
  }
}

// Eight PGs of 1 MiB and 10 objects: six on OSDs of their own (0..11), two
// more through osd.12's remote slot; the odd ones erasure-coded.
std::vector<osdmap::BackfillJob> Jobs() {
  std::vector<osdmap::BackfillJob> jobs;
  for (std::uint32_t i = 0; i < 8; ++i) {
    const auto primary = static_cast<std::int32_t>(i < 6 ? 2 * i : 13 + i);
    const std::int32_t target = i < 6 ? primary + 1 : 12;
    jobs.push_back(osdmap::BackfillJob{
        osdmap::PgId{1, i}, primary, {target}, 1 << 20, 10, osdmap::kBackfillPriority, {}});
    jobs.back().erasure = i % 2 == 1;
  }
  return jobs;
}

// The schedule, or nullopt when the figures make a hold too long (a clean
// refusal).
std::optional<osdmap::BackfillSchedule> Simulate(const osdmap::BackfillOptions& options) {
  static const std::vector<osdmap::BackfillJob> jobs = Jobs();
  absl::StatusOr<osdmap::BackfillSchedule> s =
      osdmap::SimulateBackfill(jobs, osdmap::BackfillOsdInfo{}, options);
  if (!s.ok()) {
    crushkit::fuzz::CheckRefusal(s.status());
    FUZZ_CHECK(absl::StrContains(s.status().message(), "a rate too small"), s.status().ToString());
    return std::nullopt;
  }
  FUZZ_CHECK(s->jobs.size() == jobs.size(), "a job lost");
  FUZZ_CHECK(std::isfinite(s->makespan_seconds), "an endless backfill");
  for (const osdmap::BackfillJobTiming& t : s->jobs) {
    FUZZ_CHECK(!t.never_starts && t.end_seconds >= t.start_seconds, "a job ends before it starts");
  }
  return *std::move(s);
}

// ApplyBackfillCost with `settings`, then the schedule with its k and range
// against the same without the slowdown and without the range.
void CheckCostApplies(const osdmap::BackfillCostSettings& settings, const std::string& what) {
  osdmap::BackfillOptions options;
  options.curve_max_points = 2;
  options.top_waits = 0;
  absl::StatusOr<osdmap::BackfillCostReport> r =
      osdmap::ApplyBackfillCost(settings, crushkit::crush::CephRelease::kPacific, &options);
  if (!r.ok()) {
    crushkit::fuzz::CheckRefusal(r.status());
    return;
  }
  FUZZ_CHECK(options.concurrency_slowdown >= 0 &&
                 options.concurrency_slowdown <= osdmap::kMaxConcurrencySlowdown,
             what);
  FUZZ_CHECK(options.concurrency_slowdown == 0 || options.concurrency_slowdown_max_running >= 1,
             what);
  for (const auto& [cls, rate] : options.class_rates) {
    FUZZ_CHECK(rate.bytes_per_second > 0 && std::isfinite(rate.bytes_per_second), cls);
    FUZZ_CHECK(rate.objects_per_second >= 0 && rate.per_pg_seconds >= 0, cls);
    FUZZ_CHECK(rate.ec_hold_factor >= osdmap::kMinEcHoldFactor &&
                   rate.ec_hold_factor <= osdmap::kMaxEcHoldFactor,
               cls);
  }
  const std::optional<osdmap::BackfillSchedule> slowed = Simulate(options);
  if (!slowed || options.concurrency_slowdown == 0) return;
  osdmap::BackfillOptions unbounded = options;
  unbounded.concurrency_slowdown_max_running = 0;
  const std::optional<osdmap::BackfillSchedule> beyond = Simulate(unbounded);
  osdmap::BackfillOptions none = options;
  none.concurrency_slowdown = 0;
  const std::optional<osdmap::BackfillSchedule> plain = Simulate(none);
  FUZZ_CHECK(beyond && plain, what + ": the same holds refused with another slowdown");
  for (std::size_t j = 0; j < 6; ++j) {
    const double end = slowed->jobs[j].end_seconds;
    const double slack = 1e-9 * std::max(1.0, end);
    FUZZ_CHECK(end + slack >= plain->jobs[j].end_seconds, what + ": the slowdown sped a PG up");
    FUZZ_CHECK(end <= beyond->jobs[j].end_seconds + slack, what + ": its range slowed a PG down");
  }
}

void CheckCalibration(const std::string& text) {
  absl::StatusOr<osdmap::Calibration> c = osdmap::ParseCalibration(text);
  if (!c.ok()) {
    crushkit::fuzz::CheckRefusal(c.status());
    return;
  }
  FUZZ_CHECK(!c->costs.empty(), "a calibration without a class");
  if (c->concurrency_slowdown) {
    const osdmap::ConcurrencySlowdown& k = *c->concurrency_slowdown;
    FUZZ_CHECK(k.k >= 0 && k.k <= osdmap::kMaxConcurrencySlowdown, text);
    FUZZ_CHECK(k.k == 0 || (k.max_running >= 1 && k.max_running <= osdmap::kMaxSlowdownRange),
               "a slowdown without its range");
  }
  for (const auto& [cls, cost] : c->costs) {
    FUZZ_CHECK(!cost.ec_hold_factor || (*cost.ec_hold_factor >= osdmap::kMinEcHoldFactor &&
                                        *cost.ec_hold_factor <= osdmap::kMaxEcHoldFactor),
               cls);
  }
  const std::string once = osdmap::FormatCalibration(*c, "fuzz");
  absl::StatusOr<osdmap::Calibration> again = osdmap::ParseCalibration(once);
  FUZZ_CHECK(again.ok(), again.status().ToString() + "\n" + once);
  FUZZ_CHECK(osdmap::FormatCalibration(*again, "fuzz") == once, once);
  osdmap::BackfillCostSettings settings;
  settings.calibrated = c->costs;
  settings.concurrency_slowdown = c->concurrency_slowdown;
  settings.calibration_source = "fuzz";
  CheckCostApplies(settings, "calibration");
}

void CheckRateWords(const std::string& text) {
  std::vector<std::string> words = absl::StrSplit(text, '\n');
  osdmap::BackfillCostSettings settings;
  if (absl::Status s = osdmap::ParseBackfillRateWords(words, &settings); !s.ok()) {
    crushkit::fuzz::CheckRefusal(s);
    return;
  }
  CheckCostApplies(settings, "--backfill-rate");
}

void CheckResultJson(const std::string& text) {
  absl::StatusOr<osdmap::ChangeMeasurement> m = osdmap::ParseChangeResultJson(text);
  if (!m.ok()) {
    crushkit::fuzz::CheckRefusal(m.status());
    return;
  }
  FUZZ_CHECK(m->seconds > 0, "a result without a duration");
  FUZZ_CHECK(m->sample_interval_seconds == 0 ||
                 (m->sample_interval_seconds > 0 && std::isfinite(m->sample_interval_seconds)),
             "a sampling interval below 0 or not finite");
  std::vector<osdmap::PgHoldSample> holds;
  for (const auto& [pg, n] : m->backfilling_samples) {
    FUZZ_CHECK(m->end_seconds.contains(pg), "samples for a PG without an end");
    holds.push_back({.objects = static_cast<double>(pg.ps % 7),
                     .erasure = pg.pool % 2 == 1,
                     .hold_seconds = n * m->sample_interval_seconds});
  }
  const osdmap::EcHoldFactorFit f = osdmap::FitEcHoldFactor(holds);
  FUZZ_CHECK(f.factor >= 1 && f.factor <= osdmap::kMaxFittedEcHoldFactor, f.note);
  FUZZ_CHECK(f.fitted || f.factor == 1, f.note);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 16)) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);

  if (size < 64) {
    CheckLimit(text);
    CheckNames(text);
    absl::StatusOr<osdmap::LogVersion> v = osdmap::ParseLogVersion(text);
    if (!v.ok()) crushkit::fuzz::CheckRefusal(v.status());
  }
  if (size < 1024) CheckRateWords(text);
  CheckCalibration(text);
  CheckResultJson(text);

  absl::StatusOr<osdmap::PgLogTails> tails = osdmap::ParseLogTailsJson(text);
  if (!tails.ok()) {
    crushkit::fuzz::CheckRefusal(tails.status());
    return 0;
  }
  for (const auto& [pg, holders] : tails->tails) {
    FUZZ_CHECK(!holders.empty(), osdmap::FormatPgId(pg));
    for (const auto& [osd, tail] : holders) {
      FUZZ_CHECK(osd >= 0 && osd <= (1 << 24), osdmap::FormatPgId(pg));
      const std::optional<osdmap::LogVersion> found = tails->Find(pg, osd);
      FUZZ_CHECK(found.has_value() && *found == tail, osdmap::FormatPgId(pg));
    }
  }
  return 0;
}
