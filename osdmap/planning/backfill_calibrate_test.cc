#include "osdmap/planning/backfill_calibrate.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::DoubleNear;

// 60 PGs over 8 OSDs with varied objects and bytes, so the three parts of
// a hold can be told apart.
std::vector<BackfillJob> Jobs() {
  std::mt19937 rng(7);
  std::vector<BackfillJob> jobs;
  for (std::uint32_t ps = 0; ps < 60; ++ps) {
    const std::int32_t primary = static_cast<std::int32_t>(rng() % 8);
    const std::int32_t target = static_cast<std::int32_t>((primary + 1 + rng() % 7) % 8);
    const std::uint64_t objects = 1 + rng() % 40;
    const std::uint64_t bytes = (1 + rng() % 64) * 256 * 1024;
    jobs.push_back(
        BackfillJob{PgId{2, ps}, primary, {target}, bytes, objects, kBackfillPriority, {}});
  }
  return jobs;
}

BackfillSchedule Truth(const std::vector<BackfillJob>& jobs, const BackfillCost& cost,
                       bool hold_and_wait = false) {
  BackfillOptions o;
  o.hold_and_wait = hold_and_wait;
  o.class_rates.clear();
  o.default_rate = RateFromCost(cost);
  absl::StatusOr<BackfillSchedule> s = SimulateBackfill(jobs, BackfillOsdInfo{}, o);
  EXPECT_THAT(s, IsOk());
  return *s;
}

// Under hold and wait a PG's end sums the holds of the PGs queued before it
// on a chain of OSDs, which tells the three figures apart; all at once (the
// default) the ends are matched as well, but by more than one mix of them
// (checked below).
TEST(BackfillCalibrate, PerPgEndsRecoverKnownFigures) {
  const std::vector<BackfillJob> jobs = Jobs();
  const BackfillCost truth{0.8, 0.06, 20.0 * 1024 * 1024};
  const BackfillSchedule s = Truth(jobs, truth, /*hold_and_wait=*/true);
  CalibrationInput in;
  in.options.hold_and_wait = true;
  in.jobs = jobs;
  in.measured_seconds = s.makespan_seconds;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    in.measured_end_seconds[jobs[j].pg] = s.jobs[j].end_seconds;
  }
  in.model = BackfillCost{0.05, 0.1, 150.0 * 1024 * 1024};  // far from the truth
  absl::StatusOr<CalibrationResult> r = FitBackfillCost(in);
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(r->simulated_seconds, DoubleNear(s.makespan_seconds, 0.01 * s.makespan_seconds));
  EXPECT_EQ(r->pgs_compared, 60u);
  EXPECT_LT(r->rms_end_error_seconds, 0.02 * s.makespan_seconds);
  EXPECT_THAT(r->cost.per_pg_seconds, DoubleNear(truth.per_pg_seconds, 0.1 * truth.per_pg_seconds));
  EXPECT_THAT(r->cost.seconds_per_object,
              DoubleNear(truth.seconds_per_object, 0.1 * truth.seconds_per_object));
  EXPECT_THAT(r->cost.bytes_per_second,
              DoubleNear(truth.bytes_per_second, 0.15 * truth.bytes_per_second));

  const BackfillSchedule a = Truth(jobs, truth);
  in.options.hold_and_wait = false;
  in.measured_seconds = a.makespan_seconds;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    in.measured_end_seconds[jobs[j].pg] = a.jobs[j].end_seconds;
  }
  absl::StatusOr<CalibrationResult> ra = FitBackfillCost(in);
  ASSERT_THAT(ra, IsOk());
  EXPECT_THAT(ra->simulated_seconds, DoubleNear(a.makespan_seconds, 0.01 * a.makespan_seconds));
  // All at once the model's proportions match these ends within half a
  // second of the free fit, so they are kept (RoundedEndsKeepTheModelsProportions).
  EXPECT_LT(ra->rms_end_error_seconds, 0.02 * a.makespan_seconds + 0.5);
  EXPECT_LT(ra->free_fit_rms_seconds, 0.02 * a.makespan_seconds);
}

// Measured ends are the monitor's commits, rounded up to its propose
// interval: when the ends follow the model's proportions (here twice its
// holds), a free fit can only fit that rounding, so the proportions stay.
TEST(BackfillCalibrate, RoundedEndsKeepTheModelsProportions) {
  const std::vector<BackfillJob> jobs = Jobs();
  const BackfillCost model{0.05, 0.1, 150.0 * 1024 * 1024};
  const BackfillSchedule s =
      Truth(jobs, BackfillCost{2 * model.per_pg_seconds, 2 * model.seconds_per_object,
                               model.bytes_per_second / 2});
  CalibrationInput in;
  in.options.hold_and_wait = false;  // as Truth() ran
  in.jobs = jobs;
  in.measured_seconds = std::ceil(s.makespan_seconds);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    in.measured_end_seconds[jobs[j].pg] = std::ceil(s.jobs[j].end_seconds);
  }
  in.model = model;
  absl::StatusOr<CalibrationResult> r = FitBackfillCost(in);
  ASSERT_THAT(r, IsOk());
  EXPECT_TRUE(r->model_proportions);
  EXPECT_GE(r->free_fit_rms_seconds, 0);
  EXPECT_GT(r->free_fit_rms_seconds + 0.5, r->rms_end_error_seconds);
  EXPECT_THAT(r->cost.per_pg_seconds / r->cost.seconds_per_object, DoubleNear(0.5, 1e-9));
  EXPECT_THAT(r->cost.seconds_per_object, DoubleNear(0.2, 0.02));
}

TEST(BackfillCalibrate, ADurationAloneScalesTheModel) {
  const std::vector<BackfillJob> jobs = Jobs();
  const BackfillCost model{0.25, 0.1, 150.0 * 1024 * 1024};
  // The cluster ran every part 1.6x slower than the model.
  const BackfillCost truth{0.4, 0.16, 150.0 * 1024 * 1024 / 1.6};
  CalibrationInput in;
  in.options.hold_and_wait = false;  // as Truth() ran
  in.jobs = jobs;
  in.measured_seconds = Truth(jobs, truth).makespan_seconds;
  in.model = model;
  absl::StatusOr<CalibrationResult> r = FitBackfillCost(in);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->pgs_compared, 0u);
  EXPECT_THAT(r->cost.per_pg_seconds, DoubleNear(0.4, 1e-6));
  EXPECT_THAT(r->cost.seconds_per_object, DoubleNear(0.16, 1e-6));
  EXPECT_THAT(r->simulated_seconds, DoubleNear(in.measured_seconds, 1e-6));
}

// The monitor's delays are fixed: a cluster 1.6x slower in every hold is
// 1.6x slower in the holds only, and its pg_temp drops come the end delay
// after the simulated ends.
TEST(BackfillCalibrate, MonitorDelaysDoNotScale) {
  const std::vector<BackfillJob> jobs = Jobs();
  const BackfillCost model{0.25, 0.1, 150.0 * 1024 * 1024};
  const BackfillCost truth{0.4, 0.16, 150.0 * 1024 * 1024 / 1.6};
  BackfillOptions o;
  o.class_rates.clear();
  o.default_rate = RateFromCost(truth);
  o.start_delay_seconds = 1;
  o.end_delay_seconds = 0.5;
  absl::StatusOr<BackfillSchedule> s = SimulateBackfill(jobs, BackfillOsdInfo{}, o);
  ASSERT_THAT(s, IsOk());
  CalibrationInput in;
  in.jobs = jobs;
  in.options = o;
  in.measured_seconds = s->makespan_seconds;
  in.model = model;
  absl::StatusOr<CalibrationResult> r = FitBackfillCost(in);
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(r->cost.per_pg_seconds, DoubleNear(0.4, 1e-6));
  EXPECT_THAT(r->cost.seconds_per_object, DoubleNear(0.16, 1e-6));
  EXPECT_THAT(r->simulated_seconds, DoubleNear(in.measured_seconds, 1e-6));
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    in.measured_end_seconds[jobs[j].pg] = s->jobs[j].end_seconds + o.end_delay_seconds;
  }
  r = FitBackfillCost(in);
  ASSERT_THAT(r, IsOk());
  EXPECT_LT(r->rms_end_error_seconds, 0.02 * s->makespan_seconds);
  EXPECT_THAT(r->cost.per_pg_seconds, DoubleNear(0.4, 0.04));
}

// Two changes fitted together: one funnelled through a single target (its
// makespan is the sum of the PGs' holds there) and one spread over every
// OSD. Both are matched with the figures that made them, where the first
// alone (ends rounded as the monitor's are) cannot tell per-PG from
// per-object time.
TEST(BackfillCalibrate, AFunnelledAndASpreadChangeAreFittedTogether) {
  const std::vector<BackfillJob> spread = Jobs();
  std::vector<BackfillJob> funnel;
  for (std::uint32_t ps = 0; ps < 20; ++ps) {
    funnel.push_back(BackfillJob{PgId{3, ps},
                                 static_cast<std::int32_t>(ps % 7),
                                 {7},
                                 (1 + ps % 4) * 1024 * 1024,
                                 10 + ps % 3,
                                 kBackfillPriority,
                                 {}});
  }
  const BackfillCost truth{1.5, 0.02, 400.0 * 1024 * 1024};
  std::vector<CalibrationInput> in(2);
  in[0].jobs = funnel;
  in[1].jobs = spread;
  for (CalibrationInput& c : in) {
    c.options.hold_and_wait = false;  // as Truth() ran
    c.measured_seconds =
        Truth(std::vector<BackfillJob>(c.jobs.begin(), c.jobs.end()), truth).makespan_seconds;
    c.model = BackfillCost{0.05, 0.1, 150.0 * 1024 * 1024};
  }
  absl::StatusOr<JointCalibrationResult> r = FitBackfillCostJointly(in);
  ASSERT_THAT(r, IsOk());
  ASSERT_EQ(r->simulated_seconds.size(), 2u);
  EXPECT_THAT(r->simulated_seconds[0],
              DoubleNear(in[0].measured_seconds, 0.03 * in[0].measured_seconds));
  EXPECT_THAT(r->simulated_seconds[1],
              DoubleNear(in[1].measured_seconds, 0.03 * in[1].measured_seconds));
  // The funnelled change alone, scaled on the model's proportions (mostly
  // per object), misses the spread one by more.
  absl::StatusOr<CalibrationResult> alone = FitBackfillCost(in[0]);
  ASSERT_THAT(alone, IsOk());
  BackfillOptions o;
  o.hold_and_wait = false;
  o.class_rates.clear();
  o.default_rate = RateFromCost(alone->cost);
  absl::StatusOr<BackfillSchedule> s = SimulateBackfill(spread, BackfillOsdInfo{}, o);
  ASSERT_THAT(s, IsOk());
  EXPECT_GT(std::abs(s->makespan_seconds / in[1].measured_seconds - 1), 0.1);
  EXPECT_THAT(FitBackfillCostJointly({}), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(BackfillCalibrate, CalibrationFileNamesEveryChange) {
  ChangeCalibration c;
  c.device_class = "hdd";
  c.fit.cost = BackfillCost{0.5, 0.12, 30e6};
  c.changes = {CalibratedChange{"a -> b, out.json", 19, 34.5, 27.6, 37.4, 1.2},
               CalibratedChange{"c -> d, move.json", 33, 42.5, 24.6, 39.1, 2.5}};
  const std::string file = CalibrationFile(c, "ignored");
  EXPECT_THAT(file, ::testing::HasSubstr("2 changes fitted together"));
  EXPECT_THAT(file, ::testing::HasSubstr("a -> b, out.json: 19 backfilling PGs, measured 34.50 s"));
  EXPECT_THAT(file, ::testing::HasSubstr("c -> d, move.json: 33 backfilling PGs"));
  absl::StatusOr<Calibration> parsed = ParseCalibration(file);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_THAT(parsed->costs.at("hdd").seconds_per_object, DoubleNear(0.12, 1e-9));
  ASSERT_TRUE(parsed->concurrency_slowdown.has_value());
  EXPECT_EQ(parsed->concurrency_slowdown->k, 0);
}

TEST(BackfillCalibrate, ResultJsonGivesTheDurationAndEveryPgsEnd) {
  absl::StatusOr<ChangeMeasurement> m = ParseChangeResultJson(
      R"({"duration_seconds": 20, "pg_temp_duration_seconds": 12.5,
          "pgs": [{"pg": "2.1f", "pg_temp_end_seconds": 3.0}, {"pg": "2.3", "pg_temp_end_seconds": null}]})");
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(m->seconds, 12.5);
  ASSERT_EQ(m->end_seconds.size(), 1u);
  EXPECT_EQ(m->end_seconds.at(PgId{2, 0x1f}), 3.0);
  EXPECT_THAT(ParseChangeResultJson(R"({"pgs": []})"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseChangeResultJson("not json"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(BackfillCalibrate, NothingToFitIsAnError) {
  CalibrationInput in;
  in.measured_seconds = 10;
  EXPECT_THAT(FitBackfillCost(in), StatusIs(absl::StatusCode::kInvalidArgument));
  const std::vector<BackfillJob> jobs = Jobs();
  in.jobs = jobs;
  in.measured_seconds = 0;
  EXPECT_THAT(FitBackfillCost(in), StatusIs(absl::StatusCode::kInvalidArgument));
}

// Three changes simulated with known figures and a known slowdown k 0.3 (a
// funnelled one, through one target, and two spread over 8 and 16 OSDs):
// the joint fit with the slowdown finds k and matches every change; without
// it (k 0) it cannot match them all.
TEST(BackfillCalibrate, ThreeChangesRecoverAKnownSlowdown) {
  std::vector<std::vector<BackfillJob>> changes(3);
  for (std::uint32_t ps = 0; ps < 20; ++ps) {
    changes[0].push_back(BackfillJob{PgId{3, ps},
                                     static_cast<std::int32_t>(ps % 7),
                                     {7},
                                     (1 + ps % 4) * 1024 * 1024,
                                     10 + ps % 3,
                                     kBackfillPriority,
                                     {}});
  }
  changes[1] = Jobs();
  std::mt19937 rng(11);
  for (std::uint32_t ps = 0; ps < 40; ++ps) {
    const auto primary = static_cast<std::int32_t>(rng() % 16);
    const auto target = static_cast<std::int32_t>((primary + 1 + rng() % 15) % 16);
    changes[2].push_back(BackfillJob{PgId{4, ps},
                                     primary,
                                     {target},
                                     (1 + rng() % 32) * 256 * 1024,
                                     1 + rng() % 30,
                                     kBackfillPriority,
                                     {}});
  }
  const BackfillCost truth{1.5, 0.02, 400.0 * 1024 * 1024};
  constexpr double kTruthK = 0.3;
  std::vector<CalibrationInput> in(3);
  for (std::size_t i = 0; i < 3; ++i) {
    BackfillOptions o;
    o.hold_and_wait = true;
    o.class_rates.clear();
    o.default_rate = RateFromCost(truth);
    o.concurrency_slowdown = kTruthK;
    absl::StatusOr<BackfillSchedule> s = SimulateBackfill(changes[i], BackfillOsdInfo{}, o);
    ASSERT_THAT(s, IsOk());
    in[i].jobs = changes[i];
    in[i].options.hold_and_wait = true;
    in[i].measured_seconds = s->makespan_seconds;
    for (std::size_t j = 0; j < changes[i].size(); ++j) {
      in[i].measured_end_seconds[changes[i][j].pg] = s->jobs[j].end_seconds;
    }
    in[i].model = BackfillCost{0.05, 0.1, truth.bytes_per_second};
    if (i == 0) {
      EXPECT_LT(s->mean_running, kFunnelledMeanRunning);
    } else {
      EXPECT_GE(s->mean_running, kFunnelledMeanRunning);
    }
  }
  absl::StatusOr<JointCalibrationResult> r = FitBackfillCostJointly(in, {.fit_slowdown = true});
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(r->concurrency_slowdown, DoubleNear(kTruthK, 0.05));
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_THAT(r->simulated_seconds[i],
                DoubleNear(in[i].measured_seconds, 0.03 * in[i].measured_seconds))
        << i;
  }
  EXPECT_THAT(r->cost.per_pg_seconds, DoubleNear(truth.per_pg_seconds, 0.15));
  absl::StatusOr<JointCalibrationResult> flat = FitBackfillCostJointly(in);
  ASSERT_THAT(flat, IsOk());
  EXPECT_EQ(flat->concurrency_slowdown, 0);
  EXPECT_GT(flat->objective, 4 * r->objective);
}

TEST(BackfillCalibrate, TheSlowdownNeedsThreeChangesOfBothKinds) {
  auto change = [](bool spread) {
    CalibratedChange c;
    c.mean_running = spread ? 2.2 : 1.0;
    c.spread = spread;
    return c;
  };
  std::string note;
  EXPECT_FALSE(DecideSlowdownFit(std::vector{change(false), change(true)}, true, &note));
  EXPECT_THAT(note, ::testing::HasSubstr("k = 0: fitting it needs three or more changes"));
  EXPECT_THAT(note, ::testing::HasSubstr("given 2, 1 funnelled and 1 spread"));
  EXPECT_FALSE(
      DecideSlowdownFit(std::vector{change(true), change(true), change(true)}, true, &note));
  EXPECT_THAT(note, ::testing::HasSubstr("given 3, 0 funnelled and 3 spread"));
  EXPECT_FALSE(
      DecideSlowdownFit(std::vector{change(false), change(false), change(false)}, true, &note));
  EXPECT_TRUE(
      DecideSlowdownFit(std::vector{change(false), change(true), change(true)}, true, &note));
  EXPECT_THAT(note, ::testing::HasSubstr("fitted within 0 .. 0.5"));
  EXPECT_FALSE(
      DecideSlowdownFit(std::vector{change(false), change(true), change(true)}, false, &note));
  EXPECT_THAT(note, ::testing::HasSubstr("--no-slowdown"));

  // The file says k and why, and plan reads it back.
  ChangeCalibration c;
  c.device_class = "hdd";
  c.fit.cost = BackfillCost{0.5, 0.12, 30e6};
  c.changes = {change(false), change(true), change(true)};
  c.slowdown_fitted = DecideSlowdownFit(c.changes, true, &c.slowdown_note);
  c.concurrency_slowdown = 0.25;
  c.changes[1].max_running = 4;
  c.slowdown_max_running = 4;
  const std::string file = CalibrationFile(c, "ignored");
  EXPECT_THAT(file, ::testing::HasSubstr("# concurrency slowdown k fitted within 0 .. 0.5"));
  EXPECT_THAT(file, ::testing::HasSubstr("k = 0.25, fitted with up to 4 backfills at once"));
  EXPECT_THAT(file, ::testing::HasSubstr("1.00 at once (funnelled), at most 0"));
  EXPECT_THAT(file, ::testing::HasSubstr("2.20 at once (spread), at most 4"));
  EXPECT_THAT(file, ::testing::HasSubstr("\nconcurrency_slowdown_max_running=4\n"));
  absl::StatusOr<Calibration> parsed = ParseCalibration(file);
  ASSERT_THAT(parsed, IsOk());
  ASSERT_TRUE(parsed->concurrency_slowdown.has_value());
  EXPECT_DOUBLE_EQ(parsed->concurrency_slowdown->k, 0.25);
  EXPECT_EQ(parsed->concurrency_slowdown->max_running, 4u);
}

// Sampled holds: how many instants k x interval + phase fall in each job's
// [start, end) of a simulated schedule, times the interval (as
// loopback-change.py's samples count a PG backfilling).
std::vector<PgHoldSample> Sampled(const std::vector<BackfillJob>& jobs, const BackfillSchedule& s,
                                  double interval, double phase) {
  std::vector<PgHoldSample> out;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const double from = std::ceil((s.jobs[j].start_seconds - phase) / interval);
    const double to = std::ceil((s.jobs[j].end_seconds - phase) / interval);
    out.push_back({.objects = static_cast<double>(jobs[j].objects_per_target),
                   .erasure = jobs[j].erasure,
                   .hold_seconds = std::max(to - from, 0.0) * interval});
  }
  return out;
}

// 200 PGs, every third erasure-coded, simulated with a known EC hold factor
// of 1.6 and sampled every 0.5 s: the fit finds it within its standard
// error, and a schedule without the factor gives about 1.
TEST(BackfillCalibrate, SampledHoldsRecoverAKnownEcFactor) {
  std::mt19937 rng(11);
  std::vector<BackfillJob> jobs;
  for (std::uint32_t ps = 0; ps < 200; ++ps) {
    const std::int32_t primary = static_cast<std::int32_t>(rng() % 16);
    const std::int32_t target = static_cast<std::int32_t>((primary + 1 + rng() % 15) % 16);
    BackfillJob j{PgId{2, ps}, primary, {target}, 1 << 20, 5 + rng() % 30, kBackfillPriority, {}};
    j.erasure = ps % 3 == 0;
    jobs.push_back(j);
  }
  BackfillCost cost{0.4, 0.1, 100e6};
  cost.ec_hold_factor = 1.6;
  const BackfillSchedule with = Truth(jobs, cost);
  const EcHoldFactorFit fit = FitEcHoldFactor(Sampled(jobs, with, 0.5, 0.21));
  EXPECT_TRUE(fit.fitted) << fit.note;
  EXPECT_NEAR(fit.factor, 1.6, 0.1) << fit.note;
  EXPECT_EQ(fit.erasure, 67u);
  EXPECT_EQ(fit.replicated, 133u);
  EXPECT_LE(fit.log_standard_error, kMaxEcFactorLogError);
  cost.ec_hold_factor.reset();
  const EcHoldFactorFit none = FitEcHoldFactor(Sampled(jobs, Truth(jobs, cost), 0.5, 0.21));
  EXPECT_TRUE(none.fitted) << none.note;
  EXPECT_NEAR(none.factor, 1.0, 0.1) << none.note;
}

// Too few EC PGs, EC PGs never seen backfilling, or an estimate too noisy
// keep the factor at 1 and say why; an estimate below 1 is held at 1.
TEST(BackfillCalibrate, TheEcFactorNeedsEnoughPgsOfBothKinds) {
  std::vector<PgHoldSample> pgs;
  for (int i = 0; i < 20; ++i) pgs.push_back({.objects = 10, .erasure = false, .hold_seconds = 2});
  for (int i = 0; i < 7; ++i) pgs.push_back({.objects = 10, .erasure = true, .hold_seconds = 4});
  EcHoldFactorFit f = FitEcHoldFactor(pgs);
  EXPECT_FALSE(f.fitted);
  EXPECT_EQ(f.factor, 1);
  EXPECT_THAT(f.note, ::testing::HasSubstr("20 replicated and 7 EC PGs"));
  pgs.push_back({.objects = 10, .erasure = true, .hold_seconds = 4});
  f = FitEcHoldFactor(pgs);
  EXPECT_TRUE(f.fitted) << f.note;
  EXPECT_DOUBLE_EQ(f.factor, 2);
  for (PgHoldSample& p : pgs) {
    if (p.erasure) p.hold_seconds = 0;
  }
  f = FitEcHoldFactor(pgs);
  EXPECT_FALSE(f.fitted);
  EXPECT_THAT(f.note, ::testing::HasSubstr("0 seen backfilling"));
  for (std::size_t i = 0; i < pgs.size(); ++i) {
    if (pgs[i].erasure) pgs[i].hold_seconds = i % 4 == 0 ? 9 : 0;  // two of eight seen
  }
  f = FitEcHoldFactor(pgs);
  EXPECT_FALSE(f.fitted);
  EXPECT_GT(f.log_standard_error, kMaxEcFactorLogError);
  EXPECT_THAT(f.note, ::testing::HasSubstr("standard error"));
  for (PgHoldSample& p : pgs) {
    if (p.erasure) p.hold_seconds = 1.5;
  }
  f = FitEcHoldFactor(pgs);
  EXPECT_TRUE(f.fitted) << f.note;
  EXPECT_DOUBLE_EQ(f.estimate, 0.75);
  EXPECT_EQ(f.factor, 1);
}

// result.json's samples: per PG with an end, the samples showing it
// backfilling (0 when none did), and the mean interval.
TEST(BackfillCalibrate, ResultJsonSamplesCountEachPgBackfilling) {
  absl::StatusOr<ChangeMeasurement> m = ParseChangeResultJson(R"({"pg_temp_duration_seconds": 5,
      "pgs": [{"pg": "2.1f", "pg_temp_end_seconds": 3.0}, {"pg": "3.0", "pg_temp_end_seconds": 4.0}],
      "samples": [
        {"t": 1.0, "pgs": {"2.1f": ["active+remapped+backfill_wait", [1], [2], 1]}},
        {"t": 2.0, "pgs": {"2.1f": ["active+remapped+backfilling", [1], [2], 1],
                           "2.2": ["active+remapped+backfilling", [1], [2], 1]}},
        {"t": 4.0, "pgs": {"2.1f": ["active+remapped+backfilling", [1], [2], 1],
                           "3.0": ["active+remapped+backfill_toofull", [1], [2], 1]}}]})");
  ASSERT_THAT(m, IsOk());
  EXPECT_DOUBLE_EQ(m->sample_interval_seconds, 1.5);
  ASSERT_EQ(m->backfilling_samples.size(), 2u);
  EXPECT_EQ(m->backfilling_samples.at(PgId{2, 0x1f}), 2u);
  EXPECT_EQ(m->backfilling_samples.at(PgId{3, 0}), 0u);
  absl::StatusOr<ChangeMeasurement> none =
      ParseChangeResultJson(R"({"pg_temp_duration_seconds": 5, "samples": [{"t": 1}]})");
  ASSERT_THAT(none, IsOk());
  EXPECT_EQ(none->sample_interval_seconds, 0);
  EXPECT_TRUE(none->backfilling_samples.empty());
}

}  // namespace
}  // namespace crushkit::osdmap
