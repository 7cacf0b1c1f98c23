#include "osdmap/changes/crush_map_edit.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/edit/edit.h"
#include "osdmap/changes/change_ops.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::osdmap {
namespace {

using ::testing::HasSubstr;

crush::MapModel TwoRacks() {
  crush_testing::ClusterSpec spec;
  spec.hosts = 4;
  spec.osds_per_host = 2;
  spec.racks = 2;
  return crush_testing::MakeClusterModel(spec);
}

absl::StatusOr<crush::MapModel> Edit(const crush::MapModel& map, const std::string& ops) {
  absl::StatusOr<ChangeList> change = ParseChange(ops, "ops.txt");
  if (!change.ok()) return change.status();
  return EditCrushMap(map, *change, crush::CephRelease::kPacific);
}

TEST(CrushMapEditTest, AppliesEveryOpInOrder) {
  auto edited = Edit(TwoRacks(),
                     "osd crush add-bucket rack9 rack root=default\n"
                     "add-host node9 osds=2 weight=2 class=ssd rack=rack9\n"
                     "osd crush rule create-replicated fast default host ssd\n");
  ASSERT_TRUE(edited.ok()) << edited.status();
  // add-host takes the lowest ids not in use: 8 and 9.
  EXPECT_EQ(crush::FindItem(*edited, "osd.8").value_or(-100), 8);
  EXPECT_EQ(crush::FindItem(*edited, "osd.9").value_or(-100), 9);
  auto rule = crush::FindRuleByName(*edited, "fast");
  ASSERT_TRUE(rule.ok());
  const crush::ItemId shadow = edited->rules[static_cast<std::size_t>(*rule)].steps[0].arg1;
  EXPECT_EQ(edited->item_names.at(shadow), "default~ssd");
}

TEST(CrushMapEditTest, RefusesOsdmapOpsAndChangesNothing) {
  const crush::MapModel map = TwoRacks();
  auto edited = Edit(map, "osd crush reweight osd.1 2\nosd out 3\nosd pool set rbd size 2\n");
  ASSERT_FALSE(edited.ok());
  EXPECT_THAT(edited.status().message(),
              HasSubstr("ops.txt:2:1: error: 'osd out 3' changes the osdmap"));
  EXPECT_THAT(edited.status().message(),
              HasSubstr("ops.txt:3:1: error: 'osd pool set rbd size 2'"));
  // A failing op makes the whole edit fail (all or nothing).
  edited = Edit(map, "osd crush reweight osd.1 2\nosd crush move nosuch rack=rack0\n");
  ASSERT_FALSE(edited.ok());
  EXPECT_THAT(edited.status().message(), HasSubstr("ops.txt:2:"));
}

}  // namespace
}  // namespace crushkit::osdmap
