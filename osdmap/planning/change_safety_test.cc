// The safety section of a plan on the bundled sample cluster
// (samples/cluster): MAX AVAIL before equals the formula over the imported
// `ceph osd df`, the fill timeline ends where the movement report says each
// OSD ends, and a backfillfull ratio set just under the fullest targets
// makes PGs stall, while Ceph's defaults leave the schedule as it was.
#include "osdmap/planning/change_safety.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"

#include "osdmap/planning/change_safety_report.h"
#include "osdmap/planning/planner.h"
#include "tests/testing/sample_cluster.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::IsOk;

struct Planned {
  ClusterState before;
  PlanReport report;
};

Planned PlanSample(const char* ops, float backfillfull, std::uint32_t epoch = 0) {
  absl::StatusOr<ClusterState> before = crush_testing::LoadSampleCluster();
  EXPECT_THAT(before.status(), IsOk());
  if (!before.ok()) return {};
  before->nearfull_ratio = std::min(before->nearfull_ratio, backfillfull);
  before->backfillfull_ratio = backfillfull;
  if (epoch > 0) before->epoch = epoch;
  absl::StatusOr<ChangeList> change = crush_testing::LoadSampleChange(ops);
  EXPECT_THAT(change.status(), IsOk());
  PlanOptions po;
  po.movement.threads = 2;
  po.movement.keep_moves = true;
  absl::StatusOr<PlanReport> r = PlanChange(*before, *change, po);
  EXPECT_THAT(r.status(), IsOk());
  if (!r.ok() || !change.ok()) return {};
  return {*std::move(before), *std::move(r)};
}

TEST(ChangeSafetyTest, DrainHostOnTheSample) {
  const Planned p = PlanSample("drain-host.ops", 0.9f);
  ASSERT_TRUE(p.report.safety.has_value());
  const ChangeSafety& s = *p.report.safety;
  absl::StatusOr<std::vector<PoolMaxAvail>> before = ComputePoolMaxAvail(p.before);
  ASSERT_THAT(before.status(), IsOk());
  ASSERT_EQ(s.pools.size(), before->size());
  for (std::size_t i = 0; i < s.pools.size(); ++i) {
    const PoolAvailChange& c = s.pools[i];
    EXPECT_EQ(c.before, (*before)[i].max_avail_bytes) << c.pool_name;
    EXPECT_LE(c.peak, c.after) << c.pool_name;
  }
  // Draining a host of 12 OSDs takes space away from the pools on it.
  EXPECT_TRUE(std::any_of(s.pools.begin(), s.pools.end(),
                          [](const PoolAvailChange& c) { return c.after < c.before; }));
  ASSERT_TRUE(s.fill.has_value());
  ASSERT_EQ(s.fill->osds.size(), p.report.movement.osds.size());
  int above_both = 0;
  for (const OsdMovement& o : p.report.movement.osds) {
    const auto f = std::find_if(s.fill->osds.begin(), s.fill->osds.end(),
                                [&](const OsdFillPeak& x) { return x.osd == o.osd; });
    ASSERT_NE(f, s.fill->osds.end());
    EXPECT_NEAR(static_cast<double>(f->used_after), static_cast<double>(o.used_after), 1.0)
        << "osd." << o.osd;
    EXPECT_GE(f->used_peak, std::max(f->used_before, f->used_after)) << "osd." << o.osd;
    if (f->used_peak > std::max(f->used_before, f->used_after)) ++above_both;
  }
  EXPECT_EQ(s.fill->riskiest_osd, s.fill->osds.front().osd);
  // At Ceph's ratios nothing stalls, and the schedule is the one without
  // any space check.
  EXPECT_TRUE(s.stalls.empty());
  BackfillOsdInfo plain = OsdInfoFromMovement(p.report.movement);
  plain.capacity_bytes.clear();
  BackfillOptions opt = p.report.backfill;
  opt.objects_total = p.report.movement.totals.objects_total;
  absl::StatusOr<BackfillSchedule> unchecked =
      SimulateBackfill(JobsFromMoves(p.report.movement.moves), plain, opt);
  ASSERT_THAT(unchecked.status(), IsOk());
  ASSERT_EQ(unchecked->jobs.size(), p.report.schedule->jobs.size());
  for (std::size_t j = 0; j < unchecked->jobs.size(); ++j) {
    EXPECT_EQ(unchecked->jobs[j].start_seconds, p.report.schedule->jobs[j].start_seconds) << j;
  }
  RecordProperty("osds_peaking_above_before_and_after", above_both);
}

// A range whose ends print alike is printed once ("65.4%", not
// "65.4-65.4%"); a real range keeps both ends.
TEST(ChangeSafetyTest, PeakRangeWhoseEndsPrintAlikeIsPrintedOnce) {
  OsdFillPeak same;
  same.osd = 3;
  same.fill_before = same.fill_after = 0.6;
  same.fill_peak = same.fill_peak_min = 0.654;
  same.fill_peak_max = 0.65404;
  OsdFillPeak wide = same;
  wide.osd = 4;
  wide.fill_peak_max = 0.671;
  FillTimeline f;
  f.request_orders = 4;
  f.riskiest_osd = 4;
  f.riskiest_fill = f.riskiest_fill_min = f.riskiest_fill_max = 0.654;
  f.osds = {same, wide};
  ChangeSafety s;
  s.fill = f;
  std::string out;
  internal::AppendSafety(out, s, 3);
  EXPECT_NE(
      out.find("osd.4 65.4% at the start (before any backfill) (65.4% over 4 request orders)"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("osd.3 60%->65%->60% at 0 s (peak 65.4%);"), std::string::npos) << out;
  EXPECT_NE(out.find("(peak 65.4-67.1%);"), std::string::npos) << out;
}

// The plan simulates 32 request orders (PlanOptions::request_orders): every
// OSD's peak gets its range over them, the schedule's own order inside it,
// and the terminal says so.
TEST(ChangeSafetyTest, PeakFillRangeOverRequestOrders) {
  const Planned p = PlanSample("drain-host.ops", 0.9f);
  ASSERT_TRUE(p.report.safety.has_value());
  ASSERT_TRUE(p.report.request_orders.has_value());
  const int orders = p.report.request_orders->orders;
  ASSERT_GE(orders, 8);
  const FillTimeline& f = *p.report.safety->fill;
  EXPECT_EQ(f.request_orders, orders);
  int spread = 0;
  for (const OsdFillPeak& o : f.osds) {
    EXPECT_LE(o.fill_peak_min, o.fill_peak) << "osd." << o.osd;
    EXPECT_GE(o.fill_peak_max, o.fill_peak) << "osd." << o.osd;
    EXPECT_GE(o.fill_peak_min, std::max(o.fill_before, o.fill_after) - 1e-9) << "osd." << o.osd;
    if (o.fill_peak_max > o.fill_peak_min + 1e-4) ++spread;
  }
  // A drain's OSDs give and receive: the order moves some peaks.
  EXPECT_GT(spread, 0);
  EXPECT_LE(f.riskiest_fill_min, f.riskiest_fill);
  EXPECT_GE(f.riskiest_fill_max, f.riskiest_fill);
  std::string out;
  internal::AppendSafety(out, *p.report.safety, 3);
  EXPECT_NE(out.find(absl::StrCat(" over ", orders, " request orders)")), std::string::npos) << out;
  EXPECT_NE(out.find("(peak "), std::string::npos) << out;
  // Without request orders: no range.
  PlanOptions po;
  po.request_orders.orders = 0;
  po.movement.threads = 2;
  absl::StatusOr<ChangeList> change = crush_testing::LoadSampleChange("drain-host.ops");
  ASSERT_THAT(change.status(), IsOk());
  absl::StatusOr<PlanReport> r = PlanChange(p.before, *change, po);
  ASSERT_THAT(r.status(), IsOk());
  EXPECT_EQ(r->safety->fill->request_orders, 0);
  out.clear();
  internal::AppendSafety(out, *r->safety, 3);
  EXPECT_EQ(out.find("request orders"), std::string::npos) << out;
}

TEST(ChangeSafetyTest, LowBackfillfullRatioStallsTheDrain) {
  const Planned normal = PlanSample("drain-host.ops", 0.9f);
  // Just above the fullest OSD before the change: targets that receive
  // enough to cross it refuse.
  float fullest = 0;
  for (const OsdMovement& o : normal.report.movement.osds) {
    fullest = std::max(fullest, static_cast<float>(o.fill_before));
  }
  const Planned low = PlanSample("drain-host.ops", fullest + 0.01f);
  ASSERT_TRUE(low.report.safety.has_value());
  const ChangeSafety& s = *low.report.safety;
  ASSERT_FALSE(s.stalls.empty());
  EXPECT_NEAR(s.backfillfull_ratio, fullest + 0.01f, 1e-6);
  const std::vector<PgMove>& moves = low.report.movement.moves;
  for (const BackfillStall& st : s.stalls) {
    EXPECT_GT(st.refusals, 0u);
    // The refusing OSD is one of the PG's targets, and a PG that ran did so
    // only after a retry (every 30 s).
    const PgMove& mv = moves[st.job];
    EXPECT_EQ(mv.pg, st.pg);
    EXPECT_NE(std::find(mv.targets.begin(), mv.targets.end(), st.osd), mv.targets.end());
    const BackfillJobTiming& t = low.report.schedule->jobs[st.job];
    if (!st.never_starts) {
      EXPECT_GE(t.start_seconds, st.first_seconds + 30) << FormatPgId(st.pg);
    }
  }
  // Without the low ratio none of them stalled.
  EXPECT_TRUE(normal.report.safety->stalls.empty());
  RecordProperty("stalls", static_cast<int>(s.stalls.size()));
  RecordProperty("never_starting", static_cast<int>(s.pgs_never_starting));
}

// `ceph osd getmap` of the loopback clusters (tools/dev/README.md, issue 35)
// against the estimate of the full map: its crush map's bytes, max_osd and
// pools. Pacific 16.2.15: 4 OSDs and 2 replicated pools (3,254 bytes), 6
// OSDs with an EC pool (5,130), 8 OSDs (6,083); Tentacle 20.2: 5,124 and
// 6,077.
TEST(OsdmapGrowthTest, EstimateMatchesTheLoopbackMaps) {
  struct Map {
    OsdmapSizeInputs in;
    double bytes;
  };

  const Map maps[] = {{{762, 4, 2, 0, 0, 0}, 3254},
                      {{1334, 6, 3, 1, 0, 0}, 5130},
                      {{1567, 8, 3, 1, 0, 0}, 6083},
                      {{1342, 6, 3, 1, 0, 0}, 5124},
                      {{1575, 8, 3, 1, 0, 0}, 6077}};
  for (const Map& m : maps) {
    // Less the incremental: the full map alone.
    const double full = static_cast<double>(EstimateOsdmapEpochBytes(m.in)) - 500;
    EXPECT_NEAR(full, m.bytes, 0.01 * m.bytes) << m.in.crush_bytes;
  }
  // What every uninvolved OSD grew by per epoch of a change (its `osd df`
  // after less before, over the change's epochs): Pacific `osd out 4` (19
  // PGs, 174 KiB over 31 epochs) and the rule change (26 PGs, 172 KiB over
  // 26), Tentacle `osd out 4` (68 KiB over 12) and the rule change (75 KiB
  // over 11).
  const Map changes[] = {{{1334, 6, 3, 1, 0, 19}, 174.0 * 1024 / 31},
                         {{1567, 8, 3, 1, 0, 26}, 172.0 * 1024 / 26},
                         {{1342, 6, 3, 1, 0, 19}, 68.0 * 1024 / 12},
                         {{1575, 8, 3, 1, 0, 26}, 75.0 * 1024 / 11}};
  for (const Map& m : changes) {
    EXPECT_NEAR(static_cast<double>(EstimateOsdmapEpochBytes(m.in)), m.bytes, 0.025 * m.bytes)
        << m.in.crush_bytes;
  }
}

// The estimate on the sample's reweight (three OSDs, ~275 epochs): the
// monitor's commits in the schedule's seconds, every one kept by a young
// cluster's monitor, some near mon_min_osdmap_epochs, none past it, and what
// is kept lowers MAX AVAIL after.
TEST(OsdmapGrowthTest, EpochsOfTheScheduleAndWhatTheMonitorKeeps) {
  const Planned young = PlanSample("reweight.ops", 0.9f, 100);
  ASSERT_TRUE(young.report.safety.has_value() && young.report.schedule.has_value());
  const ChangeSafety& s = *young.report.safety;
  ASSERT_TRUE(s.osdmaps.has_value());
  const OsdmapGrowth& g = *s.osdmaps;
  // Each PG's pg_temp drop and the up_thru after it, a second apart, and the
  // three maps before any backfill: here more PGs end than there are seconds
  // in some stretches, so fewer epochs than 3 + 2 x PGs.
  const BackfillSchedule& sched = *young.report.schedule;
  std::set<long long> seconds = {0, 1, 2};
  for (const BackfillJobTiming& j : sched.jobs) {
    const long long k = std::llround(j.end_seconds + sched.end_delay_seconds);
    seconds.insert({k, k + 1});
  }
  EXPECT_EQ(g.epochs, seconds.size());
  EXPECT_LE(g.epochs, 3 + 2 * sched.jobs.size());
  ASSERT_LT(100 + g.epochs, kMonMinOsdmapEpochs);
  EXPECT_EQ(g.epochs_kept, g.epochs);
  OsdmapSizeInputs size = OsdmapSizeInputsOf(young.before);
  size.moving_pgs = young.report.movement.moves.size();
  // The reweight changes no OSD count or pool: the after map's estimate is
  // the before map's within its crush weights' bytes.
  EXPECT_NEAR(static_cast<double>(g.bytes_per_epoch),
              static_cast<double>(EstimateOsdmapEpochBytes(size)), 64);
  ASSERT_EQ(g.max_avail_after.size(), s.pools.size());
  bool lower = false;
  for (std::size_t i = 0; i < s.pools.size(); ++i) {
    EXPECT_LE(g.max_avail_after[i], s.pools[i].after) << s.pools[i].pool_name;
    lower = lower || g.max_avail_after[i] < s.pools[i].after;
  }
  EXPECT_TRUE(lower);
  EXPECT_TRUE(std::any_of(s.notes.begin(), s.notes.end(), [&](const std::string& n) {
    return n.find(absl::StrCat("~", g.epochs, " epochs")) != std::string::npos &&
           n.find("not in the figures") != std::string::npos;
  }));

  // 10 epochs short of 500: the monitor trims the rest once the PGs are clean.
  const Planned near = PlanSample("reweight.ops", 0.9f, kMonMinOsdmapEpochs - 10);
  ASSERT_TRUE(near.report.safety.has_value() && near.report.safety->osdmaps.has_value());
  EXPECT_EQ(near.report.safety->osdmaps->epochs, g.epochs);
  EXPECT_EQ(near.report.safety->osdmaps->epochs_kept, 10u);
  // Past it: nothing kept, MAX AVAIL after as the data leave it.
  const Planned old = PlanSample("reweight.ops", 0.9f, 5000);
  ASSERT_TRUE(old.report.safety.has_value() && old.report.safety->osdmaps.has_value());
  const ChangeSafety& o = *old.report.safety;
  EXPECT_EQ(o.osdmaps->epochs_kept, 0u);
  ASSERT_EQ(o.osdmaps->max_avail_after.size(), o.pools.size());
  for (std::size_t i = 0; i < o.pools.size(); ++i) {
    EXPECT_EQ(o.osdmaps->max_avail_after[i], o.pools[i].after) << o.pools[i].pool_name;
  }
}

// The terminal report prints the osdmap note once, under the MAX AVAIL table
// whose figures it qualifies, before the fill lines.
TEST(OsdmapGrowthTest, NoteSitsUnderTheMaxAvailTable) {
  const Planned p = PlanSample("reweight.ops", 0.9f, 100);
  ASSERT_TRUE(p.report.safety.has_value());
  std::string out;
  internal::AppendSafety(out, *p.report.safety, 5);
  const std::size_t table = out.find("MAX AVAIL per pool");
  const std::size_t note = out.find("MAX AVAIL counts data only");
  const std::size_t fill = out.find("fullest during the move");
  ASSERT_NE(table, std::string::npos);
  ASSERT_NE(note, std::string::npos);
  ASSERT_NE(fill, std::string::npos);
  EXPECT_LT(table, note);
  EXPECT_LT(note, fill);
  EXPECT_EQ(out.find("MAX AVAIL counts data only", note + 1), std::string::npos) << out;
}

}  // namespace
}  // namespace crushkit::osdmap
