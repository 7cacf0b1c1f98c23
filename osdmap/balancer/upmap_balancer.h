// The upmap balancer: pg_upmap_items changes that even out how many PGs (or
// bytes) each OSD holds relative to its CRUSH-weight target, the job of
// Ceph's OSDMap::calc_pg_upmaps() (`osdmaptool --upmap`, the mgr balancer in
// upmap mode), done incrementally: every PG is mapped once, then each
// candidate move is judged on per-OSD counts and a failure-domain check,
// never by re-mapping the pool.
//
// Deviation is Ceph's: per pool, an OSD's target is its share of the rule
// weight map (CrushWrapper::get_rule_weight_osd_map, each take subtree
// normalised to 1) times its reweight, over the sum of those, times
// pool size x pg_num; deviation = PGs in its up sets - target. Bytes mode
// (BalanceBy::kBytes) first brings every pool within that deviation, then
// evens out %USE per device class without leaving it
// (upmap_balancer_bytes.h).
//
// Every change keeps the pool's rule satisfied (CrushWrapper::verify_upmap:
// failure domains of the chooseleaf/choose type, take roots, so device
// classes through their shadow trees), replaces an OSD in place (EC shard
// positions kept), targets only OSDs that are up, in and inside the rule's
// weight map, and is checked by mapping the PG again before it is kept; so
// the monitor's upmap cleanup (upmap_cleanup.h) never cancels it.
// Deterministic: the same state and options give the same changes.
// Thread-compatible: BalanceUpmaps() reads its input and returns values
// (it maps on threads of its own, joined before it returns).
#ifndef CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_H_
#define CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/changes/upmap_cleanup.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_id.h"

namespace crushkit::osdmap {

// What the balance evens out.
enum class BalanceBy : std::uint8_t {
  kPgs,  // PGs per OSD against its CRUSH-weight target, per pool (Ceph's)
  // %USE (used / capacity) within each device class, while every pool's PG
  // counts stay within max_deviation of their targets (so the mgr balancer,
  // which leaves a pool alone whose OSDs are all within its deviation, does
  // not undo it). A PG shard weighs pg_stats num_bytes + num_omap_bytes
  // (divided by k for EC pools), or the pool's `ceph df` stored bytes /
  // pg_num for a PG without stats. Fill from the state's `ceph osd df`
  // (else capacity = CRUSH weight as TiB, use = shards held).
  kBytes,
};

struct BalancerOptions {
  std::vector<std::int64_t> pools;  // pools to balance; empty: all
  int max_changes = 10;             // PG changes at most (osdmaptool --upmap-max)
  // Stop once every OSD of a pool is within this many PGs of its target
  // (osdmaptool --upmap-deviation); bytes mode keeps every pool within it.
  // Values below 1 are taken as 1, as Ceph clamps them.
  double max_deviation = 5;
  BalanceBy by = BalanceBy::kPgs;
  // Bytes mode: a device class is balanced once its fullest - emptiest
  // %USE is at most this many percentage points.
  double max_spread = 1;
  // 0: candidate PGs in pg order; otherwise each OSD's PGs are tried in an
  // order shuffled from this seed (std::mt19937_64, so portable).
  std::uint64_t seed = 0;
  // Run the monitor's upmap cleanup first, as osdmaptool --upmap does.
  bool cleanup_first = true;
  // Threads for the first mapping of every PG and the pools' set-up (0: one
  // per CPU, as MapAllOptions::threads). The result does not depend on it.
  int threads = 0;
};

// Deviations over the OSDs that have a target or hold PGs, in the unit of
// the balance (PGs, or bytes).
struct DeviationStats {
  double max_deviation = 0;   // largest (PGs - target); negative if none is over
  std::int32_t max_osd = -1;  // the OSD with it
  double min_deviation = 0;   // most negative
  std::int32_t min_osd = -1;
  double stddev = 0;  // sqrt(mean of deviation^2)
  int osds = 0;       // OSDs counted

  bool operator==(const DeviationStats&) const = default;
};

struct PoolBalance {
  std::int64_t pool_id = 0;
  std::string name;
  double threshold = 0;   // max_deviation in the balance's unit
  DeviationStats before;  // after the cleanup, before balancing
  DeviationStats after;
  int changes = 0;
  // Moves undone because mapping the PG again did not give the predicted
  // set (pair order interplay in _apply_upmap); the PG is then left alone.
  int mismatches = 0;
  // Why balancing stopped: "balanced", "max changes", "no improving move",
  // "rule not found", "no PGs".
  std::string stop_reason;
};

// Bytes mode: one device class's fill, %USE = used / capacity x 100, over
// its OSDs that are up, in, have a capacity and are a target of a balanced
// pool.
struct FillSpread {
  int osds = 0;
  double fullest_pct = 0;
  std::int32_t fullest_osd = -1;
  double emptiest_pct = 0;
  std::int32_t emptiest_osd = -1;

  double spread() const { return fullest_pct - emptiest_pct; }

  bool operator==(const FillSpread&) const = default;
};

struct ClassBalance {
  std::string device_class;  // "" for OSDs without a class
  FillSpread before;         // before any move (the cleanup done)
  FillSpread after;
  int moves = 0;  // bytes-phase moves within the class (a swap is two)
  // "balanced" (spread <= max_spread), "max changes", or what stopped the
  // fullest (else the emptiest) OSD: "a single large PG" (every shard it
  // could give or take overshoots its partners), "too few PGs" (the moves
  // that help would take a pool's PG count past max_deviation), "rule
  // constraint" (they break the rule: failure domain, class, upmap slots).
  std::string stop_reason;
  std::string detail;  // one sentence naming the OSD, for the last three
};

// Bytes mode, per balanced pool: `ceph df` MAX AVAIL (pool_max_avail.h)
// over the fill before and after, and the PG count deviation.
struct PoolBytesBalance {
  std::int64_t pool_id = 0;
  std::string name;
  std::uint64_t max_avail_before = 0;
  std::uint64_t max_avail_after = 0;
  std::int32_t limiting_osd_before = -1;  // the OSD that bounds it
  std::int32_t limiting_osd_after = -1;
  // Largest |PGs - target| over up OSDs (PoolBalance::before/after hold
  // the signed figures).
  double pg_deviation_before = 0;
  double pg_deviation_after = 0;
};

struct BytesBalance {
  // Fill from `ceph osd df`; false: capacity from CRUSH weights (1.0 = 1
  // TiB), use from the shards of the balanced pools.
  bool capacity_from_osd_df = false;
  double max_spread = 0;
  std::vector<ClassBalance> classes;  // by class name
  std::vector<PoolBytesBalance> pools;
};

// One PG whose pg_upmap_items differ from the input (after the cleanup).
struct UpmapChange {
  PgId pg;
  UpmapItems old_items;  // empty: the PG had none
  UpmapItems new_items;  // empty: the entry is removed
};

struct BalanceResult {
  BalanceBy by = BalanceBy::kPgs;
  UpmapCleanup cleanup;              // what the cleanup pass did (may be empty)
  std::vector<UpmapChange> changes;  // in pg order
  std::vector<PoolBalance> pools;    // in pool id order
  DeviationStats overall_before;     // the balanced pools summed per OSD
  DeviationStats overall_after;
  int moves = 0;       // moves made (<= max_changes)
  ClusterState state;  // the input with cleanup and changes applied
  BytesBalance bytes;  // BalanceBy::kBytes only
  // Mappings whose result is crushkit's answer where Ceph's is undefined
  // (CrushPlacement::DivergedFromCeph; the cleanup's included): tools say
  // so on stderr.
  std::uint64_t diverged_from_ceph = 0;
};

// Balances `state`'s pools (every pool, or options.pools), spending at most
// options.max_changes moves over all of them: each move goes to the pool
// whose worst OSD is furthest past its threshold. A move either drops an
// existing pg_upmap_items pair (preferred: it takes the PG back toward
// CRUSH's choice) or replaces one OSD of a PG by a less full one, rewriting
// an existing pair in place rather than chaining pairs. A move is made only
// if it lowers the pool's sum of squared deviations. PGs with a pg_upmap
// entry, a hole (NONE) in their set, pending a merge, or with pool size
// pairs already (unless a pair is rewritten) are left alone.
// BalanceBy::kBytes: the same PG count moves while a pool is past
// max_deviation, then, in the device class whose fullest - emptiest %USE is
// furthest past max_spread, the move of one PG shard (or the swap of two)
// that brings its fullest OSD lowest (else its emptiest highest), never
// taking a pool's PG count past max_deviation either way; `bytes` reports
// per class and pool (MAX AVAIL as `ceph df` computes it).
// REQUIRES: ValidateState(state).
// Errors: kNotFound for an unknown pool in options.pools; kFailedPrecondition
// for BalanceBy::kBytes when the state has neither pg_stats nor pool_usage;
// crush map errors (prefixed "crush map: ") and cleanup errors as
// CheckPgUpmaps.
// Cost: one CRUSH mapping per PG of the balanced pools (on options.threads
// threads, started and joined inside) plus one per move;
// memory ~(pool size x 4 + 1) bytes per PG plus ~4 bytes per PG shard;
// each move costs O(OSDs) (a scan and partial sorts) plus failure-domain
// checks on the candidate PGs of the fullest OSDs (~30 us at 1,000 OSDs).
// A bytes move weighs the shards of the fullest OSD against those of the
// emptiest few (O(shards x partners x log) plus the checks).
absl::StatusOr<BalanceResult> BalanceUpmaps(const ClusterState& state,
                                            const BalancerOptions& options);

// The result as `ceph osd` commands, one per line, as osdmaptool --upmap
// writes its file (print_inc_upmaps): the cleanup's commands, then
// `ceph osd rm-pg-upmap-items PG` for removed entries and
// `ceph osd pg-upmap-items PG FROM TO...` for new or rewritten ones, each
// group in pg order.
std::string FormatBalanceCommands(const BalanceResult& result);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_H_
