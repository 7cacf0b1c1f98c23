// `osdmaptool --dump json|json-pretty`: OSDMap::dump (src/osd/OSDMap.cc,
// with pg_pool_t::dump, osd_info_t/osd_xinfo_t::dump) of a binary OSDMap
// under Ceph's JSONFormatter (tools/crushtool/ceph_formatter.h: protobuf's
// JSON printer cannot reproduce Ceph's layout and float printing). Key
// order and quirks: /work/shared/reference/ceph-osdmap-encoding.md
// section 11.
// OSD addresses, blocklists (Ceph's hash-table order), pool options and
// crush node / device class flags are dumped. Not rendered yet
// (kUnimplemented, never a wrong document): formats other than
// json/json-pretty, legacy OSD addresses, pool snapshots, HitSet
// parameters, snap queues.
// Pure function; thread-safe except for localtime's TZ lookup.
#ifndef CRUSHKIT_TOOLS_OSDMAPTOOL_OSDMAP_DUMP_H_
#define CRUSHKIT_TOOLS_OSDMAPTOOL_OSDMAP_DUMP_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

#include "osdmap/osdmap_binary.h"

namespace crushkit::tools::osdmaptool {

// The bytes `osdmaptool --dump FORMAT` writes after its banner (no final
// newline for json). FORMAT is any name but "plain": json-pretty is pretty,
// xml/html/table variants are kUnimplemented, and any other name is compact
// json (Formatter::create(FORMAT, "", "json")).
absl::StatusOr<std::string> DumpOsdMap(const osdmap::OsdMapBinary& map, std::string_view format);

// `osdmaptool --health`: OSDMap::check_health (osdmap/osdmap_health.h) as
// pretty JSON, code -> {severity, summary {message, count}, detail [...]}.
// `as_decoded`: the map as read from the file (see CheckHealth's
// features_from).
absl::StatusOr<std::string> DumpHealth(const osdmap::OsdMapBinary& map,
                                       const osdmap::OsdMapBinary& as_decoded);

}  // namespace crushkit::tools::osdmaptool

#endif  // CRUSHKIT_TOOLS_OSDMAPTOOL_OSDMAP_DUMP_H_
