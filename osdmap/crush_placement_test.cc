// CrushPlacement: the osdmap pipeline's real CRUSH step.
#include "osdmap/crush_placement.h"

#include <array>
#include <vector>

#include "crush/map.h"
#include "crush/mapper.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::osdmap {
namespace {

TEST(CrushPlacementTest, EqualsTheMapperAndHonoursASmallerWorkBudget) {
  const crush::MapModel model = crush_testing::MakeClusterModel({});
  auto map = crush::CrushMap::Build(model);
  ASSERT_TRUE(map.ok()) << map.status();
  const std::vector<crush::Weight> weights(16, 0x10000);
  crush::Workspace ws(*map, 3);
  CrushPlacement placement(*map);
  for (std::uint32_t x = 0; x < 100; ++x) {
    std::array<std::int32_t, 3> direct{};
    std::array<std::int32_t, 3> via{};
    const int n = crush::DoRule(*map, crush_testing::kReplicatedRule, x, weights, ws, direct);
    ASSERT_EQ(n, 3);
    ASSERT_EQ(placement.DoRule(crush_testing::kReplicatedRule, x, weights, /*pool=*/1, via), n);
    EXPECT_EQ(via, direct) << "x " << x;
  }
  // A budget of one bucket item lets the first draw finish and stops every
  // later one: the 4-host, 4-OSD-per-host map cannot place three replicas.
  placement.set_work_budget(1);
  std::array<std::int32_t, 3> out{};
  EXPECT_LT(placement.DoRule(crush_testing::kReplicatedRule, 7, weights, 1, out), 3);
}

}  // namespace
}  // namespace crushkit::osdmap
