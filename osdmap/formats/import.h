// Importers from what a running Ceph cluster prints: the OSD map as JSON
// (`ceph osd dump -f json`, `osdmaptool --dump json`), the binary crush map
// (`ceph osd getcrushmap`, `osdmaptool --export-crush`) and optionally the
// per-PG statistics of `ceph pg dump [pgs] -f json`, the per-OSD use of
// `ceph osd df [tree] -f json` and the per-pool use of `ceph df -f json`.
//
// Each importer first checks the file is the dump it reads
// (input_sniff.h CheckInputKind, role kImportOsdMap/kImportPgStats/
// kImportOsdDf/kImportDf): another of Ceph's dumps, a state, a crush map,
// binary data, or JSON without the keys it reads is refused, kInvalidArgument
// "--pg-stats wants 'ceph pg dump -f json' (or 'ceph pg dump pgs -f json');
// this is 'ceph osd df -f json'" (a `pg dump pgs_brief` has no bytes: said
// so), and the state is unchanged. Unknown JSON fields are ignored; a
// missing required field is an error naming its path (e.g.
// "pools[2].pg_placement_num: missing"). Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_IMPORT_H_
#define CRUSHKIT_OSDMAP_FORMATS_IMPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap {

// The release whose OSDMap rules a cluster with this `require_osd_release`
// maps PGs with: "luminous".."pacific" -> Pacific (find_rule), "quincy" and
// "reef" -> Reef, "squid" and "tentacle" -> Tentacle; anything else
// (osdmaptool's "unknown", empty, a future name) -> crushkit's default.
crush::CephRelease ReleaseOfCluster(const std::string& require_osd_release);

// The release ImportCephOsdDump gives the state of `osd_dump_json`
// (ReleaseOfCluster of its require_osd_release), read without importing the
// rest: the release a text crush map for this cluster is compiled as.
// JSON that does not parse gives crushkit's default (ImportCephOsdDump then
// says what is wrong with it). Cost: one JSON scan of the dump.
crush::CephRelease ReleaseOfOsdDump(const std::string& osd_dump_json);

// Builds a ClusterState from the OSD map JSON and the binary crush map.
// The state's ceph_release comes from require_osd_release (ReleaseOfCluster).
// Also takes fsid, the full ratios (Ceph's defaults are kept when absent)
// and each pool's stripe_width (0 when absent).
// Errors (kInvalidArgument unless noted): malformed JSON (parser message),
// missing required fields (path named), bad pgids, a crush map the codec
// rejects (its code, message prefixed "crush map: "), a full ratio that is
// not a number in [0, 1], ValidateState failures.
absl::StatusOr<ClusterState> ImportCephOsdDump(const std::string& osd_dump_json,
                                               const std::string& crush_bytes);

// Replaces state->crush with the decoded `crush_bytes`, then
// re-validates. Errors: the codec's (code kept, message
// prefixed "crush map: "), ValidateState's; the state is then unchanged.
absl::Status ReplaceCrushMap(const std::string& crush_bytes, ClusterState* state);

// What an imported state holds that is probably a mistake, one sentence
// each: pools whose crush rule the crush map lacks (their PGs map to no OSD),
// devices in the crush map beyond max_osd (Ceph treats them as nonexistent).
std::vector<std::string> ImportWarnings(const ClusterState& state);

// Adds per-PG object/byte counts from `ceph pg dump pgs -f json` (top-level
// "pg_stats") or `ceph pg dump -f json` ("pg_map.pg_stats") to `state`.
absl::Status ImportCephPgDump(const std::string& pg_dump_json, ClusterState* state);

// Replaces state->osd_usage with nodes[] and stray[] of `ceph osd df -f json`
// (id, kb, kb_used; kb_avail when present). Entries with negative ids (the
// buckets `ceph osd df tree` lists) are skipped. Errors (kInvalidArgument, state unchanged):
// malformed JSON, a missing id/kb/kb_used, an OSD id outside the map's
// max_osd, a duplicate OSD, kb_used greater than kb; each names its JSON
// path (e.g. "nodes[4].kb_used"). Linear in the input.
absl::Status ImportCephOsdDf(const std::string& osd_df_json, ClusterState* state);

// Replaces state->pool_usage with pools[] of `ceph df [detail] -f json`
// (id, stats.stored, stats.objects). Errors (kInvalidArgument, state
// unchanged): malformed JSON, a missing id/stats/stats.stored/stats.objects,
// a pool id the OSD map does not have, a duplicate pool; each names its JSON
// path (e.g. "pools[1].stats.stored"). Linear in the input.
absl::Status ImportCephDf(const std::string& df_json, ClusterState* state);

// Converts Ceph's printed float weights (reweight, primary affinity) back to
// 16.16: round(f * 0x10000), clamped to [0, 0x10000]. Ceph prints at least 6
// significant digits, which determines the 16.16 value uniquely.
std::uint32_t WeightFromFloat(double f);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_IMPORT_H_
