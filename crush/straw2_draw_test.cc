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

}  // namespace
}  // namespace crushkit::crush::internal
