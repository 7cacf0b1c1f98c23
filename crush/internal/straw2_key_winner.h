// The winner of a straw2 bucket whose items share one weight small enough
// for keys alone to decide (Straw2KeyOrder in straw2_draw.h): the first
// item whose Straw2Key reaches the top key's numerator class.
//
// Straw2KeyWinnerScalar is the definition; Straw2KeyWinner computes the same
// index with SSE2 (x86-64's baseline) by comparing hash values rather than
// keys: key order is u order except that 0xffff ranks between 0xfffd and
// 0xfffe, so as long as the largest u is not 0xffff (then the scalar path
// runs), the top key is Straw2Key(max u) and "key >= low" is "u >= t" for
// t = min(Straw2KeyToU(low), 0xfffe) (0xffff is absent). Two vector passes,
// a max and an early-exit search, replace a scalar loop whose exit
// mispredicts on every call. PLACEMENT-STABLE: straw2_key_winner_test.cc
// checks both against each other on every edge.
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

// REQUIRES: n >= 1; u[i] <= 0xffff.
inline std::uint32_t Straw2KeyWinner(const std::uint32_t* u, std::uint32_t n,
                                     const std::uint64_t* ties_lower) {
#if defined(__SSE2__)
  if (n < 4) return Straw2KeyWinnerScalar(u, n, ties_lower);
  // Max of u as signed 16-bit lanes: the low half of each 32-bit lane holds
  // u ^ 0x8000 (order-preserving), the high half 0 ^ 0x8000 = -32768, the
  // minimum, so it never wins. The last block overlaps its predecessor.
  const __m128i bias = _mm_set1_epi32(static_cast<int>(0x80008000u));
  const auto load = [u](std::uint32_t at) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(u + at));
  };
  __m128i top = _mm_xor_si128(load(n - 4), bias);
  for (std::uint32_t j = 0; j + 4 < n; j += 4) top = _mm_max_epi16(top, _mm_xor_si128(load(j), bias));
  top = _mm_max_epi16(top, _mm_shuffle_epi32(top, 0x4e));
  top = _mm_max_epi16(top, _mm_shuffle_epi32(top, 0xb1));
  const std::uint32_t max_u = (static_cast<std::uint32_t>(_mm_cvtsi128_si32(top)) ^ 0x8000u) & 0xffffu;
  if (max_u == 0xffff) return Straw2KeyWinnerScalar(u, n, ties_lower);
  const std::uint32_t low = Straw2WinningKey(Straw2Key(max_u), ties_lower);
  const std::uint32_t t = std::min(Straw2KeyToU(low), 0xfffeu);
  // First u >= t, i.e. u > t - 1 (as signed 32-bit; t = 0 compares to -1).
  const __m128i below = _mm_set1_epi32(static_cast<int>(t) - 1);
  for (std::uint32_t j = 0;; j += 4) {
    const std::uint32_t at = std::min(j, n - 4);
    const int hits = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(load(at), below)));
    if (hits != 0) return at + static_cast<std::uint32_t>(std::countr_zero(static_cast<unsigned>(hits)));
  }
#else
  return Straw2KeyWinnerScalar(u, n, ties_lower);
#endif
}

}  // namespace crushkit::crush::internal

#endif  // CRUSHKIT_CRUSH_INTERNAL_STRAW2_KEY_WINNER_H_
