// The read (primary) balance score Ceph 18.2+ reports per replicated pool:
// OSDMap::calc_read_balance_score (src/osd/OSDMap.cc), shown by `osdmaptool
// --print` (` read_balance_score S`) and `--dump` (the pool's
// "read_balance" section) of Reef and later, and by `ceph osd pool ls
// detail`. The "fair distribution" score compares the most primaries any
// OSD of the pool's rule holds with the pool's average (pg_num / OSDs
// holding any of its PGs), for the up primaries ("stable") and the acting
// ones, adjusted by how many OSDs may be primary at all (primary affinity).
// Tentacle (20.2) scores a pool with the `read_ratio` option by load
// instead ("OSD size aware", calc_rbs_size_optimal): a primary costs 100, a
// replica 100 - read_ratio, and the score is the busiest OSD's load over the
// average. Every step is float arithmetic rounded to two decimals as Ceph's
// rbi_round does, so the dumped values are bit-identical.
// Pure function of a ClusterState; thread-safe.
#ifndef CRUSHKIT_OSDMAP_MODEL_READ_BALANCE_H_
#define CRUSHKIT_OSDMAP_MODEL_READ_BALANCE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap {

// read_balance_info_t::score_type (Tentacle): which calculation made it.
enum class ReadBalanceScoreType {
  kFair,         // RBS_FAIR: "Fair distribution" (Reef's only one)
  kSizeOptimal,  // RBS_SIZE_OPTIMAL: "OSD size aware", pools with read_ratio
};

// The busiest OSD of a size-aware score: load = primaries x 100 + other
// copies x (100 - read_ratio).
struct ReadBalanceLoad {
  std::int64_t osd = -1;  // -1: none found
  std::int64_t load = 0;
  std::int64_t pgs = 0;
  std::int64_t primaries = 0;
};

// OSDMap::read_balance_info_t. Every score is rounded to two decimals.
struct ReadBalanceInfo {
  ReadBalanceScoreType score_type = ReadBalanceScoreType::kFair;
  float pa_avg = 0;            // average primary affinity of the OSDs with one
  float pa_weighted = 0;       // sum of rule weight x primary affinity
  float pa_weighted_avg = 0;   // pa_weighted / sum of rule weights
  float raw_score = 0;         // max up primaries per OSD / average
  float optimal_score = 0;     // OSDs with PGs / OSDs with primary affinity > 0
  float adjusted_score = 0;    // raw_score / optimal_score ("score_stable")
  float acting_raw_score = 0;  // as raw_score for the acting primaries
  float acting_adj_score = 0;  // acting_raw_score / optimal_score ("score_acting")
  std::string err_msg;         // Ceph's explanation when the score is unreliable
  // kSizeOptimal only: the busiest OSD by up primaries ("most_loaded_osd")
  // and by acting primaries, and the average load per OSD (truncated).
  ReadBalanceLoad most_loaded;
  ReadBalanceLoad most_loaded_acting;
  std::uint64_t average_osd_load = 0;
};

// calc_read_balance_score's result: `rc` is its return value (0, or a
// negative errno: -EINVAL when no PG of the pool maps to an OSD or the
// score is unreliable, -ERANGE when every OSD has primary affinity 0,
// -ENOENT for a missing pool); `info` is what it left in its out-parameter,
// filled (with err_msg) on most errors too. With rc 0, a non-empty err_msg
// is a warning (`--print` shows it after " Warning: ", an error after
// " ERROR: ").
struct ReadBalanceScore {
  int rc = 0;
  ReadBalanceInfo info;
  // Mappings of the score whose result is crushkit's answer where Ceph's is
  // undefined (CrushPlacement::DivergedFromCeph); tools say so on stderr.
  std::uint64_t diverged_from_ceph = 0;
};

// OSDMap::get_primary_affinityf: the OSD's primary affinity as a float
// (1.0 for an id outside the map, as Ceph's default).
float PrimaryAffinityF(const ClusterState& state, std::int32_t osd);

// The score of pool `pool_id` of `state`, mapping every PG of the pool with
// Ceph's OSDMap rules (pg_mapping.h, as `state.ceph_release` maps) and the
// pool's rule weights (rule_weights.h). Tentacle and later score a pool
// with `read_ratio` set by load (kSizeOptimal), as 20.2.4 does it: its
// check that every PG copy is counted sums the PGs of OSDs 0..n-1 (n = the
// OSDs holding the pool's PGs), not of those n OSDs, so a pool whose PGs sit
// on higher ids gets "ERROR: pool P has L PG OSD legs, expected E".
// Errors: the CRUSH map does not build, or its rule weights cannot be
// computed (RuleWeightOsdMap's errors): Ceph would assert or read out of
// bounds there; kFailedPrecondition where osdmaptool 20.2 aborts (a
// size-aware average load of 0: more OSDs than load units).
// Cost: one PG mapping per PG of the pool.
absl::StatusOr<ReadBalanceScore> CalcReadBalanceScore(const ClusterState& state,
                                                      std::int64_t pool_id);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_READ_BALANCE_H_
