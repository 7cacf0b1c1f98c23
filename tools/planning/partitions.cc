#include "tools/planning/partitions.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"

#include "tools/planning/key_hash.h"

namespace crushkit::planning {
namespace {

// Integer slot quotas summing exactly to `total`, proportional to `shares`
// (largest remainder; ties to the lower index).
std::vector<std::int64_t> Quotas(const std::vector<double>& shares, std::int64_t total) {
  std::vector<std::int64_t> q(shares.size());
  std::vector<std::pair<double, std::size_t>> rem;
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const double t = shares[i] * static_cast<double>(total);
    q[i] = static_cast<std::int64_t>(std::floor(t));
    sum += q[i];
    rem.emplace_back(-(t - static_cast<double>(q[i])), i);
  }
  std::sort(rem.begin(), rem.end());
  for (std::size_t k = 0; sum < total && k < rem.size(); ++k, ++sum) ++q[rem[k].second];
  return q;
}

}  // namespace

absl::StatusOr<PartitionsStrategy> PartitionsStrategy::Build(const Topology& topo,
                                                             const StrategyOptions& opts,
                                                             const PartitionsStrategy* previous) {
  if (topo.nodes.empty()) return absl::InvalidArgumentError("partitions: no nodes");
  if (opts.partitions < 1 || opts.partitions > (1 << 22)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--partitions must be 1..4194304, got ", opts.partitions));
  }
  if (opts.replicas < 1 || opts.replicas > kMaxReplicas) {
    return absl::InvalidArgumentError(
        absl::StrCat("--replicas must be 1..", kMaxReplicas, ", got ", opts.replicas));
  }
  const auto p_count = static_cast<std::size_t>(opts.partitions);
  const auto r_count = static_cast<std::size_t>(opts.replicas);
  const std::size_t n = topo.nodes.size();
  const std::size_t per_partition = std::min(r_count, n);
  // The greedy fill scans every node for every slot; keep that bounded.
  if (static_cast<double>(p_count) * static_cast<double>(per_partition) * static_cast<double>(n) >
      2e9) {
    return absl::InvalidArgumentError(
        absl::StrCat("partitions: ", p_count, " partitions x ", per_partition, " replicas x ", n,
                     " nodes is too much work for the greedy directory; lower --partitions"));
  }
  const std::vector<std::int64_t> quota =
      Quotas(IdealShares(topo, opts.replicas), static_cast<std::int64_t>(p_count * per_partition));

  PartitionsStrategy s;
  s.partitions_ = static_cast<std::uint32_t>(p_count);
  s.replicas_ = r_count;
  s.directory_.assign(p_count * r_count, crush::kItemNone);
  // The directory holds node indexes while building; ids are written at the end.
  std::vector<int> dir(p_count * r_count, -1);
  std::vector<std::int64_t> assigned(n, 0);

  if (previous != nullptr && previous->partitions_ == p_count && previous->replicas_ == r_count) {
    for (std::size_t k = 0; k < dir.size(); ++k) {
      const ItemId id = previous->directory_[k];
      const int idx = id == crush::kItemNone ? -1 : topo.IndexOf(id);
      if (idx >= 0) {
        dir[k] = idx;
        ++assigned[static_cast<std::size_t>(idx)];
      }
    }
    std::vector<std::int64_t> excess(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::int64_t tolerated = 0;
      auto it = std::lower_bound(previous->overage_.begin(), previous->overage_.end(),
                                 std::make_pair(topo.nodes[i].id, std::int64_t{0}),
                                 [](const auto& a, const auto& b) { return a.first < b.first; });
      if (it != previous->overage_.end() && it->first == topo.nodes[i].id) tolerated = it->second;
      excess[i] = std::max<std::int64_t>(0, assigned[i] - quota[i] - tolerated);
    }
    auto release = [&](std::size_t k) {
      const auto i = static_cast<std::size_t>(dir[k]);
      --assigned[i];
      --excess[i];
      dir[k] = -1;
    };
    // First give up slots that share a failure domain with another replica of
    // the same partition (the refill can fix those), then one slot in each
    // partition that has no hole yet (a partition with two holes could not
    // give both to the same under-quota node), then any slots.
    for (int pass = 0; pass < 3; ++pass) {
      for (std::size_t p = 0; p < p_count; ++p) {
        const std::size_t base = p * r_count;
        std::size_t filled = 0;
        std::size_t holes = 0;
        for (std::size_t r = 0; r < r_count; ++r) holes += dir[base + r] < 0 ? 1 : 0;
        if (pass == 1 && holes + per_partition > r_count) continue;
        for (std::size_t r = 0; r < r_count; ++r) {
          const int idx = dir[base + r];
          if (idx < 0) continue;
          if (++filled > per_partition) {  // the cluster shrank below R nodes
            release(base + r);
            continue;
          }
          if (excess[static_cast<std::size_t>(idx)] <= 0) continue;
          if (pass == 1 && holes + per_partition > r_count) continue;
          bool shares_domain = pass >= 1;
          for (std::size_t o = 0; o < r_count && !shares_domain; ++o) {
            const int other = dir[base + o];
            shares_domain = o != r && other >= 0 &&
                            topo.nodes[static_cast<std::size_t>(other)].domain ==
                                topo.nodes[static_cast<std::size_t>(idx)].domain;
          }
          if (shares_domain) {
            release(base + r);
            --filled;
            ++holes;
          }
        }
      }
    }
  }

  // Fill every empty slot: an unused failure domain first, then the node
  // furthest below quota, then a per-partition hash so ties spread out.
  for (std::size_t p = 0; p < p_count; ++p) {
    const std::size_t base = p * r_count;
    std::size_t filled = 0;
    for (std::size_t r = 0; r < r_count; ++r) filled += dir[base + r] >= 0 ? 1 : 0;
    for (std::size_t r = 0; r < r_count && filled < per_partition; ++r) {
      if (dir[base + r] >= 0) continue;
      int best = -1;
      bool best_free = false;
      std::int64_t best_deficit = 0;
      std::uint64_t best_tie = 0;
      for (std::size_t i = 0; i < n; ++i) {
        bool in_partition = false;
        bool domain_free = true;
        for (std::size_t o = 0; o < r_count; ++o) {
          const int other = dir[base + o];
          if (other < 0) continue;
          in_partition |= static_cast<std::size_t>(other) == i;
          domain_free &= topo.nodes[static_cast<std::size_t>(other)].domain != topo.nodes[i].domain;
        }
        if (in_partition) continue;
        const std::int64_t deficit = quota[i] - assigned[i];
        if (best >= 0) {
          if (domain_free != best_free) {
            if (!domain_free) continue;
          } else if (deficit != best_deficit) {
            if (deficit < best_deficit) continue;
          } else {
            const std::uint64_t tie = Hash2(p, static_cast<std::uint32_t>(topo.nodes[i].id));
            if (tie >= best_tie) continue;
          }
        }
        best = static_cast<int>(i);
        best_free = domain_free;
        best_deficit = deficit;
        best_tie = Hash2(p, static_cast<std::uint32_t>(topo.nodes[i].id));
      }
      dir[base + r] = best;
      ++assigned[static_cast<std::size_t>(best)];
      ++filled;
    }
  }
  for (std::size_t k = 0; k < dir.size(); ++k) {
    if (dir[k] >= 0) s.directory_[k] = topo.nodes[static_cast<std::size_t>(dir[k])].id;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (assigned[i] > quota[i]) s.overage_.emplace_back(topo.nodes[i].id, assigned[i] - quota[i]);
  }
  return s;
}

}  // namespace crushkit::planning
