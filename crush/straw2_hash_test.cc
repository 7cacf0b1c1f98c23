// Every straw2 hash kernel must equal the scalar Hash32_3 (itself pinned to
// Ceph's vectors in hash_test.cc) for every lane and every block tail.
#include "crush/internal/straw2_hash.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

#include "crush/hash.h"
#include "crush/internal/straw2_draw.h"
#include "crush/ln.h"
#include "crush/types.h"

namespace crushkit::crush::internal {
namespace {

struct Kernel {
  const char* name;
  Straw2HashBlockFn fn;
};

std::vector<Kernel> Kernels() {
  std::vector<Kernel> k = {{"scalar", &Straw2HashBlockScalar}, {"vec4", &Straw2HashBlockVec4}};
  if (Straw2HashAvx2Supported()) k.push_back({"avx2", &Straw2HashBlockAvx2});
  if (Straw2HashAvx512Supported()) k.push_back({"avx512", &Straw2HashBlockAvx512});
  k.push_back({"selected", SelectStraw2HashBlock()});
  return k;
}

void ExpectMatchesScalar(std::uint32_t x, std::uint32_t r, const std::vector<ItemId>& ids) {
  const auto n = static_cast<std::uint32_t>(ids.size());
  for (const Kernel& k : Kernels()) {
    std::vector<std::uint32_t> u(ids.size() + 1, 0xdeadbeefu);
    const std::uint32_t max_u = k.fn(x, r, ids.data(), n, u.data());
    std::uint32_t want_max = 0;
    for (std::uint32_t j = 0; j < n; ++j) {
      ASSERT_EQ(u[j], Hash32_3(x, static_cast<std::uint32_t>(ids[j]), r) & 0xffffu)
          << k.name << " x=" << x << " r=" << r << " id=" << ids[j] << " j=" << j;
      want_max = std::max(want_max, u[j]);
    }
    EXPECT_EQ(max_u, want_max) << k.name << " n=" << n;
    EXPECT_EQ(u[n], 0xdeadbeefu) << k.name << " wrote past n=" << n;
  }
}

TEST(Straw2HashTest, AllKernelsEqualScalarOnRandomInputs) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 2000; ++iter) {
    const std::uint32_t n = rng() % 140;  // empty, short, every tail length, several groups
    std::vector<ItemId> ids(n);
    for (auto& id : ids) id = static_cast<ItemId>(rng());
    ExpectMatchesScalar(rng(), rng() % 4 == 0 ? rng() % 64 : rng(), ids);
  }
}

TEST(Straw2HashTest, AllKernelsEqualScalarOnTypicalIds) {
  // Devices 0.., buckets -1.. and the extremes, with small x and r.
  std::vector<ItemId> ids;
  for (int i = -40; i < 40; ++i) ids.push_back(i);
  ids.push_back(INT32_MIN);
  ids.push_back(INT32_MAX);
  for (std::uint32_t x = 0; x < 64; ++x) {
    for (std::uint32_t r = 0; r < 8; ++r) ExpectMatchesScalar(x, r, ids);
  }
  ExpectMatchesScalar(0xffffffffu, 0xffffffffu, ids);
}

// The table path the mapper uses (Straw2NTable + Straw2DrawFromNumerator)
// must equal Ceph's division (crush_ln(u) - 2^48) / (int)w for every u.
TEST(Straw2HashTest, NumeratorTableDrawEqualsDivisionForAllInputs) {
  const std::uint64_t* table = Straw2NTable();
  ASSERT_EQ(table, Straw2NTable());  // built once
  std::vector<Weight> weights = {0, 1, 3, 0x10000, 0x18000, 0x7fffffff, 0x80000000, 0xffffffff};
  std::mt19937 rng(9);
  for (int i = 0; i < 40; ++i) weights.push_back(static_cast<Weight>(rng()));
  for (int i = 0; i < 40; ++i) weights.push_back(static_cast<Weight>(rng() % 0x1000000));
  for (const Weight w : weights) {
    const Straw2Divisor div = MakeStraw2Divisor(w);
    for (std::uint32_t u = 0; u <= 0xffff; ++u) {
      const std::int64_t ln = static_cast<std::int64_t>(CrushLn(u)) - std::int64_t{0x1000000000000};
      const std::int64_t want = w == 0
                                    ? std::numeric_limits<std::int64_t>::min()
                                    : ln / static_cast<std::int64_t>(static_cast<std::int32_t>(w));
      ASSERT_EQ(Straw2DrawFromNumerator(table[u], div), want) << "w=" << w << " u=" << u;
    }
  }
}

}  // namespace
}  // namespace crushkit::crush::internal
