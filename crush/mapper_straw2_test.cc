// Straw2Choose's fast paths (SIMD hash kernels, numerator table, and the
// compare-only path for buckets whose items share one weight) against a
// direct transcription of Ceph's bucket_straw2_choose: scalar hash,
// crush_ln, signed 64-bit division, first index wins ties.
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

#include "crush/hash.h"
#include "crush/internal/straw2_draw.h"
#include "crush/ln.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::crush {
namespace {

// Ceph: the winner among devices 0..n-1 with weights w for input x, r = 0.
int ReferenceStraw2(std::uint32_t x, const std::vector<Weight>& w) {
  int high = 0;
  std::int64_t high_draw = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    std::int64_t draw = std::numeric_limits<std::int64_t>::min();
    if (w[i] != 0) {
      const std::uint32_t u = Hash32_3(x, static_cast<std::uint32_t>(i), 0) & 0xffffu;
      const std::int64_t ln = static_cast<std::int64_t>(CrushLn(u)) - std::int64_t{0x1000000000000};
      draw = ln / static_cast<std::int64_t>(static_cast<std::int32_t>(w[i]));
    }
    if (i == 0 || draw > high_draw) {
      high = static_cast<int>(i);
      high_draw = draw;
    }
  }
  return high;
}

// One host holding all OSDs: the replicated rule with one replica picks the
// host (its root's only item), then the host's straw2 draw with r = 0.
void ExpectMatchesReference(const std::vector<Weight>& weights) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 1;
  spec.osds_per_host = static_cast<int>(weights.size());
  spec.osd_weights = weights;
  auto map = CrushMap::Build(crush_testing::MakeClusterModel(spec));
  ASSERT_TRUE(map.ok()) << map.status();
  const std::vector<Weight> reweights(weights.size(), kWeightOne);
  Workspace ws(*map, 1);
  ItemId out[1] = {};
  for (std::uint32_t x = 0; x < 3000; ++x) {
    const std::uint32_t in = x * 2654435761u;
    ASSERT_EQ(DoRule(*map, crush_testing::kReplicatedRule, in, reweights, ws, out), 1);
    ASSERT_EQ(out[0], ReferenceStraw2(in, weights))
        << "x=" << in << " n=" << weights.size() << " w0=" << weights[0];
  }
}

TEST(MapperStraw2Test, UniformWeightsMatchCeph) {
  for (const std::size_t n : {1, 2, 7, 8, 9, 31, 32, 33, 100}) {
    for (const Weight w : {Weight{1}, Weight{3}, Weight{0x8000}, Weight{0x10000}, Weight{0x18000},
                           Weight{0x123456}, Weight{0x7fffffff}}) {
      ExpectMatchesReference(std::vector<Weight>(n, w));
    }
  }
}

// The key-only path (one weight d <= min_gap) and the compare-only path on
// either side of its limits: d = min_gap, min_gap + 1, and buckets larger
// than the key path's stack buffer (256 hashes).
TEST(MapperStraw2Test, KeyOnlyPathLimitsMatchCeph) {
  const internal::Straw2KeyOrder& order = internal::Straw2KeyOrderFacts();
  ASSERT_GT(order.min_gap, 0u) << "crush_ln's numerators no longer allow the key-only path";
  ASSERT_LT(order.min_gap, std::uint64_t{0x7fffffff});
  const auto limit = static_cast<Weight>(order.min_gap);
  for (const std::size_t n : {3, 16, 255, 256, 257, 300}) {
    for (const Weight w : {limit, limit + 1}) ExpectMatchesReference(std::vector<Weight>(n, w));
  }
}

// crush_ln has plateaus: two adjacent keys with one numerator. When item 0
// holds the lower key of such a pair and item 1 the upper, their draws are
// equal and Ceph keeps item 0; the key-only path must too.
TEST(MapperStraw2Test, PlateauTieKeepsTheFirstItem) {
  const internal::Straw2KeyOrder& order = internal::Straw2KeyOrderFacts();
  crush_testing::ClusterSpec spec;
  spec.hosts = 1;
  spec.osds_per_host = 2;
  auto map = CrushMap::Build(crush_testing::MakeClusterModel(spec));
  ASSERT_TRUE(map.ok()) << map.status();
  const std::vector<Weight> weights(2, kWeightOne);
  Workspace ws(*map, 1);
  ItemId out[1] = {};
  int found = 0;
  for (std::uint32_t x = 0; x < (1u << 24) && found < 3; ++x) {
    const std::uint32_t u0 = Hash32_3(x, 0, 0) & 0xffffu;
    const std::uint32_t u1 = Hash32_3(x, 1, 0) & 0xffffu;
    const std::uint32_t k1 = internal::Straw2Key(u1);
    if (k1 == 0 || !internal::Straw2TiesLower(order.ties_lower, u1) ||
        internal::Straw2Key(u0) != internal::Straw2LowerKey(k1)) {
      continue;
    }
    ++found;
    ASSERT_EQ(ReferenceStraw2(x, weights), 0) << "x=" << x;
    ASSERT_EQ(DoRule(*map, crush_testing::kReplicatedRule, x, weights, ws, out), 1);
    EXPECT_EQ(out[0], 0) << "x=" << x << " u0=" << u0 << " u1=" << u1;
  }
  EXPECT_EQ(found, 3) << "no input puts a plateau pair in this order";
}

TEST(MapperStraw2Test, MixedWeightsMatchCeph) {
  std::mt19937 rng(3);
  for (const std::size_t n : {2, 9, 33, 70}) {
    for (int iter = 0; iter < 4; ++iter) {
      std::vector<Weight> w(n);
      for (auto& v : w) v = 0x8000 + rng() % 0x40000;
      if (iter == 1) w[n / 2] = 0;         // a zero-weight item
      if (iter == 2) w.back() = w[0] + 1;  // uniform but for the last item
      ExpectMatchesReference(w);
    }
  }
}

// The general path's bounded search (buckets of at most 32 items, no
// negative weight): zero weights anywhere or everywhere, a "negative" weight
// (>= 0x80000000: the full scan), and weights so large that quotients of
// different weights often tie (the lowest index must win).
TEST(MapperStraw2Test, BoundedSearchEdgesMatchCeph) {
  std::mt19937 rng(5);
  for (const std::size_t n : {1, 2, 5, 31, 32, 33}) {
    ExpectMatchesReference(std::vector<Weight>(n, 0));
    std::vector<Weight> w(n);
    for (auto& v : w) v = 0x10000 + rng() % 0x30000;
    w[0] = 0;
    ExpectMatchesReference(w);
    w.back() = 0x80000000u + rng() % 0x1000;
    ExpectMatchesReference(w);
    for (auto& v : w) v = 0x7fffffffu - rng() % 4;
    ExpectMatchesReference(w);
    for (std::size_t i = 0; i < n; ++i) w[i] = i % 2 == 0 ? Weight{1} : Weight{2};
    ExpectMatchesReference(w);
  }
}

}  // namespace
}  // namespace crushkit::crush
