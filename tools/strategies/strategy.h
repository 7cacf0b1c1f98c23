// The contract every placement strategy in tools/strategies implements, and the
// options they share. There is no base class: strategies are plain value
// types used through templates (compare.cc instantiates one measuring loop per
// strategy), so the per-key call is a direct, inlinable call.
//
// A strategy S provides
//   static constexpr std::string_view kName;
//   static absl::StatusOr<S> Build(const Topology& topo, const StrategyOptions& opts,
//                                  const S* previous);
//       Builds the placement for `topo`. `previous`, if not null, is the same
//       strategy built for the cluster before a change; directory-based
//       strategies (jump, partitions) evolve their directory from it the way
//       an operator would, the others ignore it.
//   int Place(std::uint64_t key_hash, std::span<ItemId> out) [const];
//       Writes up to out.size() DISTINCT node ids (Topology::nodes[i].id),
//       primary first, and returns how many. Never allocates.
//       REQUIRES: out.size() <= kMaxReplicas.
//   std::size_t MemoryBytes() const;  // lookup structures, in bytes
// Thread-safety: const methods are safe to call concurrently; Straw2Strategy's
// Place is non-const (it owns a mapper workspace).
#ifndef CRUSHKIT_TOOLS_STRATEGIES_STRATEGY_H_
#define CRUSHKIT_TOOLS_STRATEGIES_STRATEGY_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "tools/strategies/topology.h"

namespace crushkit::strategies {

inline constexpr int kMaxReplicas = 16;

struct StrategyOptions {
  int replicas = 3;                   // replicas per key (1..kMaxReplicas)
  int vnodes = 256;                   // ring: virtual nodes per unit of mean weight
  std::uint32_t maglev_size = 65537;  // Maglev lookup table size; must be prime
  int partitions = 4096;              // fixed partitions: count
  std::uint64_t seed = 0;             // salts keys and node hashes
};

// True if `id` is among the first `n` entries of `out`. R is tiny (<= 16),
// so a linear scan beats any set.
inline bool Contains(std::span<const ItemId> out, int n, ItemId id) {
  for (int i = 0; i < n; ++i) {
    if (out[static_cast<std::size_t>(i)] == id) return true;
  }
  return false;
}

// Maps a 64-bit hash onto [0, n) without division (Lemire's multiply-shift on
// the high 32 bits). REQUIRES: n < 2^32.
constexpr std::uint32_t FastRange(std::uint64_t h, std::uint32_t n) {
  return static_cast<std::uint32_t>(((h >> 32) * n) >> 32);
}

}  // namespace crushkit::strategies

#endif  // CRUSHKIT_TOOLS_STRATEGIES_STRATEGY_H_
