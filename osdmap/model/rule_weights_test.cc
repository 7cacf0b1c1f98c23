// CrushWrapper::get_rule_weight_osd_map() semantics on hand-built maps.
#include "osdmap/model/rule_weights.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "tests/testing/cluster_builder.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using ::crush_testing::IsOk;
using ::crush_testing::StatusIs;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

crush::MapModel Hosts(std::vector<crush::Weight> weights = {}) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 4;
  spec.osds_per_host = 2;
  spec.osd_weights = std::move(weights);
  return crush_testing::MakeClusterModel(spec);
}

TEST(RuleWeightOsdMapTest, EqualWeightsGiveEqualShares) {
  auto w = RuleWeightOsdMap(Hosts(), 0);
  ASSERT_THAT(w, IsOk());
  ASSERT_EQ(w->size(), 8u);
  for (const auto& [osd, share] : *w) EXPECT_EQ(share, 0.125f) << "osd." << osd;
}

TEST(RuleWeightOsdMapTest, SharesAreWeightOverTheTakeSum) {
  const crush::Weight one = crush::kWeightOne;
  auto w = RuleWeightOsdMap(Hosts({one, one, 2 * one, 2 * one, one, one, 3 * one, 0}), 0);
  ASSERT_THAT(w, IsOk());
  EXPECT_THAT(*w, UnorderedElementsAre(Pair(0, 1.0f / 11), Pair(1, 1.0f / 11), Pair(2, 2.0f / 11),
                                       Pair(3, 2.0f / 11), Pair(4, 1.0f / 11), Pair(5, 1.0f / 11),
                                       Pair(6, 3.0f / 11), Pair(7, 0.0f)));
}

TEST(RuleWeightOsdMapTest, TakesAccumulateAndATakenDeviceCountsOne) {
  crush::MapModel m = Hosts();
  m.rules[0].steps = {{crush::RuleOp::kTake, 3, 0},
                      {crush::RuleOp::kEmit, 0, 0},
                      {crush::RuleOp::kTake, -2, 0},  // host0: osd.0, osd.1
                      {crush::RuleOp::kChooseleafFirstn, 0, 0},
                      {crush::RuleOp::kEmit, 0, 0}};
  auto w = RuleWeightOsdMap(m, 0);
  ASSERT_THAT(w, IsOk());
  EXPECT_THAT(*w, UnorderedElementsAre(Pair(0, 0.5f), Pair(1, 0.5f), Pair(3, 1.0f)));
}

// Tentacle normalises once over every take (as osdmaptool 20.2's
// primary_affinity_weighted shows): root then host0 weigh 8 + 2, and each
// device gets its own weight over that, once.
TEST(RuleWeightOsdMapTest, TentacleNormalisesOnceOverAllTakes) {
  crush::MapModel m = Hosts();
  m.rules[0].steps = {
      {crush::RuleOp::kTake, -1, 0},        {crush::RuleOp::kChooseleafFirstn, 1, 1},
      {crush::RuleOp::kEmit, 0, 0},         {crush::RuleOp::kTake, -2, 0},
      {crush::RuleOp::kChooseFirstn, 0, 0}, {crush::RuleOp::kEmit, 0, 0}};
  auto reef = RuleWeightOsdMap(m, 0, crush::CephRelease::kReef);
  ASSERT_THAT(reef, IsOk());
  EXPECT_EQ(reef->at(0), 0.125f + 0.5f);
  EXPECT_EQ(reef->at(7), 0.125f);
  auto tentacle = RuleWeightOsdMap(m, 0, crush::CephRelease::kTentacle);
  ASSERT_THAT(tentacle, IsOk());
  ASSERT_EQ(tentacle->size(), 8u);
  for (const auto& [osd, share] : *tentacle) EXPECT_EQ(share, 0.1f) << "osd." << osd;
  EXPECT_THAT(RuleWeightOsdMap(m, 5, crush::CephRelease::kTentacle),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST(RuleWeightOsdMapTest, BucketLinkedTwiceCountsTwiceInTheSum) {
  crush::MapModel m = Hosts();
  crush::Bucket& root = m.buckets[0];
  root.items.push_back(-2);
  root.item_weights.push_back(root.item_weights[0]);
  crush_testing::FinishBucket(root);
  auto w = RuleWeightOsdMap(m, 0);
  ASSERT_THAT(w, IsOk());
  ASSERT_EQ(w->size(), 8u);
  for (const auto& [osd, share] : *w) EXPECT_EQ(share, 0.1f) << "osd." << osd;
}

TEST(RuleWeightOsdMapTest, WeightlessSubtreeGivesNaN) {
  auto w = RuleWeightOsdMap(Hosts(std::vector<crush::Weight>(8, 0)), 0);
  ASSERT_THAT(w, IsOk());
  ASSERT_EQ(w->size(), 8u);
  for (const auto& [osd, share] : *w) EXPECT_TRUE(std::isnan(share)) << "osd." << osd;
}

TEST(RuleWeightOsdMapTest, RuleWithoutTakeIsEmpty) {
  crush::MapModel m = Hosts();
  m.rules[0].steps = {{crush::RuleOp::kEmit, 0, 0}};
  auto w = RuleWeightOsdMap(m, 0);
  ASSERT_THAT(w, IsOk());
  EXPECT_TRUE(w->empty());
}

TEST(RuleWeightOsdMapTest, Errors) {
  crush::MapModel m = Hosts();
  EXPECT_THAT(RuleWeightOsdMap(m, 7), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(RuleWeightOsdMap(m, -1), StatusIs(absl::StatusCode::kNotFound));
  m.rule_exists[1] = false;
  EXPECT_THAT(RuleWeightOsdMap(m, 1), StatusIs(absl::StatusCode::kNotFound));
  m.rules[0].steps[0].arg1 = -40;
  EXPECT_THAT(RuleWeightOsdMap(m, 0),
              StatusIs(absl::StatusCode::kInvalidArgument, testing::HasSubstr("-40")));
}

}  // namespace
}  // namespace crushkit::osdmap
