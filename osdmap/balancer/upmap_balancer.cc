// BalanceUpmaps(): the cleanup, one PoolBalancer per pool, the shared move
// budget, and the changes as a diff of pg_upmap_items.
#include "osdmap/balancer/upmap_balancer.h"

#include <algorithm>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"

#include "crush/map.h"
#include "crush/status_macros.h"
#include "crush/util/chunk_pipeline.h"
#include "osdmap/balancer/upmap_balancer_bytes.h"
#include "osdmap/balancer/upmap_balancer_pool.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/model/pool_max_avail.h"
#include "osdmap/model/upmap_verify.h"

namespace crushkit::osdmap {
namespace {

using internal::ComputeStats;
using internal::PoolBalancer;

absl::StatusOr<std::vector<std::int64_t>> SelectPools(const ClusterState& state,
                                                      const BalancerOptions& options) {
  std::set<std::int64_t> ids;
  for (std::int64_t id : options.pools) {
    if (state.FindPool(id) == nullptr) return absl::NotFoundError(absl::StrCat("no pool ", id));
    ids.insert(id);
  }
  if (options.pools.empty()) {
    for (const auto& [id, pool] : state.pools) ids.insert(id);
  }
  return std::vector<std::int64_t>(ids.begin(), ids.end());
}

DeviationStats OverallStats(const std::vector<std::unique_ptr<PoolBalancer>>& pools,
                            std::size_t max_osd) {
  std::vector<double> counts(max_osd, 0);
  std::vector<double> targets(max_osd, 0);
  for (const auto& p : pools) {
    if (!p->usable()) continue;
    for (std::size_t o = 0; o < max_osd; ++o) {
      counts[o] += p->counts()[o];
      targets[o] += p->targets()[o];
    }
  }
  return ComputeStats(counts, targets);
}

using UpmapItemsMap = decltype(ClusterState::pg_upmap_items);

std::vector<UpmapChange> DiffItems(const UpmapItemsMap& before, const UpmapItemsMap& after,
                                   const std::vector<std::int64_t>& pools) {
  std::vector<UpmapChange> changes;
  for (std::int64_t pool : pools) {
    std::set<PgId> pgs;
    for (const auto* m : {&before, &after}) {
      for (auto it = m->lower_bound(PgId{pool, 0}); it != m->end() && it->first.pool == pool;
           ++it) {
        pgs.insert(it->first);
      }
    }
    for (const PgId& pg : pgs) {
      UpmapChange c{pg, {}, {}};
      if (auto it = before.find(pg); it != before.end()) c.old_items = it->second;
      if (auto it = after.find(pg); it != after.end()) {
        c.new_items = it->second;
      }
      if (c.old_items != c.new_items) changes.push_back(std::move(c));
    }
  }
  return changes;
}

// The bytes phase's figures: classes, and per pool MAX AVAIL over the fill
// before and after, and the PG count deviation.
absl::StatusOr<BytesBalance> BytesReport(
    const ClusterState& state, const internal::BytesBalancer& fill,
    const std::vector<std::unique_ptr<PoolBalancer>>& balancers,
    const std::vector<std::int64_t>& pool_ids, const std::vector<double>& deviation_before,
    double max_spread) {
  BytesBalance out;
  out.capacity_from_osd_df = fill.capacity_from_osd_df();
  out.max_spread = max_spread;
  out.classes = fill.Classes();
  CRUSH_ASSIGN_OR_RETURN(const MaxAvailModel model, MaxAvailModel::Create(state));
  const std::vector<PoolMaxAvail> before = model.Compute(fill.base_usage());
  const std::vector<PoolMaxAvail> after =
      model.Compute(ShiftUsage(fill.base_usage(), fill.DeltaBytes()));
  for (std::size_t i = 0; i < pool_ids.size(); ++i) {
    PoolBytesBalance p;
    p.pool_id = pool_ids[i];
    p.name = state.pools.at(pool_ids[i]).name;
    for (std::size_t k = 0; k < before.size(); ++k) {
      if (before[k].pool_id != p.pool_id) continue;
      p.max_avail_before = before[k].max_avail_bytes;
      p.max_avail_after = after[k].max_avail_bytes;
      const auto osd_or_none = [](std::int32_t o) { return o == crush::kItemNone ? -1 : o; };
      p.limiting_osd_before = osd_or_none(before[k].limiting_osd);
      p.limiting_osd_after = osd_or_none(after[k].limiting_osd);
    }
    p.pg_deviation_before = deviation_before[i];
    p.pg_deviation_after = balancers[i]->MaxAbsDeviation();
    out.pools.push_back(std::move(p));
  }
  return out;
}

// The balancers' pools as the result reports them before any move.
std::vector<PoolBalance> PoolsBefore(const ClusterState& state,
                                     const std::vector<std::unique_ptr<PoolBalancer>>& balancers,
                                     const std::vector<std::int64_t>& pool_ids) {
  std::vector<PoolBalance> out;
  for (std::size_t i = 0; i < pool_ids.size(); ++i) {
    const Pool& pool = state.pools.at(pool_ids[i]);
    const PoolBalancer* b = balancers[i].get();
    PoolBalance pb;
    pb.pool_id = pool_ids[i];
    pb.name = pool.name;
    pb.threshold = b->usable() ? b->threshold() : 0;
    pb.before = ComputeStats(b->counts(), b->targets());
    if (!b->usable()) pb.stop_reason = pool.pg_num == 0 ? "no PGs" : "not balanceable";
    out.push_back(std::move(pb));
  }
  return out;
}

// The bytes phase over the pools' balancers (which count PGs): the fill is
// tracked from here on. Sets each pool's PG deviation before any move.
std::unique_ptr<internal::BytesBalancer> MakeBytesBalancer(
    const ClusterState& state, const std::vector<std::unique_ptr<PoolBalancer>>& balancers,
    const std::vector<std::int64_t>& pool_ids, const BalancerOptions& options,
    std::vector<double>& deviation_before) {
  std::vector<PoolBalancer*> pools;
  std::vector<std::vector<double>> shard_bytes;
  for (std::size_t i = 0; i < balancers.size(); ++i) {
    const Pool& pool = state.pools.at(pool_ids[i]);
    pools.push_back(balancers[i].get());
    std::vector<double> b = internal::PgUnits(state, pool, BalanceBy::kBytes);
    b.resize(pool.pg_num, 0);
    shard_bytes.push_back(std::move(b));
    deviation_before[i] = balancers[i]->MaxAbsDeviation();
  }
  return std::make_unique<internal::BytesBalancer>(state, std::move(pools), std::move(shard_bytes),
                                                   options.max_deviation, options.max_spread);
}

// The PG count phase. Each move goes to the pool that is worst off, so a
// small budget is not spent on the first pool alone (the mgr shares its
// budget the same way, but over pools in random order). `fill`, when set,
// follows every move.
void BalanceCounts(const std::vector<std::unique_ptr<PoolBalancer>>& balancers,
                   internal::BytesBalancer* fill, int max_changes, BalanceResult& r) {
  std::vector<bool> stuck(balancers.size(), false);
  while (r.moves < max_changes) {
    std::size_t pick = balancers.size();
    double worst = 1;
    for (std::size_t i = 0; i < balancers.size(); ++i) {
      if (stuck[i]) continue;
      if (const double b = balancers[i]->Badness(); b > worst) {
        worst = b;
        pick = i;
      }
    }
    if (pick == balancers.size()) break;
    if (balancers[pick]->Step()) {
      ++r.moves;
      if (fill != nullptr) {
        const PoolBalancer::Move& m = balancers[pick]->last_move();
        fill->Record(static_cast<int>(pick), m.ps, m.from, m.to);
      }
    } else {
      stuck[pick] = true;
      r.pools[pick].stop_reason = "no improving move";
    }
  }
}

// Each pool's changes, figures after and why it stopped.
void PoolsAfter(const std::vector<std::unique_ptr<PoolBalancer>>& balancers, BalanceResult& r) {
  for (std::size_t i = 0; i < balancers.size(); ++i) {
    PoolBalance& pb = r.pools[i];
    pb.changes = balancers[i]->applied();
    pb.after = ComputeStats(balancers[i]->counts(), balancers[i]->targets());
    pb.mismatches = balancers[i]->mismatches();
    if (pb.stop_reason.empty()) {
      pb.stop_reason = balancers[i]->Badness() <= 1 ? "balanced" : "max changes";
    }
  }
}

}  // namespace

absl::StatusOr<BalanceResult> BalanceUpmaps(const ClusterState& state,
                                            const BalancerOptions& options) {
  CRUSH_ASSIGN_OR_RETURN(const std::vector<std::int64_t> pool_ids, SelectPools(state, options));
  if (options.by == BalanceBy::kBytes && state.pg_stats.empty() && state.pool_usage.empty()) {
    return absl::FailedPreconditionError(
        "balancing by bytes needs PG sizes: import the state with `ceph pg dump -f json` "
        "(or `ceph df -f json`)");
  }
  const bool bytes = options.by == BalanceBy::kBytes;
  BalanceResult r;
  r.by = options.by;
  r.state = state;
  if (options.cleanup_first) {
    CRUSH_ASSIGN_OR_RETURN(r.cleanup, CleanPgUpmaps(r.state));
  }
  auto map = crush::CrushMap::Build(r.state.crush);
  if (!map.ok()) {
    return absl::Status(map.status().code(), absl::StrCat("crush map: ", map.status().message()));
  }
  CrushPlacement placement(*map, r.state.ceph_release);
  PgMapper mapper(r.state, placement);
  // Only the upmap items change from here on.
  const UpmapItemsMap cleaned = r.state.pg_upmap_items;

  // Every PG of the balanced pools mapped once, on all cores; after that
  // only moved PGs are mapped again.
  const PgTable sets = MapRawUpmapSets(r.state, *map, pool_ids, options.threads);
  // The pools' balancers set up side by side (rule weights, failure
  // domains, per-OSD PG lists: ~0.5 ms a pool at 1,000 OSDs), each with its
  // own verifier: they only read the state until the moves start.
  std::vector<std::unique_ptr<UpmapVerifier>> verifiers(pool_ids.size());
  std::vector<std::unique_ptr<PoolBalancer>> balancers(pool_ids.size());
  util::ForEachChunk(pool_ids.size(), ResolveThreads(options.threads),
                     [&](int /*slot*/, std::uint64_t i) {
                       const Pool& pool = r.state.pools.at(pool_ids[i]);
                       verifiers[i] = std::make_unique<UpmapVerifier>(r.state.crush);
                       balancers[i] = std::make_unique<PoolBalancer>(
                           r.state, pool, sets.pools[i], mapper, *verifiers[i],
                           internal::PgUnits(r.state, pool, bytes ? BalanceBy::kPgs : options.by),
                           options.max_deviation, options.seed);
                     });
  r.pools = PoolsBefore(r.state, balancers, pool_ids);
  const auto max_osd = static_cast<std::size_t>(r.state.max_osd());
  r.overall_before = OverallStats(balancers, max_osd);
  std::unique_ptr<internal::BytesBalancer> fill;
  std::vector<double> deviation_before(balancers.size(), 0);
  if (bytes) fill = MakeBytesBalancer(r.state, balancers, pool_ids, options, deviation_before);
  BalanceCounts(balancers, fill.get(), options.max_changes, r);
  if (fill) {
    while (r.moves < options.max_changes) {
      const int made = fill->Step(options.max_changes - r.moves);
      if (made == 0) break;
      r.moves += made;
    }
    if (r.moves >= options.max_changes) fill->BudgetSpent();
    CRUSH_ASSIGN_OR_RETURN(r.bytes, BytesReport(r.state, *fill, balancers, pool_ids,
                                                deviation_before, options.max_spread));
  }
  PoolsAfter(balancers, r);
  r.overall_after = OverallStats(balancers, max_osd);
  balancers.clear();
  r.changes = DiffItems(cleaned, r.state.pg_upmap_items, pool_ids);
  r.diverged_from_ceph =
      r.cleanup.diverged_from_ceph + sets.diverged_from_ceph + placement.DivergedFromCeph();
  return r;
}

std::string FormatBalanceCommands(const BalanceResult& result) {
  std::string out = FormatUpmapCleanupCommands(result.cleanup);
  for (const UpmapChange& c : result.changes) {
    if (c.new_items.empty()) absl::StrAppend(&out, FormatRmPgUpmapItemsCommand(c.pg), "\n");
  }
  for (const UpmapChange& c : result.changes) {
    if (!c.new_items.empty()) {
      absl::StrAppend(&out, FormatPgUpmapItemsCommand(c.pg, c.new_items), "\n");
    }
  }
  return out;
}

}  // namespace crushkit::osdmap
