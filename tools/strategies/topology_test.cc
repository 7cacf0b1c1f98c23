#include "tools/strategies/topology.h"

#include <memory>
#include <numeric>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "tests/testing/status_matchers.h"
#include "tools/strategies/strategies_test_util.h"

namespace crushkit::strategies {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using test_util::Flat;

// Nodes with the given weights; node i is in domain domains[i].
Topology Synthetic(std::vector<double> weights, std::vector<int> domains, int num_domains) {
  Topology t;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    t.nodes.push_back(Node{static_cast<ItemId>(i), "n", weights[i], domains[i]});
  }
  t.domain_names.assign(static_cast<std::size_t>(num_domains), "d");
  return t;
}

TEST(TopologyTest, FlatModelIsOneDomainPerNode) {
  const Topology t = Flat(10);
  ASSERT_EQ(t.nodes.size(), 10u);
  EXPECT_EQ(t.domain_type, "osd");
  EXPECT_EQ(t.domain_names.size(), 10u);
  EXPECT_EQ(t.nodes[3].id, 3);
  EXPECT_EQ(t.nodes[3].name, "osd.3");
  EXPECT_DOUBLE_EQ(t.nodes[3].weight, 1.0);
  EXPECT_DOUBLE_EQ(t.total_weight(), 10.0);
  EXPECT_EQ(t.IndexOf(7), 7);
  EXPECT_EQ(t.IndexOf(10), -1);
}

TEST(TopologyTest, FlatModelRejectsBadSizes) {
  EXPECT_THAT(MakeFlatModel(0), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--nodes")));
  EXPECT_THAT(MakeFlatModel(50001), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(TopologyTest, MissingRuleAndUnknownDomainType) {
  auto model = std::make_shared<const crush::MapModel>(*MakeFlatModel(3));
  EXPECT_THAT(TopologyFromModel(model, 5),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("rule 5")));
  EXPECT_THAT(TopologyFromModel(model, 0, std::string("rack")),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("'rack'")));
}

TEST(TopologyTest, EditsKeepBucketWeightsConsistent) {
  crush::MapModel m = *MakeFlatModel(4);
  auto added = AddDevices(m, 0, 2, 2 * crush::kWeightOne);
  ASSERT_THAT(added, IsOk());
  EXPECT_THAT(*added, ElementsAre(4, 5));
  EXPECT_EQ(m.max_devices, 6);
  EXPECT_EQ(m.buckets[0].weight, 8 * crush::kWeightOne);

  ASSERT_THAT(RemoveDevice(m, 1), IsOk());
  EXPECT_EQ(m.buckets[0].weight, 7 * crush::kWeightOne);
  EXPECT_THAT(RemoveDevice(m, 1), StatusIs(absl::StatusCode::kNotFound));

  ASSERT_THAT(ReweightDevice(m, 0, crush::kWeightOne / 2), IsOk());
  EXPECT_EQ(m.buckets[0].weight, 6 * crush::kWeightOne + crush::kWeightOne / 2);

  auto t = TopologyFromModel(std::make_shared<const crush::MapModel>(m), 0);
  ASSERT_THAT(t, IsOk());
  ASSERT_EQ(t->nodes.size(), 5u);  // osd.1 is gone
  EXPECT_EQ(t->nodes[0].id, 0);
  EXPECT_DOUBLE_EQ(t->nodes[0].weight, 0.5);
  EXPECT_EQ(t->nodes[4].id, 5);
  EXPECT_DOUBLE_EQ(t->nodes[4].weight, 2.0);
}

TEST(TopologyTest, ReweightToZeroDropsTheNode) {
  crush::MapModel m = *MakeFlatModel(3);
  ASSERT_THAT(ReweightDevice(m, 2, 0), IsOk());
  auto t = TopologyFromModel(std::make_shared<const crush::MapModel>(m), 0);
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->nodes.size(), 2u);
}

TEST(TopologyTest, ResolveDevice) {
  const crush::MapModel m = *MakeFlatModel(10);
  EXPECT_THAT(ResolveDevice(m, "osd.3"), IsOk());
  EXPECT_EQ(*ResolveDevice(m, "osd.3"), 3);
  EXPECT_EQ(*ResolveDevice(m, "7"), 7);
  EXPECT_THAT(ResolveDevice(m, "osd.10"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(ResolveDevice(m, "nope"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("'nope'")));
}

TEST(IdealSharesTest, ProportionalWhenNoCapBinds) {
  const Topology t = Synthetic({1, 2, 3, 4}, {0, 1, 2, 3}, 4);
  EXPECT_THAT(IdealShares(t, 1), ElementsAre(DoubleNear(0.1, 1e-12), DoubleNear(0.2, 1e-12),
                                             DoubleNear(0.3, 1e-12), DoubleNear(0.4, 1e-12)));
}

TEST(IdealSharesTest, DomainsAreCappedAtOneOverReplicas) {
  // Racks of weight 4, 6, 8 with 3 replicas: each rack holds exactly 1/3,
  // split inside the rack by node weight.
  const Topology t = Synthetic({1, 3, 2, 4, 8}, {0, 0, 1, 1, 2}, 3);
  EXPECT_THAT(IdealShares(t, 3),
              ElementsAre(DoubleNear(1.0 / 12, 1e-12), DoubleNear(3.0 / 12, 1e-12),
                          DoubleNear(1.0 / 9, 1e-12), DoubleNear(2.0 / 9, 1e-12),
                          DoubleNear(1.0 / 3, 1e-12)));
  // With two replicas the cap is 1/2 and rack3's 8/18 stays below it, so the
  // shares are plain weight shares.
  const auto two = IdealShares(t, 2);
  EXPECT_NEAR(two[4], 8.0 / 18, 1e-12);
}

TEST(IdealSharesTest, WaterFillingRedistributesRepeatedly) {
  // Weights 10, 10, 1, 1 with 2 replicas per domain cap 1/2: nothing binds
  // (10/22 < 1/2). With 3 replicas: cap 1/3 binds for both heavy domains,
  // leaving 1/3 for the two light ones (1/6 each).
  const Topology t = Synthetic({10, 10, 1, 1}, {0, 1, 2, 3}, 4);
  EXPECT_THAT(IdealShares(t, 3),
              ElementsAre(DoubleNear(1.0 / 3, 1e-12), DoubleNear(1.0 / 3, 1e-12),
                          DoubleNear(1.0 / 6, 1e-12), DoubleNear(1.0 / 6, 1e-12)));
  const auto s = IdealShares(t, 3);
  EXPECT_NEAR(std::accumulate(s.begin(), s.end(), 0.0), 1.0, 1e-12);
}

}  // namespace
}  // namespace crushkit::strategies
