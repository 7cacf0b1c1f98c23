// CrushMap::Build validation: every invariant the mapper relies on is
// rejected with kInvalidArgument and a message naming the object.
#include "crush/map.h"

#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/internal/map_access.h"
#include "crush/model.h"
#include "crush/types.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::crush {
namespace {

using ::crush_testing::ClusterSpec;
using ::crush_testing::IsOk;
using ::crush_testing::MakeClusterModel;
using ::crush_testing::StatusIs;
using ::testing::HasSubstr;

MapModel SmallModel() {
  ClusterSpec spec;
  spec.hosts = 3;
  spec.osds_per_host = 2;
  return MakeClusterModel(spec);
}

TEST(CrushMapTest, BuildsValidModelAndExposesIt) {
  const MapModel model = SmallModel();
  auto map = CrushMap::Build(model);
  ASSERT_THAT(map.status(), IsOk());
  EXPECT_EQ(map->model(), model);
  EXPECT_EQ(map->max_devices(), 6);
  EXPECT_EQ(map->max_buckets(), 4);
  EXPECT_TRUE(map->RuleExists(0));
  EXPECT_TRUE(map->RuleExists(1));
  EXPECT_FALSE(map->RuleExists(2));
  EXPECT_FALSE(map->RuleExists(-1));
  EXPECT_TRUE(map->BucketExists(-1));
  EXPECT_TRUE(map->BucketExists(-4));
  EXPECT_FALSE(map->BucketExists(-5));
  EXPECT_FALSE(map->BucketExists(0));
  EXPECT_EQ(map->perm_scratch_size(), 3u + 6u);
}

TEST(CrushMapTest, CopiesShareLayoutAndBuildsDoNot) {
  auto a = CrushMap::Build(SmallModel());
  auto b = CrushMap::Build(SmallModel());
  ASSERT_THAT(a.status(), IsOk());
  ASSERT_THAT(b.status(), IsOk());
  const CrushMap copy = *a;
  EXPECT_EQ(copy.layout_id(), a->layout_id());
  EXPECT_NE(a->layout_id(), b->layout_id());
}

TEST(CrushMapTest, RejectsMissingChildBucket) {
  MapModel m = SmallModel();
  m.buckets[0].items.push_back(-9);
  m.buckets[0].item_weights.push_back(kWeightOne);
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bucket -1 'default' contains missing bucket -9")));
}

TEST(CrushMapTest, RejectsCycle) {
  MapModel m = SmallModel();
  Bucket& host = m.buckets[1];  // -2, a child of -1
  host.items.push_back(-1);
  host.item_weights.push_back(kWeightOne);
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cycle")));
}

TEST(CrushMapTest, RejectsSelfLoop) {
  MapModel m = SmallModel();
  m.buckets[1].items.push_back(-2);
  m.buckets[1].item_weights.push_back(kWeightOne);
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cycle")));
}

TEST(CrushMapTest, RejectsIdNotMatchingSlot) {
  MapModel m = SmallModel();
  m.buckets[2].id = -7;
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bucket slot 2 holds id -7, expected -3")));
}

TEST(CrushMapTest, RejectsWrongStraw2WeightCount) {
  MapModel m = SmallModel();
  m.buckets[1].item_weights.pop_back();
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bucket -2 'host0': item_weights has 1 entries")));
}

TEST(CrushMapTest, RejectsListWithoutSumWeights) {
  MapModel m = SmallModel();
  m.buckets[1].alg = BucketAlg::kList;
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("sum_weights")));
}

TEST(CrushMapTest, RejectsStrawWithoutStraws) {
  MapModel m = SmallModel();
  m.buckets[1].alg = BucketAlg::kStraw;
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("straws")));
}

TEST(CrushMapTest, RejectsTreeWithBadNodeCount) {
  MapModel m = SmallModel();
  m.buckets[1].alg = BucketAlg::kTree;
  m.buckets[1].node_weights = {0, 1, 2};  // not a power of two
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("tree has 3 node weights")));
  m.buckets[1].node_weights = {0, 1};  // power of two, but leaf 1 (node 3) missing
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("tree has 2 node weights")));
  // Ceph stores num_nodes in a u8: a 256-node tree decodes as 0 nodes and
  // its descent would loop forever.
  m.buckets[1].node_weights.clear();
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("tree has 0 node weights")));
}

TEST(CrushMapTest, RejectsUnknownAlgAndHash) {
  MapModel m = SmallModel();
  m.buckets[1].alg = static_cast<BucketAlg>(9);
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown bucket alg 9")));
  m = SmallModel();
  m.buckets[1].hash = 3;
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unsupported hash 3")));
}

TEST(CrushMapTest, RejectsInconsistentRuleTable) {
  MapModel m = SmallModel();
  m.rule_exists.push_back(true);
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rule_exists")));
}

TEST(CrushMapTest, RejectsNegativeMaxDevices) {
  MapModel m = SmallModel();
  m.max_devices = -1;
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("max_devices")));
}

TEST(CrushMapTest, AllowsDevicesBeyondMaxDevices) {
  // The mapper handles them as "bad item", like Ceph.
  MapModel m = SmallModel();
  m.max_devices = 4;
  EXPECT_THAT(CrushMap::Build(m).status(), IsOk());
}

TEST(CrushMapTest, ValidatesChooseArgs) {
  MapModel m = SmallModel();
  m.choose_args[5][-9] = ChooseArg{};
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("choose_args 5 names missing bucket -9")));
  m = SmallModel();
  m.choose_args[5][-1].ids = {1};
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ids has 1 entries")));
  m = SmallModel();
  m.choose_args[5][-1].weight_set = {{1, 2, 3}, {1, 2}};
  EXPECT_THAT(CrushMap::Build(m).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("weight_set position 1 has 2 weights")));
}

TEST(CrushMapTest, ResolvesChooseArgsWithCompatFallback) {
  MapModel m = SmallModel();
  auto no_args = CrushMap::Build(m);
  ASSERT_THAT(no_args.status(), IsOk());
  EXPECT_TRUE(no_args->ResolveChooseArgs(0).none());

  m.choose_args[kCompatChooseArgs][-1].weight_set = {{1, 2, 3}};
  m.choose_args[7][-1].weight_set = {{3, 2, 1}};
  auto map = CrushMap::Build(m);
  ASSERT_THAT(map.status(), IsOk());
  EXPECT_FALSE(map->ResolveChooseArgs(7).none());
  EXPECT_FALSE(map->ResolveChooseArgs(0).none());  // falls back to -1
  EXPECT_TRUE(map->FindChooseArgs(0).none());
  EXPECT_EQ(internal::MapAccess::ChooseArgs(*map, map->ResolveChooseArgs(7))->index, 7);
  EXPECT_EQ(internal::MapAccess::ChooseArgs(*map, map->ResolveChooseArgs(0))->index,
            kCompatChooseArgs);
  // A ref from another map is "none" here.
  EXPECT_EQ(internal::MapAccess::ChooseArgs(*no_args, map->ResolveChooseArgs(7)), nullptr);
}

}  // namespace
}  // namespace crushkit::crush
