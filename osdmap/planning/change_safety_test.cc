// The safety section of a plan on the bundled sample cluster
// (samples/cluster): MAX AVAIL before equals the formula over the imported
// `ceph osd df`, the fill timeline ends where the movement report says each
// OSD ends, and a backfillfull ratio set just under the fullest targets
// makes PGs stall, while Ceph's defaults leave the schedule as it was.
#include "osdmap/planning/change_safety.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

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

Planned PlanSample(const char* ops, float backfillfull) {
  absl::StatusOr<ClusterState> before = crush_testing::LoadSampleCluster();
  EXPECT_THAT(before.status(), IsOk());
  if (!before.ok()) return {};
  before->nearfull_ratio = std::min(before->nearfull_ratio, backfillfull);
  before->backfillfull_ratio = backfillfull;
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

}  // namespace
}  // namespace crushkit::osdmap
