// Fixed partitions + directory (Dynamo's strategy 3, Swift's ring, Ceph's PGs
// with an explicit table): keys hash onto P partitions, and a directory holds
// each partition's replica nodes. The directory is built greedily: each slot
// goes to the node furthest below its weight quota (quotas from
// IdealShares(), rounded by largest remainder), preferring a failure domain
// the partition does not use yet. On a change the previous directory is kept
// and only slots of departed nodes and the excess of over-quota nodes are
// reassigned, so movement stays close to the minimum. Weighted and
// failure-domain aware. Thread-safe after Build.
#ifndef CRUSHKIT_TOOLS_STRATEGIES_PARTITIONS_H_
#define CRUSHKIT_TOOLS_STRATEGIES_PARTITIONS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

#include "tools/strategies/strategy.h"
#include "tools/strategies/topology.h"

namespace crushkit::strategies {

class PartitionsStrategy {
 public:
  static constexpr std::string_view kName = "partitions";

  // Errors: kInvalidArgument unless 1 <= partitions <= 2^22 and
  // 1 <= replicas <= kMaxReplicas. `previous` is used only if it has the
  // same partition and replica counts. Cost: O(P * R * nodes).
  static absl::StatusOr<PartitionsStrategy> Build(const Topology& topo, const StrategyOptions& opts,
                                                  const PartitionsStrategy* previous);

  int Place(std::uint64_t key_hash, std::span<ItemId> out) const {
    const std::size_t base = static_cast<std::size_t>(FastRange(key_hash, partitions_)) * replicas_;
    const std::size_t want = out.size() < replicas_ ? out.size() : replicas_;
    int count = 0;
    for (std::size_t r = 0; r < want; ++r) {
      const ItemId id = directory_[base + r];
      if (id != crush::kItemNone) out[static_cast<std::size_t>(count++)] = id;
    }
    return count;
  }

  std::size_t MemoryBytes() const { return sizeof(*this) + directory_.capacity() * sizeof(ItemId); }

  std::uint32_t partitions() const { return partitions_; }

  std::size_t replicas() const { return replicas_; }

  // Partition p's replica r is directory()[p * replicas() + r] (kItemNone if
  // the cluster has fewer nodes than replicas).
  const std::vector<ItemId>& directory() const { return directory_; }

 private:
  std::uint32_t partitions_ = 0;
  std::size_t replicas_ = 0;
  std::vector<ItemId> directory_;
  // Nodes left above quota by the greedy fill (domain separation won over
  // balance), as (id, slots over quota), sorted by id. A rebuild tolerates
  // that much excess again, so an unchanged cluster keeps its directory.
  std::vector<std::pair<ItemId, std::int64_t>> overage_;
};

}  // namespace crushkit::strategies

#endif  // CRUSHKIT_TOOLS_STRATEGIES_PARTITIONS_H_
