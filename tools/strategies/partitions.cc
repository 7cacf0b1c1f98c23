#include "tools/strategies/partitions.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"
#include "tools/strategies/key_hash.h"

namespace crushkit::strategies {
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

absl::Status CheckOptions(const Topology& topo, const StrategyOptions& opts) {
  if (topo.nodes.empty()) return absl::InvalidArgumentError("partitions: no nodes");
  if (opts.partitions < 1 || opts.partitions > (1 << 22)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--partitions must be 1..4194304, got ", opts.partitions));
  }
  if (opts.replicas < 1 || opts.replicas > kMaxReplicas) {
    return absl::InvalidArgumentError(
        absl::StrCat("--replicas must be 1..", kMaxReplicas, ", got ", opts.replicas));
  }
  return absl::OkStatus();
}

// The directory while it is built: node indexes (-1: a hole), partition p's
// replica r at p * r_count + r, and the slots each node holds.
struct Fill {
  const Topology& topo;
  std::size_t p_count;
  std::size_t r_count;
  std::size_t per_partition;  // min(replicas, nodes)
  std::vector<std::int64_t> quota;
  std::vector<int> dir;
  std::vector<std::int64_t> assigned;

  bool SameDomain(int a, std::size_t b) const {
    return topo.nodes[static_cast<std::size_t>(a)].domain == topo.nodes[b].domain;
  }
};

// Gives up the slots of nodes over quota by more than `excess` allows: first
// slots that share a failure domain with another replica of the same
// partition (the refill can fix those), then one slot in each partition that
// has no hole yet (a partition with two holes could not give both to the same
// under-quota node), then any slots.
void ReleaseExcess(Fill& f, std::vector<std::int64_t>& excess) {
  auto release = [&](std::size_t k) {
    const auto i = static_cast<std::size_t>(f.dir[k]);
    --f.assigned[i];
    --excess[i];
    f.dir[k] = -1;
  };
  for (int pass = 0; pass < 3; ++pass) {
    for (std::size_t p = 0; p < f.p_count; ++p) {
      const std::size_t base = p * f.r_count;
      std::size_t filled = 0;
      std::size_t holes = 0;
      for (std::size_t r = 0; r < f.r_count; ++r) holes += f.dir[base + r] < 0 ? 1 : 0;
      if (pass == 1 && holes + f.per_partition > f.r_count) continue;
      for (std::size_t r = 0; r < f.r_count; ++r) {
        const int idx = f.dir[base + r];
        if (idx < 0) continue;
        if (++filled > f.per_partition) {  // the cluster shrank below R nodes
          release(base + r);
          continue;
        }
        if (excess[static_cast<std::size_t>(idx)] <= 0) continue;
        if (pass == 1 && holes + f.per_partition > f.r_count) continue;
        bool shares_domain = pass >= 1;
        for (std::size_t o = 0; o < f.r_count && !shares_domain; ++o) {
          const int other = f.dir[base + o];
          shares_domain =
              o != r && other >= 0 && f.SameDomain(other, static_cast<std::size_t>(idx));
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

// Starts from the previous directory (nodes still in `f.topo`), then frees
// what is over quota beyond the overage the previous build tolerated.
void KeepPrevious(Fill& f, const std::vector<ItemId>& previous_directory,
                  const std::vector<std::pair<ItemId, std::int64_t>>& previous_overage) {
  const std::size_t n = f.topo.nodes.size();
  for (std::size_t k = 0; k < f.dir.size(); ++k) {
    const ItemId id = previous_directory[k];
    const int idx = id == crush::kItemNone ? -1 : f.topo.IndexOf(id);
    if (idx >= 0) {
      f.dir[k] = idx;
      ++f.assigned[static_cast<std::size_t>(idx)];
    }
  }
  std::vector<std::int64_t> excess(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t tolerated = 0;
    auto it = std::lower_bound(previous_overage.begin(), previous_overage.end(),
                               std::make_pair(f.topo.nodes[i].id, std::int64_t{0}),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
    if (it != previous_overage.end() && it->first == f.topo.nodes[i].id) tolerated = it->second;
    excess[i] = std::max<std::int64_t>(0, f.assigned[i] - f.quota[i] - tolerated);
  }
  ReleaseExcess(f, excess);
}

// The node for a hole in partition `p`: an unused failure domain first, then
// the node furthest below quota, then a per-partition hash so ties spread out.
int BestNode(const Fill& f, std::size_t p) {
  const std::size_t base = p * f.r_count;
  int best = -1;
  bool best_free = false;
  std::int64_t best_deficit = 0;
  std::uint64_t best_tie = 0;
  for (std::size_t i = 0; i < f.topo.nodes.size(); ++i) {
    bool in_partition = false;
    bool domain_free = true;
    for (std::size_t o = 0; o < f.r_count; ++o) {
      const int other = f.dir[base + o];
      if (other < 0) continue;
      in_partition |= static_cast<std::size_t>(other) == i;
      domain_free &= !f.SameDomain(other, i);
    }
    if (in_partition) continue;
    const std::int64_t deficit = f.quota[i] - f.assigned[i];
    if (best >= 0) {
      if (domain_free != best_free) {
        if (!domain_free) continue;
      } else if (deficit != best_deficit) {
        if (deficit < best_deficit) continue;
      } else {
        const std::uint64_t tie = Hash2(p, static_cast<std::uint32_t>(f.topo.nodes[i].id));
        if (tie >= best_tie) continue;
      }
    }
    best = static_cast<int>(i);
    best_free = domain_free;
    best_deficit = deficit;
    best_tie = Hash2(p, static_cast<std::uint32_t>(f.topo.nodes[i].id));
  }
  return best;
}

// Fills every empty slot up to min(replicas, nodes) per partition.
void FillHoles(Fill& f) {
  for (std::size_t p = 0; p < f.p_count; ++p) {
    const std::size_t base = p * f.r_count;
    std::size_t filled = 0;
    for (std::size_t r = 0; r < f.r_count; ++r) filled += f.dir[base + r] >= 0 ? 1 : 0;
    for (std::size_t r = 0; r < f.r_count && filled < f.per_partition; ++r) {
      if (f.dir[base + r] >= 0) continue;
      const int best = BestNode(f, p);
      f.dir[base + r] = best;
      ++f.assigned[static_cast<std::size_t>(best)];
      ++filled;
    }
  }
}

}  // namespace

absl::StatusOr<PartitionsStrategy> PartitionsStrategy::Build(const Topology& topo,
                                                             const StrategyOptions& opts,
                                                             const PartitionsStrategy* previous) {
  CRUSH_RETURN_IF_ERROR(CheckOptions(topo, opts));
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
  Fill f{.topo = topo,
         .p_count = p_count,
         .r_count = r_count,
         .per_partition = per_partition,
         .quota = Quotas(IdealShares(topo, opts.replicas),
                         static_cast<std::int64_t>(p_count * per_partition)),
         .dir = std::vector<int>(p_count * r_count, -1),
         .assigned = std::vector<std::int64_t>(n, 0)};
  if (previous != nullptr && previous->partitions_ == p_count && previous->replicas_ == r_count) {
    KeepPrevious(f, previous->directory_, previous->overage_);
  }
  FillHoles(f);

  PartitionsStrategy s;
  s.partitions_ = static_cast<std::uint32_t>(p_count);
  s.replicas_ = r_count;
  // The directory held node indexes while building; ids are written now.
  s.directory_.assign(p_count * r_count, crush::kItemNone);
  for (std::size_t k = 0; k < f.dir.size(); ++k) {
    if (f.dir[k] >= 0) s.directory_[k] = topo.nodes[static_cast<std::size_t>(f.dir[k])].id;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (f.assigned[i] > f.quota[i]) {
      s.overage_.emplace_back(topo.nodes[i].id, f.assigned[i] - f.quota[i]);
    }
  }
  return s;
}

}  // namespace crushkit::strategies
