#include "osdmap/balancer/read_balancer.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

#include "crush/map.h"
#include "crush/status_macros.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping.h"
#include "osdmap/model/upmap_verify.h"

namespace crushkit::osdmap {
namespace {

// OSDMap::get_pgs_by_osd(pool) with its primaries out-parameter: PGs whose
// up set is empty count nowhere ("up can be empty in test generated files").
struct PoolPgsByOsd {
  std::map<std::int32_t, std::size_t> pgs;           // OSD -> PGs with it in the up set
  std::map<std::int32_t, std::set<PgId>> primaries;  // up primary -> its PGs
};

PoolPgsByOsd MapPoolPgsByOsd(const Pool& pool, PgMapper& mapper) {
  PoolPgsByOsd r;
  PgMapping m;
  for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
    mapper.MapPg(pool, ps, &m);
    if (m.up.empty()) continue;
    // Ceph inserts the PG into a set per OSD: an OSD twice in one up set
    // (a pg_upmap could say so) counts once.
    std::set<std::int32_t> seen;
    for (std::int32_t osd : m.up.span()) {
      if (osd != crush::kItemNone && seen.insert(osd).second) ++r.pgs[osd];
    }
    if (m.up_primary != crush::kItemNone) r.primaries[m.up_primary].insert(PgId{pool.id, ps});
  }
  return r;
}

std::map<std::int32_t, std::size_t> PrimaryCounts(
    const std::map<std::int32_t, std::set<PgId>>& by_osd) {
  std::map<std::int32_t, std::size_t> r;
  for (const auto& [osd, pgs] : by_osd) r[osd] = pgs.size();
  return r;
}

// OSDMap::calc_desired_primary_distribution (RB_SIMPLE): each OSD's share,
// (PGs it holds / pool size) x its primary affinity in float, summed in a
// double, then stretched to sum to pg_num.
// Reef 18.2.7 and Tentacle 20.2.4 both stretch in float and assert twice
// (osdmaptool aborts). Ceph's main branch has since moved the stretch to
// double with a tolerance (skipping the pool instead of asserting); 20.2.4
// does not have that: the double version differed from it on 7 of 375 runs.
// PLACEMENT-STABLE: the types of every step decide the balancer's ties; do
// not simplify.
using DesiredShares = std::map<std::int32_t, float>;

absl::StatusOr<DesiredShares> DesiredPrimaries(
    const ClusterState& state, const Pool& pool, const std::vector<std::int32_t>& osds,
    const std::map<std::int32_t, std::size_t>& pgs_by_osd, bool* refused) {
  DesiredShares desired;
  *refused = false;
  const auto replica_count = static_cast<float>(pool.size);
  double distribution_sum = 0.0;
  for (std::int32_t osd : osds) {
    const auto it = pgs_by_osd.find(osd);
    const float pgs = it == pgs_by_osd.end() ? 0.0f : static_cast<float>(it->second);
    const float share = (pgs / replica_count) * PrimaryAffinityF(state, osd);
    desired.emplace(osd, share);
    distribution_sum += static_cast<double>(share);
  }
  if (distribution_sum <= 0) {
    *refused = true;  // primary affinity 0 everywhere
    return desired;
  }
  const float factor = static_cast<float>(pool.pg_num) / static_cast<float>(distribution_sum);
  if (!(factor >= 1.0f)) {
    return absl::FailedPreconditionError(
        absl::StrCat("osdmaptool aborts here (calc_desired_primary_distribution: FAILED "
                     "ceph_assert(factor >= 1.0)): the float sum of the desired primaries of pool ",
                     pool.id, " exceeds pg_num ", pool.pg_num));
  }
  float distribution_sum_desired = 0.0f;
  for (auto& [osd, share] : desired) {
    share *= factor;
    distribution_sum_desired += share;
  }
  if (!(std::fabs(distribution_sum_desired - static_cast<float>(pool.pg_num)) < 0.01)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "osdmaptool aborts here (calc_desired_primary_distribution: FAILED "
        "ceph_assert(fabs(distribution_sum_desired - pool->get_pg_num()) < 0.01)): the "
        "stretched desired primaries of pool ",
        pool.id, " sum to ", distribution_sum_desired, ", not pg_num ", pool.pg_num));
  }
  return desired;
}

// balance_primaries()'s bookkeeping over one pool's PGs.
struct PrimaryBook {
  std::vector<std::int32_t> osds_to_check;  // the OSDs that are primary of something
  std::map<PgId, bool> changed;             // prim_pgs_to_check: its primary changed
  std::map<PgId, std::int32_t> orig_prims;  // each PG's primary before
  DesiredShares desired;                    // desired_prim_dist
  std::map<std::int32_t, float> scores;     // prim_dist_scores: actual - desired
};

PrimaryBook StartBook(const PoolPgsByOsd& before) {
  PrimaryBook book;
  for (const auto& [osd, pgs] : before.primaries) {
    book.osds_to_check.push_back(osd);
    for (const PgId& pg : pgs) {
      book.changed.emplace(pg, false);
      book.orig_prims.emplace(pg, osd);
    }
  }
  return book;
}

// balance_primaries()'s passes over the PGs until one changes nothing:
// each PG's primary handed to an OSD of its up set that is short of
// primaries, in `tmp` (which `mapper` maps) and in `pending`.
void SwapPrimaries(const Pool& pool, PgMapper& mapper, ClusterState& tmp, PrimaryBook& book,
                   std::map<PgId, std::int32_t>& pending) {
  UpmapVerifier verifier(tmp.crush);
  const int rule = pool.crush_rule;
  const int pool_size = static_cast<int>(pool.size);
  PgMapping m;
  for (;;) {
    int pass_changes = 0;
    for (auto& [pg, mapped] : book.changed) {
      mapper.MapPg(pool, pg.ps, &m);
      const int up_primary = m.up_primary;
      int best = up_primary;
      // Ceph looks the scores up with map::operator[]: an OSD never primary
      // scores 0 and desires 0 primaries, so it is never chosen.
      const float prim_score = book.scores[up_primary];
      for (std::int32_t candidate : m.up.span()) {
        const float candidate_score = book.scores[candidate];
        // The last OSD of the up set that qualifies wins (not the best one).
        if (prim_score > 0 && candidate_score < 0 && (prim_score - candidate_score) > 1 &&
            book.desired[candidate] > 0) {
          best = candidate;
        }
      }
      const std::int32_t one[1] = {best};
      if (verifier.Verify(rule, pool_size, one) == UpmapVerdict::kOk && best != up_primary) {
        book.scores[best] += 1;
        book.scores[up_primary] -= 1;
        tmp.pg_upmap_primaries[pg] = best;
        if (best == book.orig_prims[pg]) {
          pending.erase(pg);
          mapped = false;
        } else {
          pending[pg] = best;
          mapped = true;
        }
        ++pass_changes;
      }
    }
    if (pass_changes == 0) break;
  }
}

}  // namespace

absl::StatusOr<PrimaryBalance> BalancePrimaries(const ClusterState& state, std::int64_t pool_id) {
  const Pool* pool = state.FindPool(pool_id);
  if (pool == nullptr) return absl::NotFoundError(absl::StrCat("pool ", pool_id, " not found"));
  if (pool->type != PoolType::kReplicated) {
    return absl::InvalidArgumentError(
        absl::StrCat("pool ", pool_id,
                     " is erasure-coded; the read balancer takes only "
                     "replicated pools"));
  }
  PrimaryBalance r;
  // osdmaptool's tmp_osd_map: a copy whose pg_upmap_primaries the balancer
  // edits, re-mapped after every change.
  ClusterState tmp = state;
  CRUSH_ASSIGN_OR_RETURN(crush::CrushMap map, crush::CrushMap::Build(tmp.crush));
  CrushPlacement placement(map, tmp.ceph_release);
  PgMapper mapper(tmp, placement);
  // Every mapping of the run: this one's and the two scores'.
  const auto finish = [&]() {
    r.diverged_from_ceph = placement.DivergedFromCeph() + r.score_before.diverged_from_ceph +
                           r.score_after.diverged_from_ceph;
    return r;
  };
  const PoolPgsByOsd before = MapPoolPgsByOsd(*pool, mapper);
  r.primaries_before = PrimaryCounts(before.primaries);
  CRUSH_ASSIGN_OR_RETURN(r.score_before, CalcReadBalanceScore(tmp, pool_id));
  // No PG maps to an OSD: osdmaptool then checks a score it never computed
  // (uninitialised memory): it aborts or, when the garbage passes its
  // assert, goes on to the -EINVAL below (no OSD to balance).
  PrimaryBook book = StartBook(before);
  bool no_distribution = false;
  CRUSH_ASSIGN_OR_RETURN(book.desired, DesiredPrimaries(state, *pool, book.osds_to_check,
                                                        before.pgs, &no_distribution));
  if (no_distribution) {
    r.rc = -EINVAL;
    return finish();
  }
  for (std::int32_t osd : book.osds_to_check) {
    book.scores[osd] = static_cast<float>(before.primaries.at(osd).size()) - book.desired[osd];
  }
  if (!r.score_before.info.err_msg.empty()) {
    r.rc = -EINVAL;
    return finish();
  }
  const float score_before = r.score_before.rc >= 0 ? r.score_before.info.adjusted_score : 0.0f;
  SwapPrimaries(*pool, mapper, tmp, book, r.new_pg_upmap_primary);

  const PoolPgsByOsd after = MapPoolPgsByOsd(*pool, mapper);
  r.primaries_after = PrimaryCounts(after.primaries);
  CRUSH_ASSIGN_OR_RETURN(r.score_after, CalcReadBalanceScore(tmp, pool_id));
  if (!r.score_after.info.err_msg.empty()) {
    r.rc = -EINVAL;
    return finish();
  }
  const float score_after = r.score_after.rc >= 0 ? r.score_after.info.adjusted_score : 0.0f;
  int num_changes = 0;
  if (score_after < score_before) {
    for (const auto& [pg, mapped] : book.changed) num_changes += mapped ? 1 : 0;
  } else {
    // Tentacle drops the pending entries; Reef leaves them unused. Either
    // way nothing is proposed.
    r.new_pg_upmap_primary.clear();
  }
  r.rc = num_changes;
  return finish();
}

absl::StatusOr<ReadBalanceResult> BalanceReads(const ClusterState& state,
                                               const std::vector<std::int64_t>& pools) {
  // Pacific maps no pg_upmap_primaries: the changes would do nothing.
  if (state.ceph_release < crush::CephRelease::kReef) {
    return absl::FailedPreconditionError(
        absl::StrCat("read balancing sets pg_upmap_primaries, which Reef (18.2) and later map; "
                     "this state maps as ",
                     std::string(crush::CephReleaseName(state.ceph_release)),
                     " (import it with CRUSHKIT_CEPH_RELEASE=reef or tentacle)"));
  }
  std::vector<std::int64_t> ids = pools;
  if (ids.empty()) {
    for (const auto& [id, pool] : state.pools) {
      if (pool.type == PoolType::kReplicated) ids.push_back(id);
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  ReadBalanceResult out;
  out.state = state;
  for (std::int64_t id : ids) {
    CRUSH_ASSIGN_OR_RETURN(PrimaryBalance b, BalancePrimaries(out.state, id));
    PoolReadBalance p;
    p.pool_id = id;
    p.name = out.state.FindPool(id)->name;
    p.rc = b.rc;
    p.score_before = std::move(b.score_before);
    if (b.rc > 0) {
      for (const auto& [pg, osd] : b.new_pg_upmap_primary) {
        out.state.pg_upmap_primaries[pg] = osd;
        out.new_pg_upmap_primary[pg] = osd;
      }
      p.new_pg_upmap_primary = std::move(b.new_pg_upmap_primary);
      // The score of the map the commands leave (what --print shows then).
      CRUSH_ASSIGN_OR_RETURN(p.score_after, CalcReadBalanceScore(out.state, id));
    } else {
      p.score_after = p.score_before;
    }
    out.pools.push_back(std::move(p));
  }
  return out;
}

std::string FormatPgUpmapPrimaryCommands(const std::map<PgId, std::int32_t>& primaries) {
  std::string out;
  for (const auto& [pg, osd] : primaries) {
    absl::StrAppend(&out, "ceph osd pg-upmap-primary ", FormatPgId(pg), " ", osd, "\n");
  }
  return out;
}

}  // namespace crushkit::osdmap
