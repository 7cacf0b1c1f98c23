// Ceph's offline read balancer (Reef and later): OSDMap::balance_primaries()
// as `osdmaptool --read FILE --read-pool POOL` runs it. For one replicated
// pool it moves primaries with pg_upmap_primary entries, never data: each
// OSD's desired number of primaries is its share of the pool's PG copies
// times its primary affinity, stretched so they sum to pg_num
// (calc_desired_primary_distribution, RB_SIMPLE), and PG by PG in pg order
// the up primary hands the role to another OSD of the up set when that
// OSD is below its share, the primary above it, and the gap larger than one
// primary; passes repeat until one changes nothing. The changes are kept
// only if the pool's read balance score (read_balance.h) went down.
//
// Deterministic: the same map always gives the same commands (Ceph's
// function has no randomness; PGs and OSDs are visited in id order). The
// only run-to-run difference in osdmaptool: when no PG of the pool maps to
// an OSD, it checks a score it never computed (uninitialised memory) and
// either aborts (FAILED ceph_assert(read_balance_score_before >= 0)) or
// goes on to fail as BalancePrimaries does (rc -EINVAL: nothing to
// balance); measured 1 abort in 4 runs of one map.
//
// Float arithmetic follows Ceph's types step by step (float scores, a
// double sum of the desired counts), so ties and the "> 1" gap decide as in
// Ceph. Not modelled: Tentacle's --osd-size-aware policy (RB_OSDSIZEOPT).
// Pure function of a ClusterState; thread-safe.
#ifndef CRUSHKIT_OSDMAP_BALANCER_READ_BALANCER_H_
#define CRUSHKIT_OSDMAP_BALANCER_READ_BALANCER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/model/read_balance.h"

namespace crushkit::osdmap {

struct PrimaryBalance {
  // balance_primaries()'s return: the number of PGs given a new primary
  // (0 when the score would not improve), or -EINVAL when Ceph refuses the
  // pool (a score with an error message, no primary affinity anywhere).
  int rc = 0;
  // pending_inc->new_pg_upmap_primary: PG -> its new primary, in pg order.
  // Only meaningful when rc > 0.
  std::map<PgId, std::int32_t> new_pg_upmap_primary;
  // OSD -> how many PGs of the pool it is up primary of (get_pgs_by_osd's
  // primaries, PGs with an empty up set left out), before and after the
  // balancer changed the primaries.
  std::map<std::int32_t, std::size_t> primaries_before;
  std::map<std::int32_t, std::size_t> primaries_after;
  ReadBalanceScore score_before;
  ReadBalanceScore score_after;
  // Mappings of the run (the scores' included) whose result is crushkit's
  // answer where Ceph's is undefined; tools say so on stderr.
  std::uint64_t diverged_from_ceph = 0;
};

// Runs the read balancer on pool `pool_id` of `state` as `state.ceph_release`
// does (Reef or later; Pacific has none). `state` is not modified.
// Errors: kNotFound (no such pool), kInvalidArgument (an erasure-coded
// pool), kFailedPrecondition where osdmaptool aborts: one of
// calc_desired_primary_distribution's asserts fails (the stretch factor
// below 1 after float rounding, the stretched counts not summing to pg_num);
// the CRUSH map does not build (CrushMap::Build's errors).
// Cost: a few PG mappings per PG of the pool per pass; passes until stable
// (a handful in practice).
absl::StatusOr<PrimaryBalance> BalancePrimaries(const ClusterState& state, std::int64_t pool_id);

// One pool's share of BalanceReads().
struct PoolReadBalance {
  std::int64_t pool_id = 0;
  std::string name;
  // BalancePrimaries' rc: the PGs given a new primary, 0 (nothing would
  // lower the score), or -EINVAL (Ceph refuses the pool: its score has an
  // error or a warning, or no OSD may be primary).
  int rc = 0;
  // calc_read_balance_score of the pool before and after its changes (the
  // after score is the before one when nothing changed). What `osdmaptool
  // --print` shows as read_balance_score is score.info.acting_adj_score when
  // score.rc >= 0.
  ReadBalanceScore score_before;
  ReadBalanceScore score_after;
  std::map<PgId, std::int32_t> new_pg_upmap_primary;  // in pg order
};

struct ReadBalanceResult {
  std::vector<PoolReadBalance> pools;                 // in pool id order
  std::map<PgId, std::int32_t> new_pg_upmap_primary;  // every pool's, in pg order
  ClusterState state;                                 // the input with them applied
};

// The read balancer as the mgr balancer's `read` mode runs it (Squid and
// later): BalancePrimaries() on each pool of `pools` (every replicated pool
// when empty), one after the other, each pool's changes applied as
// pg_upmap_primaries before the next. Pools Ceph refuses (rc -EINVAL) keep
// their primaries and say why in their scores' err_msg.
// Errors: kFailedPrecondition when `state` maps as Pacific (no
// pg_upmap_primaries), kNotFound (an unknown pool id), kInvalidArgument (an
// erasure-coded pool named in `pools`), and BalancePrimaries' errors.
// Cost: BalancePrimaries per pool, plus one score per changed pool.
absl::StatusOr<ReadBalanceResult> BalanceReads(const ClusterState& state,
                                               const std::vector<std::int64_t>& pools);

// osdmaptool's print_inc_upmaps() for the balancer's changes: one
// `ceph osd pg-upmap-primary PG OSD` line each, in pg order.
std::string FormatPgUpmapPrimaryCommands(const std::map<PgId, std::int32_t>& primaries);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_BALANCER_READ_BALANCER_H_
