// The staged plan, checked from the outside: every step's printed commands
// are applied again, as an operator would, and each step is re-measured
// with DiffStates; the last step must land where the change at once does.
#include "osdmap/planning/staged_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <regex>

#include "absl/strings/str_join.h"

#include "crush/codec.h"
#include "osdmap/changes/apply_change.h"
#include "osdmap/changes/upmap_cleanup.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/planning/planner.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/osdmap_state.h"
#include "tests/testing/sample_cluster.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using ::testing::HasSubstr;

// 6 hosts x 4 OSDs, a replicated pool of 256 PGs and an EC 2+1 pool of 128.
ClusterState StagedState() {
  return crush_testing::MakeTestState(
      {.hosts = 6, .osds_per_host = 4, .rep_pg_num = 256, .ec_pg_num = 128});
}

ChangeList ParseOps(const std::string& text) {
  absl::StatusOr<ChangeList> c = ParseChange(text, "ops");
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *std::move(c) : ChangeList{};
}

ClusterState Apply(const ClusterState& s, const std::string& text) {
  absl::StatusOr<ClusterState> out = ApplyChange(s, ParseOps(text));
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : s;
}

Movement StagedDiff(const ClusterState& a, const ClusterState& b) {
  absl::StatusOr<Movement> m = DiffStates(a, b);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : Movement{};
}

double Ratio(const Movement& m) {
  if (m.bytes_source != BytesSource::kUnknown && m.totals.objects_total > 0) {
    return static_cast<double>(m.totals.objects_to_move) /
           static_cast<double>(m.totals.objects_total);
  }
  return static_cast<double>(m.totals.shards_moved) / m.totals.shards_total;
}

StagedPlan Plan(const ClusterState& before, const ChangeList& change, double limit) {
  PlanOptions po;
  po.schedule = false;
  absl::StatusOr<PlanReport> at_once = PlanChange(before, change, po);
  EXPECT_TRUE(at_once.ok()) << at_once.status();
  StagedPlanOptions so;
  so.max_misplaced = limit;
  so.simulate = false;
  absl::StatusOr<StagedPlan> plan = PlanStagedChange(before, change, at_once->movement, so);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *std::move(plan) : StagedPlan{};
}

// The Ceph lines of a step, without "ceph " and comments.
std::string Executable(const PlanStep& step) {
  std::vector<std::string> lines;
  for (const std::string& c : step.commands) {
    if (!c.starts_with("#")) lines.push_back(c);
  }
  return absl::StrJoin(lines, "\n");
}

// Replays the plan from `start` (the state after step 0, or `before` when
// there is none), re-measuring every weight step, and returns the end state.
ClusterState Replay(const ClusterState& start, const StagedPlan& plan, double limit) {
  ClusterState prev = start;
  double fraction = 0;
  for (const PlanStep& step : plan.steps) {
    if (step.index == 0) continue;
    EXPECT_GT(step.fraction, fraction);
    fraction = step.fraction;
    ClusterState next = Apply(prev, Executable(step));
    EXPECT_TRUE(CleanPgUpmaps(next).ok());
    const Movement m = StagedDiff(prev, next);
    EXPECT_EQ(m.totals.pgs_remapped, step.totals.pgs_remapped) << "step " << step.index;
    EXPECT_EQ(m.totals.shards_moved, step.totals.shards_moved) << "step " << step.index;
    EXPECT_DOUBLE_EQ(Ratio(m), step.misplaced_ratio) << "step " << step.index;
    if (!step.over_limit) {
      EXPECT_LE(Ratio(m), limit) << "step " << step.index;
    }
    for (const StepOsdWeight& w : step.weights) {
      EXPECT_EQ(CrushItemWeight(next.crush, w.osd).value_or(0), w.crush_weight) << "osd." << w.osd;
      EXPECT_EQ(next.osds[static_cast<std::size_t>(w.osd)].weight, w.reweight) << "osd." << w.osd;
    }
    prev = std::move(next);
  }
  EXPECT_DOUBLE_EQ(fraction, 1.0);
  return prev;
}

TEST(WeightTextTest, ConvertsBackToTheSameWeightThroughCephsParser) {
  ClusterState s = StagedState();
  std::mt19937 rng(7);
  std::vector<crush::Weight> crush_weights = {0, 1, 0x8000, 0x10000, 0x3a3b6, 0x7fffff};
  std::vector<crush::Weight> reweights = {0, 1, 0x8000, 0xd999, 0x10000};
  for (int i = 0; i < 100; ++i) {
    crush_weights.push_back(rng() % (64u << 16));
    reweights.push_back(rng() % 0x10001);
  }
  for (crush::Weight w : crush_weights) {
    const ClusterState out = Apply(s, "osd crush reweight osd.5 " + CrushWeightText(w));
    EXPECT_EQ(CrushItemWeight(out.crush, 5).value_or(0), w) << CrushWeightText(w);
  }
  for (crush::Weight w : reweights) {
    const ClusterState out = Apply(s, "osd reweight 5 " + ReweightText(w));
    EXPECT_EQ(out.osds[5].weight, w) << ReweightText(w);
  }
  EXPECT_EQ(CrushWeightText(0x10000), "1");
  EXPECT_EQ(ReweightText(0x8000), "0.5");
}

TEST(StagedPlanTest, AddHostStartsAtZeroWeightAndStepsStayUnderTheLimit) {
  const ClusterState before = StagedState();
  const ChangeList change = ParseOps("add-host host6 osds=4 weight=1 root=default\n");
  const StagedPlan plan = Plan(before, change, 0.05);
  ASSERT_GE(plan.steps.size(), 3u);
  EXPECT_EQ(plan.steps[0].index, 0);
  EXPECT_EQ(plan.steps[0].totals.pgs_remapped, 0u);  // straw2: a weight-0 host takes nothing
  EXPECT_THAT(plan.steps[0].commands[0],
              HasSubstr("ceph osd crush add-bucket host6 host root=default"));
  EXPECT_THAT(plan.staged_osds, ::testing::ElementsAre(24, 25, 26, 27));
  const ClusterState start = Apply(before, "add-host host6 osds=4 weight=0 root=default");
  const ClusterState end = Replay(start, plan, 0.05);
  // Where the change at once lands: nothing left to move.
  EXPECT_EQ(StagedDiff(end, Apply(before, "add-host host6 osds=4 weight=1 root=default"))
                .totals.pgs_remapped,
            0u);
  double sum = 0;
  for (const PlanStep& s : plan.steps) sum += s.totals.shards_moved;
  EXPECT_DOUBLE_EQ(plan.moved_in_steps, sum);
  EXPECT_GT(plan.moved_at_once, 0);
  EXPECT_DOUBLE_EQ(plan.overhead, plan.moved_in_steps / plan.moved_at_once);
}

TEST(StagedPlanTest, DrainHasNoStepZeroAndEndsAtWeightZero) {
  const ClusterState before = StagedState();
  const StagedPlan plan = Plan(before, ParseOps("drain host1\n"), 0.04);
  ASSERT_GE(plan.steps.size(), 2u);
  EXPECT_EQ(plan.steps[0].index, 1);
  EXPECT_THAT(plan.staged_osds, ::testing::ElementsAre(4, 5, 6, 7));
  for (const StepOsdWeight& w : plan.steps.back().weights) EXPECT_EQ(w.crush_weight, 0u);
  const ClusterState end = Replay(before, plan, 0.04);
  EXPECT_EQ(StagedDiff(end, Apply(before, "drain host1")).totals.pgs_remapped, 0u);
}

// PGs of very different sizes: the moves of the big ones cannot fit under
// the limit; the search still ends, each such step flagged.
TEST(StagedPlanTest, PgsLargerThanTheLimitGetStepsOfTheirOwn) {
  ClusterState before = StagedState();
  for (const auto& [id, pool] : before.pools) {
    for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
      const std::uint64_t objects = ps % 17 == 0 ? 100000 : 10;
      before.pg_stats[PgId{id, ps}] = PgStat{objects, objects << 20, 0};
    }
  }
  const StagedPlan plan = Plan(before, ParseOps("drain host1\n"), 0.005);
  ASSERT_FALSE(plan.steps.empty());
  int flagged = 0;
  for (const PlanStep& s : plan.steps) {
    flagged += s.over_limit ? 1 : 0;
    // Only the last step, which sets the final weights, may move nothing.
    if (&s != &plan.steps.back()) {
      EXPECT_GT(s.totals.shards_moved, 0u) << "an empty step " << s.index;
    }
  }
  EXPECT_GT(flagged, 0);
  const ClusterState end = Replay(before, plan, 0.005);
  EXPECT_EQ(StagedDiff(end, Apply(before, "drain host1")).totals.pgs_remapped, 0u);
}

TEST(StagedPlanTest, OutIsWalkedAsReweights) {
  const ClusterState before = StagedState();
  const StagedPlan plan = Plan(before, ParseOps("osd out 3\n"), 1.0);
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(plan.steps[0].fraction, 1.0);
  EXPECT_THAT(plan.steps[0].commands, ::testing::ElementsAre("ceph osd reweight 3 0"));
  const StagedPlan small = Plan(before, ParseOps("osd out 3\n"), 0.01);
  EXPECT_GT(small.steps.size(), 1u);
  Replay(before, small, 0.01);
}

TEST(StagedPlanTest, ChangeWithoutWeightsIsOneStep) {
  const ClusterState before = StagedState();
  const StagedPlan plan = Plan(before, ParseOps("osd pool set rep pg_num 512\n"), 0.05);
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(plan.steps[0].index, 0);
  EXPECT_THAT(absl::StrJoin(plan.notes, "\n"), HasSubstr("nothing to split"));
  EXPECT_THAT(absl::StrJoin(plan.notes, "\n"), HasSubstr("step 0"));
}

TEST(StagedPlanTest, RefusesALimitOutsideZeroToOne) {
  const ClusterState before = StagedState();
  StagedPlanOptions so;
  for (double bad : {0.0, -0.1, 1.5}) {
    so.max_misplaced = bad;
    EXPECT_EQ(PlanStagedChange(before, ParseOps("osd out 3"), Movement{}, so).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

TEST(StagedPlanTest, ParsesLimitsAsPercentOrFraction) {
  EXPECT_DOUBLE_EQ(*ParseMisplacedLimit("5%"), 0.05);
  EXPECT_DOUBLE_EQ(*ParseMisplacedLimit(" 0.05 "), 0.05);
  EXPECT_DOUBLE_EQ(*ParseMisplacedLimit("100%"), 1.0);
  for (const char* bad : {"0", "0%", "101%", "1.5", "abc", "", "nan", "-5%"}) {
    EXPECT_EQ(ParseMisplacedLimit(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

// The sample cluster's rack expansion at 5%: every step re-measured from its
// own commands misplaces at most 5% of the object copies.
TEST(StagedPlanTest, SampleRackExpansionStepsStayUnderFivePercent) {
  absl::StatusOr<ClusterState> before = crush_testing::LoadSampleCluster();
  ASSERT_TRUE(before.ok()) << before.status();
  absl::StatusOr<ChangeList> change = crush_testing::LoadSampleChange("add-rack.ops");
  ASSERT_TRUE(change.ok()) << change.status();
  const StagedPlan plan = Plan(*before, *change, 0.05);
  ASSERT_GE(plan.steps.size(), 3u);
  EXPECT_TRUE(plan.bytes_known);
  // Step 0 replayed from the change file with the new hosts at weight 0.
  const std::string text = std::regex_replace(
      crush_testing::ReadFileOrEmpty(crush_testing::SampleClusterDir() + "/add-rack.ops"),
      std::regex("weight=[0-9.]+"), "weight=0");
  ClusterState start = Apply(*before, text);
  ASSERT_TRUE(CleanPgUpmaps(start).ok());
  EXPECT_EQ(StagedDiff(*before, start).totals.pgs_remapped, plan.steps[0].totals.pgs_remapped);
  for (const PlanStep& s : plan.steps) EXPECT_FALSE(s.over_limit) << "step " << s.index;
  // The planner's path (the change at once mapped first, its upmaps cleaned)
  // plans the same step 0: upmaps only the whole change invalidates stay.
  PlanOptions po;
  po.schedule = false;
  po.max_misplaced = 0.05;
  absl::StatusOr<PlanReport> planned = PlanChange(*before, *change, po);
  ASSERT_TRUE(planned.ok()) << planned.status();
  ASSERT_TRUE(planned->staged.has_value());
  EXPECT_EQ(planned->staged->steps[0].totals.pgs_remapped,
            StagedDiff(*before, start).totals.pgs_remapped);
  EXPECT_EQ(planned->staged->steps.size(), plan.steps.size());
  const ClusterState end = Replay(start, plan, 0.05);
  absl::StatusOr<ClusterState> at_once = ApplyChange(*before, *change);
  ASSERT_TRUE(at_once.ok()) << at_once.status();
  ASSERT_TRUE(CleanPgUpmaps(*at_once).ok());
  EXPECT_EQ(StagedDiff(end, *at_once).totals.pgs_remapped, 0u);
}

}  // namespace
}  // namespace crushkit::osdmap
