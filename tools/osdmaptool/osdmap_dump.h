// `osdmaptool --dump FORMAT`: OSDMap::dump (src/osd/OSDMap.cc, with
// pg_pool_t::dump, HitSet::Params::dump, pool_snap_info_t::dump,
// osd_info_t/osd_xinfo_t/entity_addr_t::dump) of a binary OSDMap under
// Ceph's formatter of that name (tools/crushtool/ceph_formatter.h:
// protobuf's JSON printer cannot reproduce Ceph's layout and float
// printing), with Ceph's section names and its dump_stream fields, so that
// xml, html and table print as Ceph's do. Key order and quirks:
// /work/shared/reference/ceph-osdmap-encoding.md section 11.
// Every field is dumped: pools (HitSets, snapshots, options), OSD addresses
// (msgr2 and legacy), blocklists (Ceph's hash-table order), snap queues,
// crush node / device class flags.
// Pure function; thread-safe except for localtime's TZ lookup.
#ifndef CRUSHKIT_TOOLS_OSDMAPTOOL_OSDMAP_DUMP_H_
#define CRUSHKIT_TOOLS_OSDMAPTOOL_OSDMAP_DUMP_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

#include "crush/ceph_release.h"
#include "osdmap/formats/osdmap_binary.h"
#include "osdmap/formats/osdmap_print.h"

namespace crushkit::tools::osdmaptool {

// The bytes `osdmaptool --dump FORMAT` writes after its banner (no final
// newline for json). FORMAT is any name but "plain": json, json-pretty, xml,
// xml-pretty, html, html-pretty, table and table-kv are those formatters, and
// any other name is compact json (Formatter::create(FORMAT, "", "json")).
// Errors: osdmap::CheckPerOsdVectors' and ParseHitSetParams' errors,
// HitSetGradeTable's limit, kDataLoss for an address that does not parse.
// `as`: the release whose osdmaptool is emulated (osdmap::PrintRelease:
// Reef adds allow_crimson, pg_upmap_primaries and each replicated pool's
// read_balance; Tentacle also is_stretch_pool, nonprimary_shards and the
// score_type).
absl::StatusOr<std::string> DumpOsdMap(const osdmap::OsdMapBinary& map, std::string_view format,
                                       const osdmap::PrintRelease& as = {});

// `osdmaptool --health`: OSDMap::check_health (osdmap/formats/osdmap_health.h) as
// pretty JSON, code -> {severity, summary {message, count}, detail [...]}.
// `as_decoded`: the map as read from the file (see CheckHealth's
// features_from); `release`: whose check_health (HealthConfig::release).
absl::StatusOr<std::string> DumpHealth(const osdmap::OsdMapBinary& map,
                                       const osdmap::OsdMapBinary& as_decoded,
                                       crush::CephRelease release);

}  // namespace crushkit::tools::osdmaptool

#endif  // CRUSHKIT_TOOLS_OSDMAPTOOL_OSDMAP_DUMP_H_
