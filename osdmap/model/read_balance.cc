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

// OSDMap::rbi_round: half away from zero to two decimals, in float.
float RbiRound(float f) {
  return f > 0.0f ? std::floor(f * 100 + 0.5f) / 100 : std::ceil(f * 100 - 0.5f) / 100;
}

struct PoolCounts {
  std::size_t osds_with_pgs = 0;                  // pgs_by_osd.size()
  std::map<std::int32_t, std::size_t> primaries;  // up primary -> PGs
  std::map<std::int32_t, std::size_t> acting;     // acting primary -> PGs
};

// OSDMap::get_pgs_by_osd: PGs whose up set is empty count nowhere.
PoolCounts CountPgs(const Pool& pool, PgMapper& mapper) {
  PoolCounts c;
  std::set<std::int32_t> holders;
  PgMapping m;
  for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
    mapper.MapPg(pool, ps, &m);
    if (m.up.empty()) continue;
    for (std::int32_t osd : m.up.span()) {
      if (osd != crush::kItemNone) holders.insert(osd);
    }
    if (m.up_primary != crush::kItemNone) ++c.primaries[m.up_primary];
    if (m.acting_primary != crush::kItemNone) ++c.acting[m.acting_primary];
  }
  c.osds_with_pgs = holders.size();
  return c;
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
  // No PG maps anywhere: -EINVAL, the info untouched (Ceph leaves it
  // uninitialised; its callers print nothing then).
  if (counts.osds_with_pgs == 0) {
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
  const float num_osds = static_cast<float>(counts.osds_with_pgs);
  const float avg_prims_per_osd = static_cast<float>(pool->pg_num) / num_osds;
  std::size_t max_prims = 0;
  std::size_t max_acting_prims = 0;
  float max_osd_score = 0;
  bool acting_on_zero_pa = false;
  float pa_sum = 0;
  float total_osd_weight = 0;
  float total_weighted_pa = 0;
  unsigned osd_pa_count = 0;
  // The loop of calc_read_balance_score, in the weight map's OSD order
  // (float sums depend on it).
  for (const auto& [osd, weight] : weights) {
    total_osd_weight += weight;
    const float pa = PrimaryAffinityF(state, osd);
    total_weighted_pa += weight * pa;
    if (pa != 0) ++osd_pa_count;
    if (auto p = counts.primaries.find(osd); p != counts.primaries.end()) {
      max_prims = std::max(max_prims, p->second);
    }
    if (auto a = counts.acting.find(osd); a != counts.acting.end()) {
      max_acting_prims = std::max(max_acting_prims, a->second);
      if (pa != 0) {
        max_osd_score = std::max(max_osd_score, static_cast<float>(a->second) / pa);
      } else {
        acting_on_zero_pa = true;
      }
    }
    pa_sum += pa;
  }
  ReadBalanceInfo& rbi = r.info;
  if (pa_sum == 0) {
    r.rc = -ERANGE;
    rbi.err_msg = absl::StrCat("pool ", pool_id, " has primary_affinity set to zero on all OSDs");
    return r;
  }
  max_osd_score *= pa_sum / num_osds;
  // OSDMap::set_rbi (Tentacle's set_rbi_fair is the same).
  // Ceph compares with (and prints) the double 1. / float(size).
  const double min_avg = 1.0 / static_cast<double>(static_cast<float>(pool->size));
  if (static_cast<double>(total_weighted_pa / total_osd_weight) < min_avg) {
    r.rc = -EINVAL;
    rbi.err_msg = absl::StrFormat(
        "pool %d average primary affinity is lower than %.2f, read balance score is not "
        "reliable",
        pool_id, min_avg);
    return r;
  }
  rbi.pa_weighted = total_weighted_pa;
  rbi.pa_weighted_avg = RbiRound(rbi.pa_weighted / total_osd_weight);
  rbi.raw_score = RbiRound(static_cast<float>(max_prims) / avg_prims_per_osd);
  if (acting_on_zero_pa) {
    rbi.acting_raw_score = RbiRound(max_osd_score);
    rbi.err_msg = absl::StrCat("pool ", pool_id,
                               " has acting primaries on OSD(s) with primary affinity 0, read "
                               "balance score is not accurate");
  } else {
    rbi.acting_raw_score = RbiRound(static_cast<float>(max_acting_prims) / avg_prims_per_osd);
  }
  rbi.pa_avg = osd_pa_count != 0 ? RbiRound(pa_sum / static_cast<float>(osd_pa_count)) : 0.0f;
  if (rbi.pa_avg == 0) {
    r.rc = -EINVAL;
    rbi.err_msg = absl::StrCat("pool ", pool_id,
                               " all OSDs have zero primary affinity, can't calculate a "
                               "reliable read balance score");
    return r;
  }
  if (const std::int64_t zpg = FirstZeroAffinityPg(state, *pool, mapper); zpg >= 0) {
    r.rc = -EINVAL;
    rbi.err_msg = absl::StrFormat(
        "pool %d has some PGs where all OSDs are with primary_affinity 0 (at least pg %d.%x), "
        "read balance score may not be reliable",
        pool_id, pool_id, static_cast<std::uint32_t>(zpg));
    return r;
  }
  rbi.optimal_score = RbiRound(num_osds / static_cast<float>(osd_pa_count));
  rbi.adjusted_score = RbiRound(rbi.raw_score / rbi.optimal_score);
  rbi.acting_adj_score = RbiRound(rbi.acting_raw_score / rbi.optimal_score);
  return r;
}

}  // namespace crushkit::osdmap
