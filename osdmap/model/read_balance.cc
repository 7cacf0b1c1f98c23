#include "osdmap/model/read_balance.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include "crush/map.h"
#include "crush/status_macros.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping.h"
#include "osdmap/model/rule_weights.h"

namespace crushkit::osdmap {
namespace {

// OSDMap::rbi_round: half away from zero to two decimals. The product is
// float, the rest double (`f * 100 + 0.5` with a double literal), rounded
// back to float on return; do not simplify to float arithmetic.
float RbiRound(float f) {
  const double scaled = static_cast<double>(f * 100.0f);
  return static_cast<float>(f > 0.0f ? std::floor(scaled + 0.5) / 100.0
                                     : std::ceil(scaled - 0.5) / 100.0);
}

struct PoolCounts {
  std::map<std::int32_t, std::size_t> pgs;        // pgs_by_osd: OSD -> PGs it is in up of
  std::map<std::int32_t, std::size_t> primaries;  // up primary -> PGs
  std::map<std::int32_t, std::size_t> acting;     // acting primary -> PGs
};

// OSDMap::get_pgs_by_osd: PGs whose up set is empty count nowhere; an OSD
// listed twice in one up set (a broken rule) holds that PG once (a set).
PoolCounts CountPgs(const Pool& pool, PgMapper& mapper) {
  PoolCounts c;
  PgMapping m;
  std::set<std::int32_t> in_pg;
  for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
    mapper.MapPg(pool, ps, &m);
    if (m.up.empty()) continue;
    in_pg.clear();
    for (std::int32_t osd : m.up.span()) {
      if (osd != crush::kItemNone && in_pg.insert(osd).second) ++c.pgs[osd];
    }
    if (m.up_primary != crush::kItemNone) ++c.primaries[m.up_primary];
    if (m.acting_primary != crush::kItemNone) ++c.acting[m.acting_primary];
  }
  return c;
}

std::int64_t CountOf(const std::map<std::int32_t, std::size_t>& m, std::int32_t osd) {
  auto it = m.find(osd);
  return it == m.end() ? 0 : static_cast<std::int64_t>(it->second);
}

// The PG copies ("legs") on OSD ids 0..num_osds-1: 20.2.4 walks those ids
// (not the OSDs holding PGs), and warns when one of them has a primary
// affinity set (the first message wins).
std::int64_t CountLegs(const ClusterState& state, std::int64_t pool_id, std::int32_t num_osds,
                       const PoolCounts& counts, ReadBalanceInfo& rbi) {
  std::int64_t legs = 0;
  for (std::int32_t osd = 0; osd < num_osds; ++osd) {
    if (osd < state.max_osd() &&
        state.osds[static_cast<std::size_t>(osd)].primary_affinity != kDefaultPrimaryAffinity &&
        rbi.err_msg.empty()) {
      rbi.err_msg = absl::StrCat("Warning: pool ", pool_id,
                                 " has primary_affinity set to non-default value on some OSDs, "
                                 "this is ignored by the size-optimal read balancer");
    }
    legs += CountOf(counts.pgs, osd);
  }
  return legs;
}

// The most loaded OSD by up primaries and by acting primaries (a primary
// counts 100, a replica 100 - read_ratio): every OSD holding PGs and the ids
// 0..num_osds-1 Ceph's loop above added to its map (with no PGs), in id
// order; the first largest wins.
void FindMostLoaded(const PoolCounts& counts, std::int32_t num_osds, std::int64_t read_ratio,
                    ReadBalanceInfo& rbi) {
  std::set<std::int32_t> osds;
  for (const auto& [osd, n] : counts.pgs) osds.insert(osd);
  for (std::int32_t osd = 0; osd < num_osds; ++osd) osds.insert(osd);
  const std::int64_t rr = read_ratio;
  for (std::int32_t osd : osds) {
    const std::int64_t npgs = CountOf(counts.pgs, osd);
    const std::int64_t nprims = CountOf(counts.primaries, osd);
    const std::int64_t nacting = CountOf(counts.acting, osd);
    const std::int64_t load = nprims * 100 + (npgs - nprims) * (100 - rr);
    const std::int64_t acting_load = nacting * 100 + (npgs - nacting) * (100 - rr);
    if (load > rbi.most_loaded.load) rbi.most_loaded = {osd, load, npgs, nprims};
    if (acting_load > rbi.most_loaded_acting.load) {
      rbi.most_loaded_acting = {osd, acting_load, npgs, nacting};
    }
  }
}

// OSDMap::calc_rbs_size_optimal as 20.2.4 runs it (from its machine code:
// its source differs from Ceph's main branch). `r.info` was zeroed.
absl::Status SizeOptimalScore(const ClusterState& state, const Pool& pool, std::int64_t pool_id,
                              std::int64_t read_ratio, const PoolCounts& counts,
                              ReadBalanceScore& r) {
  ReadBalanceInfo& rbi = r.info;
  rbi.score_type = ReadBalanceScoreType::kSizeOptimal;
  if (pool.pg_num == 0) rbi.err_msg = absl::StrCat("ERROR: pool ", pool_id, " has no PGs");
  const std::int32_t num_osds = static_cast<std::int32_t>(counts.pgs.size());
  const std::int64_t legs = CountLegs(state, pool_id, num_osds, counts, rbi);
  // pg_num x size in 32 bits, as Ceph multiplies them.
  const std::uint32_t expected = pool.pg_num * static_cast<std::uint8_t>(pool.size);
  r.rc = -EINVAL;
  if (legs != static_cast<std::int64_t>(expected)) {
    rbi.err_msg = absl::StrCat("ERROR: pool ", pool_id, " has ", legs, " PG OSD legs, expected ",
                               expected, " - Can't calculate size-optimal read balancer score");
    return absl::OkStatus();
  }
  if (read_ratio <= 0 || read_ratio > 100) {
    rbi.err_msg = absl::StrCat("ERROR: pool ", pool_id, " has invalid read_ratio ", read_ratio,
                               " - Can't calculate size-optimal read balancer score");
    return absl::OkStatus();
  }
  if (num_osds == 0) {
    rbi.err_msg = absl::StrCat("ERROR: pool ", pool_id,
                               " has no active OSDs, can't calculate loads and read balance score");
    return absl::OkStatus();
  }
  const std::uint64_t replica_load = static_cast<std::uint64_t>(100 - read_ratio);
  const std::uint64_t load_per_pg =
      100 + static_cast<std::uint64_t>(static_cast<std::uint8_t>(pool.size) - 1u) * replica_load;
  // The average load per OSD in integers, then as a float (20.2.4; later
  // releases divide in float).
  const float load_per_osd = static_cast<float>(static_cast<std::uint64_t>(pool.pg_num) *
                                                load_per_pg / static_cast<std::uint64_t>(num_osds));
  rbi.average_osd_load = load_per_osd < 2147483648.0f
                             ? static_cast<std::uint32_t>(static_cast<std::int32_t>(load_per_osd))
                             : 0x80000000u;
  FindMostLoaded(counts, num_osds, read_ratio, rbi);
  if (rbi.most_loaded_acting.osd < 0) {
    rbi.err_msg = absl::StrCat("ERROR: Could not find max_acting_load for pool ", pool_id);
    return absl::OkStatus();
  }
  if (load_per_osd == 0.0f) {
    return absl::FailedPreconditionError(absl::StrCat(
        "pool ", pool_id, ": the average OSD load of the size-aware read balance score is 0 (",
        num_osds, " OSDs; osdmaptool 20.2 aborts here)"));
  }
  r.rc = 0;
  rbi.acting_adj_score = RbiRound(static_cast<float>(rbi.most_loaded_acting.load) / load_per_osd);
  if (rbi.most_loaded.osd < 0) {
    rbi.err_msg = absl::StrCat("Warning: Could not find max_load for pool ", pool_id);
  } else {
    rbi.adjusted_score = RbiRound(static_cast<float>(rbi.most_loaded.load) / load_per_osd);
  }
  return absl::OkStatus();
}

// OSDMap::has_zero_pa_pgs: the first PG whose acting OSDs all have primary
// affinity 0, or -1.
std::int64_t FirstZeroAffinityPg(const ClusterState& state, const Pool& pool, PgMapper& mapper) {
  PgMapping m;
  for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
    mapper.MapPg(pool, ps, &m);
    bool all_zero = true;
    for (std::int32_t osd : m.acting.span()) {
      if (PrimaryAffinityF(state, osd) != 0) {
        all_zero = false;
        break;
      }
    }
    if (all_zero) return ps;
  }
  return -1;
}

// What calc_read_balance_score's loop gathers over the rule's weight map.
struct WeightMapSums {
  std::size_t max_prims = 0;         // the most up primaries on one OSD
  std::size_t max_acting_prims = 0;  // the most acting primaries on one OSD
  float max_osd_score = 0;           // the largest acting primaries / primary affinity
  bool acting_on_zero_pa = false;    // an acting primary on an OSD of affinity 0
  float pa_sum = 0;                  // primary affinities summed
  float total_osd_weight = 0;
  float total_weighted_pa = 0;  // weight x primary affinity, summed
  unsigned osd_pa_count = 0;    // OSDs with a primary affinity above 0
};

// The loop of calc_read_balance_score, in the weight map's OSD order
// (float sums depend on it).
WeightMapSums SumWeightMap(const ClusterState& state, const std::map<std::int32_t, float>& weights,
                           const PoolCounts& counts) {
  WeightMapSums s;
  for (const auto& [osd, weight] : weights) {
    s.total_osd_weight += weight;
    const float pa = PrimaryAffinityF(state, osd);
    s.total_weighted_pa += weight * pa;
    if (pa != 0) ++s.osd_pa_count;
    if (auto p = counts.primaries.find(osd); p != counts.primaries.end()) {
      s.max_prims = std::max(s.max_prims, p->second);
    }
    if (auto a = counts.acting.find(osd); a != counts.acting.end()) {
      s.max_acting_prims = std::max(s.max_acting_prims, a->second);
      if (pa != 0) {
        s.max_osd_score = std::max(s.max_osd_score, static_cast<float>(a->second) / pa);
      } else {
        s.acting_on_zero_pa = true;
      }
    }
    s.pa_sum += pa;
  }
  return s;
}

// OSDMap::set_rbi (Tentacle's set_rbi_fair is the same): the scores from
// the sums, or the reason there is none (r.rc -EINVAL).
void SetRbi(const ClusterState& state, const Pool& pool, std::int64_t pool_id,
            const WeightMapSums& s, float num_osds, float avg_prims_per_osd, PgMapper& mapper,
            ReadBalanceScore& r) {
  ReadBalanceInfo& rbi = r.info;
  // Ceph compares with (and prints) the double 1. / float(size).
  const double min_avg = 1.0 / static_cast<double>(static_cast<float>(pool.size));
  if (static_cast<double>(s.total_weighted_pa / s.total_osd_weight) < min_avg) {
    r.rc = -EINVAL;
    rbi.err_msg = absl::StrFormat(
        "pool %d average primary affinity is lower than %.2f, read balance score is not "
        "reliable",
        pool_id, min_avg);
    return;
  }
  rbi.pa_weighted = s.total_weighted_pa;
  rbi.pa_weighted_avg = RbiRound(rbi.pa_weighted / s.total_osd_weight);
  rbi.raw_score = RbiRound(static_cast<float>(s.max_prims) / avg_prims_per_osd);
  if (s.acting_on_zero_pa) {
    rbi.acting_raw_score = RbiRound(s.max_osd_score);
    rbi.err_msg = absl::StrCat("pool ", pool_id,
                               " has acting primaries on OSD(s) with primary affinity 0, read "
                               "balance score is not accurate");
  } else {
    rbi.acting_raw_score = RbiRound(static_cast<float>(s.max_acting_prims) / avg_prims_per_osd);
  }
  rbi.pa_avg = s.osd_pa_count != 0 ? RbiRound(s.pa_sum / static_cast<float>(s.osd_pa_count)) : 0.0f;
  if (rbi.pa_avg == 0) {
    r.rc = -EINVAL;
    rbi.err_msg = absl::StrCat("pool ", pool_id,
                               " all OSDs have zero primary affinity, can't calculate a "
                               "reliable read balance score");
    return;
  }
  if (const std::int64_t zpg = FirstZeroAffinityPg(state, pool, mapper); zpg >= 0) {
    r.rc = -EINVAL;
    rbi.err_msg = absl::StrFormat(
        "pool %d has some PGs where all OSDs are with primary_affinity 0 (at least pg %d.%x), "
        "read balance score may not be reliable",
        pool_id, pool_id, static_cast<std::uint32_t>(zpg));
    return;
  }
  rbi.optimal_score = RbiRound(num_osds / static_cast<float>(s.osd_pa_count));
  rbi.adjusted_score = RbiRound(rbi.raw_score / rbi.optimal_score);
  rbi.acting_adj_score = RbiRound(rbi.acting_raw_score / rbi.optimal_score);
}

}  // namespace

// OSDMap::get_primary_affinityf: 1.0 unless set (16.16 as float).
float PrimaryAffinityF(const ClusterState& state, std::int32_t osd) {
  if (osd < 0 || osd >= state.max_osd()) return 1.0f;
  return static_cast<float>(state.osds[static_cast<std::size_t>(osd)].primary_affinity) /
         static_cast<float>(0x10000);
}

absl::StatusOr<ReadBalanceScore> CalcReadBalanceScore(const ClusterState& state,
                                                      std::int64_t pool_id) {
  ReadBalanceScore r;
  const Pool* pool = state.FindPool(pool_id);
  if (pool == nullptr) {
    r.rc = -ENOENT;
    r.info.err_msg = absl::StrCat("pool ", pool_id, " not found");
    return r;
  }
  CRUSH_ASSIGN_OR_RETURN(crush::CrushMap map, crush::CrushMap::Build(state.crush));
  CrushPlacement placement(map, state.ceph_release);
  PgMapper mapper(state, placement);
  const PoolCounts counts = CountPgs(*pool, mapper);
  r.diverged_from_ceph = placement.DivergedFromCeph();
  if (state.ceph_release >= crush::CephRelease::kTentacle && pool->read_ratio.has_value()) {
    CRUSH_RETURN_IF_ERROR(SizeOptimalScore(state, *pool, pool_id, *pool->read_ratio, counts, r));
    return r;
  }
  // No PG maps anywhere: -EINVAL, the info untouched (Ceph leaves it
  // uninitialised; its callers print nothing then).
  if (counts.pgs.empty()) {
    r.rc = -EINVAL;
    return r;
  }
  // get_rule_weight_osd_map of a missing rule is -ENOENT and an empty map.
  std::map<std::int32_t, float> weights;
  if (auto w = RuleWeightOsdMap(state.crush, pool->crush_rule, state.ceph_release); w.ok()) {
    weights = std::move(*w);
  } else if (!absl::IsNotFound(w.status())) {
    return w.status();
  }
  const float num_osds = static_cast<float>(counts.pgs.size());
  const float avg_prims_per_osd = static_cast<float>(pool->pg_num) / num_osds;
  WeightMapSums sums = SumWeightMap(state, weights, counts);
  if (sums.pa_sum == 0) {
    r.rc = -ERANGE;
    r.info.err_msg =
        absl::StrCat("pool ", pool_id, " has primary_affinity set to zero on all OSDs");
    return r;
  }
  sums.max_osd_score *= sums.pa_sum / num_osds;
  SetRbi(state, *pool, pool_id, sums, num_osds, avg_prims_per_osd, mapper, r);
  return r;
}

}  // namespace crushkit::osdmap
