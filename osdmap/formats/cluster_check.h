// The import's self-check: every PG of a state re-mapped and compared with
// what the inputs say the cluster does, so that nobody plans from a state
// crushkit maps differently from the cluster (python-crush refused to go on
// in that case; crushkit says so loudly and keeps the verdict in the state).
//
// Two witnesses, each optional:
//   * a `ceph report`'s num_pg_by_osd (report_import.h): per-OSD PG counts
//     that the mgr's PGMap::stat_pg_add keeps from every PG's reported
//     up/acting. Recomputed from crushkit's mapping the same way: one
//     `acting` per acting slot (an EC hole counts under 2147483647, as in
//     Ceph), one `primary` for the up primary, and, from Nautilus on, one
//     `up_not_acting` per up member not in the acting set (Mimic printed
//     num_up_pg, one per up slot). Per-OSD totals cannot name a PG: a
//     disagreement is reported per OSD.
//   * a `ceph pg dump -f json` (any form with up/acting: `pg_map`, `pgs`,
//     `pgs_brief`, Luminous's bare array): each PG's up, up_primary, acting
//     and acting_primary compared with crushkit's. PGs the mgr lists as
//     "unknown" (no report from their primary yet) are skipped and counted.
//
// The PGs compared are 0..pg_num-1 of every pool of the state, as `crushkit
// map-pgs` lists them. The state's pg_temp/primary_temp are applied, so a
// cluster mid-backfill agrees when the dumps come from one epoch.
// Pure functions; thread-safe (the mapping runs on all cores).
#ifndef CRUSHKIT_OSDMAP_FORMATS_CLUSTER_CHECK_H_
#define CRUSHKIT_OSDMAP_FORMATS_CLUSTER_CHECK_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_id.h"

namespace crushkit::osdmap {

// One OSD's entry of PGMapDigest::num_pg_by_osd.
struct OsdPgCount {
  std::uint64_t primary = 0;  // PGs whose up primary it is
  std::uint64_t acting = 0;   // acting slots it holds
  std::uint64_t up = 0;       // up_not_acting (Nautilus+) or every up slot (Mimic)

  bool operator==(const OsdPgCount&) const = default;
};

// A report's per-OSD PG counts.
struct ClusterPgCounts {
  // Mimic's num_up_pg (every up slot) instead of num_up_not_acting_pg.
  bool up_counts_every_up_slot = false;
  std::map<std::int32_t, OsdPgCount> by_osd;  // OSDs absent count 0
  std::uint64_t num_pg = 0;                   // PGs the mgr knows
  std::uint64_t num_pg_unknown = 0;           // of which without a report
};

// One PG as a pg dump lists it.
struct ReportedPg {
  std::vector<std::int32_t> up;
  std::int32_t up_primary = -1;
  std::vector<std::int32_t> acting;
  std::int32_t acting_primary = -1;
  bool unknown = false;  // state "unknown": the mgr has no report for it
};

// Every PG's placement from `ceph pg dump [pgs|pgs_brief] -f json`.
// Errors (kInvalidArgument): malformed JSON (located), a missing or bad
// pgid, an OSD id outside [-1, 2^31) (each names its JSON path); a pgid
// listed twice. Linear in the input.
absl::StatusOr<std::map<PgId, ReportedPg>> ReadPgDumpPlacement(const std::string& pg_dump_json);

// Maps every PG of `state` and compares with `counts` and `pgs` (either may
// be null; with both null the result has no sources and agrees). At most
// `max_examples` differences are described, pg dump ones first, in PG or OSD
// order. Errors: the state does not map (MappingSession::Create's).
// REQUIRES: ValidateState(state). Cost: one mapping of every PG on all
// cores, plus a pass over the dump.
absl::StatusOr<MappingCheck> CheckMappingAgainstCluster(const ClusterState& state,
                                                        const ClusterPgCounts* counts,
                                                        const std::map<PgId, ReportedPg>* pgs,
                                                        int max_examples = 5);

// The verdict for a terminal: one line when it agrees ("mapping agrees with
// the cluster: 1,234 PGs (compared with ...)"); otherwise a warning line
// with the counts, then one line per example and one on what it means.
std::vector<std::string> FormatMappingCheck(const MappingCheck& check);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_CLUSTER_CHECK_H_
