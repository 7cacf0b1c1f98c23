#include "osdmap/planning/backfill_orders.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::HasSubstr;

// One byte per second everywhere, no object limit, hold and wait (the
// commands' default), no stray deletions: a job's hold in seconds is its
// bytes_per_target.
BackfillOptions OrdersUnitRate() {
  BackfillOptions o;
  o.class_rates.clear();
  o.default_rate = BackfillRate{1, 0};
  return o;
}

// A change spread over 12 OSDs: each PG has a random primary and two other
// random targets, and holds 5-40 s.
std::vector<BackfillJob> SpreadJobs(std::uint32_t pgs) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::int32_t> osd(0, 11);
  std::uniform_int_distribution<std::uint64_t> hold(5, 40);
  std::vector<BackfillJob> jobs;
  for (std::uint32_t i = 0; i < pgs; ++i) {
    BackfillJob j{PgId{1, i}, osd(rng), {}, hold(rng), 1, kBackfillPriority, {}};
    while (j.targets.size() < 2) {
      const std::int32_t t = osd(rng);
      if (t != j.primary && (j.targets.empty() || j.targets[0] != t)) j.targets.push_back(t);
    }
    jobs.push_back(std::move(j));
  }
  return jobs;
}

// Every PG lands on osd.0 (the reweight and `osd out` of tools/dev/README.md:
// one OSD receives them all), from primaries 1..8.
std::vector<BackfillJob> FunnelledJobs(std::uint32_t pgs) {
  std::vector<BackfillJob> jobs;
  for (std::uint32_t i = 0; i < pgs; ++i) {
    jobs.push_back(BackfillJob{PgId{1, i},
                               static_cast<std::int32_t>(1 + i % 8),
                               {0},
                               10 + (i * 7) % 13,
                               1,
                               kBackfillPriority,
                               {}});
  }
  return jobs;
}

TEST(RequestOrdersTest, TheOrderGivenIsTheSimulationsAndInsideTheRange) {
  const std::vector<BackfillJob> jobs = SpreadJobs(40);
  const BackfillOptions opt = OrdersUnitRate();
  const auto single = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(single.status(), IsOk());
  const auto r = SimulateRequestOrders(jobs, {}, opt, RequestOrderOptions{});
  ASSERT_THAT(r.status(), IsOk());
  EXPECT_EQ(r->orders, 32);
  EXPECT_EQ(r->orders_asked, 32);
  EXPECT_FALSE(r->capped);
  EXPECT_EQ(r->jobs, 40u);
  EXPECT_EQ(r->given_seconds, single->makespan_seconds);
  EXPECT_LE(r->min_seconds, r->given_seconds);
  EXPECT_GE(r->max_seconds, r->given_seconds);
  EXPECT_LE(r->min_seconds, r->p10_seconds);
  EXPECT_LE(r->p10_seconds, r->median_seconds);
  EXPECT_LE(r->median_seconds, r->p90_seconds);
  EXPECT_LE(r->p90_seconds, r->max_seconds);
  // The order matters on a spread change: the shuffles do not all agree.
  EXPECT_GT(r->p90_seconds, r->p10_seconds * 1.05);
}

TEST(RequestOrdersTest, EachOrderSeesItsJobsInTheOrderGiven) {
  const std::vector<BackfillJob> jobs = SpreadJobs(40);
  const BackfillOptions opt = OrdersUnitRate();
  const auto single = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(single.status(), IsOk());
  RequestOrderOptions ro;
  ro.orders = 8;
  int seen = 0;
  int other_starts = 0;
  const auto r =
      SimulateRequestOrders(jobs, {}, opt, ro, [&](const BackfillSchedule& s) -> absl::Status {
        EXPECT_EQ(s.jobs.size(), jobs.size());
        bool differs = false;
        for (std::size_t i = 0; i < s.jobs.size() && i < jobs.size(); ++i) {
          // One byte per second: job i holds its own bytes, whatever order it asked in.
          EXPECT_DOUBLE_EQ(s.jobs[i].end_seconds - s.jobs[i].start_seconds,
                           static_cast<double>(jobs[i].bytes_per_target))
              << "order " << seen << " job " << i;
          if (seen == 0) {
            EXPECT_EQ(s.jobs[i].start_seconds, single->jobs[i].start_seconds) << i;
          }
          differs = differs || s.jobs[i].start_seconds != single->jobs[i].start_seconds;
        }
        if (differs) ++other_starts;
        ++seen;
        return absl::OkStatus();
      });
  ASSERT_THAT(r.status(), IsOk());
  EXPECT_EQ(seen, 8);
  EXPECT_GE(other_starts, 6);
  // Its error stops the orders and is returned.
  seen = 0;
  const auto failed = SimulateRequestOrders(jobs, {}, opt, ro, [&](const BackfillSchedule&) {
    ++seen;
    return absl::InternalError("stop");
  });
  EXPECT_THAT(failed.status(), StatusIs(absl::StatusCode::kInternal));
  EXPECT_EQ(seen, 1);
}

TEST(RequestOrdersTest, SameSeedSameRangeOtherSeedOtherShuffles) {
  const std::vector<BackfillJob> jobs = SpreadJobs(40);
  RequestOrderOptions ro;
  ro.orders = 16;
  const auto a = SimulateRequestOrders(jobs, {}, OrdersUnitRate(), ro);
  const auto b = SimulateRequestOrders(jobs, {}, OrdersUnitRate(), ro);
  ASSERT_THAT(a.status(), IsOk());
  ASSERT_THAT(b.status(), IsOk());
  EXPECT_EQ(a->min_seconds, b->min_seconds);
  EXPECT_EQ(a->p10_seconds, b->p10_seconds);
  EXPECT_EQ(a->median_seconds, b->median_seconds);
  EXPECT_EQ(a->p90_seconds, b->p90_seconds);
  EXPECT_EQ(a->max_seconds, b->max_seconds);
  ro.seed = 36;
  const auto c = SimulateRequestOrders(jobs, {}, OrdersUnitRate(), ro);
  ASSERT_THAT(c.status(), IsOk());
  EXPECT_EQ(c->given_seconds, a->given_seconds);
  EXPECT_TRUE(c->min_seconds != a->min_seconds || c->p10_seconds != a->p10_seconds ||
              c->median_seconds != a->median_seconds || c->p90_seconds != a->p90_seconds ||
              c->max_seconds != a->max_seconds);
}

TEST(RequestOrdersTest, FunnelledChangeHasANarrowRange) {
  // osd.0's remote slot serialises every PG: the sum of the holds in any order.
  const std::vector<BackfillJob> jobs = FunnelledJobs(30);
  double sum = 0;
  for (const BackfillJob& j : jobs) sum += static_cast<double>(j.bytes_per_target);
  const auto r = SimulateRequestOrders(jobs, {}, OrdersUnitRate(), RequestOrderOptions{});
  ASSERT_THAT(r.status(), IsOk());
  EXPECT_EQ(r->orders, 32);
  EXPECT_EQ(r->given_seconds, sum);
  EXPECT_EQ(r->min_seconds, sum);
  EXPECT_EQ(r->max_seconds, sum);
}

TEST(RequestOrdersTest, WorkCapRunsFewerOrdersThenNone) {
  const std::vector<BackfillJob> jobs = SpreadJobs(100);
  RequestOrderOptions ro;
  ro.max_job_simulations = 1000;  // 10 orders of 100 PGs
  auto r = SimulateRequestOrders(jobs, {}, OrdersUnitRate(), ro);
  ASSERT_THAT(r.status(), IsOk());
  EXPECT_EQ(r->orders, 10);
  EXPECT_TRUE(r->capped);
  EXPECT_GT(r->given_seconds, 0);
  EXPECT_THAT(FormatRequestOrderRange(*r), HasSubstr("10 of 32 for the cap of 1000"));
  ro.max_job_simulations = 700;  // 7 fit, fewer than min_orders 8
  r = SimulateRequestOrders(jobs, {}, OrdersUnitRate(), ro);
  ASSERT_THAT(r.status(), IsOk());
  EXPECT_EQ(r->orders, 0);
  EXPECT_TRUE(r->capped);
  EXPECT_EQ(r->given_seconds, 0);
  EXPECT_EQ(FormatRequestOrderRange(*r),
            "request orders not simulated: 100 PGs x 32 orders is over the cap of 700 PG "
            "simulations");
}

TEST(RequestOrdersTest, OffBelowTwoOrders) {
  RequestOrderOptions ro;
  ro.orders = 1;
  const auto r = SimulateRequestOrders(SpreadJobs(10), {}, OrdersUnitRate(), ro);
  ASSERT_THAT(r.status(), IsOk());
  EXPECT_EQ(r->orders, 0);
  EXPECT_FALSE(r->capped);
  EXPECT_EQ(FormatRequestOrderRange(*r), "");
}

TEST(RequestOrdersTest, FormatsTheRange) {
  RequestOrderRange r;
  r.orders_asked = 32;
  r.orders = 32;
  r.jobs = 40;
  r.given_seconds = 42;
  r.min_seconds = 31;
  r.p10_seconds = 38;
  r.median_seconds = 44;
  r.p90_seconds = 50;
  r.max_seconds = 55;
  EXPECT_EQ(FormatRequestOrderRange(r),
            "38 s .. 50 s over 32 request orders (p10 .. p90; median 44 s, all 31 s .. 55 s)");
}

TEST(RequestOrdersTest, Errors) {
  std::vector<BackfillJob> jobs = SpreadJobs(10);
  jobs[3].targets.clear();
  EXPECT_THAT(SimulateRequestOrders(jobs, {}, OrdersUnitRate(), RequestOrderOptions{}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("pg 1.3: no targets")));
  RequestOrderOptions ro;
  ro.min_orders = 1;
  EXPECT_THAT(SimulateRequestOrders(SpreadJobs(10), {}, OrdersUnitRate(), ro).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("min_orders")));
}

}  // namespace
}  // namespace crushkit::osdmap
