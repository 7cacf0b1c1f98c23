// Properties of the individual strategies, against the textbook results.
// Statistical tolerances are >= 4 standard deviations of the sampling noise
// unless a comment says otherwise, and all runs are seeded, so they are
// deterministic.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "tests/testing/status_matchers.h"
#include "tools/strategies/jump.h"
#include "tools/strategies/key_hash.h"
#include "tools/strategies/maglev.h"
#include "tools/strategies/mod_n.h"
#include "tools/strategies/partitions.h"
#include "tools/strategies/rendezvous.h"
#include "tools/strategies/ring.h"
#include "tools/strategies/strategies_test_util.h"
#include "tools/strategies/straw2.h"
#include "tools/strategies/topology.h"

namespace crushkit::strategies {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::HasSubstr;

using test_util::Flat;

Topology FlatWithWeights(const std::vector<double>& weights) {
  crush::MapModel m = *MakeFlatModel(static_cast<int>(weights.size()));
  for (std::size_t i = 0; i < weights.size(); ++i) {
    EXPECT_THAT(ReweightDevice(m, static_cast<ItemId>(i),
                               static_cast<crush::Weight>(weights[i] * crush::kWeightOne)),
                IsOk());
  }
  return *TopologyFromModel(std::make_shared<const crush::MapModel>(m), 0);
}

Topology Grown(int n, int add) {
  crush::MapModel m = *MakeFlatModel(n);
  EXPECT_THAT(AddDevices(m, 0, add, crush::kWeightOne), IsOk());
  return *TopologyFromModel(std::make_shared<const crush::MapModel>(m), 0);
}

template <typename S>
std::vector<ItemId> PlaceOne(S& s, std::uint64_t key, int replicas) {
  std::vector<ItemId> out(static_cast<std::size_t>(replicas));
  out.resize(static_cast<std::size_t>(s.Place(KeyHash(key, 1), out)));
  return out;
}

// Every strategy returns min(R, nodes) distinct nodes of the topology.
template <typename S>
void ExpectDistinctValidReplicas(const Topology& t, int replicas) {
  StrategyOptions o;
  o.replicas = replicas;
  o.maglev_size = 251;
  o.partitions = 64;
  auto s = S::Build(t, o, nullptr);
  ASSERT_THAT(s, IsOk());
  for (std::uint64_t k = 0; k < 2000; ++k) {
    const std::vector<ItemId> out = PlaceOne(*s, k, replicas);
    ASSERT_EQ(out.size(), std::min<std::size_t>(static_cast<std::size_t>(replicas), t.nodes.size()))
        << S::kName;
    const std::set<ItemId> distinct(out.begin(), out.end());
    ASSERT_EQ(distinct.size(), out.size()) << S::kName << " key " << k;
    for (ItemId id : out) ASSERT_GE(t.IndexOf(id), 0) << S::kName;
  }
}

TEST(StrategiesTest, AllReturnDistinctReplicas) {
  for (int n : {1, 2, 3, 10}) {
    const Topology t = Flat(n);
    for (int r : {1, 3}) {
      ExpectDistinctValidReplicas<ModNStrategy>(t, r);
      ExpectDistinctValidReplicas<RingStrategy>(t, r);
      ExpectDistinctValidReplicas<JumpStrategy>(t, r);
      ExpectDistinctValidReplicas<RendezvousStrategy>(t, r);
      ExpectDistinctValidReplicas<MaglevStrategy>(t, r);
      ExpectDistinctValidReplicas<PartitionsStrategy>(t, r);
      ExpectDistinctValidReplicas<Straw2Strategy>(t, r);
    }
  }
}

TEST(ModNTest, ReplicasAreConsecutiveNodes) {
  const Topology t = Flat(5);
  auto s = ModNStrategy::Build(t, {}, nullptr);
  ASSERT_THAT(s, IsOk());
  std::vector<ItemId> out(3);
  ASSERT_EQ(s->Place(13, out), 3);  // 13 mod 5 = 3
  EXPECT_THAT(out, ::testing::ElementsAre(3, 4, 0));
}

TEST(JumpTest, JumpHashIsExactlyMinimalOnAppend) {
  // Lamping & Veach: growing n -> n+1 moves a key only into the new bucket.
  for (std::uint64_t k = 0; k < 20000; ++k) {
    const std::uint64_t key = KeyHash(k, 7);
    std::int32_t prev = JumpHash(key, 1);
    ASSERT_EQ(prev, 0);
    for (std::int32_t n = 2; n <= 64; ++n) {
      const std::int32_t b = JumpHash(key, n);
      ASSERT_TRUE(b == prev || b == n - 1) << "key " << k << " n " << n;
      prev = b;
    }
  }
}

TEST(JumpTest, StrategyMovesOnlyToTheAppendedNode) {
  const Topology before = Flat(10);
  const Topology after = Grown(10, 1);
  auto b = JumpStrategy::Build(before, {}, nullptr);
  auto a = JumpStrategy::Build(after, {}, &*b);
  ASSERT_THAT(a, IsOk());
  EXPECT_EQ(a->directory().back(), 10);
  int moved = 0;
  const int keys = 110000;
  for (int k = 0; k < keys; ++k) {
    const ItemId x = PlaceOne(*b, static_cast<std::uint64_t>(k), 1)[0];
    const ItemId y = PlaceOne(*a, static_cast<std::uint64_t>(k), 1)[0];
    if (x != y) {
      ASSERT_EQ(y, 10);
      ++moved;
    }
  }
  // Binomial(110000, 1/11): mean 10000, sd 95.
  EXPECT_NEAR(moved, 10000, 400);
}

TEST(JumpTest, RemovalMovesTheLastNodeIntoTheHole) {
  const Topology before = Flat(10);
  crush::MapModel m = *MakeFlatModel(10);
  ASSERT_THAT(RemoveDevice(m, 3), IsOk());
  const Topology after = *TopologyFromModel(std::make_shared<const crush::MapModel>(m), 0);
  auto b = JumpStrategy::Build(before, {}, nullptr);
  auto a = JumpStrategy::Build(after, {}, &*b);
  ASSERT_THAT(a, IsOk());
  EXPECT_THAT(a->directory(), ::testing::ElementsAre(0, 1, 2, 9, 4, 5, 6, 7, 8));
}

TEST(RingTest, SpreadShrinksAsOneOverSqrtVnodes) {
  // Each node's share is a sum of v exponential arcs, so its coefficient of
  // variation is 1/sqrt(v): 25% at v = 16, 6.25% at v = 256. Measured on the
  // exact arc lengths of 200 nodes; the estimate of a stddev from 200 nodes
  // has a relative error of ~5%, so +-20% is > 4 sd.
  const Topology t = Flat(200);
  for (int v : {16, 256}) {
    StrategyOptions o;
    o.vnodes = v;
    auto ring = RingStrategy::Build(t, o, nullptr);
    ASSERT_THAT(ring, IsOk());
    const std::vector<double> shares = ring->ArcShares(t);
    EXPECT_NEAR(std::accumulate(shares.begin(), shares.end(), 0.0), 1.0, 1e-9);
    double sq = 0;
    for (double s : shares) sq += (s * 200 - 1) * (s * 200 - 1);
    const double cv = std::sqrt(sq / 200);
    EXPECT_NEAR(cv, 1 / std::sqrt(v), 0.2 / std::sqrt(v)) << "vnodes " << v;
  }
}

TEST(RingTest, WeightsScaleVirtualNodes) {
  const Topology t = FlatWithWeights({1, 3});
  StrategyOptions o;
  o.vnodes = 1000;
  auto ring = RingStrategy::Build(t, o, nullptr);
  ASSERT_THAT(ring, IsOk());
  // 500 and 1500 points: the heavy node's share is 0.75 with cv ~ 1/sqrt(500).
  EXPECT_NEAR(ring->ArcShares(t)[1], 0.75, 0.05);
  o.vnodes = 0;
  EXPECT_THAT(RingStrategy::Build(t, o, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--vnodes")));
}

TEST(RendezvousTest, WeightedProportions) {
  const Topology t = FlatWithWeights({1, 2, 3, 4});
  auto s = RendezvousStrategy::Build(t, {}, nullptr);
  ASSERT_THAT(s, IsOk());
  std::vector<int> count(4, 0);
  const int keys = 400000;
  for (int k = 0; k < keys; ++k)
    ++count[static_cast<std::size_t>(PlaceOne(*s, static_cast<std::uint64_t>(k), 1)[0])];
  // Binomial sd <= sqrt(0.25 / 400000) = 0.0008.
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(count[static_cast<std::size_t>(i)] / double{keys}, (i + 1) / 10.0, 0.004)
        << "node " << i;
  }
}

TEST(RendezvousTest, ReplicasAreTheTopScoresInOrder) {
  // The first replica of R = 3 equals the R = 1 choice, and the first two
  // equal the R = 2 list (a prefix property HRW guarantees).
  const Topology t = Flat(10);
  StrategyOptions o1, o2, o3;
  o1.replicas = 1;
  o2.replicas = 2;
  auto s = RendezvousStrategy::Build(t, o3, nullptr);
  for (std::uint64_t k = 0; k < 1000; ++k) {
    const auto r3 = PlaceOne(*s, k, 3);
    const auto r2 = PlaceOne(*s, k, 2);
    const auto r1 = PlaceOne(*s, k, 1);
    ASSERT_EQ(r1[0], r3[0]);
    ASSERT_EQ(r2[0], r3[0]);
    ASSERT_EQ(r2[1], r3[1]);
  }
}

TEST(MaglevTest, EqualWeightsFillWithinOneEntryOfTheShare) {
  const Topology t = Flat(7);
  StrategyOptions o;
  o.maglev_size = 65537;
  auto s = MaglevStrategy::Build(t, o, nullptr);
  ASSERT_THAT(s, IsOk());
  std::map<ItemId, int> count;
  for (ItemId id : s->table()) ++count[id];
  ASSERT_EQ(count.size(), 7u);
  for (const auto& [id, c] : count) {
    EXPECT_TRUE(c == 65537 / 7 || c == 65537 / 7 + 1) << "node " << id << " has " << c;
  }
}

TEST(MaglevTest, WeightedFillFollowsWeights) {
  const Topology t = FlatWithWeights({1, 2, 4});
  auto s = MaglevStrategy::Build(t, {}, nullptr);
  ASSERT_THAT(s, IsOk());
  std::map<ItemId, int> count;
  for (ItemId id : s->table()) ++count[id];
  // Turns are taken in proportion to weight, so counts are within a turn.
  EXPECT_NEAR(count[0], 65537.0 / 7, 2);
  EXPECT_NEAR(count[1], 2 * 65537.0 / 7, 2);
  EXPECT_NEAR(count[2], 4 * 65537.0 / 7, 2);
}

TEST(MaglevTest, RemovingANodeDisruptsLittleElse) {
  // The paper's claim is "minimal disruption, roughly": entries of surviving
  // nodes mostly stay. Removing 1 of 10 must change the 10% of entries the
  // node owned, plus a few percent of collateral reshuffling.
  crush::MapModel m = *MakeFlatModel(10);
  const Topology before = *TopologyFromModel(std::make_shared<const crush::MapModel>(m), 0);
  ASSERT_THAT(RemoveDevice(m, 4), IsOk());
  const Topology after = *TopologyFromModel(std::make_shared<const crush::MapModel>(m), 0);
  auto b = MaglevStrategy::Build(before, {}, nullptr);
  auto a = MaglevStrategy::Build(after, {}, nullptr);
  int changed_other = 0;
  int owned = 0;
  for (std::size_t e = 0; e < b->table().size(); ++e) {
    if (b->table()[e] == 4) {
      ++owned;
    } else if (a->table()[e] != b->table()[e]) {
      ++changed_other;
    }
  }
  EXPECT_NEAR(owned, 6554, 1);
  EXPECT_LT(changed_other, 0.05 * 65537);
}

TEST(MaglevTest, ReplicasAreBalanced) {
  // Secondary and tertiary replicas come from re-hashing, so every node holds
  // about a tenth of all 3 * 100k replica slots (binomial sd 0.55% of the
  // mean per node).
  const Topology t = Flat(10);
  auto s = MaglevStrategy::Build(t, {}, nullptr);
  ASSERT_THAT(s, IsOk());
  std::vector<int> count(10, 0);
  for (std::uint64_t k = 0; k < 100000; ++k) {
    for (ItemId id : PlaceOne(*s, k, 3)) ++count[static_cast<std::size_t>(id)];
  }
  for (int c : count) EXPECT_NEAR(c, 30000, 30000 * 0.03);
}

TEST(MaglevTest, RejectsBadTableSizes) {
  const Topology t = Flat(10);
  StrategyOptions o;
  o.maglev_size = 65536;
  EXPECT_THAT(MaglevStrategy::Build(t, o, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("prime")));
  o.maglev_size = 7;  // prime but smaller than the node count
  EXPECT_THAT(MaglevStrategy::Build(t, o, nullptr), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(IsPrime(65537));
  EXPECT_FALSE(IsPrime(1));
  EXPECT_FALSE(IsPrime(65535));
}

TEST(PartitionsTest, QuotasAreExactWithEqualWeights) {
  const Topology t = Flat(10);
  StrategyOptions o;
  o.partitions = 1000;
  o.replicas = 3;
  auto s = PartitionsStrategy::Build(t, o, nullptr);
  ASSERT_THAT(s, IsOk());
  std::map<ItemId, int> count;
  for (ItemId id : s->directory()) ++count[id];
  for (const auto& [id, c] : count) EXPECT_EQ(c, 300) << "node " << id;
}

TEST(PartitionsTest, GrowingMovesExactlyTheNewNodesQuota) {
  StrategyOptions o;
  o.partitions = 1100;
  o.replicas = 3;
  auto b = PartitionsStrategy::Build(Flat(10), o, nullptr);
  auto a = PartitionsStrategy::Build(Grown(10, 1), o, &*b);
  ASSERT_THAT(a, IsOk());
  // 3300 slots: 330 per node before, 300 per node after; exactly the 300
  // slots the new node takes change, and only towards the new node.
  int changed = 0;
  for (std::size_t k = 0; k < a->directory().size(); ++k) {
    if (a->directory()[k] != b->directory()[k]) {
      ++changed;
      EXPECT_EQ(a->directory()[k], 10);
    }
  }
  EXPECT_EQ(changed, 300);
}

TEST(PartitionsTest, RejectsBadCounts) {
  StrategyOptions o;
  o.partitions = 0;
  EXPECT_THAT(PartitionsStrategy::Build(Flat(3), o, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--partitions")));
}

TEST(Straw2Test, MatchesTheMapperDirectly) {
  const Topology t = Flat(10);
  auto s = Straw2Strategy::Build(t, {}, nullptr);
  ASSERT_THAT(s, IsOk());
  auto map = crush::CrushMap::Build(*t.model);
  ASSERT_THAT(map, IsOk());
  crush::Workspace ws(*map, 3);
  const std::vector<crush::Weight> reweights(10, crush::kWeightOne);
  for (std::uint64_t k = 0; k < 1000; ++k) {
    const std::uint64_t h = KeyHash(k, 1);
    std::vector<ItemId> want(3);
    want.resize(static_cast<std::size_t>(
        crush::DoRule(*map, 0, static_cast<std::uint32_t>(h ^ (h >> 32)), reweights, ws, want)));
    ASSERT_EQ(PlaceOne(*s, k, 3), want);
  }
}

}  // namespace
}  // namespace crushkit::strategies
