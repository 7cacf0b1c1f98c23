// The headline and assumptions of a plan report (plan_headline.h), from
// hand-made PlanReports, and the terminal summary's pool table with long
// pool names.
#include "osdmap/planning/plan_headline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

#include "osdmap/planning/movement_html.h"
#include "osdmap/planning/movement_report.h"

namespace crushkit::osdmap {
namespace {

using ::testing::HasSubstr;

constexpr double kTiB = 1024.0 * 1024 * 1024 * 1024;

PlanReport StagedReport() {
  PlanReport r;
  Movement& m = r.movement;
  m.bytes_source = BytesSource::kPgStats;
  m.totals.pool_name = "total";
  m.totals.pgs = 4096;
  m.totals.pgs_remapped = 1024;
  m.totals.bytes_to_move = static_cast<std::uint64_t>(3 * kTiB);
  m.totals.bytes_total = static_cast<std::uint64_t>(12 * kTiB);
  m.totals.objects_to_move = 5'000'000;
  m.totals.pgs_degraded_after = 2;
  m.totals.pgs_inactive_after = 1;
  m.totals.pgs_inactive_before = 3;
  m.change = {"osd crush add-bucket rack3 rack root=default", "osd crush move node9 rack=rack3"};
  r.change_is_operations = true;
  m.risks.upmaps_dropped = 4;
  m.risks.upmap_items_rewritten = 1;
  m.epoch_before = 100;
  m.epoch_after = 101;
  r.pgs_degraded_during = 7;
  r.ceph_release = crush::CephRelease::kPacific;
  r.schedule.emplace();
  r.schedule->makespan_seconds = 36000;
  StagedPlan& s = r.staged.emplace();
  for (int i = 0; i < 3; ++i) {
    PlanStep step;
    step.index = i;
    s.steps.push_back(step);
  }
  // Step 0 has only a comment (a host to deploy); the first command is step 1's.
  s.steps[0].commands = {"# deploy node9's OSDs"};
  s.steps[1].commands = {"# note", "ceph osd crush reweight osd.9 1"};
  s.total_seconds = 50000;
  ChangeSafety& safety = r.safety.emplace();
  safety.backfillfull_ratio = 0.9;
  FillTimeline& fill = safety.fill.emplace();
  fill.riskiest_osd = 12;
  fill.riskiest_fill = 0.83;
  fill.riskiest_seconds = 7200;
  return r;
}

TEST(PlanHeadlineTest, StagedReportFigures) {
  const PlanHeadline h = ComputeHeadline(StagedReport());
  EXPECT_TRUE(h.bytes_known);
  EXPECT_EQ(h.pgs_remapped, 1024u);
  EXPECT_EQ(h.pgs_total, 4096u);
  EXPECT_DOUBLE_EQ(h.share_of_stored, 0.25);
  EXPECT_EQ(h.objects_to_move, 5'000'000u);
  // The range: at once (10 h) to the three steps in sequence.
  EXPECT_TRUE(h.simulated);
  EXPECT_DOUBLE_EQ(h.seconds_low, 36000);
  EXPECT_DOUBLE_EQ(h.seconds_high, 50000);
  EXPECT_EQ(h.duration_basis, "at once .. 3 steps one after another");
  EXPECT_THAT(h.duration_assumption, HasSubstr("osd_max_backfills 1"));
  EXPECT_EQ(h.peak_osd, 12);
  EXPECT_DOUBLE_EQ(h.peak_fill, 0.83);
  EXPECT_DOUBLE_EQ(h.peak_seconds, 7200);
  EXPECT_EQ(h.upmaps_dropped, 4u);
  EXPECT_EQ(h.upmap_items_rewritten, 1u);
  EXPECT_EQ(h.pgs_degraded_during, 7u);
  EXPECT_EQ(h.pgs_inactive_during, 3u);
  EXPECT_EQ(h.pgs_degraded_after, 2u);
  EXPECT_EQ(h.pgs_inactive_after, 1u);
  EXPECT_EQ(h.steps, 3u);
  EXPECT_EQ(h.first_command, "ceph osd crush reweight osd.9 1");
  EXPECT_THAT(h.first_command_note, HasSubstr("step_1"));
}

TEST(PlanHeadlineTest, AtOnceWithoutSchedule) {
  PlanReport r = StagedReport();
  r.schedule.reset();
  r.staged.reset();
  r.safety.reset();
  r.movement.bytes_source = BytesSource::kUnknown;
  r.movement.totals.shards_moved = 30;
  r.movement.totals.shards_total = 120;
  const PlanHeadline h = ComputeHeadline(r);
  EXPECT_FALSE(h.simulated);
  EXPECT_FALSE(h.bytes_known);
  EXPECT_DOUBLE_EQ(h.share_of_stored, 0.25);  // shards without bytes
  EXPECT_EQ(h.peak_osd, crush::kItemNone);
  EXPECT_EQ(h.steps, 0u);
  EXPECT_EQ(h.first_command, "osd crush add-bucket rack3 rack root=default");
  const std::string text = FormatHeadline(h);
  EXPECT_THAT(text, HasSubstr("not simulated"));
  EXPECT_THAT(text, HasSubstr("1024 PGs of 4096"));
  EXPECT_THAT(text, HasSubstr("peak fill  unknown (needs PG stats"));
  EXPECT_THAT(text, Not(HasSubstr("steps ")));
}

// A diff's change is a description, not something to run.
TEST(PlanHeadlineTest, DiffHasNoFirstCommand) {
  PlanReport r = StagedReport();
  r.staged.reset();
  r.change_is_operations = false;
  r.movement.change = {"crush map replaced by new.txt"};
  const PlanHeadline h = ComputeHeadline(r);
  EXPECT_TRUE(h.first_command.empty());
  EXPECT_THAT(FormatHeadline(h), Not(HasSubstr("run first")));
}

TEST(PlanHeadlineTest, TerminalTextFitsAndUsesPlurals) {
  PlanReport r = StagedReport();
  r.movement.risks.upmaps_dropped = 1;
  r.movement.risks.upmap_items_rewritten = 0;
  const std::string text = FormatHeadline(ComputeHeadline(r));
  EXPECT_THAT(text, HasSubstr("drop 1 entry and trim 0 items"));
  EXPECT_THAT(text, HasSubstr("3 steps, numbered 0 to 2"));
  EXPECT_THAT(text, HasSubstr("10 h .. 13 h 53 min"));
  EXPECT_THAT(text, HasSubstr("osd.12 at 83.0% after 2 h; under backfillfull 90%"));
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  EXPECT_EQ(Plural(1, "step"), "1 step");
  EXPECT_EQ(Plural(0, "step"), "0 steps");
  EXPECT_EQ(Plural(2, "entry", "entries"), "2 entries");
  EXPECT_EQ(PeakWhen(0), "at the start (before any backfill)");
  EXPECT_EQ(StepsText(1), "1 step (step 0)");
}

TEST(PlanHeadlineTest, AssumptionsNameEverySource) {
  PlanReport r = StagedReport();
  r.backfill.max_backfills = 3;
  r.backfill.class_rates["ssd"].bytes_per_second = 12345678;  // not the default
  PlanAssumptions a = ComputeAssumptions(r);
  EXPECT_EQ(a.ceph_release, "pacific");
  EXPECT_EQ(a.max_backfills, 3);
  EXPECT_EQ(a.bytes_source, "pg dump");
  EXPECT_EQ(a.epoch_before, 100u);
  EXPECT_EQ(a.epoch_after, 101u);
  EXPECT_TRUE(a.scheduler.empty());
  ASSERT_FALSE(a.rates.empty());
  for (const AssumedRate& rate : a.rates) {
    EXPECT_EQ(rate.source, rate.device_class == "ssd" ? "--backfill-rate" : "default")
        << rate.device_class;
  }
  // With the cost model: the scheduler and each figure's own source.
  BackfillCostReport& cost = r.backfill_cost.emplace();
  cost.scheduler = RecoveryScheduler::kMclock;
  cost.scheduler_from_release = false;
  cost.calibration_source = "cal.json";
  cost.classes.push_back({.device_class = "hdd",
                          .cost = {.per_pg_seconds = 0.5,
                                   .seconds_per_object = 0.01,
                                   .bytes_per_second = 100 * 1024 * 1024},
                          .per_pg_source = CostSource::kModel,
                          .objects_source = CostSource::kCalibration,
                          .bytes_source = CostSource::kFlag});
  a = ComputeAssumptions(r);
  EXPECT_EQ(a.scheduler, "mclock");
  EXPECT_EQ(a.scheduler_source, "--recovery-scheduler");
  EXPECT_FALSE(a.mclock_profile.empty());
  EXPECT_EQ(a.calibration, "cal.json");
  ASSERT_EQ(a.rates.size(), 1u);
  EXPECT_EQ(a.rates[0].source,
            "per PG: model, objects: calibration cal.json, bytes: --backfill-rate");
  const std::string text = FormatAssumptions(a);
  EXPECT_THAT(text, HasSubstr("mclock scheduler (--recovery-scheduler)"));
  EXPECT_THAT(text, HasSubstr("osd_max_backfills 3"));
  EXPECT_THAT(text, HasSubstr("hdd    100 MiB/s, 0.01 s/object, 0.5 s/PG"));
}

// A calibrated slowdown whose plan runs more backfills at once than it was
// fitted with says so (held, not extrapolated) in the terminal, JSON and
// HTML assumptions; within its range it does not.
TEST(PlanHeadlineTest, SlowdownBeyondItsFittedRangeIsNoted) {
  PlanReport r = StagedReport();
  BackfillCostReport& cost = r.backfill_cost.emplace();
  cost.calibration_source = "cal.txt";
  cost.concurrency_slowdown = 0.25;
  cost.concurrency_slowdown_max_running = 4;
  cost.concurrency_slowdown_calibrated = true;
  r.schedule->max_running = 380;
  const PlanAssumptions a = ComputeAssumptions(r);
  EXPECT_EQ(a.concurrency_slowdown_max_running, 4u);
  EXPECT_EQ(a.backfills_at_once_max, 380u);
  EXPECT_THAT(a.concurrency_slowdown_note,
              HasSubstr("k = 0.25 fitted with up to 4 backfills at once; this plan runs up to "
                        "380: the slowdown is held at its fitted value (each backfill at 0.57 of "
                        "its pace while 4 or more run)"));
  const std::string text = FormatAssumptions(a);
  EXPECT_THAT(text, HasSubstr("k 0.25 (calibration cal.txt)"));
  EXPECT_THAT(text, HasSubstr("n up to 4"));
  EXPECT_THAT(text, HasSubstr("NOTE k = 0.25 fitted with up to 4 backfills at once"));
  absl::StatusOr<std::string> json = ReportToJson(r);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("\"concurrency_slowdown_max_running\": 4"));
  EXPECT_THAT(*json, HasSubstr("\"backfills_at_once_max\": 380"));
  EXPECT_THAT(*json, HasSubstr("\"concurrency_slowdown_note\": \"k = 0.25 fitted"));
  EXPECT_THAT(ReportHtml(r), HasSubstr("data-key='concurrency_slowdown_note'"));
  r.schedule->max_running = 4;
  EXPECT_EQ(ComputeAssumptions(r).concurrency_slowdown_note, "");
  // A change planned from the change at once says so (backfill_pusher.h).
  EXPECT_THAT(FormatAssumptions(ComputeAssumptions(r)), Not(HasSubstr("pushers")));
  r.pushers_note = "pushers from the change at once";
  EXPECT_THAT(FormatAssumptions(ComputeAssumptions(r)),
              HasSubstr("NOTE pushers from the change at once"));
  absl::StatusOr<std::string> noted = ReportToJson(r);
  ASSERT_TRUE(noted.ok()) << noted.status();
  EXPECT_THAT(*noted, HasSubstr("\"pushers_note\": \"pushers from the change at once\""));
  EXPECT_THAT(ReportHtml(r), Not(HasSubstr("concurrency_slowdown_note")));
}

TEST(PlanHeadlineTest, JsonCarriesTheHeadline) {
  absl::StatusOr<std::string> json = ReportToJson(StagedReport());
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("\"headline\""));
  EXPECT_THAT(*json, HasSubstr("\"first_command\": \"ceph osd crush reweight osd.9 1\""));
  EXPECT_THAT(*json, HasSubstr("\"pgs_degraded_during\": 7"));
  EXPECT_THAT(*json, HasSubstr("\"ceph_release\": \"pacific\""));
}

// A 40-character pool name gets a line of its own; every row's figures
// start in the same column and no table line passes 100 columns.
TEST(PlanHeadlineTest, RequestOrderRangeBesideTheAtOnceDuration) {
  PlanReport r = StagedReport();
  EXPECT_EQ(ComputeHeadline(r).duration_orders, "");
  RequestOrderRange& o = r.request_orders.emplace();
  o.orders_asked = 32;
  o.orders = 32;
  o.jobs = 1024;
  o.given_seconds = 36000;
  o.min_seconds = 30000;
  o.p10_seconds = 33000;
  o.median_seconds = 36600;
  o.p90_seconds = 39600;
  o.max_seconds = 45000;
  const PlanHeadline h = ComputeHeadline(r);
  const std::string range =
      "at once: 9 h 10 min .. 11 h over 32 request orders (p10 .. p90; median 10 h 10 min, all 8 h "
      "20 min .. 12 h 30 min)";
  EXPECT_EQ(h.duration_orders, range);
  // The headline's duration stays the order given (PG id order).
  EXPECT_DOUBLE_EQ(h.seconds_low, 36000);
  const std::string text = FormatHeadline(h);
  EXPECT_THAT(text, HasSubstr("             at once: 9 h 10 min .. 11 h over 32 request orders"));
  for (const absl::string_view line : absl::StrSplit(text, '\n')) EXPECT_LE(line.size(), 100u);
  absl::StatusOr<std::string> json = ReportToJson(r);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr(absl::StrCat("\"duration_orders\": \"", range, "\"")));
  EXPECT_THAT(*json, HasSubstr("\"median_seconds\": 36600"));
  // Over the cap: said instead of a range.
  o.orders = 0;
  o.capped = true;
  o.max_job_simulations = 40000;
  EXPECT_EQ(ComputeHeadline(r).duration_orders,
            "at once: request orders not simulated: 1024 PGs x 32 orders is over the cap of 40000 "
            "PG simulations");
}

TEST(PlanHeadlineTest, PoolTableAlignsLongNames) {
  PlanReport r = StagedReport();
  r.staged.reset();
  for (const char* name :
       {"rbd", "default.rgw.buckets.index", "a-pool-name-of-exactly-forty-characters!"}) {
    MovementCounters c;
    c.pool_name = name;
    c.pgs = 256;
    c.pgs_remapped = 16;
    c.shards_total = 768;
    c.shards_moved = 16;
    c.bytes_total = 1 << 30;
    c.bytes_to_move = 1 << 26;
    r.movement.pools.push_back(c);
  }
  ASSERT_EQ(r.movement.pools.back().pool_name.size(), 40u);
  const std::string text = ReportSummary(r);
  std::istringstream lines(text);
  std::vector<std::string> rows;
  bool in_table = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("pool ")) in_table = true;
    if (in_table && line.empty()) break;
    if (in_table) rows.push_back(line);
  }
  ASSERT_GE(rows.size(), 6u);  // header, 3 pools (one on two lines), total
  const std::size_t width = rows.front().size();
  for (const std::string& row : rows) {
    if (row == "a-pool-name-of-exactly-forty-characters!") continue;
    EXPECT_EQ(row.size(), width) << row;
    EXPECT_LE(row.size(), 100u) << row;
  }
  EXPECT_THAT(text, HasSubstr("\ndefault.rgw.buckets.index "));
  EXPECT_THAT(text, HasSubstr("\na-pool-name-of-exactly-forty-characters!\n "));
}

// Durations to the precision they have: two units, the smaller rounded.
TEST(PlanHeadlineTest, DurationsKeepTheirPrecision) {
  EXPECT_EQ(FormatDuration(134), "2 min 14 s");
  EXPECT_EQ(FormatDuration(147), "2 min 27 s");
  EXPECT_EQ(FormatDuration(120), "2 min");
  EXPECT_EQ(FormatDuration(45.4), "45 s");
  EXPECT_EQ(FormatDuration(4.25), "4.2 s");
  EXPECT_EQ(FormatDuration(0), "0 s");
  EXPECT_EQ(FormatDuration(50000), "13 h 53 min");
  EXPECT_EQ(FormatDuration(86400 + 3 * 3600), "1 day 3 h");
  EXPECT_EQ(FormatDuration(1187831), "13 days 18 h");  // 329.95 h
  EXPECT_EQ(FormatDuration(59.6), "1 min");
  EXPECT_EQ(FormatDuration(3599.7), "1 h");
}

// A weight-only change has no step 0: the count says where numbering starts.
TEST(PlanHeadlineTest, StepsNamedFromTheFirstStep) {
  EXPECT_EQ(StepsText(1, 1), "1 step (step 1)");
  EXPECT_EQ(StepsText(3, 1), "3 steps, numbered 1 to 3");
  EXPECT_EQ(StepsText(8), "8 steps, numbered 0 to 7");
  PlanReport r = StagedReport();
  r.staged->steps.erase(r.staged->steps.begin());
  const PlanHeadline h = ComputeHeadline(r);
  EXPECT_EQ(h.first_step, 1u);
  EXPECT_THAT(FormatHeadline(h), HasSubstr("2 steps, numbered 1 to 2"));
}

// Without PG stats or `ceph osd df` an OSD's fill is a guess: no peak.
TEST(PlanHeadlineTest, NoPeakFillWithoutCapacity) {
  PlanReport r = StagedReport();
  r.movement.bytes_source = BytesSource::kUnknown;
  r.safety->fill->osds = {OsdFillPeak{.osd = 12, .capacity_bytes = 1000}};
  const PlanHeadline h = ComputeHeadline(r);
  EXPECT_EQ(h.peak_osd, crush::kItemNone);
  EXPECT_THAT(FormatHeadline(h), HasSubstr("peak fill  unknown"));
}

}  // namespace
}  // namespace crushkit::osdmap
