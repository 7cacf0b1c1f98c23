#include "tools/strategies/ring.h"

#include <cmath>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"

#include "tools/strategies/key_hash.h"

namespace crushkit::strategies {

absl::StatusOr<RingStrategy> RingStrategy::Build(const Topology& topo, const StrategyOptions& opts,
                                                 const RingStrategy*) {
  if (topo.nodes.empty()) return absl::InvalidArgumentError("ring: no nodes");
  if (opts.vnodes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("--vnodes must be >= 1, got ", opts.vnodes));
  }
  const double mean = topo.total_weight() / static_cast<double>(topo.nodes.size());
  std::vector<std::pair<std::uint64_t, ItemId>> points;
  std::vector<long long> counts;
  long long total = 0;
  for (const Node& n : topo.nodes) {
    const long long v = std::max(1LL, std::llround(opts.vnodes * n.weight / mean));
    counts.push_back(v);
    total += v;
    if (total > (1LL << 26)) {
      return absl::InvalidArgumentError(
          absl::StrCat("ring: more than 2^26 virtual nodes; lower --vnodes (", opts.vnodes, ")"));
    }
  }
  points.reserve(static_cast<std::size_t>(total));
  const std::uint64_t salt = Mix64(opts.seed ^ 0x72696e67ULL);  // "ring"
  for (std::size_t i = 0; i < topo.nodes.size(); ++i) {
    const auto id = static_cast<std::uint32_t>(topo.nodes[i].id);
    for (long long j = 0; j < counts[i]; ++j) {
      points.emplace_back(Hash2(salt, (std::uint64_t{id} << 32) | static_cast<std::uint64_t>(j)),
                          topo.nodes[i].id);
    }
  }
  std::sort(points.begin(), points.end());
  RingStrategy s;
  s.positions_.reserve(points.size());
  s.owners_.reserve(points.size());
  for (const auto& [pos, id] : points) {
    s.positions_.push_back(pos);
    s.owners_.push_back(id);
  }
  return s;
}

std::vector<double> RingStrategy::ArcShares(const Topology& topo) const {
  std::vector<double> shares(topo.nodes.size(), 0.0);
  const std::size_t points = positions_.size();
  for (std::size_t i = 0; i < points; ++i) {
    // Point i owns the arc (positions_[i-1], positions_[i]]; unsigned
    // subtraction wraps around the circle for i == 0.
    const std::uint64_t prev = positions_[(i + points - 1) % points];
    const std::uint64_t arc = points == 1 ? ~std::uint64_t{0} : positions_[i] - prev;
    const int idx = topo.IndexOf(owners_[i]);
    if (idx >= 0)
      shares[static_cast<std::size_t>(idx)] += static_cast<double>(arc) / 18446744073709551616.0;
  }
  return shares;
}

}  // namespace crushkit::strategies
