// Jump consistent hash (Lamping & Veach 2014) over a bucket -> node
// directory. jump(key, n) picks a bucket in [0, n) and moves exactly the
// minimal 1/(n+1) of keys when a bucket is appended. Buckets can only be
// added or removed at the end, so the directory handles other removals the
// usual way: the last bucket's node takes the removed node's bucket. Replicas
// come from re-hashing the key until distinct. Unweighted and failure-domain
// oblivious. Thread-safe after Build.
#ifndef CRUSHKIT_TOOLS_STRATEGIES_JUMP_H_
#define CRUSHKIT_TOOLS_STRATEGIES_JUMP_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

#include "tools/strategies/key_hash.h"
#include "tools/strategies/strategy.h"
#include "tools/strategies/topology.h"

namespace crushkit::strategies {

// The jump consistent hash function: a bucket in [0, buckets), O(log buckets).
// REQUIRES: buckets >= 1.
inline std::int32_t JumpHash(std::uint64_t key, std::int32_t buckets) {
  std::int64_t b = -1;
  std::int64_t j = 0;
  while (j < buckets) {
    b = j;
    key = key * 2862933555777941757ULL + 1;
    j = static_cast<std::int64_t>(
        static_cast<double>(b + 1) *
        (static_cast<double>(1LL << 31) / static_cast<double>((key >> 33) + 1)));
  }
  return static_cast<std::int32_t>(b);
}

class JumpStrategy {
 public:
  static constexpr std::string_view kName = "jump";

  // With `previous`: buckets of nodes that left are refilled by the last
  // bucket's node (repeatedly), then new nodes are appended in id order.
  static absl::StatusOr<JumpStrategy> Build(const Topology& topo, const StrategyOptions& opts,
                                            const JumpStrategy* previous);

  // Replica r uses the key re-hashed with attempt counter j (j = 0 is the key
  // itself, so the primary is plain jump hash); collisions advance j. After
  // 32 * out.size() attempts the remaining replicas take the next free
  // buckets, so the call is bounded.
  int Place(std::uint64_t key_hash, std::span<ItemId> out) const {
    const auto n = static_cast<std::int32_t>(directory_.size());
    const int want = static_cast<int>(out.size()) < n ? static_cast<int>(out.size()) : n;
    int count = 0;
    std::uint64_t j = 0;
    const std::uint64_t max_attempts = 32 * static_cast<std::uint64_t>(want);
    std::int32_t b = 0;
    for (; count < want && j < max_attempts; ++j) {
      const std::uint64_t k = j == 0 ? key_hash : Hash2(key_hash, j);
      b = JumpHash(k, n);
      const ItemId id = directory_[static_cast<std::size_t>(b)];
      if (!Contains(out, count, id)) out[static_cast<std::size_t>(count++)] = id;
    }
    while (count < want) {
      if (++b == n) b = 0;
      const ItemId id = directory_[static_cast<std::size_t>(b)];
      if (!Contains(out, count, id)) out[static_cast<std::size_t>(count++)] = id;
    }
    return count;
  }

  std::size_t MemoryBytes() const { return sizeof(*this) + directory_.capacity() * sizeof(ItemId); }

  const std::vector<ItemId>& directory() const { return directory_; }

 private:
  std::vector<ItemId> directory_;  // bucket -> node id
};

}  // namespace crushkit::strategies

#endif  // CRUSHKIT_TOOLS_STRATEGIES_JUMP_H_
