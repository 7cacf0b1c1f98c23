// OnlyAddsZeroWeightItems() against the mapper itself: whenever it says an
// edit cannot move data, every rule's results on thousands of inputs are the
// same before and after; and edits that do move data are not proven.
#include "crush/edit/zero_weight_additions.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "crush/edit/edit.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::crush {
namespace {

MapModel Cluster(BucketAlg host_alg = BucketAlg::kStraw2) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 6;
  spec.osds_per_host = 3;
  spec.racks = 2;
  spec.host_alg = host_alg;
  return crush_testing::MakeClusterModel(spec);
}

// Inputs whose results differ between the two maps, over every rule and
// 2,000 inputs (result size 3, all devices in).
int DifferingMappings(const MapModel& a, const MapModel& b) {
  absl::StatusOr<CrushMap> ma = CrushMap::Build(a);
  absl::StatusOr<CrushMap> mb = CrushMap::Build(b);
  EXPECT_TRUE(ma.ok() && mb.ok());
  if (!ma.ok() || !mb.ok()) return -1;
  Workspace wa(*ma, 3), wb(*mb, 3);
  const std::vector<Weight> in(64, kWeightOne);
  int differ = 0;
  for (int rule = 0; rule < a.max_rules(); ++rule) {
    if (!a.rule_exists[static_cast<std::size_t>(rule)]) continue;
    for (std::uint32_t x = 0; x < 2000; ++x) {
      std::array<ItemId, 3> ra{}, rb{};
      const int na = DoRule(*ma, rule, x, in, wa, ra, {});
      const int nb = DoRule(*mb, rule, x, in, wb, rb, {});
      if (na != nb || ra != rb) ++differ;
    }
  }
  return differ;
}

// A new host with three OSDs of `weight` under rack0.
MapModel WithNewHost(MapModel m, float weight) {
  for (ItemId id = 18; id < 21; ++id) {
    EXPECT_TRUE(InsertItem(m, id, weight, "osd." + std::to_string(id),
                           {{"host", "newhost"}, {"rack", "rack0"}, {"root", "default"}})
                    .ok());
  }
  return m;
}

TEST(ZeroWeightAdditionsTest, ZeroWeightHostIsProvenAndMapsTheSame) {
  const MapModel before = Cluster();
  const MapModel after = WithNewHost(before, 0);
  EXPECT_TRUE(OnlyAddsZeroWeightItems(before, after));
  EXPECT_EQ(DifferingMappings(before, after), 0);
  EXPECT_TRUE(OnlyAddsZeroWeightItems(before, before));
}

TEST(ZeroWeightAdditionsTest, WeightedHostIsNotProvenAndMovesData) {
  const MapModel before = Cluster();
  const MapModel after = WithNewHost(before, 1);
  EXPECT_FALSE(OnlyAddsZeroWeightItems(before, after));
  EXPECT_GT(DifferingMappings(before, after), 0);
}

TEST(ZeroWeightAdditionsTest, WeightSetsMustGrowByZeros) {
  MapModel before = Cluster();
  ChooseArgMap args;
  for (const Bucket& b : before.buckets) {
    if (b.alg != BucketAlg::kNone) args[b.id].weight_set = {b.item_weights};
  }
  before.choose_args[kCompatChooseArgs] = args;
  const MapModel after = WithNewHost(before, 0);
  EXPECT_TRUE(OnlyAddsZeroWeightItems(before, after));
  EXPECT_EQ(DifferingMappings(before, after), 0);
  MapModel changed = after;
  changed.choose_args[kCompatChooseArgs][-1].weight_set[0][0] += 1;
  EXPECT_FALSE(OnlyAddsZeroWeightItems(before, changed));
}

TEST(ZeroWeightAdditionsTest, OtherBucketAlgorithmsAndLegacyFallbackAreNotProven) {
  // A zero-weight item in a list bucket still shifts its draws.
  MapModel list = Cluster(BucketAlg::kList);
  MapModel grown = list;
  ASSERT_TRUE(InsertItem(grown, 18, 0, "osd.18", {{"host", "host0"}}).ok());
  EXPECT_FALSE(OnlyAddsZeroWeightItems(list, grown));
  // Legacy local fallback permutes whole buckets, weights ignored.
  MapModel legacy = Cluster();
  legacy.tunables = TunablesFor(TunablesProfile::kLegacy);
  EXPECT_FALSE(OnlyAddsZeroWeightItems(legacy, WithNewHost(legacy, 0)));
}

TEST(ZeroWeightAdditionsTest, ChangedRulesOrTunablesAreNotProven) {
  const MapModel before = Cluster();
  MapModel tunables = before;
  tunables.tunables.choose_total_tries = 100;
  EXPECT_FALSE(OnlyAddsZeroWeightItems(before, tunables));
  MapModel rules = before;
  rules.rules[0].steps[0].arg1 = -2;
  EXPECT_FALSE(OnlyAddsZeroWeightItems(before, rules));
}

}  // namespace
}  // namespace crushkit::crush
