// The division-free straw2 draw must equal Ceph's signed 64-bit division
// for every 16-bit hash value and every kind of weight.
#include "crush/internal/straw2_draw.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

#include "crush/ln.h"

namespace crushkit::crush::internal {
namespace {

// Ceph: ln = crush_ln(u) - 0x1000000000000; draw = div64_s64(ln, (int)w).
std::int64_t ReferenceDraw(std::uint32_t u, Weight w) {
  if (w == 0) return std::numeric_limits<std::int64_t>::min();
  const std::int64_t ln = static_cast<std::int64_t>(CrushLn(u)) - std::int64_t{0x1000000000000};
  return ln / static_cast<std::int64_t>(static_cast<std::int32_t>(w));
}

// The uniform-weight straw2 path skips items whose key does not exceed the
// best's: that is exact only if the numerator never increases with the key.
TEST(Straw2DrawTest, NumeratorNeverIncreasesWithTheKey) {
  std::vector<std::uint32_t> by_key(0x10000);
  for (std::uint32_t u = 0; u <= 0xffff; ++u) by_key[u] = u;
  std::sort(by_key.begin(), by_key.end(),
            [](std::uint32_t a, std::uint32_t b) { return Straw2Key(a) < Straw2Key(b); });
  for (std::size_t i = 1; i < by_key.size(); ++i) {
    ASSERT_NE(Straw2Key(by_key[i - 1]), Straw2Key(by_key[i]));
    ASSERT_LE(Straw2Numerator(by_key[i]), Straw2Numerator(by_key[i - 1]))
        << "u " << by_key[i - 1] << " then " << by_key[i];
  }
}

TEST(Straw2DrawTest, EqualsDivisionForAllInputs) {
  std::vector<Weight> weights = {0,          1,          2,          3,          7,
                                 0x8000,     0xffff,     0x10000,    0x10001,    0x18000,
                                 0x4b0000,   0x7fffffff, 0x80000000, 0x80000001, 0x9c400000,
                                 0xfffffffe, 0xffffffff};
  for (int bit = 0; bit < 32; ++bit) {
    weights.push_back(Weight{1} << bit);
    weights.push_back((Weight{1} << bit) + 1);
    weights.push_back((Weight{1} << bit) - 1);
  }
  std::mt19937 rng(42);
  for (int i = 0; i < 200; ++i) weights.push_back(static_cast<Weight>(rng()));
  for (int i = 0; i < 200; ++i) weights.push_back(static_cast<Weight>(rng() % 0x1000000));
  for (const Weight w : weights) {
    const Straw2Divisor div = MakeStraw2Divisor(w);
    for (std::uint32_t u = 0; u <= 0xffff; ++u) {
      ASSERT_EQ(Straw2Draw(u, div), ReferenceDraw(u, w)) << "w=" << w << " u=" << u;
    }
  }
}

// Straw2Candidates trusts these floats to hold every numerator of their
// u block (rounded outwards, not to nearest).
TEST(Straw2DrawTest, FloatBoundsHoldEveryNumerator) {
  const float* t = Straw2NBoundsFloatTable();
  for (std::uint32_t u = 0; u <= 0xffff; ++u) {
    const std::uint32_t k = u >> kStraw2NBoundsShift;
    const std::uint64_t n = Straw2Numerator(u);
    ASSERT_LE(static_cast<std::uint64_t>(t[2 * k]), n) << "u=" << u;
    ASSERT_GE(static_cast<std::uint64_t>(t[2 * k + 1]), n) << "u=" << u;
  }
}

// Straw2Candidates at its tightest: item a's u gives its block's smallest
// numerator and item b's u its block's largest, with weights that make
// a's lower bound and b's upper bound equal to within 2^-31, so float
// rounding decides which side of the threshold they fall on without the
// slack. The exact winner (smallest floor(n / d), lowest index among
// equals) must be a candidate, whichever item comes first.
TEST(Straw2DrawTest, CandidatesHoldTheWinnerAtNearTies) {
  const float* bounds = Straw2NBoundsFloatTable();
  constexpr std::uint32_t kBlock = 1u << kStraw2NBoundsShift;
  auto extreme_u = [](std::uint32_t k, bool smallest) {
    std::uint32_t best = k * kBlock;
    for (std::uint32_t u = k * kBlock; u < (k + 1) * kBlock; ++u) {
      const bool better = smallest ? Straw2Numerator(u) < Straw2Numerator(best)
                                   : Straw2Numerator(u) > Straw2Numerator(best);
      if (better) best = u;
    }
    return best;
  };
  std::mt19937 rng(7);
  int checked = 0;
  for (std::uint32_t ka = 0; ka < 0x10000u / kBlock; ++ka) {
    const std::uint32_t ua = extreme_u(ka, true);
    for (const std::uint32_t kb : {ka, (ka * 7 + 13) % (0x10000u / kBlock)}) {
      const std::uint32_t ub = extreme_u(kb, false);
      const std::uint64_t na = Straw2Numerator(ua);
      const std::uint64_t nb = Straw2Numerator(ub);
      for (int i = 0; i < 4; ++i) {
        const std::uint64_t db = 2 + rng() % 0x7ffffff0u;
        const std::uint64_t da0 = static_cast<std::uint64_t>(Uint128{db} * na / nb);
        for (const std::uint64_t da : {da0 - 1, da0, da0 + 1}) {
          if (da < 1 || da > 0x7fffffff) continue;
          const Straw2Divisor a = MakeStraw2Divisor(static_cast<Weight>(da));
          const Straw2Divisor b = MakeStraw2Divisor(static_cast<Weight>(db));
          for (const bool a_first : {true, false}) {
            const std::uint32_t u[3] = {a_first ? ua : ub, a_first ? ub : ua, 0};
            const Straw2Divisor div[3] = {a_first ? a : b, a_first ? b : a, Straw2Divisor{}};
            const std::uint64_t q0 = Straw2Numerator(u[0]) / (a_first ? da : db);
            const std::uint64_t q1 = Straw2Numerator(u[1]) / (a_first ? db : da);
            const std::uint32_t winner = q1 < q0 ? 1 : 0;
            std::uint32_t mask = 0;
            ASSERT_TRUE(Straw2Candidates(3, u, div, bounds, &mask));
            ASSERT_NE(mask & (1u << winner), 0u)
                << "ua=" << ua << " ub=" << ub << " da=" << da << " db=" << db;
            EXPECT_EQ(mask & 4u, 0u);  // weight 0 never
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 20000);
}

// A negative (as int) weight leaves the search to the full scan; all
// weights 0 give no candidate.
TEST(Straw2DrawTest, CandidatesRefuseNegativeAndFlagAllZero) {
  const std::uint32_t u[2] = {100, 200};
  const Straw2Divisor negative[2] = {MakeStraw2Divisor(0x10000), MakeStraw2Divisor(0x80000000u)};
  const Straw2Divisor zero[2] = {};
  std::uint32_t mask = 7;
  EXPECT_FALSE(Straw2Candidates(2, u, negative, Straw2NBoundsFloatTable(), &mask));
  ASSERT_TRUE(Straw2Candidates(2, u, zero, Straw2NBoundsFloatTable(), &mask));
  EXPECT_EQ(mask, 0u);
}

}  // namespace
}  // namespace crushkit::crush::internal
