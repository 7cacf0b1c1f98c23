#include "crush/builder.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/codec.h"
#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::crush {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::ElementsAre;

constexpr Weight W(double w) { return static_cast<Weight>(w * 0x10000); }

TEST(BuilderTest, ListStoresPrefixSums) {
  absl::StatusOr<Bucket> b = MakeBucket(BucketAlg::kList, 0, 1, std::vector<ItemId>{0, 1, 2},
                                        std::vector<Weight>{W(1), W(2), W(3)}, 0);
  ASSERT_THAT(b, IsOk());
  EXPECT_THAT(b->sum_weights, ElementsAre(W(1), W(3), W(6)));
  EXPECT_EQ(b->weight, W(6));
}

TEST(BuilderTest, TreeNodeWeightsByHand) {
  // 3 leaves: depth 3, 8 nodes; leaves at 1,3,5; parent(1)=parent(3)=2,
  // parent(5)=6, parent(2)=parent(6)=4 (the root).
  absl::StatusOr<Bucket> b = MakeBucket(BucketAlg::kTree, 0, 1, std::vector<ItemId>{0, 1, 2},
                                        std::vector<Weight>{W(1), W(2), W(3)}, 0);
  ASSERT_THAT(b, IsOk());
  EXPECT_THAT(b->node_weights, ElementsAre(0, W(1), W(3), W(2), W(6), W(3), W(3), 0));
  EXPECT_EQ(TreeDepth(0), 0);
  EXPECT_EQ(TreeDepth(1), 1);
  EXPECT_EQ(TreeDepth(5), 4);
  EXPECT_EQ(TreeDepth(std::size_t{1} << 32), 33);  // a decoder's u32 count cannot wrap
  EXPECT_EQ(TreeNodeHeight(1), 0);
  EXPECT_EQ(TreeNodeHeight(4), 2);
  EXPECT_EQ(TreeNodeParent(1), 2);
  EXPECT_EQ(TreeNodeParent(3), 2);
  EXPECT_EQ(TreeNodeParent(5), 6);
  EXPECT_EQ(TreeNodeParent(2), 4);
  EXPECT_EQ(TreeNodeParent(6), 4);
}

TEST(BuilderTest, IncrementalTreeEqualsBatchTree) {
  // crush_add_tree_bucket_item (with zeroed new nodes) must build the same
  // tree as crush_make_tree_bucket; shadow trees rely on it.
  for (int n = 1; n <= 17; ++n) {
    std::vector<ItemId> items;
    std::vector<Weight> weights;
    absl::StatusOr<Bucket> inc = MakeBucket(BucketAlg::kTree, 0, 1, {}, {}, 0);
    ASSERT_THAT(inc, IsOk());
    for (int i = 0; i < n; ++i) {
      items.push_back(i);
      weights.push_back(W(i + 1));
      ASSERT_THAT(AddBucketItem(*inc, i, W(i + 1), 0), IsOk());
    }
    absl::StatusOr<Bucket> batch = MakeBucket(BucketAlg::kTree, 0, 1, items, weights, 0);
    ASSERT_THAT(batch, IsOk());
    EXPECT_EQ(*inc, *batch) << "n=" << n;
  }
}

TEST(BuilderTest, EqualStrawWeightsGiveUnitStraws) {
  for (int version : {0, 1}) {
    EXPECT_THAT(CalcStraws(std::vector<Weight>{W(2), W(2), W(2)}, version),
                ElementsAre(W(1), W(1), W(1)));
    EXPECT_THAT(CalcStraws(std::vector<Weight>{0, W(2)}, version), ElementsAre(0, W(1)));
  }
}

TEST(BuilderTest, UniformRequiresEqualWeights) {
  absl::StatusOr<Bucket> b = MakeBucket(BucketAlg::kUniform, 0, 1, {}, {}, 0);
  ASSERT_THAT(b, IsOk());
  EXPECT_THAT(AddBucketItem(*b, 0, W(1), 0), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(AddBucketItem(*b, 0, 0, 0), IsOk());
  EXPECT_THAT(
      MakeBucket(BucketAlg::kUniform, 0, 1, std::vector<ItemId>{0}, std::vector<Weight>{0}, 0),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(BuilderTest, OverflowIsRefused) {
  EXPECT_THAT(MakeBucket(BucketAlg::kList, 0, 1, std::vector<ItemId>{0, 1},
                         std::vector<Weight>{0xffff0000u, 0x20000u}, 0),
              StatusIs(absl::StatusCode::kOutOfRange));
}

TEST(BuilderTest, AddBucketDoublesFromEight) {
  MapModel m;
  absl::StatusOr<Bucket> b = MakeBucket(BucketAlg::kStraw2, 0, 1, {}, {}, 0);
  ASSERT_THAT(b, IsOk());
  EXPECT_THAT(AddBucket(m, 0, *b), IsOk());
  EXPECT_EQ(m.max_buckets(), 8);
  EXPECT_THAT(AddBucket(m, -9, *b), IsOk());
  EXPECT_EQ(m.max_buckets(), 16);
  EXPECT_THAT(AddBucket(m, -40, *b), IsOk());
  EXPECT_EQ(m.max_buckets(), 64);
  absl::StatusOr<ItemId> next = AddBucket(m, 0, *b);
  ASSERT_THAT(next, IsOk());
  EXPECT_EQ(*next, -2);
  EXPECT_THAT(AddBucket(m, -9, *b), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(AddBucket(m, -kMaxBucketSlots - 1, *b), StatusIs(absl::StatusCode::kInvalidArgument));
}

// Compiles `text` with crushtool in `dir` and checks that CalcStraws gives
// the straws Ceph stored for bucket -1.
void ExpectCalcStrawsMatchCrushtool(const std::filesystem::path& dir, const std::string& text,
                                    int version) {
  std::ofstream((dir / "m.txt").string()) << text;
  const std::string cmd =
      "cd '" + dir.string() +
      "' && CEPH_ARGS=--crash_dir=. crushtool -c m.txt -o m.bin >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << text;
  absl::StatusOr<MapModel> m =
      DecodeCrushMap(crush_testing::ReadFileOrEmpty((dir / "m.bin").string()));
  ASSERT_THAT(m, IsOk());
  const Bucket* b = m->FindBucket(-1);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(CalcStraws(b->item_weights, version), b->straws)
      << "version " << version << " " << text;
}

// Straw lengths are floating-point results stored in the map: compare with
// what Ceph's crushtool stores for the same weights, for both versions.
TEST(BuilderOracleTest, StrawsMatchCrushtool) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  const std::vector<std::vector<double>> cases = {{1, 2, 3},
                                                  {9.3, 2.2, 7.4, 4.3, 4.3},
                                                  {0, 1, 1, 0.5},
                                                  {0.1, 0.2, 0.3, 0.4, 5, 5, 5},
                                                  {3, 3, 1, 1, 2}};
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("builder_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (int version : {0, 1}) {
    for (const std::vector<double>& ws : cases) {
      std::string text = "tunable straw_calc_version " + std::to_string(version) + "\n";
      for (std::size_t i = 0; i < ws.size(); ++i)
        text += "device " + std::to_string(i) + " d" + std::to_string(i) + "\n";
      text += "type 0 osd\ntype 1 host\nhost h {\n\tid -1\n\talg straw\n";
      for (std::size_t i = 0; i < ws.size(); ++i) {
        text += "\titem d" + std::to_string(i) + " weight " + std::to_string(ws[i]) + "\n";
      }
      text += "}\n";
      ExpectCalcStrawsMatchCrushtool(dir, text, version);
    }
  }
  std::filesystem::remove_all(dir);
}

// Extreme weight ratios make builder.c's `(__u32)(straw * 0x10000)` exceed
// 2^32 (undefined in C). Bucket items may weigh up to 65535, so hosts of one
// device carry the weights here; CalcStraws must store what crushtool stores.
TEST(BuilderOracleTest, StrawsBeyond32BitsMatchCrushtool) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  const std::vector<std::vector<double>> cases = {{0.00002, 60000},
                                                  {0.00002, 0.00002, 30000},
                                                  {0.00002, 0.0001, 1, 1000, 20000},
                                                  {0.00002, 40000, 0}};
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("builder_big_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (int version : {0, 1}) {
    for (const std::vector<double>& ws : cases) {
      std::string text = "tunable straw_calc_version " + std::to_string(version) + "\n";
      for (std::size_t i = 0; i < ws.size(); ++i)
        text += "device " + std::to_string(i) + " d" + std::to_string(i) + "\n";
      text += "type 0 osd\ntype 1 host\ntype 2 root\n";
      for (std::size_t i = 0; i < ws.size(); ++i) {
        text += "host h" + std::to_string(i) + " {\n\tid " +
                std::to_string(-2 - static_cast<int>(i)) + "\n\talg straw2\n\titem d" +
                std::to_string(i) + " weight 1\n}\n";
      }
      text += "root r {\n\tid -1\n\talg straw\n";
      for (std::size_t i = 0; i < ws.size(); ++i) {
        text += "\titem h" + std::to_string(i) + " weight " + std::to_string(ws[i]) + "\n";
      }
      text += "}\n";
      ExpectCalcStrawsMatchCrushtool(dir, text, version);
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace crushkit::crush
