#include "crush/internal/straw2_hash.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "crush/hash.h"
#include "crush/internal/straw2_draw.h"
#include "crush/types.h"

namespace crushkit::crush::internal {

namespace {

// A vector with every lane v. Built through memory on purpose: GCC 12
// lowers `V{} + v` in these always-inline templates lane by lane (sixteen
// masked broadcasts per vector, inside the loop) because the templates
// carry no target attribute; the array copy folds into one vpbroadcastd.
// (An out-parameter: returning V by value from a function without the
// target attribute trips GCC's -Wpsabi.)
template <typename V>
__attribute__((always_inline)) inline void Splat(V& out, std::uint32_t v) {
  std::uint32_t lanes[sizeof(V) / sizeof(std::uint32_t)];
  for (std::uint32_t& lane : lanes) lane = v;
  std::memcpy(&out, lanes, sizeof(out));
}

// The lane-invariant inputs of Hash32_3(x, id, r), splatted once per call.
template <typename V>
struct HashSplats {
  V x, r, seed_xr, kx, ky, low16;
};

template <typename V>
__attribute__((always_inline)) inline void MakeHashSplats(HashSplats<V>& s, std::uint32_t x,
                                                          std::uint32_t r) {
  Splat(s.x, x);
  Splat(s.r, r);
  Splat(s.seed_xr, hash_internal::kSeed ^ x ^ r);
  Splat(s.kx, hash_internal::kX);
  Splat(s.ky, hash_internal::kY);
  Splat(s.low16, 0xffffu);
}

// One line of hash_internal::Mix, `a -= b; a -= c; a ^= c >> kRight` (or
// `<< kLeft`), on K blocks op by op: the K chains then sit side by side in
// the instruction stream, so the scheduler's window holds all of them
// rather than one block's long serial run (GCC keeps the source order).
template <typename V, std::uint32_t K, int kRight, int kLeft>
__attribute__((always_inline)) inline void MixLine(V* a, const V* b, const V* c) {
  for (std::uint32_t k = 0; k < K; ++k) a[k] -= b[k];
  for (std::uint32_t k = 0; k < K; ++k) a[k] -= c[k];
  if constexpr (kRight != 0) {
    for (std::uint32_t k = 0; k < K; ++k) a[k] ^= c[k] >> kRight;
  } else {
    for (std::uint32_t k = 0; k < K; ++k) a[k] ^= c[k] << kLeft;
  }
}

// PLACEMENT-STABLE: hash_internal::Mix(a[k], b[k], c[k]) for every block k.
template <typename V, std::uint32_t K>
__attribute__((always_inline)) inline void MixBlocks(V* a, V* b, V* c) {
  MixLine<V, K, 13, 0>(a, b, c);
  MixLine<V, K, 0, 8>(b, c, a);
  MixLine<V, K, 13, 0>(c, a, b);
  MixLine<V, K, 12, 0>(a, b, c);
  MixLine<V, K, 0, 16>(b, c, a);
  MixLine<V, K, 5, 0>(c, a, b);
  MixLine<V, K, 3, 0>(a, b, c);
  MixLine<V, K, 0, 10>(b, c, a);
  MixLine<V, K, 15, 0>(c, a, b);
}

// PLACEMENT-STABLE: hash.h's Hash32_3 with b (the item id) varying by lane,
// on K blocks of kLanes ids at once: block k < K-1 at k * kLanes, the last
// at `last` (which may overlap the block before it, even one of the
// previous group: an id hashes the same twice). Each block's hashes also go
// into the lane-wise maximum `top`. One block's hash is a
// single ~70-cycle dependency chain using a fraction of the vector units;
// K chains side by side (MixBlocks: op by op across the blocks) overlap,
// so up to four blocks cost little more than one.
template <typename V, std::uint32_t kLanes, std::uint32_t K>
__attribute__((always_inline)) inline void HashBlocks(const HashSplats<V>& s, const ItemId* ids,
                                                      std::ptrdiff_t last, std::uint32_t* u,
                                                      V& top) {
  V a[K], b[K], c[K], hx[K], hy[K], h[K];
  for (std::uint32_t k = 0; k < K; ++k) {
    std::memcpy(&b[k], ids + (k + 1 < K ? std::ptrdiff_t{k * kLanes} : last), sizeof(V));
    a[k] = s.x;
    c[k] = s.r;
    hx[k] = s.kx;
    hy[k] = s.ky;
    h[k] = s.seed_xr ^ b[k];
  }
  MixBlocks<V, K>(a, b, h);
  MixBlocks<V, K>(c, hx, h);
  MixBlocks<V, K>(hy, a, h);
  MixBlocks<V, K>(b, hx, h);
  MixBlocks<V, K>(hy, c, h);
  for (std::uint32_t k = 0; k < K; ++k) {
    h[k] &= s.low16;
    std::memcpy(u + (k + 1 < K ? std::ptrdiff_t{k * kLanes} : last), &h[k], sizeof(V));
    top = top > h[k] ? top : h[k];
  }
}

// Fewer than kLanes ids: one block padded with zeros through a local copy.
// Returns the largest of the n hashes (the padding lanes' are not ours).
template <typename V, std::uint32_t kLanes>
__attribute__((always_inline)) inline std::uint32_t HashShortBlock(const HashSplats<V>& s,
                                                                   const ItemId* ids,
                                                                   std::uint32_t n,
                                                                   std::uint32_t* u) {
  ItemId padded[kLanes] = {};
  std::uint32_t out[kLanes];
  std::memcpy(padded, ids, n * sizeof(ItemId));
  V ignored{};
  HashBlocks<V, kLanes, 1>(s, padded, 0, out, ignored);
  std::memcpy(u, out, n * sizeof(std::uint32_t));
  std::uint32_t top = 0;
  for (std::uint32_t j = 0; j < n; ++j) top = std::max(top, out[j]);
  return top;
}

// The largest lane of v.
template <typename V, std::uint32_t kLanes>
__attribute__((always_inline)) inline std::uint32_t MaxLane(const V& v) {
  std::uint32_t lanes[kLanes];
  std::memcpy(lanes, &v, sizeof(V));
  std::uint32_t top = 0;
  for (const std::uint32_t lane : lanes) top = std::max(top, lane);
  return top;
}

// All n hashes in groups of four blocks, then one group of the 1-4 blocks
// left, its last block ending at n.
template <typename V, std::uint32_t kLanes>
__attribute__((always_inline)) inline std::uint32_t VecHashBlock(std::uint32_t x, std::uint32_t r,
                                                                 const ItemId* ids, std::uint32_t n,
                                                                 std::uint32_t* u) {
  if (n == 0) return 0;
  HashSplats<V> s;
  MakeHashSplats(s, x, r);
  if (n < kLanes) return HashShortBlock<V, kLanes>(s, ids, n, u);
  V top{};
  constexpr std::uint32_t kGroup = 4 * kLanes;
  std::uint32_t j = 0;
  for (; n - j > kGroup; j += kGroup) HashBlocks<V, kLanes, 4>(s, ids + j, 3 * kLanes, u + j, top);
  // 1 .. kGroup left; n >= kLanes, so the last block can start before j.
  const std::uint32_t left = n - j;
  const std::ptrdiff_t last = std::ptrdiff_t{left} - std::ptrdiff_t{kLanes};
  switch ((left - 1) / kLanes) {
    case 0:
      HashBlocks<V, kLanes, 1>(s, ids + j, last, u + j, top);
      break;
    case 1:
      HashBlocks<V, kLanes, 2>(s, ids + j, last, u + j, top);
      break;
    case 2:
      HashBlocks<V, kLanes, 3>(s, ids + j, last, u + j, top);
      break;
    default:
      HashBlocks<V, kLanes, 4>(s, ids + j, last, u + j, top);
      break;
  }
  return MaxLane<V, kLanes>(top);
}

typedef std::uint32_t V4u __attribute__((vector_size(16)));

#if defined(__x86_64__) || defined(__i386__)
#define CRUSHKIT_HAVE_AVX2_KERNEL 1
typedef std::uint32_t V8u __attribute__((vector_size(32)));
#endif

}  // namespace

std::uint32_t Straw2HashBlockScalar(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                    std::uint32_t n, std::uint32_t* u) {
  std::uint32_t top = 0;
  for (std::uint32_t j = 0; j < n; ++j) {
    u[j] = Hash32_3(x, static_cast<std::uint32_t>(ids[j]), r) & 0xffffu;
    top = std::max(top, u[j]);
  }
  return top;
}

std::uint32_t Straw2HashBlockVec4(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                  std::uint32_t n, std::uint32_t* u) {
  return VecHashBlock<V4u, 4>(x, r, ids, n, u);
}

#ifdef CRUSHKIT_HAVE_AVX2_KERNEL
__attribute__((target("avx2"))) std::uint32_t Straw2HashBlockAvx2(std::uint32_t x, std::uint32_t r,
                                                                  const ItemId* ids,
                                                                  std::uint32_t n,
                                                                  std::uint32_t* u) {
  return VecHashBlock<V8u, 8>(x, r, ids, n, u);
}

bool Straw2HashAvx2Supported() { return __builtin_cpu_supports("avx2") != 0; }

// 8 lanes as the AVX2 kernel, but EVEX-encoded with 32 vector registers,
// so four chains of six vectors stay in registers. 16-lane blocks measured
// slower on AMD Zen 4 (512-bit ops run as two halves and one 16-lane
// chain takes 43 ns against 28 ns for 8 lanes, at equal throughput per
// lane): bench/mapper_vs_ceph 1.21 us per mapping with 16 lanes, 1.05 us
// with 8.
__attribute__((target("avx512f,avx512vl"))) std::uint32_t Straw2HashBlockAvx512(
    std::uint32_t x, std::uint32_t r, const ItemId* ids, std::uint32_t n, std::uint32_t* u) {
  return VecHashBlock<V8u, 8>(x, r, ids, n, u);
}

bool Straw2HashAvx512Supported() {
  return __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512vl") != 0;
}
#else
std::uint32_t Straw2HashBlockAvx512(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                    std::uint32_t n, std::uint32_t* u) {
  return Straw2HashBlockVec4(x, r, ids, n, u);
}

bool Straw2HashAvx512Supported() { return false; }

std::uint32_t Straw2HashBlockAvx2(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                  std::uint32_t n, std::uint32_t* u) {
  return Straw2HashBlockVec4(x, r, ids, n, u);
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
