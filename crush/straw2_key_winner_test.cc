// Straw2KeyWinner (SSE2) must pick exactly Straw2KeyWinnerScalar's index:
// on random hash values, on buckets crowded near the top of the range
// (0xfffd-0xffff, where key order departs from u order, and the numerator
// plateaus of Straw2KeyOrder::ties_lower), and at every size and tail.
#include "crush/internal/straw2_key_winner.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

#include "crush/internal/straw2_draw.h"

namespace crushkit::crush::internal {
namespace {

TEST(Straw2KeyWinnerTest, EqualsTheScalarDefinition) {
  const std::uint64_t* ties = Straw2KeyOrderFacts().ties_lower;
  ASSERT_NE(ties, nullptr);
  std::mt19937 rng(7);
  std::vector<std::uint32_t> u;
  int tie_wins = 0;  // the winner is not the top key itself
  for (std::uint32_t n = 1; n <= 70; ++n) {
    for (int trial = 0; trial < 3000; ++trial) {
      u.assign(n, 0);
      // Ranges: anything; the top 64 values; the last three; a plateau pair.
      const int range = trial % 4;
      for (std::uint32_t& v : u) {
        if (range == 0) v = rng() & 0xffff;
        if (range == 1) v = 0xffc0 + (rng() & 0x3f);
        if (range == 2) v = 0xfffd + rng() % 3;
        if (range == 3) v = 0x8000 + (rng() & 0x7fff);
      }
      const std::uint32_t want = Straw2KeyWinnerScalar(u.data(), n, ties);
      const std::uint32_t max_u = *std::max_element(u.begin(), u.end());
      ASSERT_EQ(Straw2KeyWinner(u.data(), n, max_u, ties), want) << "n " << n << " trial " << trial;
      std::uint32_t top = 0;
      for (const std::uint32_t v : u) top = std::max(top, Straw2Key(v));
      tie_wins += Straw2Key(u[want]) != top;
    }
  }
  // The plateau case must have been exercised, or the test proves little.
  EXPECT_GT(tie_wins, 1000);
}

TEST(Straw2KeyWinnerTest, ZeroesAndSingleValues) {
  const std::uint64_t* ties = Straw2KeyOrderFacts().ties_lower;
  for (std::uint32_t n = 1; n <= 9; ++n) {
    for (const std::uint32_t v : {0u, 1u, 0x7fffu, 0x8000u, 0xfffdu, 0xfffeu, 0xffffu}) {
      for (std::uint32_t at = 0; at < n; ++at) {
        std::vector<std::uint32_t> u(n, 0);
        u[at] = v;
        EXPECT_EQ(Straw2KeyWinner(u.data(), n, v, ties), Straw2KeyWinnerScalar(u.data(), n, ties))
            << "n " << n << " v " << v << " at " << at;
      }
    }
  }
}

}  // namespace
}  // namespace crushkit::crush::internal
