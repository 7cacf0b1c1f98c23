// Fill during the move on a hand example: three OSDs of 1000 bytes; PG A
// moves 400 bytes osd.0 -> osd.2, PG B 200 bytes osd.1 -> osd.0, simulated at
// one byte per second (both run at once: A [0, 400], B [0, 200]). osd.0
// receives B's copy by 200 s but keeps A's until A ends at 400 s, so it
// peaks at 700 bytes, above its 500 before and its 300 after.
#include "osdmap/planning/fill_timeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;

OsdMovement Osd(std::int32_t id, std::uint64_t used, std::uint64_t in, std::uint64_t out) {
  OsdMovement o;
  o.osd = id;
  o.capacity_bytes = 1000;
  o.capacity_from_osd_df = true;
  o.used_before = used;
  o.bytes_in = in;
  o.bytes_out = out;
  o.used_after = used + in - out;
  return o;
}

Movement HandMovement() {
  Movement m;
  m.osds = {Osd(0, 500, 200, 400), Osd(1, 600, 0, 200), Osd(2, 300, 400, 0)};
  PgMove a;
  a.pg = PgId{1, 0};
  a.source = 0;
  a.targets = {2};
  a.leaving = {0};
  a.bytes_per_target = 400;
  a.objects_per_target = 1;
  PgMove b = a;
  b.pg = PgId{1, 1};
  b.source = 1;
  b.targets = {0};
  b.leaving = {1};
  b.bytes_per_target = 200;
  m.moves = {a, b};
  return m;
}

BackfillSchedule Schedule(const Movement& m) {
  BackfillOptions o;
  o.class_rates.clear();
  o.default_rate = BackfillRate{1, 0};
  absl::StatusOr<BackfillSchedule> s = SimulateBackfill(JobsFromMoves(m.moves), {}, o);
  EXPECT_THAT(s.status(), IsOk());
  return s.ok() ? *s : BackfillSchedule{};
}

const OsdFillPeak& PeakOf(const FillTimeline& t, std::int32_t osd) {
  for (const OsdFillPeak& p : t.osds) {
    if (p.osd == osd) return p;
  }
  ADD_FAILURE() << "osd." << osd;
  return t.osds.front();
}

TEST(FillTimelineTest, SourceKeepsItsCopyUntilThePgEnds) {
  const Movement m = HandMovement();
  const BackfillSchedule s = Schedule(m);
  ASSERT_EQ(s.jobs.size(), 2u);
  EXPECT_EQ(s.jobs[0].end_seconds, 400);
  EXPECT_EQ(s.jobs[1].end_seconds, 200);
  absl::StatusOr<FillTimeline> t = ComputeFillTimeline(m, s);
  ASSERT_THAT(t.status(), IsOk());
  const OsdFillPeak& o0 = PeakOf(*t, 0);
  EXPECT_EQ(o0.used_before, 500u);
  EXPECT_EQ(o0.used_peak, 700u);
  EXPECT_EQ(o0.peak_seconds, 200);
  EXPECT_EQ(o0.used_after, 300u);
  EXPECT_DOUBLE_EQ(o0.fill_peak, 0.7);
  EXPECT_GT(o0.fill_peak, o0.fill_before);
  EXPECT_GT(o0.fill_peak, o0.fill_after);
  // osd.2 only receives: its peak is its after, reached at the end.
  EXPECT_EQ(PeakOf(*t, 2).used_peak, 700u);
  EXPECT_EQ(PeakOf(*t, 2).peak_seconds, 400);
  // osd.1 only gives: its peak is its before, at time 0.
  EXPECT_EQ(PeakOf(*t, 1).used_peak, 600u);
  EXPECT_EQ(PeakOf(*t, 1).peak_seconds, 0);
  EXPECT_EQ(PeakOf(*t, 1).used_after, 400u);
  // Highest peak first; osd.0 reaches 0.7 first of the two at 0.7.
  EXPECT_EQ(t->riskiest_osd, 0);
  EXPECT_EQ(t->riskiest_seconds, 200);
  for (const OsdMovement& o : m.osds) EXPECT_EQ(PeakOf(*t, o.osd).used_after, o.used_after);
}

TEST(FillTimelineTest, UseAtAnInstant) {
  const Movement m = HandMovement();
  const BackfillSchedule s = Schedule(m);
  EXPECT_EQ(*OsdUsedAt(m, s, 0, 100), 600u);  // half of B's 200 landed
  EXPECT_EQ(*OsdUsedAt(m, s, 0, 300), 700u);
  EXPECT_EQ(*OsdUsedAt(m, s, 0, 400), 300u);  // A's copy deleted at its end
  EXPECT_EQ(*OsdUsedAt(m, s, 2, 100), 400u);
  EXPECT_THAT(OsdUsedAt(m, s, 9, 0).status(), StatusIs(absl::StatusCode::kNotFound));
}

// With the monitor's end delay the replaced copy stays until the map that
// drops the PG's pg_temp: a copy landing meanwhile adds to the peak.
TEST(FillTimelineTest, ReplacedCopyStaysUntilThePgTempIsDropped) {
  Movement m = HandMovement();
  BackfillSchedule s = Schedule(m);
  s.end_delay_seconds = 50;
  EXPECT_EQ(*OsdUsedAt(m, s, 0, 420), 700u);  // A ended at 400, its copy goes at 450
  EXPECT_EQ(*OsdUsedAt(m, s, 0, 450), 300u);
  // B (osd.1 -> osd.0) now lands while A's copy is still on osd.0.
  m.moves[1].bytes_per_target = 450;
  m.osds[0] = Osd(0, 500, 450, 400);
  m.osds[1] = Osd(1, 600, 0, 450);
  s = Schedule(m);
  EXPECT_EQ(s.jobs[1].end_seconds, 450);
  absl::StatusOr<FillTimeline> at_end = ComputeFillTimeline(m, s);
  ASSERT_THAT(at_end.status(), IsOk());
  EXPECT_EQ(PeakOf(*at_end, 0).used_peak, 900u);  // A's copy deleted at 400, B's 450 lands by 450
  s.end_delay_seconds = 100;
  absl::StatusOr<FillTimeline> delayed = ComputeFillTimeline(m, s);
  ASSERT_THAT(delayed.status(), IsOk());
  EXPECT_EQ(PeakOf(*delayed, 0).used_peak, 950u);  // both at once until 500
  EXPECT_EQ(PeakOf(*delayed, 0).used_after, 550u);
}

// PG::do_delete_work removes 30 objects per transaction and sleeps
// osd_delete_sleep between them: A's 400 bytes in 70 objects leave osd.0
// (class hdd, 5 s) in three steps, 30 + 30 + 10 objects, from its end +
// 1.5 s on; osd.1 (class ssd, no sleep) drops B's 200 bytes at once.
TEST(FillTimelineTest, DeletionRemovesThirtyObjectsPerTransaction) {
  Movement m = HandMovement();
  m.osds[0].device_class = "hdd";
  m.osds[1].device_class = "ssd";
  m.moves[0].objects_per_target = 70;
  m.moves[1].objects_per_target = 70;
  const BackfillSchedule s = Schedule(m);
  const FillTimelineOptions o = CephFillTimelineOptions(RecoveryScheduler::kWpq, 1.5);
  EXPECT_EQ(*OsdUsedAt(m, s, 0, 401, o), 700u);           // A ended at 400: nothing deleted yet
  EXPECT_EQ(*OsdUsedAt(m, s, 0, 401.5, o), 700u - 171u);  // 400 x 30 / 70, rounded
  EXPECT_EQ(*OsdUsedAt(m, s, 0, 406.5, o), 700u - 343u);  // 400 x 60 / 70
  EXPECT_EQ(*OsdUsedAt(m, s, 0, 411.4, o), 700u - 343u);
  EXPECT_EQ(*OsdUsedAt(m, s, 0, 411.5, o), 300u);
  EXPECT_EQ(*OsdUsedAt(m, s, 1, 201.5, o), 400u);  // ssd: B's copy in one go
  // Under mClock the sleeps are 0: every transaction at once.
  const FillTimelineOptions mclock = CephFillTimelineOptions(RecoveryScheduler::kMclock, 1.5);
  EXPECT_EQ(*OsdUsedAt(m, s, 0, 401.5, mclock), 300u);
  absl::StatusOr<FillTimeline> t = ComputeFillTimeline(m, s, o);
  ASSERT_THAT(t.status(), IsOk());
  EXPECT_EQ(PeakOf(*t, 0).used_after, 300u);
}

TEST(FillTimelineTest, CopiesLeavingWithoutABackfillGoAtOnce) {
  Movement m = HandMovement();
  m.osds[1].bytes_out += 100;  // a PG that only lost its osd.1 member
  m.osds[1].used_after -= 100;
  const BackfillSchedule s = Schedule(m);
  absl::StatusOr<FillTimeline> t = ComputeFillTimeline(m, s);
  ASSERT_THAT(t.status(), IsOk());
  EXPECT_EQ(PeakOf(*t, 1).used_peak, 600u);  // the before figure
  EXPECT_EQ(*OsdUsedAt(m, s, 1, 100), 500u);
  EXPECT_EQ(PeakOf(*t, 1).used_after, 300u);
}

TEST(FillTimelineTest, ANeverStartingJobMovesNothing) {
  const Movement m = HandMovement();
  BackfillSchedule s = Schedule(m);
  s.jobs[0].never_starts = true;
  absl::StatusOr<FillTimeline> t = ComputeFillTimeline(m, s);
  ASSERT_THAT(t.status(), IsOk());
  EXPECT_EQ(PeakOf(*t, 0).used_after, 700u);  // B landed, A's copy stayed
  EXPECT_EQ(PeakOf(*t, 2).used_after, 300u);
}

TEST(FillTimelineTest, ScheduleOfOtherMovesIsAnError) {
  const Movement m = HandMovement();
  EXPECT_THAT(ComputeFillTimeline(m, BackfillSchedule{}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// 3,000 OSDs, 20,000 moves at scattered times, copies of up to 3,000
// objects (deleted in steps): the sweeps on four threads give what one gives.
// The hand example in two orders: both PGs at once (osd.0 holds A's copy
// while B's lands: 700 bytes), and A before B (A's copy goes at 100 s, B
// lands 200-400 s: osd.0 never passes its 500 before).
TEST(FillTimelineTest, PeakRangeOverTwoOrders) {
  const Movement m = HandMovement();
  FillTimelineOptions o;
  o.delete_delay_seconds = 0;
  o.delete_objects_per_transaction = 0;
  BackfillSchedule at_once;
  at_once.jobs.resize(2);
  at_once.jobs[0].end_seconds = 400;
  at_once.jobs[1].end_seconds = 200;
  BackfillSchedule a_first = at_once;
  a_first.jobs[0].end_seconds = 100;
  a_first.jobs[1].start_seconds = 200;
  a_first.jobs[1].end_seconds = 400;
  const absl::StatusOr<FillTimeline> t1 = ComputeFillTimeline(m, at_once, o);
  const absl::StatusOr<FillTimeline> t2 = ComputeFillTimeline(m, a_first, o);
  ASSERT_THAT(t1.status(), IsOk());
  ASSERT_THAT(t2.status(), IsOk());
  EXPECT_DOUBLE_EQ(PeakOf(*t1, 0).fill_peak, 0.7);
  EXPECT_DOUBLE_EQ(PeakOf(*t2, 0).fill_peak, 0.5);
  // One order: its own peaks, no orders.
  FillTimeline one = *t2;
  ApplyFillPeakRange(FillPeakRange{}, one);
  EXPECT_EQ(one.request_orders, 0);
  EXPECT_DOUBLE_EQ(PeakOf(one, 0).fill_peak_min, 0.5);
  EXPECT_DOUBLE_EQ(PeakOf(one, 0).fill_peak_max, 0.5);
  FillPeakRange range;
  WidenFillPeakRange(*t1, range);
  WidenFillPeakRange(*t2, range);
  EXPECT_EQ(range.orders, 2);
  FillTimeline out = *t2;
  ApplyFillPeakRange(range, out);
  EXPECT_EQ(out.request_orders, 2);
  EXPECT_DOUBLE_EQ(PeakOf(out, 0).fill_peak, 0.5);  // the timeline's own order stays
  EXPECT_DOUBLE_EQ(PeakOf(out, 0).fill_peak_min, 0.5);
  EXPECT_DOUBLE_EQ(PeakOf(out, 0).fill_peak_max, 0.7);
  // osd.2 only receives: the same peak in both orders.
  EXPECT_DOUBLE_EQ(PeakOf(out, 2).fill_peak_min, 0.7);
  EXPECT_DOUBLE_EQ(PeakOf(out, 2).fill_peak_max, 0.7);
  // The fullest OSD: osd.0 or osd.2 at 70% when both run at once, osd.2 at
  // 70% (ahead of osd.1's 60%) when A goes first.
  EXPECT_DOUBLE_EQ(out.riskiest_fill_min, 0.7);
  EXPECT_DOUBLE_EQ(out.riskiest_fill_max, 0.7);
  EXPECT_LE(PeakOf(out, 1).fill_peak_min, PeakOf(out, 1).fill_peak_max);
}

TEST(FillTimelineTest, ThreadsDoNotChangeTheResult) {
  Movement m;
  std::uint64_t x = 12345;
  auto next = [&](std::uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (x >> 33) % n;
  };
  for (std::int32_t o = 0; o < 3000; ++o) m.osds.push_back(Osd(o, 100000 + next(100000), 0, 0));
  BackfillSchedule s;
  s.end_delay_seconds = 0.5;
  for (std::uint32_t j = 0; j < 20000; ++j) {
    PgMove& mv = m.moves.emplace_back();
    mv.pg = PgId{1, j};
    mv.targets = {static_cast<std::int32_t>(next(3000))};
    mv.leaving = {static_cast<std::int32_t>(next(3000))};
    mv.bytes_per_target = 1 + next(5000);
    mv.objects_per_target = next(3000);
    m.osds[static_cast<std::size_t>(mv.targets[0])].bytes_in += mv.bytes_per_target;
    m.osds[static_cast<std::size_t>(mv.leaving[0])].bytes_out += mv.bytes_per_target;
    BackfillJobTiming& t = s.jobs.emplace_back();
    t.start_seconds = static_cast<double>(next(1000));
    t.end_seconds = t.start_seconds + static_cast<double>(next(3));  // some land at once
    t.never_starts = next(50) == 0;
  }
  FillTimelineOptions one = CephFillTimelineOptions(RecoveryScheduler::kWpq, 1.5);
  for (OsdMovement& o : m.osds) o.device_class = o.osd % 2 == 0 ? "hdd" : "ssd";
  one.threads = 1;
  FillTimelineOptions four = one;
  four.threads = 4;
  absl::StatusOr<FillTimeline> a = ComputeFillTimeline(m, s, one);
  absl::StatusOr<FillTimeline> b = ComputeFillTimeline(m, s, four);
  ASSERT_THAT(a.status(), IsOk());
  ASSERT_THAT(b.status(), IsOk());
  ASSERT_EQ(a->osds.size(), 3000u);
  ASSERT_EQ(b->osds.size(), 3000u);
  int peaked = 0;
  for (std::size_t i = 0; i < a->osds.size(); ++i) {
    const OsdFillPeak& p = a->osds[i];
    const OsdFillPeak& q = b->osds[i];
    EXPECT_EQ(p.osd, q.osd);
    EXPECT_EQ(p.used_peak, q.used_peak) << "osd." << p.osd;
    EXPECT_EQ(p.used_after, q.used_after) << "osd." << p.osd;
    EXPECT_EQ(p.peak_seconds, q.peak_seconds) << "osd." << p.osd;
    EXPECT_EQ(p.fill_peak, q.fill_peak) << "osd." << p.osd;
    peaked += p.used_peak > p.used_before ? 1 : 0;
  }
  EXPECT_GT(peaked, 1000);  // the example moves most OSDs' peaks
  EXPECT_EQ(a->riskiest_osd, b->riskiest_osd);
}

}  // namespace
}  // namespace crushkit::osdmap
