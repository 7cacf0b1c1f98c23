// Importing a whole `ceph report` (one JSON file: what support bundles and
// most community tools collect), Mimic (13.2) to Tentacle (20.2):
//
//   * "osdmap" is `ceph osd dump -f json`: imported as ImportCephOsdDump
//     does (import.h), errors prefixed "osdmap.";
//   * "crushmap" is `ceph osd crush dump -f json`: read exactly by
//     crush_dump_json.h (errors prefixed "crushmap.") and encoded as the
//     release writes it;
//   * the mgr's PG digest (PGMapDigest::dump) at the top level, or in a
//     "pgmap" object in older layouts:
//       - pool_stats[] -> the state's pool_usage, each pool's `ceph df`
//         STORED and OBJECTS as PGMapDigest::dump_object_stat_sum computes
//         them: with per-pool store stats (osd_sum.num_per_pool_osds ==
//         num_osds, Nautilus+ BlueStore) store_stats.data_stored / rate,
//         else stat_sum.num_bytes + num_bytes_hit_set_archive; omap likewise
//         (num_per_pool_omap_osds, Octopus+: omap_allocated / rate, else
//         stat_sum.num_omap_bytes); rate = OSDMap::pool_raw_used_rate (size,
//         or (k+m)/k) scaled by the undegraded share of object copies, in
//         float as Ceph. Mimic prints no store_stats and no per-pool
//         counters: the legacy sums. Pools the osd map no longer has are
//         skipped;
//       - num_pg_by_osd[] -> the per-OSD PG counts the self-check compares
//         (cluster_check.h): num_up_not_acting_pg from Nautilus on, Mimic's
//         num_up_pg otherwise;
//       - osd_stats[] holds only {osd, seq} and osd_sum only totals: a
//         report has no per-OSD capacity (osd_usage stays empty; `ceph osd
//         df -f json` adds it) and no per-PG sizes (`ceph pg dump`).
//
// Errors (kInvalidArgument unless the crush encoding says otherwise; nothing
// is returned): not a report (input_sniff.h CheckInputKind, role
// kImportReport), malformed JSON (located), the osd dump's and crush dump's
// errors with their JSON paths, a num_pg_by_osd entry without an OSD id or
// with neither up count, a pool stat without poolid or stat_sum. Pure
// functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_REPORT_IMPORT_H_
#define CRUSHKIT_OSDMAP_FORMATS_REPORT_IMPORT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

#include "crush/ceph_release.h"
#include "osdmap/formats/cluster_check.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap {

struct ImportedReport {
  ClusterState state;
  // The report's num_pg_by_osd; nullopt when it has no PG digest.
  std::optional<ClusterPgCounts> pg_counts;
  std::string ceph_version;  // the report's "version" ("16.2.15"), may be empty
};

// The state a `ceph report` describes. The crush map is encoded, and the
// state maps, as `release` when given, else as the cluster's
// require_osd_release implies (ReleaseOfCluster). Cost: two JSON parses of
// the report (the crush dump is read on its own) and the crush reader's.
absl::StatusOr<ImportedReport> ImportCephReport(const std::string& report_json,
                                                std::optional<crush::CephRelease> release);

// The epoch of the osd map in a `ceph report` (to fetch the same epoch's
// binary map). Errors: as ImportCephReport's parse, "osdmap.epoch: missing".
absl::StatusOr<std::uint32_t> ReportOsdMapEpoch(const std::string& report_json);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_REPORT_IMPORT_H_
