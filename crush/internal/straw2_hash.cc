#include "crush/internal/straw2_hash.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "crush/hash.h"
#include "crush/internal/straw2_draw.h"
#include "crush/types.h"

namespace crushkit::crush::internal {

namespace {

// PLACEMENT-STABLE: hash.h's Hash32_3 with b (the item id) varying by lane.
// Hashes whole blocks of kLanes from `j` on and returns where it stopped.
template <typename V, std::uint32_t kLanes>
__attribute__((always_inline)) inline std::uint32_t VecHashLanes(std::uint32_t x, std::uint32_t r,
                                                                 const ItemId* ids, std::uint32_t j,
                                                                 std::uint32_t n,
                                                                 std::uint32_t* u) {
  for (; j + kLanes <= n; j += kLanes) {
    V b;
    std::memcpy(&b, ids + j, sizeof(b));
    V a = V{} + x;
    V c = V{} + r;
    V h = (V{} + (hash_internal::kSeed ^ x ^ r)) ^ b;
    V hx = V{} + hash_internal::kX;
    V hy = V{} + hash_internal::kY;
    hash_internal::Mix(a, b, h);
    hash_internal::Mix(c, hx, h);
    hash_internal::Mix(hy, a, h);
    hash_internal::Mix(b, hx, h);
    hash_internal::Mix(hy, c, h);
    h &= V{} + 0xffffu;
    std::memcpy(u + j, &h, sizeof(h));
  }
  return j;
}

// Whole pairs of kLanes blocks from `j` on, the two hashed interleaved
// (Mix2): a lone block's hash is one long dependency chain, so two chains
// side by side take little longer than one. Returns where it stopped.
template <typename V, std::uint32_t kLanes>
__attribute__((always_inline)) inline std::uint32_t VecHashPairs(std::uint32_t x, std::uint32_t r,
                                                                 const ItemId* ids, std::uint32_t j,
                                                                 std::uint32_t n,
                                                                 std::uint32_t* u) {
  for (; j + 2 * kLanes <= n; j += 2 * kLanes) {
    V b0, b1;
    std::memcpy(&b0, ids + j, sizeof(b0));
    std::memcpy(&b1, ids + j + kLanes, sizeof(b1));
    V a0 = V{} + x, a1 = a0;
    V c0 = V{} + r, c1 = c0;
    V h0 = (V{} + (hash_internal::kSeed ^ x ^ r)) ^ b0;
    V h1 = (V{} + (hash_internal::kSeed ^ x ^ r)) ^ b1;
    V hx0 = V{} + hash_internal::kX, hx1 = hx0;
    V hy0 = V{} + hash_internal::kY, hy1 = hy0;
    hash_internal::Mix2(a0, b0, h0, a1, b1, h1);
    hash_internal::Mix2(c0, hx0, h0, c1, hx1, h1);
    hash_internal::Mix2(hy0, a0, h0, hy1, a1, h1);
    hash_internal::Mix2(b0, hx0, h0, b1, hx1, h1);
    hash_internal::Mix2(hy0, c0, h0, hy1, c1, h1);
    h0 &= V{} + 0xffffu;
    h1 &= V{} + 0xffffu;
    std::memcpy(u + j, &h0, sizeof(h0));
    std::memcpy(u + j + kLanes, &h1, sizeof(h1));
  }
  return j;
}

// The n % kLanes tail uses the scalar hash (a padded vector measured no
// faster).
template <typename V, std::uint32_t kLanes>
__attribute__((always_inline)) inline void VecHashBlock(std::uint32_t x, std::uint32_t r,
                                                        const ItemId* ids, std::uint32_t n,
                                                        std::uint32_t* u) {
  for (std::uint32_t j = VecHashLanes<V, kLanes>(x, r, ids, 0, n, u); j < n; ++j) {
    u[j] = Hash32_3(x, static_cast<std::uint32_t>(ids[j]), r) & 0xffffu;
  }
}

typedef std::uint32_t V4u __attribute__((vector_size(16)));

#if defined(__x86_64__) || defined(__i386__)
#define CRUSHKIT_HAVE_AVX2_KERNEL 1
typedef std::uint32_t V8u __attribute__((vector_size(32)));
typedef std::uint32_t V16u __attribute__((vector_size(64)));
#endif

}  // namespace

void Straw2HashBlockScalar(std::uint32_t x, std::uint32_t r, const ItemId* ids, std::uint32_t n,
                           std::uint32_t* u) {
  for (std::uint32_t j = 0; j < n; ++j) {
    u[j] = Hash32_3(x, static_cast<std::uint32_t>(ids[j]), r) & 0xffffu;
  }
}

void Straw2HashBlockVec4(std::uint32_t x, std::uint32_t r, const ItemId* ids, std::uint32_t n,
                         std::uint32_t* u) {
  VecHashBlock<V4u, 4>(x, r, ids, n, u);
}

#ifdef CRUSHKIT_HAVE_AVX2_KERNEL
__attribute__((target("avx2"))) void Straw2HashBlockAvx2(std::uint32_t x, std::uint32_t r,
                                                         const ItemId* ids, std::uint32_t n,
                                                         std::uint32_t* u) {
  const std::uint32_t j = VecHashPairs<V8u, 8>(x, r, ids, 0, n, u);
  VecHashBlock<V8u, 8>(x, r, ids + j, n - j, u + j);
}

bool Straw2HashAvx2Supported() { return __builtin_cpu_supports("avx2") != 0; }

// Buckets of 20-25 items are common (hosts, racks): after the 16-lane
// blocks, an 8-lane and a 4-lane step leave at most 3 scalar hashes.
__attribute__((target("avx512f,avx512vl"))) void Straw2HashBlockAvx512(
    std::uint32_t x, std::uint32_t r, const ItemId* ids, std::uint32_t n, std::uint32_t* u) {
  std::uint32_t j = VecHashPairs<V16u, 16>(x, r, ids, 0, n, u);
  j = VecHashLanes<V16u, 16>(x, r, ids, j, n, u);
  j = VecHashLanes<V8u, 8>(x, r, ids, j, n, u);
  j = VecHashLanes<V4u, 4>(x, r, ids, j, n, u);
  for (; j < n; ++j) u[j] = Hash32_3(x, static_cast<std::uint32_t>(ids[j]), r) & 0xffffu;
}

bool Straw2HashAvx512Supported() {
  return __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512vl") != 0;
}
#else
void Straw2HashBlockAvx512(std::uint32_t x, std::uint32_t r, const ItemId* ids, std::uint32_t n,
                           std::uint32_t* u) {
  Straw2HashBlockVec4(x, r, ids, n, u);
}

bool Straw2HashAvx512Supported() { return false; }

void Straw2HashBlockAvx2(std::uint32_t x, std::uint32_t r, const ItemId* ids, std::uint32_t n,
                         std::uint32_t* u) {
  Straw2HashBlockVec4(x, r, ids, n, u);
}

bool Straw2HashAvx2Supported() { return false; }
#endif

const std::uint64_t* Straw2NTable() {
  static const std::uint64_t* const table = [] {
    auto* t = new std::uint64_t[0x10000];  // never freed: process lifetime
    for (std::uint32_t u = 0; u <= 0xffff; ++u) t[u] = Straw2Numerator(u);
    return t;
  }();
  return table;
}

const Straw2KeyOrder& Straw2KeyOrderFacts() {
  static const Straw2KeyOrder* const facts = [] {
    const std::uint64_t* n = Straw2NTable();
    auto* ties = new std::uint64_t[0x10000 / 64]();  // never freed: process lifetime
    auto* order = new Straw2KeyOrder;
    order->ties_lower = ties;
    std::uint64_t min_gap = ~std::uint64_t{0};
    int plateau = 1;  // keys in the current run of equal numerators
    bool ok = true;
    // The i-th u in increasing key order: 0 .. 0xfffd, 0xffff, 0xfffe.
    auto u_at = [](std::uint32_t i) -> std::uint32_t {
      return i < 0xfffe ? i : i == 0xfffe ? 0xffff : 0xfffe;
    };
    for (std::uint32_t i = 1; i <= 0xffff; ++i) {
      const std::uint32_t u = u_at(i);
      const std::uint64_t lower = n[u_at(i - 1)];
      if (n[u] > lower) ok = false;
      if (n[u] == lower) {
        ties[u >> 6] |= std::uint64_t{1} << (u & 63);
        if (++plateau > 2) ok = false;
      } else {
        plateau = 1;
        min_gap = std::min(min_gap, lower - n[u]);
      }
    }
    order->min_gap = ok ? min_gap : 0;
    return order;
  }();
  return *facts;
}

Straw2HashBlockFn SelectStraw2HashBlock() {
  if (Straw2HashAvx512Supported()) return &Straw2HashBlockAvx512;
  return Straw2HashAvx2Supported() ? &Straw2HashBlockAvx2 : &Straw2HashBlockVec4;
}

}  // namespace crushkit::crush::internal
