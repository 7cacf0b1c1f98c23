#include "osdmap/planning/plan_compare.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "osdmap/changes/apply_change.h"
#include "osdmap/planning/plan_compare_report.h"
#include "osdmap/planning/planner.h"
#include "tests/testing/sample_cluster.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

PlanAlternative Sample(const std::string& file) {
  absl::StatusOr<ChangeList> c = crush_testing::LoadSampleChange(file);
  EXPECT_TRUE(c.ok()) << c.status();
  return PlanAlternative{.name = file, .stages = {*c}, .max_misplaced = {}};
}

ChangeList Parsed(const std::string& text, const std::string& name = "test.ops") {
  absl::StatusOr<ChangeList> c = ParseChange(text, name);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : ChangeList{};
}

class PlanCompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<ClusterState> s = crush_testing::LoadSampleCluster();
    ASSERT_TRUE(s.ok()) << s.status();
    state_ = *std::move(s);
  }

  ClusterState state_;
};

// Every figure is what the planner says of that change alone.
TEST_F(PlanCompareTest, FiguresAreThePlannersOwn) {
  const std::vector<PlanAlternative> alts = {Sample("add-rack.ops"), Sample("drain-host.ops"),
                                             Sample("reweight.ops")};
  CompareOptions options;
  options.threads = 2;
  absl::StatusOr<PlanComparison> c = ComparePlans(state_, alts, options);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->alternatives.size(), 3u);
  EXPECT_EQ(c->bytes_source, BytesSource::kPgStats);
  EXPECT_EQ(c->osds, 188u);
  for (const AlternativeResult& a : c->alternatives) {
    SCOPED_TRACE(a.name);
    ASSERT_TRUE(a.error.empty()) << a.error;
    absl::StatusOr<PlanReport> r = PlanChange(state_, alts[a.input_index].stages[0]);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(a.bytes_to_move, r->movement.totals.bytes_to_move);
    EXPECT_EQ(a.pgs_remapped, r->movement.totals.pgs_remapped);
    EXPECT_DOUBLE_EQ(a.minimum_to_move, r->movement.totals.minimum_to_move);
    ASSERT_TRUE(r->schedule.has_value());
    EXPECT_DOUBLE_EQ(a.duration_seconds, r->schedule->makespan_seconds);
    ASSERT_TRUE(r->safety && r->safety->fill);
    EXPECT_DOUBLE_EQ(a.peak_fill, r->safety->fill->riskiest_fill);
    EXPECT_EQ(a.peak_osd, r->safety->fill->riskiest_osd);
    ASSERT_EQ(a.pools.size(), r->safety->pools.size());
    for (std::size_t i = 0; i < a.pools.size(); ++i) {
      EXPECT_EQ(a.pools[i].before, r->safety->pools[i].before);
      EXPECT_EQ(a.pools[i].lowest, r->safety->pools[i].peak);
      EXPECT_EQ(a.pools[i].after, r->safety->pools[i].after);
    }
    EXPECT_GT(a.fullest_after, 0.4);
    EXPECT_GT(a.max_deviation, 0);
    EXPECT_GT(a.amplification, 0);
  }
  // Ranked by data moved, least first.
  EXPECT_EQ(c->alternatives[0].rank, 1);
  EXPECT_EQ(c->alternatives[2].rank, 3);
  EXPECT_LE(c->alternatives[0].bytes_to_move, c->alternatives[1].bytes_to_move);
  EXPECT_LE(c->alternatives[1].bytes_to_move, c->alternatives[2].bytes_to_move);
}

TEST_F(PlanCompareTest, RankByPeakFillAndThreadsDoNotMatter) {
  const std::vector<PlanAlternative> alts = {Sample("add-rack.ops"), Sample("drain-host.ops"),
                                             Sample("reweight.ops")};
  CompareOptions one;
  one.threads = 1;
  one.rank_by = RankBy::kPeakFill;
  CompareOptions two = one;
  two.threads = 2;
  absl::StatusOr<PlanComparison> a = ComparePlans(state_, alts, one);
  absl::StatusOr<PlanComparison> b = ComparePlans(state_, alts, two);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->alternatives.size(), 3u);
  for (std::size_t i = 0; i + 1 < a->alternatives.size(); ++i) {
    EXPECT_LE(a->alternatives[i].peak_fill, a->alternatives[i + 1].peak_fill);
  }
  absl::StatusOr<std::string> ja = ComparisonToJson(*a, false);
  absl::StatusOr<std::string> jb = ComparisonToJson(*b, false);
  ASSERT_TRUE(ja.ok() && jb.ok());
  EXPECT_EQ(*ja, *jb);
  EXPECT_THAT(*ja, HasSubstr("\"rank_by\": \"peak-fill\""));
}

TEST_F(PlanCompareTest, AnAlternativeThatDoesNotApplyRanksLastWithItsError) {
  std::vector<PlanAlternative> alts = {
      PlanAlternative{.name = "typo.ops",
                      .stages = {Parsed("osd crush reweight osd.9999 1\n", "typo.ops")},
                      .max_misplaced = {}},
      Sample("reweight.ops")};
  absl::StatusOr<PlanComparison> c = ComparePlans(state_, alts);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->alternatives.size(), 2u);
  EXPECT_EQ(c->alternatives[0].name, "reweight.ops");
  EXPECT_EQ(c->alternatives[0].rank, 1);
  EXPECT_EQ(c->alternatives[1].rank, 0);
  EXPECT_THAT(c->alternatives[1].error, HasSubstr("typo.ops:1:"));
  const std::string text = ComparisonSummary(*c, true);
  EXPECT_THAT(text, HasSubstr("typo.ops: could not be planned"));
  EXPECT_THAT(text, HasSubstr("the default, --rank-by to choose"));
  for (absl::string_view line : absl::StrSplit(text, '\n')) EXPECT_LE(line.size(), 100u) << line;
}

TEST_F(PlanCompareTest, PlaceHostsTriesEveryRackAndANewOne) {
  const ChangeList hosts = Parsed(
      "add-host nodeX1 osds=4 weight=7.277 class=hdd rack=rack9\n"
      "add-host nodeX2 osds=4 weight=7.277 class=hdd\n");
  absl::StatusOr<std::vector<PlanAlternative>> alts = PlaceHostsAlternatives(state_, hosts);
  ASSERT_TRUE(alts.ok()) << alts.status();
  std::vector<std::string> names;
  for (const PlanAlternative& a : *alts) names.push_back(a.name);
  EXPECT_THAT(names, ElementsAre("rack0", "rack1", "rack2", "new rack rack3"));
  ASSERT_EQ((*alts)[1].stages.size(), 1u);
  EXPECT_EQ(DescribeChangeOp((*alts)[1].stages[0].ops[0]),
            "add-host nodeX1 osds=4 weight=7.277 class=hdd rack=rack1");
  EXPECT_EQ(DescribeChangeOp((*alts)[3].stages[0].ops[0]),
            "osd crush add-bucket rack3 rack root=default");
  absl::StatusOr<PlanComparison> c = ComparePlans(state_, *alts);
  ASSERT_TRUE(c.ok()) << c.status();
  for (const AlternativeResult& a : c->alternatives) EXPECT_TRUE(a.error.empty()) << a.error;
  EXPECT_THAT(
      PlaceHostsAlternatives(state_, Parsed("osd out 3\n")),
      crush_testing::StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs add-host")));
}

TEST_F(PlanCompareTest, DrainOrderStagesAddUp) {
  absl::StatusOr<std::vector<PlanAlternative>> alts =
      DrainOrderAlternatives(state_, {"node-r0-1", "node-r1-2", "node-r2-3"});
  ASSERT_TRUE(alts.ok()) << alts.status();
  ASSERT_EQ(alts->size(), 6u);  // 3! orders
  EXPECT_EQ((*alts)[0].name, "node-r0-1, node-r1-2, node-r2-3");
  ASSERT_EQ((*alts)[0].stages.size(), 3u);
  CompareOptions options;
  options.rank_by = RankBy::kPeakFill;
  absl::StatusOr<PlanComparison> c = ComparePlans(state_, {(*alts)[0]}, options);
  ASSERT_TRUE(c.ok()) << c.status();
  const AlternativeResult& a = c->alternatives[0];
  ASSERT_TRUE(a.error.empty()) << a.error;
  EXPECT_EQ(a.stages, 3);
  // Stage by stage through the planner: PG sizes do not change, so the
  // bytes add up whatever each stage starts from.
  ClusterState s = state_;
  std::uint64_t bytes = 0;
  for (const ChangeList& stage : (*alts)[0].stages) {
    absl::StatusOr<PlanReport> r = PlanChange(s, stage);
    ASSERT_TRUE(r.ok()) << r.status();
    bytes += r->movement.totals.bytes_to_move;
    absl::StatusOr<ClusterState> next = ApplyChange(s, stage);
    ASSERT_TRUE(next.ok());
    MovementRisks ignored;
    ASSERT_TRUE(CleanUpmapsAfterChange(*next, {}, &ignored).ok());
    s = *std::move(next);
  }
  EXPECT_EQ(a.bytes_to_move, bytes);
  // Each stage starts at the use the one before left: the end is the use
  // of the three drains at once, to the byte (fills equal).
  const PlanAlternative all{
      .name = "all",
      .stages = {Parsed("drain node-r0-1\ndrain node-r1-2\ndrain node-r2-3\n")},
      .max_misplaced = {}};
  absl::StatusOr<PlanComparison> once = ComparePlans(state_, {all}, options);
  ASSERT_TRUE(once.ok()) << once.status();
  EXPECT_EQ(a.fullest_osd, once->alternatives[0].fullest_osd);
  EXPECT_NEAR(a.fullest_after, once->alternatives[0].fullest_after, 1e-8);  // KiB rounding
  ASSERT_EQ(a.pools.size(), once->alternatives[0].pools.size());
  for (std::size_t i = 0; i < a.pools.size(); ++i) {
    EXPECT_EQ(a.pools[i].after, once->alternatives[0].pools[i].after) << a.pools[i].pool_name;
  }
  EXPECT_GT(a.peak_fill, 0.5);
  EXPECT_THAT(DrainOrderAlternatives(state_, {"node-r0-1", "nod-r1-2"}),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("'nod-r1-2' is not a bucket")));
}

TEST_F(PlanCompareTest, StepSweepStagesUnderShrinkingLimits) {
  absl::StatusOr<PlanComparison> c =
      CompareStepSweep(state_, Sample("reweight.ops"), 3, CompareOptions{});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->alternatives.size(), 3u);
  int at_once = 0, staged = 0;
  for (const AlternativeResult& a : c->alternatives) {
    ASSERT_TRUE(a.error.empty()) << a.name << ": " << a.error;
    if (a.steps == 0) {
      ++at_once;
      EXPECT_EQ(a.name, "at once");
    } else {
      ++staged;
      EXPECT_GE(a.steps, 2) << a.name;
    }
  }
  EXPECT_EQ(at_once, 1);
  EXPECT_EQ(staged, 2);
  // At once moves least (staging adds overhead), so it ranks first by data moved.
  EXPECT_EQ(c->alternatives[0].name, "at once");
}

TEST(PlanCompareRankTest, ParsesEveryCriterionAndRefusesOthers) {
  for (const char* name :
       {"moved", "duration", "peak-fill", "fullest", "deviation", "amplification", "max-avail"}) {
    absl::StatusOr<RankBy> r = ParseRankBy(name);
    ASSERT_TRUE(r.ok()) << name;
    EXPECT_EQ(RankByName(*r), name);
  }
  EXPECT_THAT(ParseRankBy("speed\x01"),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("'speed?': expected one of moved, duration")));
}

}  // namespace
}  // namespace crushkit::osdmap
