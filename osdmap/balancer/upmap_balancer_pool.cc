// One pool's incremental balance (see upmap_balancer_pool.h): the pool's
// counts, targets and sets, and applying a move; the search for moves is
// upmap_balancer_search.cc.
#include "osdmap/balancer/upmap_balancer_pool.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "crush/types.h"
#include "osdmap/model/rule_weights.h"

namespace crushkit::osdmap::internal {
namespace {

// The type whose buckets hold at most one replica: the first chooseleaf
// step's type, else the last choose step's type above devices. 0: none.
int DomainType(const crush::Rule& rule) {
  int type = 0;
  for (const crush::RuleStep& s : rule.steps) {
    if ((s.op == crush::RuleOp::kChooseleafFirstn || s.op == crush::RuleOp::kChooseleafIndep) &&
        s.arg2 > 0) {
      return s.arg2;
    }
    if ((s.op == crush::RuleOp::kChooseFirstn || s.op == crush::RuleOp::kChooseIndep) &&
        s.arg2 > 0) {
      type = s.arg2;
    }
  }
  return type;
}

}  // namespace

std::vector<double> PgUnits(const ClusterState& state, const Pool& pool, BalanceBy by) {
  std::vector<double> units(pool.pg_num, 1.0);
  if (by == BalanceBy::kPgs) return units;
  // An EC shard holds 1/k of the PG's logical bytes; a replica all of them.
  const double shards =
      pool.type == PoolType::kErasure && pool.ec_k > 0 ? static_cast<double>(pool.ec_k) : 1.0;
  std::optional<double> fallback;
  if (auto it = state.pool_usage.find(pool.id); it != state.pool_usage.end() && pool.pg_num > 0) {
    fallback = static_cast<double>(it->second.stored_bytes) / pool.pg_num;
  }
  bool any = false;
  for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
    double bytes = 0;
    if (auto it = state.pg_stats.find(PgId{pool.id, ps}); it != state.pg_stats.end()) {
      bytes = static_cast<double>(it->second.num_bytes + it->second.num_omap_bytes);
      any = true;
    } else if (fallback) {
      bytes = *fallback;
      any = true;
    }
    units[ps] = bytes / shards;
  }
  if (!any) units.clear();
  return units;
}

DeviationStats ComputeStats(const std::vector<double>& counts, const std::vector<double>& targets) {
  DeviationStats s;
  double sum_sq = 0;
  for (std::size_t o = 0; o < counts.size(); ++o) {
    if (targets[o] <= 0 && counts[o] <= 0) continue;
    const double dev = counts[o] - targets[o];
    const auto id = static_cast<std::int32_t>(o);
    if (s.osds == 0 || dev > s.max_deviation) {
      s.max_deviation = dev;
      s.max_osd = id;
    }
    if (s.osds == 0 || dev < s.min_deviation) {
      s.min_deviation = dev;
      s.min_osd = id;
    }
    sum_sq += dev * dev;
    ++s.osds;
  }
  if (s.osds > 0) s.stddev = std::sqrt(sum_sq / s.osds);
  return s;
}

PoolBalancer::PoolBalancer(ClusterState& state, const Pool& pool, const PoolPgTable& sets,
                           PgMapper& mapper, UpmapVerifier& verifier, std::vector<double> units,
                           double max_deviation_pgs, std::uint64_t seed)
    : state_(state), pool_(pool), mapper_(mapper), verifier_(verifier), units_(std::move(units)) {
  const auto n = static_cast<std::size_t>(state.max_osd());
  counts_.assign(n, 0);
  targets_.assign(n, 0);
  eligible_.assign(n, false);
  domain_.assign(n, 0);
  pgs_of_.resize(n);
  if (!SetTargets(max_deviation_pgs)) return;
  LoadSets(sets, seed);
  usable_ = true;
}

bool PoolBalancer::SetTargets(double max_deviation_pgs) {
  const ClusterState& state = state_;
  const Pool& pool = pool_;
  const std::size_t n = targets_.size();
  // The pool's crush_rule as a rule id, as check_pg_upmaps() and
  // verify_upmap() take it: a change the cleanup would cancel is useless.
  rule_ = pool.crush_rule;
  const crush::MapModel& map = state.crush;
  if (rule_ < 0 || rule_ >= map.max_rules() || !map.rule_exists[static_cast<std::size_t>(rule_)] ||
      units_.size() != pool.pg_num || pool.pg_num == 0) {
    return false;
  }
  auto weights = RuleWeightOsdMap(map, rule_);
  if (!weights.ok()) return false;
  domain_type_ = DomainType(map.rules[static_cast<std::size_t>(rule_)]);

  // calc_pg_upmaps(): osd_weight = reweight x rule share (float), zero and
  // NaN shares skipped; target = osd_weight / total x size x pg_num.
  double weight_total = 0;
  for (const auto& [osd, share] : *weights) {
    if (osd < 0 || Idx(osd) >= n || !state.Exists(osd)) continue;
    const float w = static_cast<float>(state.osds[Idx(osd)].weight) / 65536.0f * share;
    if (!(w > 0)) continue;
    targets_[Idx(osd)] = w;
    weight_total += w;
    eligible_[Idx(osd)] = state.IsUp(osd) && state.IsIn(osd);
    if (domain_type_ > 0) domain_[Idx(osd)] = verifier_.ParentOfType(osd, domain_type_, rule_);
  }
  double unit_total = 0;
  for (double u : units_) unit_total += u;
  if (weight_total <= 0 || unit_total <= 0) return false;
  const double total = unit_total * pool.size;
  for (double& t : targets_) t = t / weight_total * total;
  threshold_ = std::max(1.0, max_deviation_pgs) * unit_total / pool.pg_num;
  return true;
}

void PoolBalancer::LoadSets(const PoolPgTable& sets, std::uint64_t seed) {
  const ClusterState& state = state_;
  const Pool& pool = pool_;
  const std::size_t n = counts_.size();
  // Flat, pool size slots per PG: 13 bytes a PG for size 3 (an OsdList
  // would take 132, 170 MB for a 1.28M-PG pool).
  width_ = static_cast<int>(pool.size);
  set_osds_.assign(static_cast<std::size_t>(pool.pg_num) * pool.size, crush::kItemNone);
  set_len_.assign(pool.pg_num, 0);
  frozen_.assign(pool.pg_num, false);
  // Each OSD's PG list allocated once at its final size rather than grown
  // by doubling (~7 allocations an OSD per pool).
  std::vector<std::uint32_t> shards(n, 0);
  for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
    for (std::int32_t osd : sets.RawUpmap(ps)) {
      if (osd >= 0 && Idx(osd) < n) ++shards[Idx(osd)];
    }
  }
  for (std::size_t o = 0; o < n; ++o) pgs_of_[o].reserve(shards[o]);
  OsdList set;
  for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
    const PgId pg{pool.id, ps};
    set.assign(sets.RawUpmap(ps));
    // calc_pg_upmaps() never touches a pg_upmap PG (whose list may be
    // longer than the pool size); one with a hole would be cancelled by
    // the cleanup as soon as it has an upmap (checked below).
    // PGs that merge away or receive a merge lose their upmaps in the
    // monitor's cleanup (check_pg_upmaps), so they are not moved either.
    frozen_[ps] = state.pg_upmap.contains(pg) || set.size() > width_ || ps >= pool.PgNumPending() ||
                  pool.IsPendingMerge(ps);
    if (!frozen_[ps]) Store(ps, set);
    for (std::int32_t osd : set.span()) {
      if (osd == crush::kItemNone || osd < 0 || Idx(osd) >= n) {
        frozen_[ps] = true;
        continue;
      }
      pgs_of_[Idx(osd)].push_back(ps);
      // The up set: down OSDs hold nothing (pg_to_up_acting_osds()).
      if (state.IsUp(osd)) counts_[Idx(osd)] += units_[ps];
    }
  }
  if (seed != 0) {
    std::mt19937_64 rng(seed ^ (static_cast<std::uint64_t>(pool.id) * 0x9e3779b97f4a7c15ull));
    // std::shuffle's draws are implementation-defined; Fisher-Yates on the
    // raw engine output is the same everywhere.
    for (auto& pgs : pgs_of_) {
      for (std::size_t i = pgs.size(); i > 1; --i) std::swap(pgs[i - 1], pgs[rng() % i]);
    }
  }
}

double PoolBalancer::Badness() const {
  if (!usable_) return 0;
  double worst = 0;
  for (std::size_t o = 0; o < counts_.size(); ++o) {
    const double dev = counts_[o] - targets_[o];
    if (dev > worst) worst = dev;
    if (eligible_[o] && -dev > worst) worst = -dev;
  }
  return worst / threshold_;
}

std::span<const std::int32_t> PoolBalancer::Set(std::uint32_t ps) const {
  return {set_osds_.data() + static_cast<std::size_t>(ps) * static_cast<std::size_t>(width_),
          set_len_[ps]};
}

void PoolBalancer::Store(std::uint32_t ps, const OsdList& set) {
  std::copy(set.span().begin(), set.span().end(),
            set_osds_.begin() + static_cast<std::ptrdiff_t>(ps) * width_);
  set_len_[ps] = static_cast<std::uint8_t>(set.size());
}

int PoolBalancer::PositionOf(std::uint32_t ps, std::int32_t osd) const {
  const std::span<const std::int32_t> set = Set(ps);
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (set[i] == osd) return static_cast<int>(i);
  }
  return -1;
}

bool PoolBalancer::Step() {
  if (!usable_) return false;
  // A move whose re-mapping disagrees freezes its PG; search again.
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::optional<Move> m = FindMove();
    if (!m) return false;
    if (Apply(*m)) return true;
  }
  return false;
}

bool PoolBalancer::Apply(const Move& m) {
  const PgId pg{pool_.id, m.ps};
  UpmapItems& items = state_.pg_upmap_items[pg];
  const UpmapItems saved = items;
  // Rewrite a pair that put `from` here rather than chain a second one
  // (x -> from, from -> to); a pair that would map an OSD to itself goes.
  auto it =
      std::find_if(items.begin(), items.end(), [&](const auto& p) { return p.second == m.from; });
  if (it == items.end()) {
    items.emplace_back(m.from, m.to);
  } else if (it->first == m.to) {
    items.erase(it);
  } else {
    it->second = m.to;
  }
  if (items.empty()) state_.pg_upmap_items.erase(pg);
  OsdList raw;
  OsdList got;
  mapper_.PgToRawUpmap(pg, &raw, &got);
  OsdList expect;
  expect.assign(Set(m.ps));
  expect[m.pos] = m.to;
  if (!(got == expect)) {
    if (saved.empty()) {
      state_.pg_upmap_items.erase(pg);
    } else {
      state_.pg_upmap_items[pg] = saved;
    }
    frozen_[m.ps] = true;
    ++mismatches_;
    return false;
  }
  Store(m.ps, got);
  last_move_ = m;
  ++applied_;
  const double u = units_[m.ps];
  if (state_.IsUp(m.from)) counts_[Idx(m.from)] -= u;
  counts_[Idx(m.to)] += u;
  auto& from_pgs = pgs_of_[Idx(m.from)];
  from_pgs.erase(std::find(from_pgs.begin(), from_pgs.end(), m.ps));
  pgs_of_[Idx(m.to)].push_back(m.ps);
  return true;
}

double PoolBalancer::MaxAbsDeviation() const {
  double worst = 0;
  for (std::size_t o = 0; o < counts_.size(); ++o) {
    if (eligible_[o] || counts_[o] > 0)
      worst = std::max(worst, std::fabs(counts_[o] - targets_[o]));
  }
  return worst;
}

bool PoolBalancer::CanMove(std::uint32_t ps, int pos, std::int32_t to) {
  if (!Movable(ps) || pos < 0 || pos >= set_len_[ps]) return false;
  const std::int32_t from = Set(ps)[static_cast<std::size_t>(pos)];
  // A new pair needs a free slot; rewriting a pair (x -> from) does not.
  if (auto it = state_.pg_upmap_items.find(PgId{pool_.id, ps});
      it != state_.pg_upmap_items.end() && it->second.size() >= pool_.size &&
      std::none_of(it->second.begin(), it->second.end(),
                   [&](const auto& p) { return p.second == from; })) {
    return false;
  }
  return Fits(ps, pos, to);
}

bool PoolBalancer::MovePg(std::uint32_t ps, int pos, std::int32_t from, std::int32_t to) {
  return Apply(Move{ps, pos, from, to});
}

}  // namespace crushkit::osdmap::internal
