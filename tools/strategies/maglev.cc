#include "tools/strategies/maglev.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

#include "tools/strategies/key_hash.h"

namespace crushkit::strategies {

bool IsPrime(std::uint32_t n) {
  if (n < 2) return false;
  for (std::uint64_t d = 2; d * d <= n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

absl::StatusOr<MaglevStrategy> MaglevStrategy::Build(const Topology& topo,
                                                     const StrategyOptions& opts,
                                                     const MaglevStrategy*) {
  const std::uint32_t m = opts.maglev_size;
  const std::size_t n = topo.nodes.size();
  if (n == 0) return absl::InvalidArgumentError("maglev: no nodes");
  if (m > (1u << 24) || m < n || !IsPrime(m)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--maglev-size must be a prime between the node count (", n, ") and 2^24, got ", m));
  }
  const std::uint64_t salt = Mix64(opts.seed ^ 0x6d61676c6576ULL);  // "maglev"
  std::vector<std::uint32_t> pos(n), skip(n);
  std::vector<double> credit(n, 0.0), share(n);
  double max_w = 0;
  for (const Node& node : topo.nodes) max_w = std::max(max_w, node.weight);
  for (std::size_t i = 0; i < n; ++i) {
    const auto id = static_cast<std::uint32_t>(topo.nodes[i].id);
    pos[i] = static_cast<std::uint32_t>(Hash2(salt, id) % m);
    skip[i] = static_cast<std::uint32_t>(Hash2(salt + 1, id) % (m - 1) + 1);
    share[i] = topo.nodes[i].weight / max_w;
  }
  MaglevStrategy s;
  s.table_.assign(m, crush::kItemNone);
  std::uint32_t filled = 0;
  while (filled < m) {
    for (std::size_t i = 0; i < n && filled < m; ++i) {
      credit[i] += share[i];
      if (credit[i] < 1.0) continue;
      credit[i] -= 1.0;
      // The node's permutation visits every slot once (m prime, skip != 0),
      // so this finds a free slot within m steps.
      while (s.table_[pos[i]] != crush::kItemNone) {
        pos[i] += skip[i];
        if (pos[i] >= m) pos[i] -= m;
      }
      s.table_[pos[i]] = topo.nodes[i].id;
      ++filled;
    }
  }
  return s;
}

}  // namespace crushkit::strategies
