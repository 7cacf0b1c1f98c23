// Maglev hashing (Eisenbud et al., NSDI 2016): a lookup table of prime size M
// filled by letting nodes take turns claiming the next free slot of their own
// permutation (offset + j * skip) mod M. With equal weights every node ends
// within one slot of M/N. Weights are honoured by turn frequency (a node
// takes a turn whenever its accumulated credit weight/max_weight reaches 1),
// the weighted variant sketched in the paper. A key's primary is
// table[hash mod M]; replicas come from re-hashing the key (see Place()).
// Failure-domain oblivious. Thread-safe after Build.
#ifndef CRUSHKIT_TOOLS_STRATEGIES_MAGLEV_H_
#define CRUSHKIT_TOOLS_STRATEGIES_MAGLEV_H_

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

class MaglevStrategy {
 public:
  static constexpr std::string_view kName = "maglev";

  // Errors: kInvalidArgument unless maglev_size is a prime in [nodes, 2^24].
  // Cost: O(M log M) expected.
  static absl::StatusOr<MaglevStrategy> Build(const Topology& topo, const StrategyOptions& opts,
                                              const MaglevStrategy* previous);

  // Replica j looks up table[hash_j(key) mod M] with hash_0 = the key hash
  // and re-hashes on a node already chosen (walking to the next distinct
  // entries instead would correlate replicas with the fill permutations and
  // skew secondary load by ~15%). After 32 * out.size() attempts the
  // remaining replicas take the next distinct entries, so the call is bounded.
  int Place(std::uint64_t key_hash, std::span<ItemId> out) const {
    const auto m = static_cast<std::uint32_t>(table_.size());
    const int want = static_cast<int>(out.size());
    int count = 0;
    std::uint32_t e = 0;
    const std::uint64_t max_attempts = 32 * static_cast<std::uint64_t>(want);
    for (std::uint64_t j = 0; count < want && j < max_attempts; ++j) {
      e = FastRange(j == 0 ? key_hash : Hash2(key_hash, j), m);
      const ItemId id = table_[e];
      if (!Contains(out, count, id)) out[static_cast<std::size_t>(count++)] = id;
    }
    for (std::uint32_t step = 0; step < m && count < want; ++step) {
      if (++e == m) e = 0;
      const ItemId id = table_[e];
      if (!Contains(out, count, id)) out[static_cast<std::size_t>(count++)] = id;
    }
    return count;
  }

  std::size_t MemoryBytes() const { return sizeof(*this) + table_.capacity() * sizeof(ItemId); }

  const std::vector<ItemId>& table() const { return table_; }

 private:
  std::vector<ItemId> table_;
};

// True if n is prime (trial division; n < 2^32).
bool IsPrime(std::uint32_t n);

}  // namespace crushkit::strategies

#endif  // CRUSHKIT_TOOLS_STRATEGIES_MAGLEV_H_
