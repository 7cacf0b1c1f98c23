// 64-bit mixing functions shared by the non-CRUSH placement strategies and
// the key sampler. They are NOT Ceph's rjenkins hash: the textbook strategies
// (ring, jump, rendezvous, Maglev) assume a well-mixed 64-bit key, which is
// what splitmix64's finalizer gives at one multiply-xorshift chain per call.
// Pure functions; thread-safe.
#ifndef CRUSHKIT_TOOLS_STRATEGIES_KEY_HASH_H_
#define CRUSHKIT_TOOLS_STRATEGIES_KEY_HASH_H_

#include <cstdint>

namespace crushkit::strategies {

// splitmix64's finalizer: a bijection on 64-bit values with full avalanche.
constexpr std::uint64_t Mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// Hash of an ordered pair; Hash2(a, b) != Hash2(b, a) in general.
constexpr std::uint64_t Hash2(std::uint64_t a, std::uint64_t b) {
  return Mix64(Mix64(a + 0x9e3779b97f4a7c15ULL) ^
               (b * 0xc2b2ae3d27d4eb4fULL + 0x165667b19e3779f9ULL));
}

// The 64-bit key hash every strategy receives for sample key `key` under `seed`.
constexpr std::uint64_t KeyHash(std::uint64_t key, std::uint64_t seed) { return Hash2(seed, key); }

// A uniform double in the open interval (0, 1) from the top 53 bits of `h`.
constexpr double UnitOpen(std::uint64_t h) {
  return (static_cast<double>(h >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

}  // namespace crushkit::strategies

#endif  // CRUSHKIT_TOOLS_STRATEGIES_KEY_HASH_H_
