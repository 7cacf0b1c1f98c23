// backfill_toofull and stray deletions: when a leaving copy's bytes come off
// the projected use a target's backfillfull check reads (issue 35).
#include <cstdint>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "osdmap/planning/backfill_schedule.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// One byte per second, no object limit, a 30 s retry interval, osd.2
// refusing above 90% of its 1000 bytes.
BackfillOptions TooFullOptions() {
  BackfillOptions o;
  o.hold_and_wait = false;
  o.class_rates.clear();
  o.default_rate = BackfillRate{1, 0};
  o.backfillfull_ratio = 0.9;
  return o;
}

BackfillOsdInfo NearlyFullOsd2() {
  BackfillOsdInfo info;
  info.capacity_bytes = {1000, 1000, 1000};
  info.used_bytes = {500, 500, 800};
  return info;
}

// Job 0 (osd.0 -> osd.2, 200 bytes) does not fit on osd.2 (800 + 200 > 900)
// until job 1 (osd.2 -> osd.1, 300 bytes, 300 s) has taken osd.2's copy of
// its PG away. Job 0 asks at 0, 30, ..., 300, 330.
std::vector<BackfillJob> FillOsd2AfterItGives() {
  std::vector<BackfillJob> jobs = {BackfillJob{PgId{1, 0}, 0, {2}, 200, 1, kBackfillPriority, {}},
                                   BackfillJob{PgId{1, 1}, 2, {1}, 300, 1, kBackfillPriority, {}}};
  jobs[0].leaving = {0};
  jobs[1].leaving = {2};
  return jobs;
}

std::vector<double> StartTimes(const BackfillSchedule& s) {
  std::vector<double> v;
  for (const BackfillJobTiming& t : s.jobs) v.push_back(t.start_seconds);
  return v;
}

// Tentacle, at once (tools/dev/README.md "backfill_toofull on Tentacle"):
// osd.3 refused a PG the model admitted because it had given the bytes of
// two PGs leaving osd.3 back at their ends, where osd.3's statfs showed them
// only after the stray deletions and a refresh. Here osd.2's copy goes 1 s
// after job 1's end (301 s) and its statfs shows it 2 s later (303 s): the
// retry at 300 s is refused, the one at 330 s passes.
TEST(BackfillTooFullTest, SpaceComesBackAfterTheDeletionAndTheStatfsRefresh) {
  BackfillOptions opt = TooFullOptions();
  opt.stray_delete_delay_seconds = 1;
  const auto s = SimulateBackfill(FillOsd2AfterItGives(), NearlyFullOsd2(), opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_THAT(StartTimes(*s), ElementsAre(330, 0));
  ASSERT_EQ(s->stalls.size(), 1u);
  EXPECT_EQ(s->stalls[0].osd, 2);
  EXPECT_EQ(s->stalls[0].refusals, 11u);  // 0, 30, ..., 300
  EXPECT_EQ(s->stalls[0].seconds, 330);
}

// The lag is an option: at 0 (and the deletion at the end) the space is
// back by the retry at 300 s, as ends, deletions and frees of an instant
// come before its retries.
TEST(BackfillTooFullTest, SpaceFreedAtARetrysInstantLetsItStart) {
  BackfillOptions opt = TooFullOptions();
  opt.stray_delete_delay_seconds = 0;
  opt.stray_freed_lag_seconds = 0;
  const auto s = SimulateBackfill(FillOsd2AfterItGives(), NearlyFullOsd2(), opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_THAT(StartTimes(*s), ElementsAre(300, 0));
  opt.stray_freed_lag_seconds = 31;  // 300 + 31: past the retry at 330
  const auto later = SimulateBackfill(FillOsd2AfterItGives(), NearlyFullOsd2(), opt);
  ASSERT_THAT(later.status(), IsOk());
  EXPECT_THAT(StartTimes(*later), ElementsAre(360, 0));
}

// Hold and wait takes the same check at the remote request.
TEST(BackfillTooFullTest, HoldAndWaitWaitsForTheRefreshToo) {
  BackfillOptions opt = TooFullOptions();
  opt.hold_and_wait = true;
  opt.stray_delete_delay_seconds = 1;
  const auto s = SimulateBackfill(FillOsd2AfterItGives(), NearlyFullOsd2(), opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_THAT(StartTimes(*s), ElementsAre(330, 0));
}

// A target that never gets the space back (no copy leaves it) still ends
// the simulation: the frees of other OSDs pending do not keep it waiting.
TEST(BackfillTooFullTest, NoSpaceComingStillGivesUp) {
  BackfillOptions opt = TooFullOptions();
  opt.stray_delete_delay_seconds = 1;
  std::vector<BackfillJob> jobs = FillOsd2AfterItGives();
  jobs[1].targets = {0};
  jobs[1].leaving = {1};
  jobs[1].primary = 1;
  const auto s = SimulateBackfill(jobs, NearlyFullOsd2(), opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_TRUE(s->jobs[0].never_starts);
  EXPECT_EQ(s->jobs_never_starting, 1u);
}

TEST(BackfillTooFullTest, TheLagMustBeFiniteAndNotNegative) {
  BackfillOptions opt = TooFullOptions();
  opt.stray_delete_delay_seconds = 1;
  for (const double lag :
       {-1.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    opt.stray_freed_lag_seconds = lag;
    EXPECT_THAT(SimulateBackfill(FillOsd2AfterItGives(), NearlyFullOsd2(), opt).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("stray_freed_lag_seconds")))
        << lag;
  }
}

}  // namespace
}  // namespace crushkit::osdmap
