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
#include "crush/internal/straw2_key_winner.h"
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

struct WinnerKernel {
  const char* name;
  Straw2KeyWinnerBlockFn fn;
};

std::vector<WinnerKernel> WinnerKernels() {
  std::vector<WinnerKernel> k = {{"scalar", &Straw2KeyWinnerBlockScalar},
                                 {"vec4", &Straw2KeyWinnerBlockVec4}};
  if (Straw2HashAvx2Supported()) k.push_back({"avx2", &Straw2KeyWinnerBlockAvx2});
  if (Straw2HashAvx512Supported()) k.push_back({"avx512", &Straw2KeyWinnerBlockAvx512});
  k.push_back({"selected", SelectStraw2KeyWinnerBlock()});
  return k;
}

// Ids whose hash with (x, r) is at least `min_u`: a bucket of them puts
// its top keys where key order departs from u order (0xffff) and on the
// numerator plateaus (Straw2KeyOrder::ties_lower).
std::vector<ItemId> IdsHashingHigh(std::uint32_t x, std::uint32_t r, std::uint32_t min_u,
                                   std::size_t count) {
  std::vector<ItemId> ids;
  for (std::uint32_t id = 0; ids.size() < count; ++id) {
    if ((Hash32_3(x, id, r) & 0xffffu) >= min_u) ids.push_back(static_cast<ItemId>(id));
  }
  return ids;
}

// Every key-winner kernel picks Straw2KeyWinnerScalar's index on the
// scalar hashes: every size the register path takes (1..64 on 8 lanes, then
// the stack path), random ids, and buckets of ids hashing near the top.
TEST(Straw2HashTest, KeyWinnerKernelsEqualTheScalarDefinition) {
  const std::uint64_t* ties = Straw2KeyOrderFacts().ties_lower;
  ASSERT_NE(ties, nullptr);
  std::mt19937 rng(11);
  const std::uint32_t x = 1234567, r = 2;
  const std::vector<ItemId> high = IdsHashingHigh(x, r, 0xffc0, 4000);
  std::vector<ItemId> ids;
  std::vector<std::uint32_t> u;
  int tie_wins = 0, ffff_tops = 0;
  for (std::uint32_t n = 1; n <= 80; ++n) {
    for (int trial = 0; trial < 400; ++trial) {
      ids.resize(n);
      const bool near_top = trial % 2 == 1;
      for (ItemId& id : ids) {
        id = near_top ? high[rng() % high.size()] : static_cast<ItemId>(rng());
      }
      const std::uint32_t tx = near_top ? x : rng();
      const std::uint32_t tr = near_top ? r : rng() % 8;
      u.resize(n);
      std::uint32_t top = 0, max_u = 0;
      for (std::uint32_t j = 0; j < n; ++j) {
        u[j] = Hash32_3(tx, static_cast<std::uint32_t>(ids[j]), tr) & 0xffffu;
        top = std::max(top, Straw2Key(u[j]));
        max_u = std::max(max_u, u[j]);
      }
      const std::uint32_t want = Straw2KeyWinnerScalar(u.data(), n, ties);
      tie_wins += Straw2Key(u[want]) != top;
      ffff_tops += max_u == 0xffff;
      for (const WinnerKernel& k : WinnerKernels()) {
        ASSERT_EQ(k.fn(tx, tr, ids.data(), n, ties), want)
            << k.name << " n " << n << " trial " << trial;
      }
    }
  }
  // The plateau and 0xffff cases must have been exercised.
  EXPECT_GT(tie_wins, 100);
  EXPECT_GT(ffff_tops, 500);
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
