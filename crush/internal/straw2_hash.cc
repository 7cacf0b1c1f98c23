#include "crush/internal/straw2_hash.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "crush/hash.h"
#include "crush/internal/straw2_draw.h"
#include "crush/internal/straw2_key_winner.h"
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
// on K blocks of kLanes ids at once, into h[k] (masked to 16 bits): block
// k < K-1 at k * kLanes, the last at `last` (which may overlap the block
// before it, even one of the previous group: an id hashes the same twice).
// One block's hash is a single ~70-cycle dependency chain using a fraction
// of the vector units; K chains side by side (MixBlocks: op by op across
// the blocks) overlap, so up to four blocks cost little more than one.
template <typename V, std::uint32_t kLanes, std::uint32_t K>
__attribute__((always_inline)) inline void HashBlocksInto(const HashSplats<V>& s, const ItemId* ids,
                                                          std::ptrdiff_t last, V* h) {
  V a[K], b[K], c[K], hx[K], hy[K];
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
  for (std::uint32_t k = 0; k < K; ++k) h[k] &= s.low16;
}

// HashBlocksInto, stored to u at the blocks' places; each block's hashes
// also go into the lane-wise maximum `top`.
template <typename V, std::uint32_t kLanes, std::uint32_t K>
__attribute__((always_inline)) inline void HashBlocks(const HashSplats<V>& s, const ItemId* ids,
                                                      std::ptrdiff_t last, std::uint32_t* u,
                                                      V& top) {
  V h[K];
  HashBlocksInto<V, kLanes, K>(s, ids, last, h);
  for (std::uint32_t k = 0; k < K; ++k) {
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

// The vector of lane indexes plus `base`.
template <typename V, std::uint32_t kLanes>
__attribute__((always_inline)) inline void LaneIndexes(V& out, std::uint32_t base) {
  std::uint32_t lanes[kLanes];
  for (std::uint32_t i = 0; i < kLanes; ++i) lanes[i] = base + i;
  std::memcpy(&out, lanes, sizeof(out));
}

// Every lane of v becomes the largest of its lanes (a butterfly; in place,
// see Splat on -Wpsabi). kLanes is 4 or 8.
template <typename V, std::uint32_t kLanes>
__attribute__((always_inline)) inline void AllLanesMax(V& v) {
  static_assert(kLanes == 4 || kLanes == 8);
  V t;
  if constexpr (kLanes == 8) {
    t = __builtin_shuffle(v, V{4, 5, 6, 7, 0, 1, 2, 3});
    v = v > t ? v : t;
    t = __builtin_shuffle(v, V{2, 3, 0, 1, 6, 7, 4, 5});
    v = v > t ? v : t;
    t = __builtin_shuffle(v, V{1, 0, 3, 2, 5, 4, 7, 6});
  } else {
    t = __builtin_shuffle(v, V{2, 3, 0, 1});
    v = v > t ? v : t;
    t = __builtin_shuffle(v, V{1, 0, 3, 2});
  }
  v = v > t ? v : t;
}

// The OR of v's lanes (v is overwritten).
template <typename V, std::uint32_t kLanes>
__attribute__((always_inline)) inline std::uint32_t OrOfLanes(V& v) {
  static_assert(kLanes == 4 || kLanes == 8);
  if constexpr (kLanes == 8) {
    v |= __builtin_shuffle(v, V{4, 5, 6, 7, 0, 1, 2, 3});
    v |= __builtin_shuffle(v, V{2, 3, 0, 1, 6, 7, 4, 5});
    v |= __builtin_shuffle(v, V{1, 0, 3, 2, 5, 4, 7, 6});
  } else {
    v |= __builtin_shuffle(v, V{2, 3, 0, 1});
    v |= __builtin_shuffle(v, V{1, 0, 3, 2});
  }
  return v[0];
}

// Straw2KeyWinner on NB blocks of hashes kept in registers: NB = ceil(n /
// kLanes), hashed as up to two groups of four (blocks at k * kLanes, the
// last at n - kLanes), the largest u found by a butterfly, then the first
// u at or above the winning threshold (Straw2KeyWinner's t) from a bit
// mask of all blocks' compares: no stores, no reloads, no loop exit to
// mispredict. REQUIRES: kLanes * (NB - 1) < n <= kLanes * NB <= 64.
template <typename V, std::uint32_t kLanes, std::uint32_t NB>
__attribute__((always_inline)) inline std::uint32_t KeyWinnerBlocks(const HashSplats<V>& s,
                                                                    const ItemId* ids,
                                                                    std::uint32_t n,
                                                                    const std::uint64_t* ties) {
  constexpr std::uint32_t K1 = NB < 4 ? NB : 4;
  constexpr std::uint32_t K2 = NB - K1;
  static_assert(K2 <= 4 && NB * kLanes <= 64);
  const std::ptrdiff_t last = std::ptrdiff_t{n} - std::ptrdiff_t{kLanes};
  V h[NB];
  if constexpr (K2 == 0) {
    HashBlocksInto<V, kLanes, K1>(s, ids, last, h);
  } else {
    HashBlocksInto<V, kLanes, K1>(s, ids, std::ptrdiff_t{(K1 - 1) * kLanes}, h);
    HashBlocksInto<V, kLanes, K2>(s, ids + K1 * kLanes, last - std::ptrdiff_t{K1 * kLanes}, h + K1);
  }
  auto offset = [n](std::uint32_t k) { return k + 1 < NB ? k * kLanes : n - kLanes; };
  V top = h[0];
  for (std::uint32_t k = 1; k < NB; ++k) top = top > h[k] ? top : h[k];
  AllLanesMax<V, kLanes>(top);
  const std::uint32_t max_u = top[0];
  if (max_u == 0xffff) [[unlikely]] {
    std::uint32_t u[NB * kLanes];
    for (std::uint32_t k = 0; k < NB; ++k) std::memcpy(u + offset(k), &h[k], sizeof(V));
    return Straw2KeyWinnerScalar(u, n, ties);
  }
  // Straw2KeyWinner's t: max_u, or max_u - 1 when the two keys share a
  // numerator (for max_u 0xfffe the lower key is 0xffff's, absent here).
  const std::uint32_t t = max_u - (Straw2TiesLower(ties, max_u) && max_u != 0xfffe ? 1u : 0u);
  V below;  // t - 1 as signed: u >= t iff u > t - 1 (u <= 0xffff)
  Splat(below, t - 1);
  V one;
  Splat(one, 1);
  typedef std::int32_t VS __attribute__((vector_size(sizeof(V))));
  V lo{}, hi{};
  for (std::uint32_t k = 0; k < NB; ++k) {
    const V hit = (V)((VS)h[k] > (VS)below);
    V p;
    LaneIndexes<V, kLanes>(p, offset(k));
    const V bit = hit & (one << (p & 31));
    if constexpr (NB * kLanes <= 32) {
      lo |= bit;
    } else {
      const V in_lo = (V)((VS)p < 32);
      lo |= bit & in_lo;
      hi |= bit & ~in_lo;
    }
  }
  std::uint64_t mask = OrOfLanes<V, kLanes>(lo);
  if constexpr (NB * kLanes > 32) mask |= std::uint64_t{OrOfLanes<V, kLanes>(hi)} << 32;
  return static_cast<std::uint32_t>(std::countr_zero(mask));
}

// Straw2KeyWinnerBlock on one vector width: registers only for kLanes <= n
// <= 8 * kLanes, else hashes to the stack and Straw2KeyWinner.
template <typename V, std::uint32_t kLanes>
__attribute__((always_inline)) inline std::uint32_t VecKeyWinner(std::uint32_t x, std::uint32_t r,
                                                                 const ItemId* ids, std::uint32_t n,
                                                                 const std::uint64_t* ties) {
  if (n < kLanes || n > 8 * kLanes) {
    std::uint32_t u[kStraw2KeyWinnerMaxSize];
    const std::uint32_t max_u = VecHashBlock<V, kLanes>(x, r, ids, n, u);
    return Straw2KeyWinner(u, n, max_u, ties);
  }
  HashSplats<V> s;
  MakeHashSplats(s, x, r);
  switch ((n - 1) / kLanes) {
    case 0:
      return KeyWinnerBlocks<V, kLanes, 1>(s, ids, n, ties);
    case 1:
      return KeyWinnerBlocks<V, kLanes, 2>(s, ids, n, ties);
    case 2:
      return KeyWinnerBlocks<V, kLanes, 3>(s, ids, n, ties);
    case 3:
      return KeyWinnerBlocks<V, kLanes, 4>(s, ids, n, ties);
    case 4:
      return KeyWinnerBlocks<V, kLanes, 5>(s, ids, n, ties);
    case 5:
      return KeyWinnerBlocks<V, kLanes, 6>(s, ids, n, ties);
    case 6:
      return KeyWinnerBlocks<V, kLanes, 7>(s, ids, n, ties);
    default:
      return KeyWinnerBlocks<V, kLanes, 8>(s, ids, n, ties);
  }
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

std::uint32_t Straw2KeyWinnerBlockScalar(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                         std::uint32_t n, const std::uint64_t* ties_lower) {
  std::uint32_t u[kStraw2KeyWinnerMaxSize];
  Straw2HashBlockScalar(x, r, ids, n, u);
  return Straw2KeyWinnerScalar(u, n, ties_lower);
}

std::uint32_t Straw2KeyWinnerBlockVec4(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                       std::uint32_t n, const std::uint64_t* ties_lower) {
  return VecKeyWinner<V4u, 4>(x, r, ids, n, ties_lower);
}

#ifdef CRUSHKIT_HAVE_AVX2_KERNEL
__attribute__((target("avx2"))) std::uint32_t Straw2HashBlockAvx2(std::uint32_t x, std::uint32_t r,
                                                                  const ItemId* ids,
                                                                  std::uint32_t n,
                                                                  std::uint32_t* u) {
  return VecHashBlock<V8u, 8>(x, r, ids, n, u);
}

__attribute__((target("avx2"))) std::uint32_t Straw2KeyWinnerBlockAvx2(
    std::uint32_t x, std::uint32_t r, const ItemId* ids, std::uint32_t n,
    const std::uint64_t* ties_lower) {
  return VecKeyWinner<V8u, 8>(x, r, ids, n, ties_lower);
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

__attribute__((target("avx512f,avx512vl"))) std::uint32_t Straw2KeyWinnerBlockAvx512(
    std::uint32_t x, std::uint32_t r, const ItemId* ids, std::uint32_t n,
    const std::uint64_t* ties_lower) {
  return VecKeyWinner<V8u, 8>(x, r, ids, n, ties_lower);
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

std::uint32_t Straw2KeyWinnerBlockAvx2(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                       std::uint32_t n, const std::uint64_t* ties_lower) {
  return Straw2KeyWinnerBlockVec4(x, r, ids, n, ties_lower);
}

std::uint32_t Straw2KeyWinnerBlockAvx512(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                         std::uint32_t n, const std::uint64_t* ties_lower) {
  return Straw2KeyWinnerBlockVec4(x, r, ids, n, ties_lower);
}
#endif

const std::uint64_t* Straw2NTable() {
  static const std::uint64_t* const table = [] {
    auto* t = new std::uint64_t[0x10000];  // never freed: process lifetime
    for (std::uint32_t u = 0; u <= 0xffff; ++u) t[u] = Straw2Numerator(u);
    return t;
  }();
  return table;
}

const std::uint64_t* Straw2NBoundsTable() {
  static const std::uint64_t* const table = [] {
    const std::uint64_t* n = Straw2NTable();
    constexpr std::uint32_t kBlocks = 0x10000u >> kStraw2NBoundsShift;
    auto* t = new std::uint64_t[2 * kBlocks];  // never freed: process lifetime
    for (std::uint32_t k = 0; k < kBlocks; ++k) {
      const std::uint64_t* block = n + (std::size_t{k} << kStraw2NBoundsShift);
      const auto [lo, hi] = std::minmax_element(block, block + (1u << kStraw2NBoundsShift));
      t[2 * k] = *lo;
      t[2 * k + 1] = *hi;
    }
    return t;
  }();
  return table;
}

const float* Straw2NBoundsFloatTable() {
  static const float* const table = [] {
    const std::uint64_t* bounds = Straw2NBoundsTable();
    constexpr std::uint32_t kBlocks = 0x10000u >> kStraw2NBoundsShift;
    auto* t = new float[2 * kBlocks];  // never freed: process lifetime
    for (std::uint32_t k = 0; k < kBlocks; ++k) {
      // Numerators are below 2^49, so a float converts back exactly.
      float lo = static_cast<float>(bounds[2 * k]);
      if (static_cast<std::uint64_t>(lo) > bounds[2 * k]) lo = std::nextafter(lo, 0.0f);
      float hi = static_cast<float>(bounds[2 * k + 1]);
      if (static_cast<std::uint64_t>(hi) < bounds[2 * k + 1]) hi = std::nextafter(hi, 1e30f);
      t[2 * k] = lo;
      t[2 * k + 1] = hi;
    }
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

Straw2KeyWinnerBlockFn SelectStraw2KeyWinnerBlock() {
  static const Straw2KeyWinnerBlockFn kernel = [] {
    if (Straw2HashAvx512Supported()) return &Straw2KeyWinnerBlockAvx512;
    return Straw2HashAvx2Supported() ? &Straw2KeyWinnerBlockAvx2 : &Straw2KeyWinnerBlockVec4;
  }();
  return kernel;
}

}  // namespace crushkit::crush::internal
