// The change-op table: every operation has exactly its row, and the row's
// properties are what the planner relies on.
#include "osdmap/changes/change_op_table.h"

#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

#include "osdmap/changes/change_ops.h"

namespace crushkit::osdmap::internal {
namespace {

TEST(ChangeOpTableTest, EveryKindHasItsRow) {
  // ChangeOpKind's values are contiguous from 0; kDrain is the last.
  for (int k = 0; k <= static_cast<int>(ChangeOpKind::kDrain); ++k) {
    const auto kind = static_cast<ChangeOpKind>(k);
    EXPECT_EQ(SpecOf(kind).kind, kind) << "kind " << k << " has no row";
  }
}

TEST(ChangeOpTableTest, RowsAreComplete) {
  std::set<std::vector<std::string_view>> words;
  for (const ChangeOpSpec& spec : ChangeOpTable()) {
    EXPECT_FALSE(spec.words.empty());
    EXPECT_TRUE(words.insert(spec.words).second) << spec.usage << ": words used twice";
    EXPECT_NE(spec.parse, nullptr) << spec.usage;
    EXPECT_NE(spec.apply, nullptr) << spec.usage;
    EXPECT_TRUE(std::string(spec.usage).starts_with(std::string(spec.words.front()))) << spec.usage;
    // Staged plans walk weights; an op that only sets weights never
    // restructures the crush map.
    if (spec.weight_only) {
      EXPECT_NE(spec.crush_effect, CrushEffect::kStructure) << spec.usage;
    }
  }
}

TEST(ChangeOpTableTest, JoiningEmptyZeroesTheWeightWord) {
  auto change = ParseChange(
      "add-host n9 osds=2 weight=3.5 class=hdd rack=r1\nosd crush add osd.7 1.25 host=n9\n",
      "ops.txt");
  ASSERT_TRUE(change.ok()) << change.status();
  const ChangeOp host = SpecOf(ChangeOpKind::kAddHost).join_empty(change->ops[0]);
  EXPECT_EQ(host.text, "add-host n9 osds=2 weight=0 class=hdd rack=r1");
  EXPECT_EQ(host.weight, 0);
  const ChangeOp osd = SpecOf(ChangeOpKind::kCrushAdd).join_empty(change->ops[1]);
  EXPECT_EQ(osd.text, "osd crush add osd.7 0 host=n9");
  EXPECT_EQ(SpecOf(ChangeOpKind::kCrushMove).join_empty, nullptr);
}

TEST(ChangeOpTableTest, SwapBucketParses) {
  auto change = ParseChange(
      "osd crush swap-bucket spare h1\nceph osd crush swap-bucket a b --yes-i-really-mean-it\n",
      "ops.txt");
  ASSERT_TRUE(change.ok()) << change.status();
  ASSERT_EQ(change->ops.size(), 2u);
  EXPECT_EQ(change->ops[0].kind, ChangeOpKind::kCrushSwapBucket);
  EXPECT_EQ(change->ops[0].name.text, "spare");
  EXPECT_EQ(change->ops[0].target.text, "h1");
  EXPECT_FALSE(change->ops[0].forced);
  EXPECT_TRUE(change->ops[1].forced);
  const auto missing = ParseChange("osd crush swap-bucket spare\n", "ops.txt");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(std::string(missing.status().message()).find("missing DEST"), std::string::npos)
      << missing.status();
}

}  // namespace
}  // namespace crushkit::osdmap::internal
