// mod-N placement: node = nodes[hash mod N], replicas on the next nodes in id
// order. Unweighted and failure-domain oblivious; the baseline that moves
// almost every key when N changes. Thread-safe after Build.
#ifndef CRUSHKIT_TOOLS_STRATEGIES_MOD_N_H_
#define CRUSHKIT_TOOLS_STRATEGIES_MOD_N_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

#include "tools/strategies/strategy.h"
#include "tools/strategies/topology.h"

namespace crushkit::strategies {

class ModNStrategy {
 public:
  static constexpr std::string_view kName = "mod-n";

  static absl::StatusOr<ModNStrategy> Build(const Topology& topo, const StrategyOptions& opts,
                                            const ModNStrategy* previous);

  int Place(std::uint64_t key_hash, std::span<ItemId> out) const {
    const std::size_t n = nodes_.size();
    const std::size_t count = out.size() < n ? out.size() : n;
    std::size_t idx = key_hash % n;
    for (std::size_t i = 0; i < count; ++i) {
      out[i] = nodes_[idx];
      if (++idx == n) idx = 0;
    }
    return static_cast<int>(count);
  }

  std::size_t MemoryBytes() const { return sizeof(*this) + nodes_.capacity() * sizeof(ItemId); }

 private:
  std::vector<ItemId> nodes_;  // ids in ascending order
};

}  // namespace crushkit::strategies

#endif  // CRUSHKIT_TOOLS_STRATEGIES_MOD_N_H_
