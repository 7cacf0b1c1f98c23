// The five figures of Ceph's `crushdiff compare` (src/tools/crushdiff, a
// Python tool in Ceph Quincy and later) computed from two cluster states,
// and its exact output. crushdiff maps every PG of the osdmap before and
// after a crush map change with `osdmaptool --test-map-pgs-dump` (acting
// sets, with the osdmap's real up/in states, reweights, upmaps and pg_temp;
// no --mark-up-in), then counts with PG stats from `ceph pg dump`:
//   * pgs affected: PGs whose acting list changed, except in pools without
//     an erasure code profile when only the order changed;
//   * objects affected: their num_objects;
//   * pg shards: every slot of the before list (EC holes included); moved:
//     EC slots whose OSD changed, replicated OSDs of before not in after;
//   * object shards and bytes: num_objects x (k + m) and
//     (num_bytes + num_omap_bytes) x (k + m) / k per PG (replicated: k = 1,
//     m = size - 1); each moved shard adds num_objects and bytes / k.
// Its definitions differ from crushkit's own report (osdmap/planning/movement.h uses
// up sets, one shard per copy and pool size); this file exists so that an
// operator can check crushkit against the number they already trust.
//
// Thread-safety: CompareCrushdiff() runs its own mapping threads and reads
// its inputs only; the rest are pure functions on values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_CRUSHDIFF_SUMMARY_H_
#define CRUSHKIT_OSDMAP_PLANNING_CRUSHDIFF_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_table.h"

namespace crushkit::osdmap {

struct CrushdiffSummary {
  std::uint64_t pgs_affected = 0;
  std::uint64_t pgs_total = 0;  // PGs with a non-empty before acting set
  std::uint64_t objects_affected = 0;
  std::uint64_t objects_total = 0;
  std::uint64_t pg_shards_to_move = 0;
  std::uint64_t pg_shards_total = 0;
  std::uint64_t object_shards_to_move = 0;
  std::uint64_t object_shards_total = 0;
  // Sums of doubles in crushdiff's order (PG by PG, pools by id), so that
  // they round as its Python floats do.
  double bytes_to_move = 0;
  double bytes_total = 0;
  // crushdiff's stderr lines, in PG order:
  // "WARNING: 2.1f will be undersized ([3, 7])".
  std::vector<std::string> warnings;
};

// The figures for a change of `before`, from the acting sets of both states
// (PgTable acting lists, MapAllOptions::acting) and before's pg_stats, pool
// sizes and erasure code profiles; PGs in pool id then seed order, as
// crushdiff reads osdmaptool's dump. A PG with an empty before acting set
// is left out, as crushdiff's parser skips it.
// Where crushdiff itself stops with a Python exception, this returns an
// error instead: a counted PG without PG stats (kFailedPrecondition), a PG
// of before that acting_after does not have (kInvalidArgument), an erasure-coded
// pool (non-empty profile name) whose profile gave no k (kInvalidArgument).
// Beyond crushdiff (which raises there): an empty after set counts as the
// list [], and an EC after list shorter than before's differs in the
// missing positions.
// REQUIRES: acting_before maps `before`, both with acting sets. PG byte counts
// below 2^53 (crushdiff's int -> float conversions are then exact).
// Cost: O(PGs x size).
absl::StatusOr<CrushdiffSummary> SummarizeCrushdiff(const ClusterState& before,
                                                    const PgTable& acting_before,
                                                    const PgTable& acting_after);

// Maps both states (acting sets, MapAllPgsPaired) and summarizes them.
// `options.acting` is forced on. Errors: CheckComparable()'s, the crush map
// build error of the state named "before: " / "after: ", then
// SummarizeCrushdiff()'s. Cost: two all-PG mappings plus the summary.
absl::StatusOr<CrushdiffSummary> CompareCrushdiff(ClusterState before, ClusterState after,
                                                  MapAllOptions options = {});

// `before` with its crush map replaced by `crush_bytes`, as `osdmaptool
// --import-crush` does for crushdiff: upmaps and pg_temp are kept as they
// are. Errors: the decoder's; kInvalidArgument when the map's max_devices
// exceeds max_osd (osdmaptool refuses such a map, and crushdiff fails).
absl::StatusOr<ClusterState> CrushdiffImportCrush(const ClusterState& before,
                                                  std::string crush_bytes);

// crushdiff's five stdout lines, each ending in '\n':
//   79/416 (18.99%) pgs affected
//   281/1392 (20.19%) objects affected
//   80/1248 (6.41%) pg shards to move
//   281/4176 (6.73%) pg object shards to move
//   730.52Mi/10.55Gi (6.76%) bytes to move
// Percentages with two decimals, 0.00 when the total is 0.
std::string FormatCrushdiff(const CrushdiffSummary& summary);

// crushdiff's get_human_readable() of int(bytes): "%.2f" and a suffix of
// "", Ki, Mi, Gi, Ti, dividing by 1024 while the value exceeds 1024 (so
// 1024 -> "1024.00", 1025 -> "1.00Ki", 0 -> "0.00").
std::string CrushdiffHumanBytes(double bytes);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_CRUSHDIFF_SUMMARY_H_
