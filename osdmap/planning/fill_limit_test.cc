// --max-fill: the staged plan and the upmap way keep every receiving OSD
// under the limit (fill_limit.h), reorder the weights or hold PGs back when
// that is what it takes, and say which OSD cannot be kept when none can.
#include "osdmap/planning/fill_limit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "osdmap/changes/apply_change.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/planner.h"
#include "tests/testing/osdmap_state.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using ::testing::HasSubstr;

constexpr std::uint64_t kFillPgBytes = 256ull << 20;  // every PG holds 256 MiB
constexpr std::uint32_t kPgs = 512;
constexpr std::uint64_t kCapacityKb = 100ull << 20;  // 100 GiB per OSD

ChangeList Parse(const std::string& text) {
  absl::StatusOr<ChangeList> c = ParseChange(text, "ops");
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *std::move(c) : ChangeList{};
}

// `hosts` hosts of `per_host` OSDs, a 3x pool of 512 PGs of 256 MiB (host
// failure domain), osd.`empty` at CRUSH weight 0, and every OSD's `ceph osd
// df` use the bytes of the PGs it holds, of 100 GiB.
ClusterState FillState(int hosts, int per_host, int empty) {
  ClusterState s = crush_testing::MakeTestState(
      {.hosts = hosts, .osds_per_host = per_host, .rep_pg_num = kPgs, .ec_pg_num = 0});
  absl::StatusOr<ClusterState> st =
      ApplyChange(s, Parse(absl::StrCat("osd crush reweight osd.", empty, " 0\n")));
  EXPECT_TRUE(st.ok()) << st.status();
  s = *std::move(st);
  for (std::uint32_t ps = 0; ps < kPgs; ++ps)
    s.pg_stats[PgId{1, ps}] = PgStat{100, kFillPgBytes, 0};
  absl::StatusOr<std::unique_ptr<MappingSession>> session = MappingSession::Create(s);
  EXPECT_TRUE(session.ok()) << session.status();
  MapAllOptions mo;
  mo.acting = false;
  const PgTable table = MapAllPgs(**session, mo);
  std::map<std::int32_t, std::uint64_t> used;
  for (std::uint32_t ps = 0; ps < kPgs; ++ps) {
    for (const std::int32_t o : table.Find(1)->Up(ps)) used[o] += kFillPgBytes;
  }
  for (std::int32_t o = 0; o < hosts * per_host; ++o) {
    s.osd_usage[o] = OsdUsage{kCapacityKb, used[o] >> 10, std::nullopt};
  }
  return s;
}

// 9 hosts of one OSD each (placement as in a flat bucket), osd.8 empty:
// osd.0 is drained while osd.8 is filled, so osd.1-7 both receive osd.0's
// copies and give copies to osd.8.
ClusterState FlatState() { return FillState(9, 1, 8); }

constexpr const char* kFlatSwap = "osd crush reweight osd.0 0\nosd crush reweight osd.8 1\n";

// 3 hosts x 3 OSDs, osd.2 of host0 empty: osd.0 drained into its host while
// osd.2 is filled.
ClusterState HostState() { return FillState(3, 3, 2); }

constexpr const char* kHostSwap = "osd crush reweight osd.0 0\nosd crush reweight osd.2 1\n";

PlanReport FillPlan(const ClusterState& s, const char* ops, std::optional<double> max_fill,
                    bool upmap = false) {
  PlanOptions o;
  o.max_misplaced = 1.0;
  o.max_fill = max_fill;
  o.upmap_remapped = upmap;
  absl::StatusOr<PlanReport> r = PlanChange(s, Parse(ops), o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : PlanReport{};
}

const OsdMovement& MoveOf(const Movement& m, std::int32_t id) {
  for (const OsdMovement& o : m.osds) {
    if (o.osd == id) return o;
  }
  ADD_FAILURE() << "osd." << id << " not in the movement";
  return m.osds.front();
}

// The highest fill any receiving OSD ends at after the change at once.
double FinalMax(const Movement& m) {
  double f = 0;
  for (const OsdMovement& o : m.osds) {
    if (o.bytes_in > 0) f = std::max(f, o.fill_after);
  }
  return f;
}

TEST(FillLimitTest, TrackerBoundsAStepByItsStartPlusEverythingItReceives) {
  const ClusterState s = FlatState();
  const PlanReport at_once = FillPlan(s, kFlatSwap, 0.0);
  const OsdMovement& z = MoveOf(at_once.movement, 1);
  ASSERT_GT(z.bytes_in, 0u);
  ASSERT_GT(z.bytes_out, 0u);
  FillTracker t(at_once.movement, 0.9);
  ASSERT_TRUE(t.active());
  const FillPeak p = t.WorstTarget(at_once.movement.osds);
  EXPECT_GE(p.fill, static_cast<double>(z.used_before + z.bytes_in) /
                        static_cast<double>(z.capacity_bytes));
  t.Apply(at_once.movement.osds);
  std::uint64_t used = 0, cap = 0;
  ASSERT_TRUE(t.Space(1, &used, &cap));
  EXPECT_EQ(used, z.used_before + z.bytes_in - z.bytes_out);
  EXPECT_FALSE(FillTracker(at_once.movement, 0).active());
}

TEST(FillLimitTest, StagedPlanRaisesBeforeLoweringToKeepTheGivingOsdUnderTheLimit) {
  const ClusterState s = FlatState();
  const PlanReport at_once = FillPlan(s, kFlatSwap, 0.0);
  const double cap = static_cast<double>(MoveOf(at_once.movement, 1).capacity_bytes);
  // Just above every OSD's final fill, but under the OSDs that hold their
  // own copies and osd.0's at once.
  const double limit = FinalMax(at_once.movement) + 1.5 * kFillPgBytes / cap;

  const PlanReport r = FillPlan(s, kFlatSwap, limit);
  ASSERT_TRUE(r.staged);
  const StagedPlan& p = *r.staged;
  EXPECT_TRUE(p.fill_checked);
  EXPECT_TRUE(p.fill_feasible);
  EXPECT_TRUE(p.fill_problems.empty());
  EXPECT_EQ(p.order, "raised weights first, then lowered");
  ASSERT_GE(p.steps.size(), 2u);
  // osd.8 is raised to 1 in the first steps, osd.0 lowered in the rest.
  bool lowering = false;
  for (const PlanStep& st : p.steps) {
    for (const std::string& c : st.commands) {
      if (c.starts_with("ceph osd crush reweight osd.0 ")) lowering = true;
      if (c.starts_with("ceph osd crush reweight osd.8 ")) {
        EXPECT_FALSE(lowering) << c;
      }
    }
  }
  EXPECT_TRUE(lowering);
  EXPECT_EQ(p.steps.back().commands.back(), "ceph osd crush reweight osd.0 0");
  for (const PlanStep& st : p.steps) {
    EXPECT_FALSE(st.over_fill) << "step " << st.index;
    EXPECT_LT(st.peak.fill, limit) << "step " << st.index;
  }
  // The change at once, by contrast, is over.
  FillTracker t(at_once.movement, limit);
  EXPECT_TRUE(t.Over(t.WorstTarget(at_once.movement.osds)));
}

TEST(FillLimitTest, StagedPlanSplitsStepsToStayUnderTheLimit) {
  // Without the fill limit the change is one step; with a limit just above
  // the final state's it takes smaller steps, each under the limit (host0's
  // OSDs both receive osd.0's copies and give copies to osd.2).
  const ClusterState s = HostState();
  const PlanReport free = FillPlan(s, kHostSwap, 0.0);
  ASSERT_TRUE(free.staged);
  EXPECT_EQ(free.staged->steps.size(), 1u);
  const double limit =
      FinalMax(free.movement) +
      4.0 * kFillPgBytes / static_cast<double>(MoveOf(free.movement, 1).capacity_bytes);
  FillTracker t(free.movement, limit);
  ASSERT_TRUE(t.Over(t.WorstTarget(free.movement.osds)));
  const PlanReport r = FillPlan(s, kHostSwap, limit);
  ASSERT_TRUE(r.staged);
  EXPECT_GT(r.staged->steps.size(), 2u);
  EXPECT_TRUE(r.staged->fill_feasible);
  for (const PlanStep& st : r.staged->steps) EXPECT_LT(st.peak.fill, limit);
}

TEST(FillLimitTest, FinalStateOverTheLimitIsReportedAsImpossible) {
  const ClusterState s = FlatState();
  const PlanReport at_once = FillPlan(s, kFlatSwap, 0.0);
  const double final_max = FinalMax(at_once.movement);
  const double limit = final_max - 0.02;
  const PlanReport r = FillPlan(s, kFlatSwap, limit, /*upmap=*/true);
  ASSERT_TRUE(r.staged);
  EXPECT_FALSE(r.staged->fill_feasible);
  ASSERT_FALSE(r.staged->fill_problems.empty());
  const FillProblem& p = r.staged->fill_problems.front();
  EXPECT_EQ(p.step, -1);
  EXPECT_NEAR(p.fill, final_max, 1e-9);
  EXPECT_NE(p.osd, 0);
  EXPECT_THAT(DescribeFillProblem(p), HasSubstr("final state itself is over the limit"));
  EXPECT_THAT(DescribeFillProblem(p), HasSubstr("2.0 points over"));
  ASSERT_TRUE(r.upmap_plan);
  EXPECT_FALSE(r.upmap_plan->fill_feasible);
  EXPECT_EQ(r.upmap_plan->fill_problems.front().step, -1);
  // The script warns before anything runs.
  EXPECT_THAT(PlanCommandsScript(r), HasSubstr("# WARNING: the staged plan cannot keep every OSD"));
}

TEST(FillLimitTest, UpmapBatchesHoldBackPgsUntilTheirTargetHasRoom) {
  // osd.0 lowered, not drained, so every remapped PG can be pinned (Ceph
  // cancels upmaps to an OSD of CRUSH weight 0).
  constexpr const char* kOps = "osd crush reweight osd.0 0.1\nosd crush reweight osd.8 0.9\n";
  const ClusterState s = FlatState();
  const PlanReport at_once = FillPlan(s, kOps, 0.0, /*upmap=*/true);
  ASSERT_TRUE(at_once.upmap_plan);
  // Without a limit: one batch, in PG order.
  EXPECT_EQ(at_once.upmap_plan->batches.size(), 1u);
  const double cap = static_cast<double>(MoveOf(at_once.movement, 1).capacity_bytes);
  const double limit = FinalMax(at_once.movement) + 1.5 * kFillPgBytes / cap;
  FillTracker t(at_once.movement, limit);
  const FillPeak all = t.WorstTarget(at_once.movement.osds);
  ASSERT_TRUE(t.Over(all));
  const PlanReport r = FillPlan(s, kOps, limit, /*upmap=*/true);
  ASSERT_TRUE(r.upmap_plan);
  const UpmapPinPlan& u = *r.upmap_plan;
  EXPECT_TRUE(u.fill_checked);
  EXPECT_TRUE(u.fill_feasible);
  EXPECT_TRUE(u.fill_problems.empty());
  EXPECT_TRUE(u.immediate.pgs.empty());
  ASSERT_GT(u.batches.size(), 1u);
  std::size_t pgs = 0;
  bool reordered = false;
  for (const UpmapBatch& b : u.batches) {
    EXPECT_FALSE(b.over_fill);
    EXPECT_LT(b.peak.fill, limit);
    // A batch that starts below the previous one's last PG took PGs held back.
    if (pgs > 0 && !b.pgs.empty())
      reordered = reordered || b.pgs.front() < u.batches.front().pgs.back();
    pgs += b.pgs.size();
  }
  EXPECT_TRUE(reordered);
  EXPECT_EQ(pgs, u.pins.size());
}

TEST(FillLimitTest, ParsesFillLimits) {
  EXPECT_DOUBLE_EQ(ParseFillLimit("85%").value_or(-1), 0.85);
  EXPECT_DOUBLE_EQ(ParseFillLimit("0.5").value_or(-1), 0.5);
  EXPECT_DOUBLE_EQ(ParseFillLimit("none").value_or(-1), 0.0);
  EXPECT_FALSE(ParseFillLimit("120%").ok());
  EXPECT_THAT(std::string(ParseFillLimit("full").status().message()),
              HasSubstr("--max-fill 'full'"));
}

}  // namespace
}  // namespace crushkit::osdmap
