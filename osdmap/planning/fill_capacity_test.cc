// An OSD that is out shows kb 0 in `ceph osd df` (the mgr zeroes its
// stats). On the bundled sample cluster (samples/cluster: hdd OSDs of 3.64
// and 7.28 CRUSH weight, 3,907,018,584 KiB per 3.639 weight units), osd.3
// (7.277 weight) is taken out as Ceph would show it; `osd in 3` then needs
// its size for the fill it reaches and for MAX AVAIL after the change.
#include "osdmap/planning/fill_capacity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "osdmap/planning/planner.h"
#include "tests/testing/sample_cluster.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::IsOk;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The sample with osd.3 out, as `ceph osd df` shows it then.
ClusterState SampleWithOsd3Out() {
  absl::StatusOr<ClusterState> s = crush_testing::LoadSampleCluster();
  EXPECT_THAT(s.status(), IsOk());
  if (!s.ok()) return {};
  s->osds[3].weight = 0;
  s->osd_usage[3] = OsdUsage{0, 0, 0};
  return *std::move(s);
}

TEST(FillCapacityTest, OutOsdIsSkippedAndAnInOneWithoutSizeIsEstimated) {
  ClusterState s = SampleWithOsd3Out();
  ASSERT_GT(s.max_osd(), 3);
  EXPECT_TRUE(EstimateUnreportedCapacity(&s).empty());  // osd.3 is out: nothing to project
  EXPECT_EQ(s.osd_usage[3].kb, 0u);
  s.osds[3].weight = 0x10000;  // `osd in 3`
  const std::vector<EstimatedCapacity> e = EstimateUnreportedCapacity(&s);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].osd, 3);
  EXPECT_EQ(e[0].device_class, "hdd");
  EXPECT_TRUE(e[0].peers_of_class);
  // Every other hdd OSD of the sample has 3,907,018,584 KiB per 3.639 CRUSH
  // units, osd.3 weighs twice that: its real size, 7,814,026,584 KiB, within
  // the weights' 16.16 rounding.
  EXPECT_NEAR(static_cast<double>(e[0].kb), 7814026584.0, 7814026584.0 * 1e-4);
  EXPECT_EQ(s.osd_usage[3].kb, e[0].kb);
  EXPECT_EQ(s.osd_usage[3].kb_used, 0u);
  EXPECT_EQ(s.osd_usage[3].kb_avail, e[0].kb);
  EXPECT_THAT(DescribeEstimates(e, s),
              ElementsAre(HasSubstr("osd.3 shows no size in `ceph osd df` (out: ")));
}

TEST(FillCapacityTest, EstimatesMadeAlikeShareOneLine) {
  const ClusterState before = SampleWithOsd3Out();
  EstimatedCapacity hdd{.osd = 0,
                        .kb = 100,
                        .crush_weight = 1,
                        .kb_per_weight = 100,
                        .device_class = "hdd",
                        .peers = 5};
  std::vector<EstimatedCapacity> e;
  for (std::int32_t osd : {1002, 1000, 1001, 1004}) {
    e.push_back(hdd);
    e.back().osd = osd;
  }
  e.push_back(hdd);
  e.back().osd = 3;  // in the cluster before: out, not new
  e.push_back(hdd);
  e.back().osd = 1003;  // new but twice the weight: a line of its own
  e.back().crush_weight = 2;
  e.back().kb = 200;
  EXPECT_THAT(DescribeEstimates(e, before),
              ElementsAre(HasSubstr("osd.3 shows no size in `ceph osd df` (out: "),
                          HasSubstr("osd.1000-1002, osd.1004 (4 new OSDs) show no size in "
                                    "`ceph osd df` (new: not in the cluster before the change): "
                                    "100 KiB each assumed, their CRUSH weight 1 x"),
                          HasSubstr("osd.1003 shows no size in `ceph osd df` (new: ")));
}

TEST(FillCapacityTest, NothingWithoutOsdDf) {
  ClusterState s = SampleWithOsd3Out();
  s.osd_usage.clear();
  s.osds[3].weight = 0x10000;
  EXPECT_TRUE(EstimateUnreportedCapacity(&s).empty());
  EXPECT_TRUE(s.osd_usage.empty());
}

TEST(FillCapacityTest, PlanOfOsdInFillsTheOsdComingIn) {
  const ClusterState before = SampleWithOsd3Out();
  absl::StatusOr<ChangeList> change = ParseChange("osd in 3\n", "in.ops");
  ASSERT_THAT(change.status(), IsOk());
  PlanOptions po;
  po.movement.threads = 2;
  absl::StatusOr<PlanReport> r = PlanChange(before, *change, po);
  ASSERT_THAT(r.status(), IsOk());
  ASSERT_TRUE(r->safety.has_value() && r->safety->fill.has_value());
  const auto& osds = r->safety->fill->osds;
  auto it = std::find_if(osds.begin(), osds.end(), [](const OsdFillPeak& p) { return p.osd == 3; });
  ASSERT_NE(it, osds.end());
  EXPECT_TRUE(it->capacity_from_osd_df);
  EXPECT_EQ(it->fill_before, 0);
  // It gets its share back: about the sample's mean fill (~60%), not the 0%
  // a default 1 TiB per weight unit would make of it.
  EXPECT_GT(it->fill_after, 0.3);
  EXPECT_LT(it->fill_after, 0.9);
  EXPECT_THAT(r->safety->notes, ::testing::Contains(HasSubstr("osd.3 shows no size")));
  // MAX AVAIL after counts osd.3 again: no pool's is below its before.
  for (const PoolAvailChange& p : r->safety->pools) EXPECT_GE(p.after, p.before) << p.pool_name;
}

}  // namespace
}  // namespace crushkit::osdmap
