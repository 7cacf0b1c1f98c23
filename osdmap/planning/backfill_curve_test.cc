// The misplaced curve (backfill_curve.cc): each PG counted down while it
// pushes, as Ceph's update_calc_stats counts a backfill target's objects.
#include <cstdint>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "osdmap/planning/backfill_schedule.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::IsOk;
using ::testing::ElementsAre;
using ::testing::Pair;

BackfillJob PushJob(std::uint32_t ps, std::int32_t primary, std::vector<std::int32_t> targets,
                    std::uint64_t bytes, std::uint64_t objects) {
  return BackfillJob{PgId{1, ps},       primary, std::move(targets), bytes, objects,
                     kBackfillPriority, {}};
}

// The cost model's shape: `per_pg` seconds per PG, one object a second, one
// byte a second, added up.
BackfillOptions PushAdditiveOptions(double per_pg) {
  BackfillOptions o;
  o.hold_and_wait = false;
  o.class_rates.clear();
  o.default_rate = BackfillRate{
      .bytes_per_second = 1, .objects_per_second = 1, .per_pg_seconds = per_pg, .additive = true};
  return o;
}

std::vector<std::pair<double, std::uint64_t>> CurvePoints(const BackfillSchedule& s) {
  std::vector<std::pair<double, std::uint64_t>> v;
  for (const MisplacedPoint& p : s.misplaced) v.emplace_back(p.seconds, p.objects_misplaced);
  return v;
}

// 10 objects to 2 targets (20 misplaced), hold 2 + 10 = 12 s: the scan's
// second first, then the objects leave evenly, then the last round's second.
TEST(BackfillCurveTest, APgCountsDownWhileItPushes) {
  BackfillOptions opt = PushAdditiveOptions(2);
  opt.objects_total = 40;
  const auto s = SimulateBackfill(std::vector<BackfillJob>{PushJob(0, 0, {1, 2}, 0, 10)}, {}, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(s->makespan_seconds, 12);
  EXPECT_THAT(CurvePoints(*s),
              ElementsAre(Pair(0.0, 20u), Pair(1.0, 20u), Pair(11.0, 0u), Pair(12.0, 0u)));
  EXPECT_EQ(s->misplaced[0].ratio, 0.5);
  EXPECT_EQ(s->misplaced[2].ratio, 0);
}

// Two PGs on different OSDs pushing at once: their counts add up, and the
// curve bends where either starts or ends (halfway through the longer one,
// 4 of its 8 objects have left, with all 4 of the shorter one's).
TEST(BackfillCurveTest, OverlappingPgsAddUp) {
  BackfillOptions opt = PushAdditiveOptions(0);
  opt.start_delay_seconds = 2;
  const auto s = SimulateBackfill(
      std::vector<BackfillJob>{PushJob(0, 0, {1}, 0, 8), PushJob(1, 2, {3}, 0, 4)}, {}, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_THAT(CurvePoints(*s),
              ElementsAre(Pair(0.0, 12u), Pair(2.0, 12u), Pair(6.0, 4u), Pair(10.0, 0u)));
}

// A PG whose hold is its per-PG part only (no object rate, no bytes) drops
// at once, in the middle of its hold: two points at that instant.
TEST(BackfillCurveTest, APgWithNothingToPushDropsAtOnce) {
  BackfillOptions opt = PushAdditiveOptions(2);
  opt.default_rate.objects_per_second = 0;
  const auto s = SimulateBackfill(std::vector<BackfillJob>{PushJob(0, 0, {1}, 0, 4)}, {}, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_THAT(CurvePoints(*s),
              ElementsAre(Pair(0.0, 4u), Pair(1.0, 4u), Pair(1.0, 0u), Pair(2.0, 0u)));
}

// A hold stretched in real time (here by the concurrency slowdown: two PGs
// at once at half pace each, 24 s for a 12 s hold) stretches the count-down
// and the per-PG part with it.
TEST(BackfillCurveTest, AStretchedHoldStretchesTheCountDown) {
  BackfillOptions opt = PushAdditiveOptions(2);
  opt.concurrency_slowdown = 1;
  const auto s = SimulateBackfill(
      std::vector<BackfillJob>{PushJob(0, 0, {1}, 0, 10), PushJob(1, 2, {3}, 0, 10)}, {}, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(s->makespan_seconds, 24);
  EXPECT_THAT(CurvePoints(*s),
              ElementsAre(Pair(0.0, 20u), Pair(2.0, 20u), Pair(22.0, 0u), Pair(24.0, 0u)));
}

// Calibration and request orders keep two points: the start and the last
// end, with what never moved.
TEST(BackfillCurveTest, TwoPointsKeepTheEnds) {
  BackfillOptions opt = PushAdditiveOptions(2);
  opt.curve_max_points = 2;
  const auto s = SimulateBackfill(
      std::vector<BackfillJob>{PushJob(0, 0, {1}, 0, 10), PushJob(1, 0, {2}, 0, 6)}, {}, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_THAT(CurvePoints(*s), ElementsAre(Pair(0.0, 16u), Pair(20.0, 0u)));
}

}  // namespace
}  // namespace crushkit::osdmap
