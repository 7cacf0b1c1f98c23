#include "osdmap/planning/backfill_schedule.h"

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// One byte per second everywhere and no object limit: a job's duration in
// seconds is its bytes_per_target.
BackfillOptions UnitRateOptions(int max_backfills = 1) {
  BackfillOptions o;
  o.max_backfills = max_backfills;
  o.hold_and_wait = false;  // all at once: the tests of hold and wait set it
  o.class_rates.clear();
  o.default_rate = BackfillRate{1, 0};
  return o;
}

BackfillJob Job(std::uint32_t ps, std::int32_t primary, std::vector<std::int32_t> targets,
                std::uint64_t seconds, std::uint64_t objects = 1,
                int priority = kBackfillPriority) {
  return BackfillJob{PgId{1, ps}, primary, std::move(targets), seconds, objects, priority, {}};
}

std::vector<double> Starts(const BackfillSchedule& s) {
  std::vector<double> v;
  for (const BackfillJobTiming& t : s.jobs) v.push_back(t.start_seconds);
  return v;
}

std::vector<double> Ends(const BackfillSchedule& s) {
  std::vector<double> v;
  for (const BackfillJobTiming& t : s.jobs) v.push_back(t.end_seconds);
  return v;
}

std::vector<std::pair<double, std::uint64_t>> Curve(const BackfillSchedule& s) {
  std::vector<std::pair<double, std::uint64_t>> v;
  for (const MisplacedPoint& p : s.misplaced) v.emplace_back(p.seconds, p.objects_misplaced);
  return v;
}

const OsdBackfillLoad& Osd(const BackfillSchedule& s, std::int32_t id) {
  for (const OsdBackfillLoad& o : s.osds) {
    if (o.osd == id) return o;
  }
  ADD_FAILURE() << "osd." << id << " not in the report";
  return s.osds.front();
}

TEST(BackfillScheduleTest, TwoOsdsOnePg) {
  BackfillOptions opt = UnitRateOptions();
  opt.objects_total = 20;
  const std::vector<BackfillJob> jobs = {Job(0, 0, {1}, 10, 5)};
  const auto s = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(s->makespan_seconds, 10);
  EXPECT_EQ(s->bytes_total, 10u);
  EXPECT_THAT(Curve(*s), ElementsAre(std::pair(0.0, 5u), std::pair(10.0, 0u)));
  EXPECT_EQ(s->misplaced.front().ratio, 0.25);
  EXPECT_EQ(s->misplaced.back().ratio, 0);
  ASSERT_EQ(s->osds.size(), 2u);
  EXPECT_EQ(Osd(*s, 0).busy_seconds, 10);
  EXPECT_EQ(Osd(*s, 0).jobs_as_primary, 1u);
  EXPECT_EQ(Osd(*s, 1).busy_seconds, 10);
  EXPECT_EQ(Osd(*s, 1).transfer_seconds, 10);
  EXPECT_EQ(Osd(*s, 1).bytes_in, 10u);
  EXPECT_EQ(Osd(*s, 1).jobs_as_target, 1u);
  EXPECT_TRUE(s->hosts.empty());
}

// The monitor's commits: nothing starts before the start delay (pg_temp),
// the change ends the end delay after the last backfill; the curve still
// opens at 0 with everything misplaced.
TEST(BackfillScheduleTest, MonitorDelaysFrameTheBackfill) {
  BackfillOptions opt = UnitRateOptions();
  opt.objects_total = 20;
  opt.start_delay_seconds = 1;
  opt.end_delay_seconds = 0.5;
  const std::vector<BackfillJob> jobs = {Job(0, 0, {1}, 10, 5), Job(1, 0, {2}, 4, 3)};
  const auto s = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(s->makespan_seconds, 15.5);  // 1 + 10 + 4 (one local slot on osd.0) + 0.5
  EXPECT_THAT(Ends(*s), ElementsAre(11.0, 15.0));
  EXPECT_EQ(s->jobs[0].start_seconds, 1);
  // Job 0 counts down from its start at 1 s to 11 s, job 1 from 11 s to 15 s.
  EXPECT_THAT(Curve(*s), ElementsAre(std::pair(0.0, 8u), std::pair(1.0, 8u), std::pair(11.0, 3u),
                                     std::pair(15.0, 0u)));
  EXPECT_EQ(Osd(*s, 0).busy_seconds, 14);  // the delays hold no reservation
  opt.end_delay_seconds = -1;
  EXPECT_THAT(SimulateBackfill(jobs, {}, opt).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
  opt.end_delay_seconds = 0.5;
  const auto none = SimulateBackfill({}, {}, opt);
  ASSERT_THAT(none.status(), IsOk());
  EXPECT_EQ(none->makespan_seconds, 0);
}

// Three PGs from different primaries all need osd.9: it serves them one at a
// time in request order, while each waiting PG keeps its primary's local slot
// (hold_and_wait: Ceph holds the local reservation while it waits for remote
// ones). osd.9: A 0-10, B 10-30, C 30-35; D (osd.3 -> osd.4) runs 0-7 alongside.
TEST(BackfillScheduleTest, ChainWithOneBottleneckOsd) {
  const std::vector<BackfillJob> jobs = {Job(0, 0, {9}, 10), Job(1, 1, {9}, 20), Job(2, 2, {9}, 5),
                                         Job(3, 3, {4}, 7)};
  BackfillOsdInfo info;
  info.host = {"h1", "h1", "h1", "h1", "h2", "", "", "", "", "h2"};
  BackfillOptions opt = UnitRateOptions();
  opt.hold_and_wait = true;
  const auto s = SimulateBackfill(jobs, info, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(s->makespan_seconds, 35);
  EXPECT_THAT(Starts(*s), ElementsAre(0, 10, 30, 0));
  EXPECT_THAT(Ends(*s), ElementsAre(10, 30, 35, 7));
  // One object each, counted down while it is pushed: at 7 s job 3's is in
  // and 0.3 of job 0's is left (2.3, rounded).
  EXPECT_THAT(Curve(*s), ElementsAre(std::pair(0.0, 4u), std::pair(7.0, 2u), std::pair(10.0, 2u),
                                     std::pair(30.0, 1u), std::pair(35.0, 0u)));
  std::vector<std::int32_t> order;
  for (const OsdBackfillLoad& o : s->osds) order.push_back(o.osd);
  EXPECT_THAT(order, ElementsAre(2, 9, 1, 0, 3, 4));
  EXPECT_EQ(Osd(*s, 2).busy_seconds, 35);  // held its local slot from 0
  EXPECT_EQ(Osd(*s, 2).transfer_seconds, 5);
  EXPECT_EQ(Osd(*s, 9).busy_seconds, 35);
  EXPECT_EQ(Osd(*s, 9).transfer_seconds, 35);
  EXPECT_EQ(Osd(*s, 9).jobs_as_target, 3u);
  ASSERT_EQ(s->hosts.size(), 2u);
  EXPECT_EQ(s->hosts[0].host, "h1");
  EXPECT_EQ(s->hosts[0].busy_seconds, 35);
  EXPECT_EQ(s->hosts[0].osd_busy_seconds, 10 + 30 + 35 + 7);
  EXPECT_EQ(s->hosts[0].osds, 4u);
  EXPECT_EQ(s->hosts[1].host, "h2");
  EXPECT_EQ(s->hosts[1].busy_seconds, 35);
  EXPECT_EQ(s->hosts[1].osd_busy_seconds, 35 + 7);
  ASSERT_EQ(s->longest_waits.size(), 4u);
  EXPECT_EQ(s->longest_waits[0].job, 2u);
  EXPECT_EQ(s->longest_waits[0].wait_seconds, 30);
  EXPECT_EQ(s->longest_waits[0].pg, (PgId{1, 2}));
  EXPECT_EQ(s->longest_waits[1].job, 1u);
  EXPECT_EQ(s->longest_waits[1].wait_seconds, 10);
  EXPECT_EQ(s->longest_waits[2].job, 0u);
  EXPECT_EQ(s->longest_waits[3].job, 3u);

  // All at once (the default): the same order on osd.9, but a waiting PG
  // holds nothing, so osd.2 is busy only for its own 5 s.
  const auto a = SimulateBackfill(jobs, info, UnitRateOptions());
  ASSERT_THAT(a.status(), IsOk());
  EXPECT_EQ(a->makespan_seconds, 35);
  EXPECT_THAT(Starts(*a), ElementsAre(0, 10, 30, 0));
  EXPECT_EQ(Osd(*a, 2).busy_seconds, 5);
  EXPECT_EQ(Osd(*a, 9).busy_seconds, 35);
  EXPECT_EQ(a->hosts[0].osd_busy_seconds, 10 + 20 + 5 + 7);
}

// osd.1 pushes two PGs, one to the busy osd.9 and one to the idle osd.5.
// Hold and wait: the first holds osd.1's local slot while it waits for osd.9
// (0-10), so the second waits for it: 30 s. All at once: the second runs
// while the first waits, holding nothing: 20 s.
TEST(BackfillScheduleTest, HoldAndWaitLeavesSlotsIdle) {
  const std::vector<BackfillJob> jobs = {Job(0, 0, {9}, 10), Job(1, 1, {9}, 10),
                                         Job(2, 1, {5}, 10)};
  BackfillOptions hold = UnitRateOptions();
  hold.hold_and_wait = true;
  const auto h = SimulateBackfill(jobs, {}, hold);
  const auto a = SimulateBackfill(jobs, {}, UnitRateOptions());
  ASSERT_THAT(h.status(), IsOk());
  ASSERT_THAT(a.status(), IsOk());
  EXPECT_EQ(h->makespan_seconds, 30);
  EXPECT_THAT(Starts(*h), ElementsAre(0, 10, 20));
  EXPECT_EQ(a->makespan_seconds, 20);
  EXPECT_THAT(Starts(*a), ElementsAre(0, 10, 0));
}

// All at once, a freed slot is offered to the first 16 PGs parked on it.
// Here osd.0 frees its slot at 10 s with 18 PGs parked on it: 17 are
// refused by the full osd.9 and nothing else runs, so the 18th is tried at
// once and starts at 10 s (the simulation stalled before this was handled).
TEST(BackfillScheduleTest, AFreedSlotReachesPgsPastTheFirstSixteen) {
  std::vector<BackfillJob> jobs = {Job(0, 0, {8}, 10)};
  for (std::uint32_t i = 1; i <= 17; ++i) jobs.push_back(Job(i, 0, {9}, 200));
  jobs.push_back(Job(18, 0, {7}, 5));
  BackfillOptions opt = UnitRateOptions();
  opt.backfillfull_ratio = 0.9;
  BackfillOsdInfo info;
  info.capacity_bytes.assign(10, 1000);
  info.used_bytes.assign(10, 100);
  info.used_bytes[9] = 800;  // + 200 = 1000 > 900: refused
  const auto s = SimulateBackfill(jobs, info, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(s->jobs[18].start_seconds, 10);
  EXPECT_EQ(s->jobs_never_starting, 17u);
}

// Three PGs leave osd.0 for osd.1..3, and four PGs from osd.4..7 all arrive
// at osd.9; 10 s each. One slot: osd.0 sends them one after another (30 s),
// osd.9 takes them one after another (40 s). Three slots: osd.0 sends all at
// once (10 s); osd.9 takes three, then the fourth (20 s).
TEST(BackfillScheduleTest, MaxBackfillsOneVersusThree) {
  const std::vector<BackfillJob> out = {Job(0, 0, {1}, 10), Job(1, 0, {2}, 10), Job(2, 0, {3}, 10)};
  const std::vector<BackfillJob> in = {Job(0, 4, {9}, 10), Job(1, 5, {9}, 10), Job(2, 6, {9}, 10),
                                       Job(3, 7, {9}, 10)};
  const auto out1 = SimulateBackfill(out, {}, UnitRateOptions(1));
  const auto out3 = SimulateBackfill(out, {}, UnitRateOptions(3));
  const auto in1 = SimulateBackfill(in, {}, UnitRateOptions(1));
  const auto in3 = SimulateBackfill(in, {}, UnitRateOptions(3));
  ASSERT_THAT(out1.status(), IsOk());
  ASSERT_THAT(out3.status(), IsOk());
  ASSERT_THAT(in1.status(), IsOk());
  ASSERT_THAT(in3.status(), IsOk());
  EXPECT_EQ(out1->makespan_seconds, 30);
  EXPECT_THAT(Starts(*out1), ElementsAre(0, 10, 20));
  EXPECT_EQ(out3->makespan_seconds, 10);
  EXPECT_EQ(in1->makespan_seconds, 40);
  EXPECT_EQ(in3->makespan_seconds, 20);
  EXPECT_THAT(Starts(*in3), ElementsAre(0, 0, 0, 10));
}

// A degraded PG queued last still goes first, on a local reserver (osd.0)
// and on a remote one (osd.9).
TEST(BackfillScheduleTest, DegradedBeforeMisplaced) {
  std::vector<PgMove> moves(3);
  for (std::uint32_t i = 0; i < 3; ++i) {
    moves[i].pg = PgId{2, i};
    moves[i].source = 0;
    moves[i].pusher = 0;
    moves[i].targets = {static_cast<std::int32_t>(i + 1)};
    moves[i].bytes_per_target = 10;
    moves[i].objects_per_target = 1;
  }
  moves[2].degraded = true;
  const std::vector<BackfillJob> local = JobsFromMoves(moves);
  ASSERT_EQ(local.size(), 3u);
  EXPECT_EQ(local[0].priority, kBackfillPriority);
  EXPECT_EQ(local[2].priority, kBackfillDegradedPriority);
  EXPECT_EQ(local[2].pg, (PgId{2, 2}));
  const auto s = SimulateBackfill(local, {}, UnitRateOptions());
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_THAT(Starts(*s), ElementsAre(10, 20, 0));

  const std::vector<BackfillJob> remote = {Job(0, 1, {9}, 10), Job(1, 2, {9}, 10),
                                           Job(2, 3, {9}, 10, 1, kBackfillDegradedPriority)};
  const auto r = SimulateBackfill(remote, {}, UnitRateOptions());
  ASSERT_THAT(r.status(), IsOk());
  EXPECT_THAT(Starts(*r), ElementsAre(10, 20, 0));
  EXPECT_EQ(r->longest_waits[0].job, 1u);
  EXPECT_EQ(r->longest_waits[0].priority, kBackfillPriority);
}

// EC: one OSD taking two shards, and the primary taking a shard itself, need
// one remote slot only (on osd.1) but receive the bytes of every shard.
TEST(BackfillScheduleTest, DuplicateTargetsAndPrimaryTargetReserveOnce) {
  std::vector<BackfillTraceEvent> trace;
  BackfillOptions opt = UnitRateOptions();
  opt.trace = [&](const BackfillTraceEvent& e) { trace.push_back(e); };
  const std::vector<BackfillJob> jobs = {Job(0, 0, {1, 0, 1}, 4, 2)};
  const auto s = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(s->makespan_seconds, 4);
  EXPECT_EQ(s->misplaced.front().objects_misplaced, 6u);
  EXPECT_EQ(s->bytes_total, 12u);
  EXPECT_EQ(Osd(*s, 1).bytes_in, 8u);
  EXPECT_EQ(Osd(*s, 1).jobs_as_target, 1u);
  EXPECT_EQ(Osd(*s, 0).bytes_in, 4u);
  using K = BackfillTraceEvent::Kind;
  std::vector<std::pair<K, std::int32_t>> kinds;
  for (const BackfillTraceEvent& e : trace) kinds.emplace_back(e.kind, e.osd);
  EXPECT_THAT(kinds, ElementsAre(std::pair(K::kLocalGranted, 0), std::pair(K::kRemoteGranted, 1),
                                 std::pair(K::kStarted, 0), std::pair(K::kLocalReleased, 0),
                                 std::pair(K::kRemoteReleased, 1)));
}

// A PG with no known primary reserves its targets only.
TEST(BackfillScheduleTest, NoPrimaryReservesTargetsOnly) {
  const std::vector<BackfillJob> jobs = {Job(0, crush::kItemNone, {3}, 5), Job(1, 0, {3}, 5)};
  const auto s = SimulateBackfill(jobs, {}, UnitRateOptions());
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(s->makespan_seconds, 10);
  EXPECT_EQ(s->osds.size(), 2u);
}

// The PG moves at its slowest OSD's bytes rate, or the primary's object rate
// when that is slower: hdd primary (100 MiB/s, 10 objects/s), ssd target.
TEST(BackfillScheduleTest, RatesPerDeviceClass) {
  constexpr std::uint64_t kMiB = 1024 * 1024;
  BackfillOsdInfo info;
  info.device_class = {"hdd", "ssd", "nvme", "tape"};
  const std::vector<BackfillJob> jobs = {
      Job(0, 0, {1}, 1000 * kMiB, 50),   // bytes bound: 10 s
      Job(1, 1, {2}, 4000 * kMiB, 50),   // ssd to nvme: 400 MiB/s, no object limit: 10 s
      Job(2, 2, {0}, 500 * kMiB, 1000),  // nvme primary, hdd target: 5 s
      Job(3, 3, {2}, 100 * kMiB, 100),   // unknown class: hdd figures, object bound: 10 s
  };
  BackfillOptions opt;
  opt.max_backfills = 4;
  const auto s = SimulateBackfill(jobs, info, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_THAT(Ends(*s), ElementsAre(10, 10, 5, 10));
  EXPECT_EQ(DefaultBackfillRates().at("hdd").bytes_per_second, 100.0 * kMiB);
  EXPECT_EQ(DefaultBackfillRates().at("hdd").objects_per_second, 10);
}

// A movement report's moves, hosts, classes and object total feed the
// simulation directly: osd.0 (hdd) sends pg 3.0 to osd.1 (ssd) and pg 3.1 to
// osd.2 (ssd), one after the other, 200 MiB at 100 MiB/s each.
TEST(BackfillScheduleTest, FromMovementReport) {
  constexpr std::uint64_t kMiB = 1024 * 1024;
  Movement m;
  m.totals.objects_total = 400;
  for (std::int32_t o = 0; o < 3; ++o) {
    OsdMovement& osd = m.osds.emplace_back();
    osd.osd = o;
    osd.host = o == 0 ? "a" : "b";
    osd.device_class = o == 0 ? "hdd" : "ssd";
  }
  for (std::uint32_t i = 0; i < 2; ++i) {
    PgMove& mv = m.moves.emplace_back();
    mv.pg = PgId{3, i};
    mv.source = 0;
    mv.pusher = 0;
    mv.targets = {static_cast<std::int32_t>(i + 1)};
    mv.bytes_per_target = 200 * kMiB;
    mv.objects_per_target = 10;
  }
  const auto s = SimulateMovementBackfill(m);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(s->makespan_seconds, 4);
  EXPECT_EQ(s->misplaced.front().ratio, 20.0 / 400);
  ASSERT_EQ(s->hosts.size(), 2u);
  EXPECT_EQ(s->hosts[0].host, "a");
  EXPECT_EQ(s->hosts[0].busy_seconds, 4);
  EXPECT_EQ(s->hosts[1].busy_seconds, 4);
  EXPECT_EQ(s->hosts[1].osd_busy_seconds, 4);
  EXPECT_EQ(s->hosts[1].osds, 2u);
}

TEST(BackfillScheduleTest, CurveThinnedToMaxPoints) {
  std::vector<BackfillJob> jobs;
  for (std::uint32_t i = 0; i < 10; ++i)
    jobs.push_back(Job(i, 0, {static_cast<std::int32_t>(i + 1)}, 1));
  BackfillOptions opt = UnitRateOptions();
  opt.curve_max_points = 0;
  const auto all = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(all.status(), IsOk());
  EXPECT_EQ(all->misplaced.size(), 11u);
  opt.curve_max_points = 4;
  const auto thin = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(thin.status(), IsOk());
  EXPECT_THAT(Curve(*thin), ElementsAre(std::pair(0.0, 10u), std::pair(4.0, 6u), std::pair(7.0, 3u),
                                        std::pair(10.0, 0u)));
}

TEST(BackfillScheduleTest, NoJobsIsAnEmptySchedule) {
  const auto s = SimulateBackfill({}, {}, UnitRateOptions());
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(s->makespan_seconds, 0);
  EXPECT_THAT(Curve(*s), ElementsAre(std::pair(0.0, 0u)));
}

// PGs with no bytes (and no object-rate limit) still take their slots, for
// no time: they finish at 0 and the curve keeps its opening point.
TEST(BackfillScheduleTest, EmptyPgsFinishAtTimeZero) {
  const std::vector<BackfillJob> jobs = {Job(0, 0, {1}, 0, 3), Job(1, 0, {2}, 0, 0),
                                         Job(2, 0, {3}, 5, 2)};
  const auto s = SimulateBackfill(jobs, {}, UnitRateOptions());
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(s->makespan_seconds, 5);
  EXPECT_THAT(Ends(*s), ElementsAre(0, 0, 5));
  EXPECT_THAT(Curve(*s), ElementsAre(std::pair(0.0, 5u), std::pair(0.0, 2u), std::pair(5.0, 0u)));
}

TEST(BackfillScheduleTest, InputsThatCouldNeverFinishAreErrors) {
  const std::vector<BackfillJob> ok = {Job(7, 0, {1}, 10)};
  EXPECT_THAT(SimulateBackfill(ok, {}, UnitRateOptions(0)).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("max_backfills is 0")));
  const std::vector<BackfillJob> no_targets = {Job(7, 0, {}, 10)};
  EXPECT_THAT(SimulateBackfill(no_targets, {}, UnitRateOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("pg 1.7: no targets")));
  const std::vector<BackfillJob> hole = {Job(7, 0, {crush::kItemNone}, 10)};
  EXPECT_THAT(SimulateBackfill(hole, {}, UnitRateOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("out of range")));
  const std::vector<BackfillJob> negative = {Job(7, -3, {1}, 10)};
  EXPECT_THAT(SimulateBackfill(negative, {}, UnitRateOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("osd id -3")));
  BackfillOptions zero_rate = UnitRateOptions();
  zero_rate.class_rates["hdd"] = BackfillRate{0, 0};
  BackfillOsdInfo info;
  info.device_class = {"ssd", "hdd"};
  EXPECT_THAT(SimulateBackfill(ok, info, zero_rate).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("osd.1 (class 'hdd')")));
  // A rate above 0 can still make a hold no clock reaches (found by
  // backfill_inputs_fuzzer: --backfill-rate 895e-324 stalled the simulation).
  BackfillOptions tiny_rate = UnitRateOptions();
  tiny_rate.default_rate = BackfillRate{895e-324, 0};
  EXPECT_THAT(SimulateBackfill(ok, {}, tiny_rate).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("pg 1.7: its backfill would hold its reservations inf s")));
  tiny_rate.default_rate = BackfillRate{2e-14, 0};  // 5e14 s: within kMaxHoldSeconds
  EXPECT_THAT(SimulateBackfill(ok, {}, tiny_rate).status(), IsOk());
  tiny_rate.default_rate = BackfillRate{0.9e-14, 0};
  EXPECT_THAT(SimulateBackfill(ok, {}, tiny_rate).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a rate too small")));
}

// 100,000 PGs among 10,000 OSDs (1-3 targets, some degraded, some EC-like
// with the primary among its targets): the trace never shows an OSD holding
// more than max_backfills local or remote reservations, every PG starts only
// holding its primary's local slot and a remote slot on every other target,
// and runs exactly its duration. Two runs give the same schedule.
void CheckReservationLimits(int max_backfills) {
  constexpr int kOsds = 10000;
  constexpr std::uint32_t kPgs = 100000;
  std::mt19937 rng(42);
  std::uniform_int_distribution<std::int32_t> osd(0, kOsds - 1);
  std::uniform_int_distribution<std::uint64_t> bytes(1, 1000);
  std::vector<BackfillJob> jobs;
  for (std::uint32_t i = 0; i < kPgs; ++i) {
    BackfillJob j = Job(i, osd(rng), {}, bytes(rng), 1 + i % 7, i % 10 == 0 ? 150 : 110);
    const int n = 1 + static_cast<int>(rng() % 3);
    while (static_cast<int>(j.targets.size()) < n) {
      const std::int32_t t = i % 13 == 0 && j.targets.empty() ? j.primary : osd(rng);
      if (std::find(j.targets.begin(), j.targets.end(), t) == j.targets.end())
        j.targets.push_back(t);
    }
    jobs.push_back(std::move(j));
  }
  std::vector<int> local(kOsds), remote(kOsds);
  std::vector<int> job_holds(kPgs);
  int max_local = 0, max_remote = 0, violations = 0;
  BackfillOptions opt = UnitRateOptions(max_backfills);
  opt.trace = [&](const BackfillTraceEvent& e) {
    using K = BackfillTraceEvent::Kind;
    switch (e.kind) {
      case K::kLocalGranted:
        max_local = std::max(max_local, ++local[static_cast<std::size_t>(e.osd)]);
        if (e.osd != jobs[e.job].primary) ++violations;
        ++job_holds[e.job];
        break;
      case K::kRemoteGranted:
        max_remote = std::max(max_remote, ++remote[static_cast<std::size_t>(e.osd)]);
        if (e.osd == jobs[e.job].primary) ++violations;
        ++job_holds[e.job];
        break;
      case K::kStarted: {
        std::vector<std::int32_t> t = jobs[e.job].targets;
        t.push_back(jobs[e.job].primary);
        std::sort(t.begin(), t.end());
        const auto distinct = std::unique(t.begin(), t.end()) - t.begin();
        if (job_holds[e.job] != distinct) ++violations;
        break;
      }
      case K::kLocalReleased:
        --local[static_cast<std::size_t>(e.osd)];
        break;
      case K::kRemoteReleased:
        --remote[static_cast<std::size_t>(e.osd)];
        break;
      case K::kPreempted:  // the PG gives back its local slot (its remote ones follow) and starts
                           // over
        --local[static_cast<std::size_t>(e.osd)];
        job_holds[e.job] = 0;
        break;
      case K::kTooFull:  // nothing is near full here
      case K::kRetry:
        break;
    }
  };
  const auto s = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(max_local, max_backfills);
  EXPECT_EQ(max_remote, max_backfills);
  EXPECT_EQ(violations, 0);
  EXPECT_EQ(std::count(local.begin(), local.end(), 0), kOsds);
  EXPECT_EQ(std::count(remote.begin(), remote.end(), 0), kOsds);
  double last = 0;
  for (std::uint32_t i = 0; i < kPgs; ++i) {
    const BackfillJobTiming& t = s->jobs[i];
    ASSERT_EQ(t.end_seconds - t.start_seconds, static_cast<double>(jobs[i].bytes_per_target)) << i;
    last = std::max(last, t.end_seconds);
  }
  EXPECT_EQ(s->makespan_seconds, last);
  EXPECT_EQ(s->misplaced.back().objects_misplaced, 0u);
  for (std::size_t i = 1; i < s->misplaced.size(); ++i) {
    EXPECT_LT(s->misplaced[i - 1].seconds, s->misplaced[i].seconds);
    EXPECT_GE(s->misplaced[i - 1].objects_misplaced, s->misplaced[i].objects_misplaced);
  }
  opt.trace = nullptr;
  const auto again = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(again.status(), IsOk());
  EXPECT_EQ(Starts(*again), Starts(*s));
}

TEST(BackfillScheduleTest, TenThousandOsdsNeverExceedOneReservation) { CheckReservationLimits(1); }

TEST(BackfillScheduleTest, TenThousandOsdsNeverExceedThreeReservations) {
  CheckReservationLimits(3);
}

// backfill_toofull: three OSDs of 1000 bytes, osd.2 at 800. Job 0 (osd.0 ->
// osd.2, 200 bytes) would take osd.2 to 1000 > 0.9 x 1000 and is refused;
// job 1 (osd.2 -> osd.1, 300 bytes) deletes osd.2's old copy when it ends at
// 300 s, and job 0's retry at 300 s (every 30 s since 0) then passes.
BackfillOsdInfo ThreeOsdsOneNearlyFull() {
  BackfillOsdInfo info;
  info.capacity_bytes = {1000, 1000, 1000};
  info.used_bytes = {500, 500, 800};
  return info;
}

std::vector<BackfillJob> DrainThenFill() {
  std::vector<BackfillJob> jobs = {Job(0, 0, {2}, 200), Job(1, 2, {1}, 300)};
  jobs[0].leaving = {0};
  jobs[1].leaving = {2};
  return jobs;
}

TEST(BackfillScheduleTest, TooFullTargetStallsUntilItDrains) {
  BackfillOptions opt = UnitRateOptions();
  opt.backfillfull_ratio = 0.9;
  std::vector<std::pair<BackfillTraceEvent::Kind, std::int32_t>> refusals;
  opt.trace = [&](const BackfillTraceEvent& e) {
    if (e.kind == BackfillTraceEvent::Kind::kTooFull) refusals.emplace_back(e.kind, e.osd);
  };
  const std::vector<BackfillJob> jobs = DrainThenFill();
  const auto s = SimulateBackfill(jobs, ThreeOsdsOneNearlyFull(), opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_THAT(Starts(*s), ElementsAre(300, 0));
  EXPECT_THAT(Ends(*s), ElementsAre(500, 300));
  EXPECT_EQ(s->makespan_seconds, 500);
  EXPECT_EQ(refusals.size(), 10u);  // at 0, 30, ..., 270
  ASSERT_EQ(s->stalls.size(), 1u);
  EXPECT_EQ(s->stalls[0].job, 0u);
  EXPECT_EQ(s->stalls[0].osd, 2);
  EXPECT_EQ(s->stalls[0].refusals, 10u);
  EXPECT_EQ(s->stalls[0].seconds, 300);
  EXPECT_FALSE(s->stalls[0].never_starts);
  EXPECT_EQ(s->jobs_never_starting, 0u);
  // The refused job held its primary's local slot only while asking: osd.0
  // is busy for its 200 s of backfill, not for the 300 s stall.
  EXPECT_EQ(Osd(*s, 0).busy_seconds, 200);
}

TEST(BackfillScheduleTest, TooFullTargetThatNeverDrainsNeverStarts) {
  BackfillOptions opt = UnitRateOptions();
  opt.backfillfull_ratio = 0.9;
  std::vector<BackfillJob> jobs = DrainThenFill();
  jobs[1].leaving.clear();  // osd.2 keeps its copy: it never drains
  jobs[1].targets = {0};
  const auto s = SimulateBackfill(jobs, ThreeOsdsOneNearlyFull(), opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_TRUE(s->jobs[0].never_starts);
  EXPECT_FALSE(s->jobs[1].never_starts);
  EXPECT_EQ(s->jobs_never_starting, 1u);
  EXPECT_EQ(s->makespan_seconds, 300);  // the last job that ran
  ASSERT_EQ(s->stalls.size(), 1u);
  EXPECT_TRUE(s->stalls[0].never_starts);
  EXPECT_EQ(s->stalls[0].osd, 2);
  // Job 0's objects stay misplaced.
  EXPECT_EQ(s->misplaced.back().objects_misplaced, 1u);
  for (const BackfillWait& w : s->longest_waits) EXPECT_NE(w.job, 0u);
}

TEST(BackfillScheduleTest, RoomEnoughChangesNothing) {
  const std::vector<BackfillJob> jobs = DrainThenFill();
  const auto plain = SimulateBackfill(jobs, {}, UnitRateOptions());
  BackfillOptions opt = UnitRateOptions();
  opt.backfillfull_ratio = 0.9;
  BackfillOsdInfo info = ThreeOsdsOneNearlyFull();
  info.used_bytes[2] = 700;  // 700 + 200 = 900: at the ratio, not above it
  const auto checked = SimulateBackfill(jobs, info, opt);
  ASSERT_THAT(plain.status(), IsOk());
  ASSERT_THAT(checked.status(), IsOk());
  EXPECT_EQ(Starts(*checked), Starts(*plain));
  EXPECT_EQ(Ends(*checked), Ends(*plain));
  EXPECT_TRUE(checked->stalls.empty());
}

TEST(BackfillScheduleTest, TooFullNeedsAPositiveRetryInterval) {
  BackfillOptions opt = UnitRateOptions();
  opt.backfillfull_ratio = 0.9;
  opt.backfill_retry_seconds = 0;
  EXPECT_THAT(SimulateBackfill(DrainThenFill(), ThreeOsdsOneNearlyFull(), opt).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("backfill_retry_seconds")));
}

// Stray deletions preempt (issue 35: debug_reserver 10 on Pacific and
// Tentacle loopback clusters). osd.0 pushes A (pg 1.0) to osd.1 for 10 s; B
// (pg 1.1, osd.2 -> osd.3, 2 s) leaves a copy on osd.0. B ends at 2; 1 s
// later osd.0 deletes its copy of 1.1 at priority 179, its one local slot is
// A's: A is revoked at 3, asks again at once (every slot is free), and goes
// on with the 7 s it had left plus its scan again (1 s per PG here).
TEST(BackfillScheduleTest, StrayDeletionPreemptsTheBackfillHoldingItsOsdsLocalSlot) {
  BackfillOptions opt = UnitRateOptions();
  opt.default_rate = BackfillRate{
      .bytes_per_second = 1, .objects_per_second = 0, .per_pg_seconds = 1, .additive = true};
  opt.stray_delete_delay_seconds = 1;
  std::vector<BackfillJob> jobs = {Job(0, 0, {1}, 9, 0), Job(1, 2, {3}, 1, 0)};
  jobs[1].leaving = {0};
  std::vector<BackfillTraceEvent> trace;
  opt.trace = [&](const BackfillTraceEvent& e) { trace.push_back(e); };
  const auto s = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_THAT(Starts(*s), ElementsAre(0.0, 0.0));  // the first start
  EXPECT_THAT(Ends(*s), ElementsAre(11.0, 2.0));   // 3 + 7 left + 1 to scan again
  EXPECT_EQ(s->jobs[0].preemptions, 1u);
  EXPECT_EQ(s->jobs[1].preemptions, 0u);
  EXPECT_EQ(s->preemptions, 1u);
  EXPECT_EQ(s->makespan_seconds, 11);
  int preempted = 0;
  for (const BackfillTraceEvent& e : trace) {
    if (e.kind != BackfillTraceEvent::Kind::kPreempted) continue;
    ++preempted;
    EXPECT_EQ(e.seconds, 3);
    EXPECT_EQ(e.job, 0u);
    EXPECT_EQ(e.osd, 0);
  }
  EXPECT_EQ(preempted, 1);

  // Not modelled: A runs through.
  opt.stray_delete_delay_seconds = -1;
  const auto off = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(off.status(), IsOk());
  EXPECT_THAT(Ends(*off), ElementsAre(10.0, 2.0));
  EXPECT_EQ(off->preemptions, 0u);

  // A deletion on an OSD whose local slot is free (osd.1 holds only a remote
  // one) revokes nothing; neither does one after A ended.
  opt.stray_delete_delay_seconds = 1;
  jobs[1].leaving = {1};
  const auto free_slot = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(free_slot.status(), IsOk());
  EXPECT_THAT(Ends(*free_slot), ElementsAre(10.0, 2.0));
  jobs[1].leaving = {0};
  opt.stray_delete_delay_seconds = 9;
  const auto late = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(late.status(), IsOk());
  EXPECT_THAT(Ends(*late), ElementsAre(10.0, 2.0));
  // The deletion comes after the last end: the makespan is the last end.
  EXPECT_EQ(late->makespan_seconds, 10);

  opt.stray_delete_delay_seconds = std::numeric_limits<double>::infinity();
  EXPECT_THAT(SimulateBackfill(jobs, {}, opt).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("stray_delete_delay")));
}

// A revoked PG asks again behind the PGs already waiting: C (pg 1.2) waits
// for osd.0's local slot while A holds it; when the deletion revokes A, C
// takes the slot and A waits for C to end.
TEST(BackfillScheduleTest, PreemptedPgQueuesBehindThoseWaiting) {
  BackfillOptions opt = UnitRateOptions();
  opt.stray_delete_delay_seconds = 1;
  std::vector<BackfillJob> jobs = {Job(0, 0, {1}, 10, 0), Job(1, 2, {3}, 2, 0),
                                   Job(2, 0, {4}, 5, 0)};
  jobs[1].leaving = {0};
  for (const bool hold : {false, true}) {
    opt.hold_and_wait = hold;
    const auto s = SimulateBackfill(jobs, {}, opt);
    ASSERT_THAT(s.status(), IsOk());
    // A: 0-3, revoked; C: 3-8; A again 8-15 (7 s left, no scan cost here).
    EXPECT_THAT(Starts(*s), ElementsAre(0.0, 0.0, 3.0)) << "hold_and_wait " << hold;
    EXPECT_THAT(Ends(*s), ElementsAre(15.0, 2.0, 8.0)) << "hold_and_wait " << hold;
    EXPECT_EQ(s->preemptions, 1u);
  }
}

// Hold and wait: a deletion that preempts a PG holding its primary's local
// slot while it waits for a target frees the slot, but the PG ignores the
// DeferBackfill (WaitRemoteBackfillReserved has no reaction to it, as
// Pacific's logs show) and keeps its place in the target's queue; the
// primary's next PG takes the slot, so the primary ends up pushing two,
// which share its recovery.
TEST(BackfillScheduleTest, HoldAndWaitDeletionLeaksAWaitingPgsLocalSlot) {
  BackfillOptions opt = UnitRateOptions();
  opt.hold_and_wait = true;
  opt.stray_delete_delay_seconds = 1;
  // B (osd.2 -> osd.9, 4 s) holds osd.9; A (osd.0 -> osd.9, 3 s) holds
  // osd.0's local slot and waits for osd.9; D (osd.5 -> osd.7, 1 s) leaves a
  // copy on osd.0 and ends at 1: the deletion at 2 preempts A; E (osd.6 ->
  // osd.9) asked osd.9 after A; F (osd.0 -> osd.8, 5 s) waits behind A for
  // osd.0's local slot.
  std::vector<BackfillJob> jobs = {Job(0, 2, {9}, 4, 0), Job(1, 0, {9}, 3, 0), Job(2, 5, {7}, 1, 0),
                                   Job(3, 6, {9}, 2, 0), Job(4, 0, {8}, 5, 0)};
  jobs[2].leaving = {0};
  const auto s = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(s.status(), IsOk());
  EXPECT_EQ(s->preemptions, 1u);
  EXPECT_EQ(s->jobs[1].preemptions, 1u);
  // A keeps osd.9's queue and starts at 4; F takes the freed slot at 2. From
  // 4 osd.0 pushes two backfills with one slot, so they share it: 3 s left
  // each at half pace, both end at 10; E gets osd.9 then.
  EXPECT_THAT(Starts(*s), ElementsAre(0.0, 4.0, 0.0, 10.0, 2.0));
  EXPECT_THAT(Ends(*s), ElementsAre(4.0, 10.0, 1.0, 12.0, 10.0));
  opt.stray_delete_delay_seconds = -1;  // no deletion: F waits for A
  const auto off = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(off.status(), IsOk());
  EXPECT_THAT(Starts(*off), ElementsAre(0.0, 4.0, 0.0, 7.0, 7.0));
  EXPECT_EQ(off->preemptions, 0u);
}

// The cluster-wide slowdown k (BackfillOptions::concurrency_slowdown): with
// n backfills running, each at 1 / (1 + k (n - 1)) of its pace. A and B (10
// s each) and C (4 s) on their own OSDs: at k 0.5 the three run at half
// pace until C ends at 8, then A and B at 1 / 1.5 with 6 s left: 17.
TEST(BackfillScheduleTest, ConcurrencySlowdownLengthensSpreadChangesOnly) {
  BackfillOptions opt = UnitRateOptions();
  const std::vector<BackfillJob> spread = {Job(0, 0, {1}, 10, 0), Job(1, 2, {3}, 10, 0),
                                           Job(2, 4, {5}, 4, 0)};
  for (const bool hold : {false, true}) {
    opt.hold_and_wait = hold;
    opt.concurrency_slowdown = 0;
    const auto none = SimulateBackfill(spread, {}, opt);
    ASSERT_THAT(none.status(), IsOk());
    EXPECT_THAT(Ends(*none), ElementsAre(10.0, 10.0, 4.0));
    EXPECT_DOUBLE_EQ(none->mean_running, 2.4);  // (3 x 4 + 2 x 6) / 10
    opt.concurrency_slowdown = 0.5;
    const auto slow = SimulateBackfill(spread, {}, opt);
    ASSERT_THAT(slow.status(), IsOk());
    EXPECT_THAT(Ends(*slow),
                ElementsAre(DoubleNear(17, 1e-9), DoubleNear(17, 1e-9), DoubleNear(8, 1e-9)))
        << "hold_and_wait " << hold;
    EXPECT_NEAR(slow->makespan_seconds, 17, 1e-9);
  }
  // Funnelled through osd.9's one remote slot: one runs at a time, k or not.
  const std::vector<BackfillJob> funnel = {Job(0, 0, {9}, 10, 0), Job(1, 1, {9}, 10, 0),
                                           Job(2, 2, {9}, 10, 0)};
  for (const double k : {0.0, 0.5}) {
    opt.concurrency_slowdown = k;
    const auto s = SimulateBackfill(funnel, {}, opt);
    ASSERT_THAT(s.status(), IsOk());
    EXPECT_THAT(Ends(*s), ElementsAre(10.0, 20.0, 30.0)) << "k " << k;
    EXPECT_DOUBLE_EQ(s->mean_running, 1);
  }
  for (const double bad :
       {-0.1, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    opt.concurrency_slowdown = bad;
    EXPECT_THAT(SimulateBackfill(spread, {}, opt).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("slowdown")));
  }
}

// k 0 is the schedule without the slowdown, and a vanishing k tends to it
// through the slowdown's own re-timing, also where a primary shares its
// recovery (Reshare), a deletion preempts and a leaked slot runs two
// backfills on one primary.
TEST(BackfillScheduleTest, VanishingConcurrencySlowdownIsTheScheduleWithout) {
  BackfillOptions opt = UnitRateOptions();
  opt.hold_and_wait = true;
  opt.stray_delete_delay_seconds = 1;
  opt.default_rate = BackfillRate{
      .bytes_per_second = 1, .objects_per_second = 0, .per_pg_seconds = 0.5, .additive = true};
  std::vector<BackfillJob> jobs = {Job(0, 2, {9}, 4, 0), Job(1, 0, {9}, 3, 0), Job(2, 5, {7}, 1, 0),
                                   Job(3, 6, {9}, 2, 0), Job(4, 0, {8}, 5, 0), Job(5, 3, {4}, 7, 0),
                                   Job(6, 4, {3}, 6, 0)};
  jobs[2].leaving = {0};
  jobs[5].leaving = {4};
  const auto base = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(base.status(), IsOk());
  EXPECT_GE(base->preemptions, 1u);
  opt.concurrency_slowdown = 1e-9;
  const auto tiny = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(tiny.status(), IsOk());
  ASSERT_EQ(tiny->jobs.size(), base->jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    EXPECT_NEAR(tiny->jobs[j].start_seconds, base->jobs[j].start_seconds, 1e-6) << j;
    EXPECT_NEAR(tiny->jobs[j].end_seconds, base->jobs[j].end_seconds, 1e-6) << j;
  }
  EXPECT_EQ(tiny->preemptions, base->preemptions);
  opt.concurrency_slowdown = 0.2;
  const auto slow = SimulateBackfill(jobs, {}, opt);
  ASSERT_THAT(slow.status(), IsOk());
  EXPECT_GT(slow->makespan_seconds, base->makespan_seconds + 1);
}

// BackfillOptions::concurrency_slowdown_max_running N holds the slowdown at
// its value for N running: six backfills of 2, 4 .. 12 s on their own OSDs
// at k 0.5. N 3: half pace while three or more run (ends 4, 8, 12, 16), then
// 1 / 1.5 for two (2 s left: 19), then full pace (21). Uncapped: 1 / 3.5
// for six, 1 / 3 for five ... (7, 13, 18, 22, 25, 27). An N at or above the
// peak changes nothing; N 1 is no slowdown.
TEST(BackfillScheduleTest, ConcurrencySlowdownIsHeldAtItsFittedRange) {
  BackfillOptions opt = UnitRateOptions();
  std::vector<BackfillJob> jobs;
  for (std::uint32_t i = 0; i < 6; ++i) {
    jobs.push_back(Job(i, static_cast<std::int32_t>(2 * i), {static_cast<std::int32_t>(2 * i + 1)},
                       2 * (i + 1), 0));
  }
  for (const bool hold : {false, true}) {
    opt.hold_and_wait = hold;
    opt.concurrency_slowdown = 0.5;
    opt.concurrency_slowdown_max_running = 0;
    const auto uncapped = SimulateBackfill(jobs, {}, opt);
    ASSERT_THAT(uncapped.status(), IsOk());
    EXPECT_THAT(Ends(*uncapped),
                ElementsAre(DoubleNear(7, 1e-9), DoubleNear(13, 1e-9), DoubleNear(18, 1e-9),
                            DoubleNear(22, 1e-9), DoubleNear(25, 1e-9), DoubleNear(27, 1e-9)));
    EXPECT_EQ(uncapped->max_running, 6u);
    opt.concurrency_slowdown_max_running = 3;
    const auto capped = SimulateBackfill(jobs, {}, opt);
    ASSERT_THAT(capped.status(), IsOk());
    EXPECT_THAT(Ends(*capped),
                ElementsAre(DoubleNear(4, 1e-9), DoubleNear(8, 1e-9), DoubleNear(12, 1e-9),
                            DoubleNear(16, 1e-9), DoubleNear(19, 1e-9), DoubleNear(21, 1e-9)))
        << "hold_and_wait " << hold;
    EXPECT_EQ(capped->max_running, 6u);
    for (const std::uint32_t n : {6u, 100u}) {
      opt.concurrency_slowdown_max_running = n;
      const auto at_peak = SimulateBackfill(jobs, {}, opt);
      ASSERT_THAT(at_peak.status(), IsOk());
      EXPECT_EQ(Ends(*at_peak), Ends(*uncapped)) << "N " << n;
    }
    opt.concurrency_slowdown_max_running = 1;
    const auto one = SimulateBackfill(jobs, {}, opt);
    ASSERT_THAT(one.status(), IsOk());
    EXPECT_THAT(Ends(*one), ElementsAre(2.0, 4.0, 6.0, 8.0, 10.0, 12.0));
  }
}

}  // namespace
}  // namespace crushkit::osdmap
