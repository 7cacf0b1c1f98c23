// The move search of PoolBalancer (upmap_balancer_pool.h): which PG goes
// from which OSD to which, checked against the rule; the pool's state and
// the moves' bookkeeping are in upmap_balancer_pool.cc.
#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "osdmap/balancer/upmap_balancer_pool.h"

namespace crushkit::osdmap::internal {
bool PoolBalancer::Fits(std::uint32_t ps, int pos, std::int32_t to) {
  if (!CanTarget(to)) return false;
  OsdList set;
  set.assign(Set(ps));
  const std::int32_t d = domain_[Idx(to)];
  for (int i = 0; i < set.size(); ++i) {
    if (i == pos) continue;
    if (set[i] == to) return false;
    // The cheap failure-domain test first; Verify() below is the full one.
    if (d != 0 && domain_[Idx(set[i])] == d) return false;
  }
  // Ceph's _apply_upmap skips a pair whose target is already in the raw
  // set: `to` mapped away by a pair of this PG (other than the one the move
  // drops, `to -> from`) would be.
  if (auto it = state_.pg_upmap_items.find(PgId{pool_.id, ps}); it != state_.pg_upmap_items.end()) {
    for (const auto& [a, b] : it->second) {
      if (a == to && b != set[pos]) return false;
    }
  }
  set[pos] = to;
  return verifier_.Verify(rule_, static_cast<int>(pool_.size), set.span()) == UpmapVerdict::kOk;
}

bool PoolBalancer::Useful(std::int32_t from, std::int32_t to, double unit) const {
  // Lowers the sum of squares (the change is 2u(dev_to - dev_from + u)),
  // and moves an OSD that is past the threshold.
  return Dev(from) - Dev(to) > unit && (Dev(from) > threshold_ || Dev(to) < -threshold_);
}

std::optional<PoolBalancer::Move> PoolBalancer::FindDropOnto(std::int32_t osd) {
  std::optional<Move> best;
  for (std::uint32_t ps : pgs_of_[Idx(osd)]) {
    if (frozen_[ps]) continue;
    auto it = state_.pg_upmap_items.find(PgId{pool_.id, ps});
    if (it == state_.pg_upmap_items.end()) continue;
    for (const auto& [from, to] : it->second) {
      if (to != osd || from < 0 || Idx(from) >= counts_.size()) continue;
      if (!Useful(osd, from, units_[ps])) continue;
      if (best && Dev(from) >= Dev(best->to)) continue;
      // The slot goes back to `from`, which must still fit the rule (the
      // PG's other members may have moved into its failure domain).
      const int pos = PositionOf(ps, osd);
      if (pos >= 0 && Fits(ps, pos, from)) best = Move{ps, pos, osd, from};
    }
  }
  return best;
}

std::optional<PoolBalancer::Move> PoolBalancer::FindRemapFrom(std::int32_t osd,
                                                              std::span<const std::int32_t> under) {
  for (std::int32_t to : under) {
    if (Dev(osd) - Dev(to) <= 0 || !(Dev(osd) > threshold_ || Dev(to) < -threshold_)) break;
    // PGs that already have pg_upmap_items first: a pair added to (or
    // rewritten in) an existing entry does not add an entry, so the same
    // moves need fewer `pg-upmap-items` entries and commands.
    for (const bool with_items : {true, false}) {
      for (std::uint32_t ps : pgs_of_[Idx(osd)]) {
        if (frozen_[ps] || !Useful(osd, to, units_[ps])) continue;
        auto it = state_.pg_upmap_items.find(PgId{pool_.id, ps});
        const bool has_items = it != state_.pg_upmap_items.end();
        if (has_items != with_items) continue;
        // A new pair needs a free slot; rewriting a pair (x -> osd) does not.
        if (has_items && it->second.size() >= pool_.size &&
            std::none_of(it->second.begin(), it->second.end(),
                         [&](const auto& p) { return p.second == osd; })) {
          continue;
        }
        const int pos = PositionOf(ps, osd);
        if (pos >= 0 && Fits(ps, pos, to)) return Move{ps, pos, osd, to};
      }
    }
  }
  return std::nullopt;
}

std::optional<PoolBalancer::Move> PoolBalancer::FindDropFrom(std::int32_t osd) {
  std::optional<Move> best;
  const auto begin = state_.pg_upmap_items.lower_bound(PgId{pool_.id, 0});
  for (auto it = begin; it != state_.pg_upmap_items.end() && it->first.pool == pool_.id; ++it) {
    const std::uint32_t ps = it->first.ps;
    if (ps >= set_len_.size() || frozen_[ps]) continue;
    for (const auto& [from, to] : it->second) {
      if (from != osd || to < 0 || Idx(to) >= counts_.size()) continue;
      if (!Useful(to, osd, units_[ps]) || (best && Dev(to) <= Dev(best->from))) continue;
      const int pos = PositionOf(ps, to);
      if (pos >= 0 && Fits(ps, pos, osd)) best = Move{ps, pos, to, osd};
    }
  }
  return best;
}

std::optional<PoolBalancer::Move> PoolBalancer::Search(std::span<const std::int32_t> over,
                                                       std::span<const std::int32_t> under) {
  const bool deep_under = !under.empty() && Dev(under.front()) < -threshold_;
  for (std::int32_t osd : over) {
    if (Dev(osd) <= threshold_ && !deep_under) break;
    // Taking back an existing pair first: the PG returns toward CRUSH's
    // own choice and the item count shrinks (calc_pg_upmaps does the same).
    if (auto m = FindDropOnto(osd)) return m;
    if (auto m = FindRemapFrom(osd, under)) return m;
  }
  for (std::int32_t osd : under) {
    if (Dev(osd) >= -threshold_) break;
    if (auto m = FindDropFrom(osd)) return m;
  }
  return std::nullopt;
}

std::optional<PoolBalancer::Move> PoolBalancer::FindMove() {
  std::vector<std::int32_t> over;
  std::vector<std::int32_t> under;
  for (std::size_t o = 0; o < counts_.size(); ++o) {
    const auto id = static_cast<std::int32_t>(o);
    if (counts_[o] > 0 && Dev(id) > 0) over.push_back(id);
    if (eligible_[o] && Dev(id) < 0) under.push_back(id);
  }
  const auto by_dev = [this](bool desc) {
    return [this, desc](std::int32_t a, std::int32_t b) {
      if (Dev(a) != Dev(b)) return desc ? Dev(a) > Dev(b) : Dev(a) < Dev(b);
      return a < b;
    };
  };
  // Nearly every move comes from the first few OSDs of each list, so only
  // their heads are ordered (partial_sort), and the whole lists only when
  // the heads yield nothing: at 10,000 OSDs the two full sorts were most of
  // a move's cost.
  constexpr std::size_t kHead = 64;
  for (const std::size_t head : {kHead, std::max(over.size(), under.size())}) {
    const std::size_t n_over = std::min(head, over.size());
    const std::size_t n_under = std::min(head, under.size());
    std::partial_sort(over.begin(), over.begin() + static_cast<std::ptrdiff_t>(n_over), over.end(),
                      by_dev(true));
    std::partial_sort(under.begin(), under.begin() + static_cast<std::ptrdiff_t>(n_under),
                      under.end(), by_dev(false));
    if (auto m = Search(std::span(over).first(n_over), std::span(under).first(n_under))) return m;
    if (n_over == over.size() && n_under == under.size()) break;
  }
  return std::nullopt;
}

}  // namespace crushkit::osdmap::internal
