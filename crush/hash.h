// CRUSH's integer hash: Bob Jenkins' 1996 96-bit mix applied to 32-bit
// inputs (Ceph's crush_hash32_rjenkins1_N, CRUSH_HASH_RJENKINS1 = 0).
//
// These functions decide placement: every straw/straw2 draw, list/tree
// descent, uniform permutation and reweight rejection is one of them, so the
// exact arithmetic is PLACEMENT-STABLE and pinned by the vectors in
// ../shared/compat/crush_hash_vectors.txt (see hash_test.cc).
//
// All functions are pure, constexpr, allocation-free and thread-safe; each
// costs a few dozen integer operations. Negative item ids are passed as
// their two's complement u32 (static_cast<std::uint32_t>(id)), as Ceph does.
#ifndef CRUSHKIT_CRUSH_HASH_H_
#define CRUSHKIT_CRUSH_HASH_H_

#include <cstdint>

namespace crushkit::crush {

namespace hash_internal {

inline constexpr std::uint32_t kSeed = 1315423911u;
inline constexpr std::uint32_t kX = 231232u;
inline constexpr std::uint32_t kY = 1232u;

// PLACEMENT-STABLE: Jenkins' lookup2 mix, mutating all three arguments
// (later mixes of one hash consume the mutated values, as hash.c does).
// `U` is std::uint32_t, or a vector of 32-bit lanes (GCC vector extension,
// lane-wise wrap-around arithmetic and logical shifts) for the batched
// straw2 hash in internal/straw2_hash.cc. Always inlined: GCC otherwise
// calls it out of line, three to five calls per hash, from the pps hash
// and the memo paths (perf: ~8% of `crushkit plan`'s CPU in the calls).
template <typename U>
[[gnu::always_inline]] constexpr void Mix(U& a, U& b, U& c) {
  a -= b;
  a -= c;
  a ^= (c >> 13);
  b -= c;
  b -= a;
  b ^= (a << 8);
  c -= a;
  c -= b;
  c ^= (b >> 13);
  a -= b;
  a -= c;
  a ^= (c >> 12);
  b -= c;
  b -= a;
  b ^= (a << 16);
  c -= a;
  c -= b;
  c ^= (b >> 5);
  a -= b;
  a -= c;
  a ^= (c >> 3);
  b -= c;
  b -= a;
  b ^= (a << 10);
  c -= a;
  c -= b;
  c ^= (b >> 15);
}

}  // namespace hash_internal

// crush_hash32_rjenkins1(a). Not used for placement; provided for callers.
constexpr std::uint32_t Hash32_1(std::uint32_t a) {
  std::uint32_t h = hash_internal::kSeed ^ a;
  std::uint32_t b = a;
  std::uint32_t x = hash_internal::kX;
  std::uint32_t y = hash_internal::kY;
  hash_internal::Mix(b, x, h);
  hash_internal::Mix(y, a, h);
  return h;
}

// crush_hash32_rjenkins1_2(a, b): is_out rejection, OSDMap pps, affinity.
constexpr std::uint32_t Hash32_2(std::uint32_t a, std::uint32_t b) {
  std::uint32_t h = hash_internal::kSeed ^ a ^ b;
  std::uint32_t x = hash_internal::kX;
  std::uint32_t y = hash_internal::kY;
  hash_internal::Mix(a, b, h);
  hash_internal::Mix(x, a, h);
  hash_internal::Mix(b, y, h);
  return h;
}

// crush_hash32_rjenkins1_3(a, b, c): straw, straw2 and uniform draws.
constexpr std::uint32_t Hash32_3(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  std::uint32_t h = hash_internal::kSeed ^ a ^ b ^ c;
  std::uint32_t x = hash_internal::kX;
  std::uint32_t y = hash_internal::kY;
  hash_internal::Mix(a, b, h);
  hash_internal::Mix(c, x, h);
  hash_internal::Mix(y, a, h);
  hash_internal::Mix(b, x, h);
  hash_internal::Mix(y, c, h);
  return h;
}

// crush_hash32_rjenkins1_4(a, b, c, d): list and tree descents.
constexpr std::uint32_t Hash32_4(std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                 std::uint32_t d) {
  std::uint32_t h = hash_internal::kSeed ^ a ^ b ^ c ^ d;
  std::uint32_t x = hash_internal::kX;
  std::uint32_t y = hash_internal::kY;
  hash_internal::Mix(a, b, h);
  hash_internal::Mix(c, d, h);
  hash_internal::Mix(a, x, h);
  hash_internal::Mix(y, b, h);
  hash_internal::Mix(c, x, h);
  hash_internal::Mix(y, d, h);
  return h;
}

// crush_hash32_rjenkins1_5(a, b, c, d, e). Not used for placement.
constexpr std::uint32_t Hash32_5(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d,
                                 std::uint32_t e) {
  std::uint32_t h = hash_internal::kSeed ^ a ^ b ^ c ^ d ^ e;
  std::uint32_t x = hash_internal::kX;
  std::uint32_t y = hash_internal::kY;
  hash_internal::Mix(a, b, h);
  hash_internal::Mix(c, d, h);
  hash_internal::Mix(e, x, h);
  hash_internal::Mix(y, a, h);
  hash_internal::Mix(b, x, h);
  hash_internal::Mix(y, c, h);
  hash_internal::Mix(d, x, h);
  hash_internal::Mix(y, e, h);
  return h;
}

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_HASH_H_
