#include "osdmap/planning/backfill_cost.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "osdmap/planning/planner.h"
#include "tests/testing/sample_cluster.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::AllOf;
using ::testing::DoubleNear;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

TEST(BackfillCost, WpqHddIsGatedByTheRecoverySleep) {
  const BackfillCost c = ModelBackfillCost(CephDeviceDefaults(true), RecoveryScheduler::kWpq,
                                           MclockProfile::kBalanced, 1);
  EXPECT_DOUBLE_EQ(c.seconds_per_object, 0.1);  // osd_recovery_sleep_hdd
  EXPECT_DOUBLE_EQ(c.per_pg_seconds, 0.2 + kPgMessagingSeconds);
  EXPECT_DOUBLE_EQ(c.bytes_per_second, 150 * kBytesPerMiB);
}

TEST(BackfillCost, WpqSsdHasNoSleepAndCostsAnIoPerObject) {
  const BackfillCost c = ModelBackfillCost(CephDeviceDefaults(false), RecoveryScheduler::kWpq,
                                           MclockProfile::kBalanced, 1);
  EXPECT_DOUBLE_EQ(c.seconds_per_object, 1 / 21500.0);
  EXPECT_DOUBLE_EQ(c.per_pg_seconds, kPgMessagingSeconds);
  EXPECT_DOUBLE_EQ(c.bytes_per_second, 1200 * kBytesPerMiB);
}

TEST(BackfillCost, MclockProfilesShareTheDeviceByTheirRecoveryReservation) {
  const DeviceRecoveryOptions hdd = CephDeviceDefaults(true);
  const BackfillCost client =
      ModelBackfillCost(hdd, RecoveryScheduler::kMclock, MclockProfile::kHighClientOps, 1);
  const BackfillCost balanced =
      ModelBackfillCost(hdd, RecoveryScheduler::kMclock, MclockProfile::kBalanced, 1);
  const BackfillCost recovery =
      ModelBackfillCost(hdd, RecoveryScheduler::kMclock, MclockProfile::kHighRecoveryOps, 1);
  EXPECT_DOUBLE_EQ(client.bytes_per_second, 0.4 * 150 * kBytesPerMiB);
  EXPECT_DOUBLE_EQ(balanced.bytes_per_second, 0.5 * 150 * kBytesPerMiB);
  EXPECT_DOUBLE_EQ(recovery.bytes_per_second, 0.7 * 150 * kBytesPerMiB);
  EXPECT_DOUBLE_EQ(balanced.seconds_per_object, 1 / (0.5 * 315));
  EXPECT_DOUBLE_EQ(balanced.per_pg_seconds, kPgMessagingSeconds);  // sleeps forced to 0
}

TEST(BackfillCost, ConcurrentBackfillsShareTheDevice) {
  const DeviceRecoveryOptions hdd = CephDeviceDefaults(true);
  const BackfillCost one =
      ModelBackfillCost(hdd, RecoveryScheduler::kWpq, MclockProfile::kBalanced, 1);
  const BackfillCost two =
      ModelBackfillCost(hdd, RecoveryScheduler::kWpq, MclockProfile::kBalanced, 2);
  // Two at once move 1.75x as much as one: each is 2 / 1.75 slower.
  EXPECT_DOUBLE_EQ(two.seconds_per_object, one.seconds_per_object * 2 / 1.75);
  EXPECT_DOUBLE_EQ(two.bytes_per_second, one.bytes_per_second * 1.75 / 2);
  EXPECT_DOUBLE_EQ(two.per_pg_seconds, one.per_pg_seconds);
}

TEST(BackfillCost, TheReleaseChoosesTheScheduler) {
  EXPECT_EQ(DefaultScheduler(crush::CephRelease::kPacific), RecoveryScheduler::kWpq);
  EXPECT_EQ(DefaultScheduler(crush::CephRelease::kReef), RecoveryScheduler::kMclock);
  EXPECT_EQ(DefaultScheduler(crush::CephRelease::kTentacle), RecoveryScheduler::kMclock);
}

TEST(BackfillCost, ApplySaysWhereEveryFigureCameFrom) {
  BackfillCostSettings settings;
  settings.calibrated["hdd"] = BackfillCost{1.5, 0.2, 50 * kBytesPerMiB};
  settings.calibration_source = "cal.txt";
  ASSERT_THAT(ParseBackfillRateWords({"hdd=30MiB", "ssd=400MiB,8obj,0.5s"}, &settings), IsOk());
  BackfillOptions options;
  absl::StatusOr<BackfillCostReport> r =
      ApplyBackfillCost(settings, crush::CephRelease::kPacific, &options);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->scheduler, RecoveryScheduler::kWpq);
  EXPECT_TRUE(r->scheduler_from_release);
  ASSERT_EQ(r->classes.size(), 3u);  // hdd, nvme, ssd
  const AppliedClassCost& hdd = r->classes[0];
  EXPECT_EQ(hdd.device_class, "hdd");
  EXPECT_EQ(hdd.per_pg_source, CostSource::kCalibration);
  EXPECT_EQ(hdd.objects_source, CostSource::kCalibration);
  EXPECT_EQ(hdd.bytes_source, CostSource::kFlag);
  EXPECT_DOUBLE_EQ(hdd.cost.bytes_per_second, 30 * kBytesPerMiB);
  EXPECT_DOUBLE_EQ(hdd.cost.per_pg_seconds, 1.5);
  const AppliedClassCost& ssd = r->classes[2];
  EXPECT_EQ(ssd.device_class, "ssd");
  EXPECT_DOUBLE_EQ(ssd.cost.seconds_per_object, 1 / 8.0);
  EXPECT_DOUBLE_EQ(ssd.cost.per_pg_seconds, 0.5);
  EXPECT_EQ(r->classes[1].bytes_source, CostSource::kModel);
  // The schedule's rates: additive, and the hdd figures for unknown classes.
  EXPECT_TRUE(options.class_rates.at("ssd").additive);
  EXPECT_DOUBLE_EQ(options.default_rate.per_pg_seconds, 1.5);
  // The monitor's commits: two paxos_propose_intervals before (pg_temp, then up_thru),
  // half one after.
  EXPECT_DOUBLE_EQ(options.start_delay_seconds, 2.0);
  EXPECT_DOUBLE_EQ(options.end_delay_seconds, 0.5);
  EXPECT_DOUBLE_EQ(r->start_delay_seconds, 2.0);
}

TEST(BackfillCost, AScheduleHoldsAPgForItsThreeParts) {
  BackfillOptions options;
  BackfillCostSettings settings;
  ASSERT_THAT(ParseBackfillRateWords({"1MiB,10obj,2s"}, &settings), IsOk());
  ASSERT_THAT(ApplyBackfillCost(settings, crush::CephRelease::kPacific, &options), IsOk());
  const std::vector<BackfillJob> jobs = {
      BackfillJob{PgId{1, 0}, 0, {1}, 3 * 1024 * 1024, 20, kBackfillPriority, {}}};
  BackfillOsdInfo info;
  info.device_class = {"hdd", "hdd"};
  absl::StatusOr<BackfillSchedule> s = SimulateBackfill(jobs, info, options);
  ASSERT_THAT(s, IsOk());
  // The hold, between the monitor's commits (pg_temp and up_thru 2 s before, 0.5 s after).
  EXPECT_THAT(s->makespan_seconds, DoubleNear(2 + (2 + 20 / 10.0 + 3) + 0.5, 1e-9));
}

TEST(BackfillCost, RateWordsAreCheckedAndNamed) {
  BackfillCostSettings settings;
  EXPECT_THAT(ParseBackfillRateWords({"hdd=fast"}, &settings),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'fast' is no rate")));
  EXPECT_THAT(ParseBackfillRateWords({"=1MiB"}, &settings),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no device class")));
  EXPECT_THAT(ParseBackfillRateWords({"hdd=0obj"}, &settings),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("objects rate")));
  EXPECT_THAT(ParseScheduler("cfq"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseProfile("fast"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(BackfillCost, CalibrationFilesRoundTripAndBadLinesAreNamed) {
  Calibration c;
  c.costs["hdd"] = BackfillCost{0.75, 0.125, 12345678};
  const std::string text = FormatCalibration(c, "from a test");
  EXPECT_THAT(text, Not(HasSubstr("concurrency_slowdown")));
  absl::StatusOr<Calibration> back = ParseCalibration(text);
  ASSERT_THAT(back, IsOk());
  EXPECT_DOUBLE_EQ(back->costs.at("hdd").per_pg_seconds, 0.75);
  EXPECT_DOUBLE_EQ(back->costs.at("hdd").seconds_per_object, 0.125);
  EXPECT_DOUBLE_EQ(back->costs.at("hdd").bytes_per_second, 12345678);
  EXPECT_FALSE(back->concurrency_slowdown.has_value());
  EXPECT_THAT(ParseCalibration("# c\nhdd per_pg_seconds=1 seconds_per_object=x\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 2")));
  EXPECT_THAT(ParseCalibration("# only a comment\n"), StatusIs(absl::StatusCode::kInvalidArgument));
}

// The slowdown's lines (k and the most backfills at once it was fitted
// with) round-trip, are bounded, once per file, and reach the options and the
// report through ApplyBackfillCost; a k above 0 without its range is refused
// (it would be extrapolated to any number at once), a k of 0 or no slowdown
// line (files written before it) is read as before.
TEST(BackfillCost, CalibrationFilesCarryTheConcurrencySlowdownAndItsRange) {
  Calibration c;
  c.costs["hdd"] = BackfillCost{0.75, 0.125, 12345678};
  c.concurrency_slowdown = ConcurrencySlowdown{.k = 0.3, .max_running = 4};
  const std::string text = FormatCalibration(c, "k");
  EXPECT_THAT(text, HasSubstr("\nconcurrency_slowdown=0.3\nconcurrency_slowdown_max_running=4\n"));
  absl::StatusOr<Calibration> back = ParseCalibration(text);
  ASSERT_THAT(back, IsOk());
  ASSERT_TRUE(back->concurrency_slowdown.has_value());
  EXPECT_DOUBLE_EQ(back->concurrency_slowdown->k, 0.3);
  EXPECT_EQ(back->concurrency_slowdown->max_running, 4u);
  const std::string line = "hdd per_pg_seconds=1 seconds_per_object=1 bytes_per_second=1\n";
  for (const char* bad :
       {"concurrency_slowdown=0.6\n", "concurrency_slowdown=-0.1\n", "concurrency_slowdown=x\n",
        "concurrency_slowdown=0.1 more\nconcurrency_slowdown_max_running=4\n",
        "concurrency_slowdown=0.1\nconcurrency_slowdown=0.2\nconcurrency_slowdown_max_running=4\n",
        "concurrency_slowdown=0.1\nconcurrency_slowdown_max_running=0\n",
        "concurrency_slowdown=0.1\nconcurrency_slowdown_max_running=2.5\n",
        "concurrency_slowdown=0.1\nconcurrency_slowdown_max_running=-3\n",
        "concurrency_slowdown=0.1\nconcurrency_slowdown_max_running=99999999999\n",
        "concurrency_slowdown=0.1\nconcurrency_slowdown_max_running=4\n"
        "concurrency_slowdown_max_running=5\n",
        "concurrency_slowdown_max_running=4\n"}) {
    EXPECT_THAT(ParseCalibration(line + bad),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line")))
        << bad;
  }
  // a2600f6's files: k without its range.
  EXPECT_THAT(ParseCalibration(line + "# k\nconcurrency_slowdown=0.25\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("line 3"), HasSubstr("concurrency_slowdown_max_running=N"),
                             HasSubstr("extrapolated"))));
  absl::StatusOr<Calibration> zero = ParseCalibration(line + "concurrency_slowdown=0\n");
  ASSERT_THAT(zero, IsOk());
  ASSERT_TRUE(zero->concurrency_slowdown.has_value());
  EXPECT_EQ(zero->concurrency_slowdown->k, 0);
  EXPECT_EQ(zero->concurrency_slowdown->max_running, 0u);

  BackfillCostSettings settings;
  settings.calibrated = back->costs;
  settings.concurrency_slowdown = back->concurrency_slowdown;
  BackfillOptions options;
  absl::StatusOr<BackfillCostReport> r =
      ApplyBackfillCost(settings, crush::CephRelease::kPacific, &options);
  ASSERT_THAT(r, IsOk());
  EXPECT_DOUBLE_EQ(options.concurrency_slowdown, 0.3);
  EXPECT_EQ(options.concurrency_slowdown_max_running, 4u);
  EXPECT_DOUBLE_EQ(r->concurrency_slowdown, 0.3);
  EXPECT_EQ(r->concurrency_slowdown_max_running, 4u);
  EXPECT_TRUE(r->concurrency_slowdown_calibrated);
  settings.concurrency_slowdown.reset();
  BackfillOptions plain;
  r = ApplyBackfillCost(settings, crush::CephRelease::kPacific, &plain);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(plain.concurrency_slowdown, 0);
  EXPECT_EQ(plain.concurrency_slowdown_max_running, 0u);
  EXPECT_FALSE(r->concurrency_slowdown_calibrated);
  settings.concurrency_slowdown = ConcurrencySlowdown{.k = 0.7, .max_running = 4};
  EXPECT_THAT(ApplyBackfillCost(settings, crush::CephRelease::kPacific, &plain),
              StatusIs(absl::StatusCode::kInvalidArgument));
  settings.concurrency_slowdown = ConcurrencySlowdown{.k = 0.3, .max_running = 0};
  EXPECT_THAT(ApplyBackfillCost(settings, crush::CephRelease::kPacific, &plain),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("extrapolated")));
}

// The EC hold factor: a class line's optional fourth figure, round-tripped,
// bounded, reported with its source, and an EC PG's hold (not a replicated
// one's) multiplied by it.
TEST(BackfillCost, CalibrationFilesCarryTheEcHoldFactor) {
  Calibration c;
  c.costs["hdd"] = BackfillCost{0.75, 0.125, 12345678};
  c.costs["hdd"].ec_hold_factor = 1.5;
  c.costs["ssd"] = BackfillCost{0.5, 0.01, 12345678};
  const std::string text = FormatCalibration(c, "ec");
  EXPECT_THAT(text, HasSubstr("bytes_per_second=12345678 ec_hold_factor=1.5\n"));
  absl::StatusOr<Calibration> back = ParseCalibration(text);
  ASSERT_THAT(back, IsOk());
  ASSERT_TRUE(back->costs.at("hdd").ec_hold_factor.has_value());
  EXPECT_DOUBLE_EQ(*back->costs.at("hdd").ec_hold_factor, 1.5);
  EXPECT_FALSE(back->costs.at("ssd").ec_hold_factor.has_value());
  EXPECT_EQ(FormatCalibration(*back, "ec"), text);
  const std::string line = "hdd per_pg_seconds=1 seconds_per_object=1 bytes_per_second=1";
  for (const char* bad : {" ec_hold_factor=0", " ec_hold_factor=11", " ec_hold_factor=-1",
                          " ec_hold_factor=x", " ec_hold_factor=2 ec_hold_factor=2"}) {
    EXPECT_THAT(ParseCalibration(line + std::string(bad)),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 1")))
        << bad;
  }

  BackfillCostSettings settings;
  settings.calibrated = back->costs;
  BackfillOptions options;
  absl::StatusOr<BackfillCostReport> r =
      ApplyBackfillCost(settings, crush::CephRelease::kPacific, &options);
  ASSERT_THAT(r, IsOk());
  for (const AppliedClassCost& a : r->classes) {
    EXPECT_EQ(a.ec_source, a.device_class == "hdd" ? CostSource::kCalibration : CostSource::kModel);
  }
  EXPECT_DOUBLE_EQ(options.class_rates.at("hdd").ec_hold_factor, 1.5);
  EXPECT_DOUBLE_EQ(options.class_rates.at("nvme").ec_hold_factor, 1);
  BackfillJob rep{PgId{1, 0}, 0, {1}, 0, 8, kBackfillPriority, {}};
  BackfillJob ec = rep;
  ec.pg = PgId{2, 0};
  ec.erasure = true;
  BackfillOsdInfo info;
  info.device_class = {"hdd", "hdd"};
  for (const auto& [job, hold] : {std::pair{rep, 0.75 + 1.0}, std::pair{ec, 1.5 * (0.75 + 1.0)}}) {
    const std::vector<BackfillJob> jobs = {job};
    absl::StatusOr<BackfillSchedule> s = SimulateBackfill(jobs, info, options);
    ASSERT_THAT(s, IsOk());
    EXPECT_THAT(s->makespan_seconds, DoubleNear(2 + hold + 0.5, 1e-9));
  }
}

// The planner marks every move of an erasure-coded pool's PG (the jobs'
// EC hold factor applies to those only): the sample cluster's reweight moves
// PGs of its replicated pools and of its EC pool.
TEST(BackfillCost, MovesOfErasureCodedPoolsAreMarked) {
  absl::StatusOr<ClusterState> before = crush_testing::LoadSampleCluster();
  ASSERT_THAT(before.status(), IsOk());
  absl::StatusOr<ChangeList> change = crush_testing::LoadSampleChange("reweight.ops");
  ASSERT_THAT(change.status(), IsOk());
  PlanOptions po;
  po.movement.keep_moves = true;
  po.schedule = false;
  absl::StatusOr<PlanReport> r = PlanChange(*before, *change, po);
  ASSERT_THAT(r.status(), IsOk());
  std::size_t ec = 0;
  for (const PgMove& m : r->movement.moves) {
    const Pool* pool = before->FindPool(m.pg.pool);
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(m.erasure, !pool->CanShiftOsds()) << FormatPgId(m.pg);
    ec += m.erasure ? 1 : 0;
  }
  EXPECT_GT(ec, 0u);
  EXPECT_LT(ec, r->movement.moves.size());
  for (const BackfillJob& j : JobsFromMoves(r->movement.moves)) {
    EXPECT_EQ(j.erasure, !before->FindPool(j.pg.pool)->CanShiftOsds());
  }
}

}  // namespace
}  // namespace crushkit::osdmap
