// The winner of a straw2 bucket whose items share one weight small enough
// for keys alone to decide (Straw2KeyOrder in straw2_draw.h): the first
// item whose Straw2Key reaches the top key's numerator class.
//
// Straw2KeyWinnerScalar is the definition; Straw2KeyWinner computes the same
// index from the largest u (which the hash kernel returns) by comparing hash
// values rather than keys: key order is u order except that 0xffff ranks
// between 0xfffd and 0xfffe, so as long as the largest u is not 0xffff (then
// the scalar path runs), the top key is Straw2Key(max u) and "key >= low" is
// "u >= t" for t = min(Straw2KeyToU(low), 0xfffe) (0xffff is absent). The
// search runs four values at a time with SSE2 (x86-64's baseline), so its
// exit mispredicts once rather than a scalar loop's per-item compare
// chain. PLACEMENT-STABLE: straw2_key_winner_test.cc checks both against
// each other on every edge.
#ifndef CRUSHKIT_CRUSH_INTERNAL_STRAW2_KEY_WINNER_H_
#define CRUSHKIT_CRUSH_INTERNAL_STRAW2_KEY_WINNER_H_

#include <algorithm>
#include <bit>
#include <cstdint>

#include "crush/internal/straw2_draw.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace crushkit::crush::internal {

// The key the winner's key must reach: the top key, or the next lower one
// when the two share a numerator (Straw2KeyOrder::ties_lower).
inline std::uint32_t Straw2WinningKey(std::uint32_t top, const std::uint64_t* ties_lower) {
  return Straw2TiesLower(ties_lower, Straw2KeyToU(top)) ? Straw2LowerKey(top) : top;
}

// REQUIRES: n >= 1; u[i] <= 0xffff.
inline std::uint32_t Straw2KeyWinnerScalar(const std::uint32_t* u, std::uint32_t n,
                                           const std::uint64_t* ties_lower) {
  std::uint32_t top = 0;
  for (std::uint32_t j = 0; j < n; ++j) top = std::max(top, Straw2Key(u[j]));
  const std::uint32_t low = Straw2WinningKey(top, ties_lower);
  std::uint32_t high = 0;
  while (Straw2Key(u[high]) < low) ++high;
  return high;
}

// REQUIRES: n >= 1; u[i] <= 0xffff; max_u is the largest u[i] (the hash
// kernels return it).
inline std::uint32_t Straw2KeyWinner(const std::uint32_t* u, std::uint32_t n, std::uint32_t max_u,
                                     const std::uint64_t* ties_lower) {
  if (max_u == 0xffff) return Straw2KeyWinnerScalar(u, n, ties_lower);
  const std::uint32_t low = Straw2WinningKey(Straw2Key(max_u), ties_lower);
  const std::uint32_t t = std::min(Straw2KeyToU(low), 0xfffeu);
#if defined(__SSE2__)
  if (n >= 4) {
    // First u >= t, i.e. u > t - 1 as signed 32-bit (t = 0 compares to -1);
    // the last block overlaps its predecessor, whose lanes all failed.
    const __m128i below = _mm_set1_epi32(static_cast<int>(t) - 1);
    for (std::uint32_t j = 0;; j += 4) {
      const std::uint32_t at = std::min(j, n - 4);
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(u + at));
      const int hits = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(v, below)));
      if (hits != 0) {
        return at + static_cast<std::uint32_t>(std::countr_zero(static_cast<unsigned>(hits)));
      }
    }
  }
#endif
  std::uint32_t high = 0;
  while (u[high] < t) ++high;
  return high;
}

}  // namespace crushkit::crush::internal

#endif  // CRUSHKIT_CRUSH_INTERNAL_STRAW2_KEY_WINNER_H_
