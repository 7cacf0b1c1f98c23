// Exact, division-free straw2 draws.
//
// Ceph computes each straw2 draw as (crush_ln(u) - 2^48) / (int)weight, a
// signed 64-bit division truncating toward zero (mapper.c
// generate_exponential_distribution). A 64-bit idiv costs tens of cycles
// and dominates DoRule, so the flat map precomputes, per weight, a
// Granlund-Montgomery reciprocal that yields the *same* quotient with one
// 64x64->128 multiply. PLACEMENT-STABLE: straw2_draw_test.cc checks it
// against the division for every 16-bit input and many weights.
//
// Math: with n = 2^48 - crush_ln(u) in [1, 2^48] (< 2^49) and d = |(int)w|
// in [1, 2^31], let l = ceil(log2 d), k = 49 + l and m = ceil(2^k / d).
// Then m*d - 2^k < d <= 2^(k-49), which makes floor(n*m / 2^k) == n / d
// for all n < 2^49; m <= 2^50 + 1 fits in 64 bits. The draw is -(n/d) for
// positive int weights and +(n/d) for "negative" ones (w >= 2^31, the Mimic+
// quirk); weight 0 draws INT64_MIN.
#ifndef CRUSHKIT_CRUSH_INTERNAL_STRAW2_DRAW_H_
#define CRUSHKIT_CRUSH_INTERNAL_STRAW2_DRAW_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

#include "crush/ln.h"
#include "crush/map.h"
#include "crush/types.h"

namespace crushkit::crush::internal {

__extension__ using Uint128 = unsigned __int128;

// Straw2Divisor (the reciprocal of one weight) is defined in crush/map.h,
// whose flat arrays store one per straw2 item weight.

constexpr Straw2Divisor MakeStraw2Divisor(Weight w) {
  Straw2Divisor div;
  if (w == 0) return div;
  const auto sw = static_cast<std::int32_t>(w);
  div.negative_weight = sw < 0;
  const std::uint64_t d = div.negative_weight
                              ? std::uint64_t{0} - static_cast<std::uint64_t>(std::int64_t{sw})
                              : static_cast<std::uint64_t>(sw);
  const int l = d == 1 ? 0 : 64 - std::countl_zero(d - 1);  // ceil(log2 d)
  const int k = 49 + l;
  const Uint128 pow = Uint128{1} << k;
  div.magic = static_cast<std::uint64_t>((pow + d - 1) / d);
  div.shift = static_cast<std::uint8_t>(k);
  div.inverse = 1.0f / static_cast<float>(d);
  return div;
}

// PLACEMENT-STABLE: equals (int64)(crush_ln(u) - 2^48) / (int32)w, or
// INT64_MIN for w == 0. REQUIRES: u <= 0xffff.
// n = 2^48 - crush_ln(u): the draw's numerator (see Straw2NTable()).
constexpr std::uint64_t Straw2Numerator(std::uint32_t u) {
  return (std::uint64_t{1} << 48) - CrushLn(u);
}

// The draw from its numerator n = Straw2Numerator(u).
constexpr std::int64_t Straw2DrawFromNumerator(std::uint64_t n, const Straw2Divisor& div) {
  if (div.magic == 0) return std::numeric_limits<std::int64_t>::min();
  const auto q = static_cast<std::int64_t>((Uint128{n} * div.magic) >> div.shift);
  return div.negative_weight ? q : -q;
}

constexpr std::int64_t Straw2Draw(std::uint32_t u, const Straw2Divisor& div) {
  return Straw2DrawFromNumerator(Straw2Numerator(u), div);
}

// An order key for u: Straw2Numerator is non-increasing in it, so of two
// items of one weight the one with the larger key draws at least as high.
// crush_ln is monotone except at its top entry: n(0xffff) = 2^28 lies
// between n(0xfffd) and n(0xfffe), so 0xffff ranks between them.
// PLACEMENT-STABLE: straw2_draw_test.cc checks the order for every u.
constexpr std::uint32_t Straw2Key(std::uint32_t u) { return (u << 1) - (u == 0xffff ? 3u : 0u); }

// Process-wide table of Straw2Numerator(u) for every u <= 0xffff (512 KiB,
// built on first use, immutable afterwards, thread-safe): one load instead
// of crush_ln's dependent table walk. Defined in straw2_hash.cc.
const std::uint64_t* Straw2NTable();

// The 64 u of block k = u >> kStraw2NBoundsShift have numerators within
// [t[2k], t[2k + 1]] of this process-wide table t (the block's smallest and
// largest Straw2Numerator; 1,024 blocks, 16 KiB, small enough to stay
// cached where Straw2NTable's 512 KiB misses). Built on first use,
// immutable, thread-safe. Defined in straw2_hash.cc.
inline constexpr int kStraw2NBoundsShift = 6;
const std::uint64_t* Straw2NBoundsTable();

// Straw2NBoundsTable() as floats (8 KiB): t[2k] is the largest float at
// most the block's smallest numerator, t[2k + 1] the smallest float at
// least its largest. Built on first use, immutable, thread-safe. Defined
// in straw2_hash.cc.
const float* Straw2NBoundsFloatTable();

// floor(n / d) for a positive weight's divisor: the magnitude of
// Straw2DrawFromNumerator(n, div). REQUIRES: div.magic != 0, n <= 2^48.
constexpr std::uint64_t Straw2Quotient(std::uint64_t n, const Straw2Divisor& div) {
  return static_cast<std::uint64_t>((Uint128{n} * div.magic) >> div.shift);
}

// The items of n <= 32 that can win a straw2 draw, as bit j of *mask, from
// their hashes u[j] and divisors alone, without loading a numerator; false
// (nothing set) if a weight is negative as an int. *mask is 0 if every
// weight is 0, else it holds the winner (the smallest q = floor(n(u) / d),
// lowest index among equals) and nearly always nothing else.
// Why: each q lies within its u block's numerator bounds times 1 / d
// (floor(n / d) does not decrease with n). In floats (bounds from
// Straw2NBoundsFloatTable, rounded outwards; 1 / d and each product round
// by at most 2^-24 each way) the exact n / d lies within [L (1 - 2^-22),
// H (1 + 2^-22)] of the computed L and H. The winner's q is at most every
// item's q, so at most T (1 + 2^-22) with T the least H, and its n / d <
// q + 1, so its L is at most T (1 + 2^-18) + 2 (the slack also covers that
// sum's own rounding): the items whose L is at most that are the mask.
// Float multiplies, not 128-bit ones, and no branch per item: the 128-bit
// search had been 1/5 of the mixed-weight replicated mapping (perf).
// REQUIRES: bounds is Straw2NBoundsFloatTable(); 1 <= n <= 32.
inline bool Straw2Candidates(std::uint32_t n, const std::uint32_t* u, const Straw2Divisor* divisors,
                             const float* bounds, std::uint32_t* mask) {
  float lo[32];
  float t = std::numeric_limits<float>::infinity();
  for (std::uint32_t j = 0; j < n; ++j) {
    const Straw2Divisor& div = divisors[j];
    if (div.negative_weight) return false;
    const std::uint32_t k = u[j] >> kStraw2NBoundsShift;
    lo[j] = bounds[2 * k] * div.inverse;
    t = std::min(t, bounds[2 * k + 1] * div.inverse);
  }
  *mask = 0;
  if (t == std::numeric_limits<float>::infinity()) return true;  // every weight 0
  t = t * (1.0f + 0x1p-18f) + 2.0f;
  for (std::uint32_t j = 0; j < n; ++j) *mask |= std::uint32_t{lo[j] <= t} << j;
  return true;
}

// The u whose Straw2Key is `key` (Straw2Key is a bijection).
constexpr std::uint32_t Straw2KeyToU(std::uint32_t key) {
  return key == 0x1fffbu ? 0xffffu : key >> 1;
}

// The next lower key in key order. REQUIRES: key > 0.
constexpr std::uint32_t Straw2LowerKey(std::uint32_t key) {
  return key == 0x1fffcu ? 0x1fffbu : key == 0x1fffbu ? 0x1fffau : key - 2;
}

// What lets a bucket whose items share one weight d pick its winner by key
// alone, without a numerator per candidate. Two keys' numerators are equal
// (a crush_ln plateau) or differ by at least min_gap; if d <= min_gap,
// differing numerators give differing quotients n / d, so the winner (the
// largest draw -(n / d), lowest index among equals) is the first item whose
// key has the top key's numerator: the top key itself, or also the next
// lower key when the two share a numerator (bit u of ties_lower). Checked
// when built: numerators never increase with the key and no plateau spans
// three keys; if either failed, min_gap is 0 and the shortcut is off.
struct Straw2KeyOrder {
  std::uint64_t min_gap = 0;
  const std::uint64_t* ties_lower = nullptr;  // 0x10000 bits, indexed by u
};

// Built from Straw2NTable() on first use; immutable, thread-safe. Defined
// in straw2_hash.cc.
const Straw2KeyOrder& Straw2KeyOrderFacts();

// Bit u of Straw2KeyOrder::ties_lower.
inline bool Straw2TiesLower(const std::uint64_t* ties_lower, std::uint32_t u) {
  return (ties_lower[u >> 6] >> (u & 63)) & 1u;
}

}  // namespace crushkit::crush::internal

#endif  // CRUSHKIT_CRUSH_INTERNAL_STRAW2_DRAW_H_
