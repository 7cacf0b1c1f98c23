// MAX AVAIL per pool exactly as `ceph df` computes it (PGMap::get_rule_avail
// and PGMapDigest::dump_object_stat_sum in src/mon/PGMap.cc):
//
//   raw(rule) = min over the rule's devices d with weight w_d > 0 and stats
//               (kb > 0; an out OSD's stats are zeroed by the mgr) of
//               int64( max(0, kb_avail_d - kb_d x (1 - full_ratio)) x 1024 / w_d )
//   w_d       = CrushWrapper::get_rule_weight_osd_map (rule_weights.h): the
//               device's share of the rule's take subtrees, CRUSH weights only
//               (reweight plays no part; out OSDs drop out through their stats)
//   max_avail = uint64( float(raw) / raw_used_rate ), raw < 0 read as 0
//   raw_used_rate = size (replicated) or (k + m) / k (EC), as float
//               (OSDMap::pool_raw_used_rate); 0 (max_avail 0) for an EC pool
//               whose profile is unknown.
//
// The arithmetic (double for the projection, float for full_ratio, the
// weights and the final division) is Ceph's, so the result equals `ceph df
// -f json`'s pools[].stats.max_avail byte for byte (pool_max_avail_test.cc
// checks a real Pacific capture). Pacific resolves the pool's rule through
// find_rule (ruleset, type, size), later releases take crush_rule as the id
// (crush_placement.h FindCrushRule). Not modelled: a degraded pool's lower
// raw_used_rate in releases that scale it by the undegraded share of object
// copies; a clean cluster (and every projected state here) has none.
//
// Projections (the state after a change, the peak during its backfill) are
// the same formula over usage moved by the bytes each OSD gains or loses
// (ShiftUsage).
// Thread-safety: pure functions and an immutable model; concurrent const use
// is safe.
#ifndef CRUSHKIT_OSDMAP_MODEL_POOL_MAX_AVAIL_H_
#define CRUSHKIT_OSDMAP_MODEL_POOL_MAX_AVAIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/types.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap {

struct PoolMaxAvail {
  std::int64_t pool_id = 0;
  std::string pool_name;
  int rule = -1;                      // the rule Ceph reads; -1: none (max_avail 0)
  float raw_used_rate = 0;            // OSDMap::pool_raw_used_rate
  std::uint64_t raw_avail_bytes = 0;  // get_rule_avail, a negative result as 0
  std::uint64_t max_avail_bytes = 0;  // `ceph df` pools[].stats.max_avail
  // The OSD whose projection is the minimum (the first by id on a tie), the
  // one that fills first; crush::kItemNone when no OSD of the rule has stats.
  std::int32_t limiting_osd = crush::kItemNone;
};

// The crush side of MAX AVAIL for one state: every pool's rule, its device
// weights and raw_used_rate, which OSDs are in, and full_ratio (Ceph's
// default 0.95 when the map carries none, as osdmaptool-made maps do).
// Build once, evaluate against several usages (before, peak, after).
class MaxAvailModel {
 public:
  // Errors: RuleWeightOsdMap's kInvalidArgument / kResourceExhausted for a
  // rule whose take steps name missing buckets, prefixed with the pool. A
  // pool whose rule does not exist gets max_avail 0 (Ceph's -ENOENT, read as
  // 0), not an error. Cost: one RuleWeightOsdMap per distinct rule.
  static absl::StatusOr<MaxAvailModel> Create(const ClusterState& state);

  // Every pool's MAX AVAIL over `usage` (OSD id -> `ceph osd df` figures),
  // in pool id order. OSDs without an entry, with kb 0, or out in the state
  // are skipped, as Ceph skips them. Cost: O(pools' rule devices).
  std::vector<PoolMaxAvail> Compute(const std::map<std::int32_t, OsdUsage>& usage) const;

 private:
  struct PoolEntry {
    std::int64_t id = 0;
    std::string name;
    int rule = -1;
    float raw_used_rate = 0;
  };

  std::vector<PoolEntry> pools_;
  // rule -> (device, weight) in device order; absent: the rule is missing.
  std::map<int, std::vector<std::pair<std::int32_t, float>>> rule_weights_;
  std::vector<bool> in_;  // by OSD id
  float full_ratio_ = 0.95f;
};

// MaxAvailModel::Create(state).Compute(state.osd_usage): `ceph df`'s MAX
// AVAIL of the state as it is. Errors: Create's.
absl::StatusOr<std::vector<PoolMaxAvail>> ComputePoolMaxAvail(const ClusterState& state);

// `usage` with each listed OSD's use moved by `delta_bytes` (positive: it
// holds more): kb_used grows and kb_avail (kb - kb_used if unknown) shrinks
// by the delta in KiB, rounded to the nearest, both kept within [0, kb].
// OSDs not in `delta_bytes` are copied; OSDs only in `delta_bytes` are not
// added. Cost: O(entries log entries).
std::map<std::int32_t, OsdUsage> ShiftUsage(
    const std::map<std::int32_t, OsdUsage>& usage,
    const std::map<std::int32_t, std::int64_t>& delta_bytes);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_POOL_MAX_AVAIL_H_
