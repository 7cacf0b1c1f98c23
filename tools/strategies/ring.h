// Consistent-hash ring (Karger et al.) with virtual nodes: each node owns
// round(vnodes * weight / mean weight) points (at least one) on a 64-bit
// circle; a key belongs to the first point clockwise of its hash, replicas to
// the next DISTINCT nodes clockwise (Dynamo's preference list). Weighted by
// point count; failure-domain oblivious. Load spread is ~1/sqrt(vnodes).
// Points hash the node id, so they survive any change to other nodes.
// Thread-safe after Build.
#ifndef CRUSHKIT_TOOLS_STRATEGIES_RING_H_
#define CRUSHKIT_TOOLS_STRATEGIES_RING_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

#include "tools/strategies/strategy.h"
#include "tools/strategies/topology.h"

namespace crushkit::strategies {

class RingStrategy {
 public:
  static constexpr std::string_view kName = "ring";

  // Errors: kInvalidArgument if vnodes < 1 or the ring would exceed 2^26 points.
  static absl::StatusOr<RingStrategy> Build(const Topology& topo, const StrategyOptions& opts,
                                            const RingStrategy* previous);

  // Cost: one binary search over the points plus a short clockwise walk.
  int Place(std::uint64_t key_hash, std::span<ItemId> out) const {
    const std::size_t points = positions_.size();
    std::size_t idx = static_cast<std::size_t>(
        std::upper_bound(positions_.begin(), positions_.end(), key_hash) - positions_.begin());
    int count = 0;
    const int want = static_cast<int>(out.size());
    for (std::size_t step = 0; step < points && count < want; ++step) {
      if (idx == points) idx = 0;
      const ItemId id = owners_[idx++];
      if (!Contains(out, count, id)) out[static_cast<std::size_t>(count++)] = id;
    }
    return count;
  }

  std::size_t MemoryBytes() const {
    return sizeof(*this) + positions_.capacity() * sizeof(std::uint64_t) +
           owners_.capacity() * sizeof(ItemId);
  }

  // Fraction of the circle each node owns as primary, in topo.nodes order
  // (the exact load a uniform key population converges to).
  std::vector<double> ArcShares(const Topology& topo) const;

 private:
  std::vector<std::uint64_t> positions_;  // sorted
  std::vector<ItemId> owners_;            // owners_[i] owns positions_[i]
};

}  // namespace crushkit::strategies

#endif  // CRUSHKIT_TOOLS_STRATEGIES_RING_H_
