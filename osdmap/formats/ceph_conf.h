// The OSD locations osdmaptool --create-from-conf reads from a ceph.conf
// (OSDMap::build_simple_crush_map_from_conf over Ceph's ConfFile): every
// `[osd.N]` section, in std::map (lexicographic) section order, with host,
// rack, row, room and datacenter looked up first in `[osd]`, then in
// `[osd.N]` (md_config_t::get_val_from_conf_file's order). Key names match
// with spaces and dashes as underscores; `;` and `#` start comments; values
// are trimmed and unquoted; no $-expansion.
// Pure function; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_CEPH_CONF_H_
#define CRUSHKIT_OSDMAP_FORMATS_CEPH_CONF_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/formats/osdmap_create.h"

namespace crushkit::osdmap {

// Errors: kInvalidArgument for a malformed section header (with its line).
absl::StatusOr<std::vector<OsdLocation>> OsdLocationsFromConf(std::string_view conf);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_CEPH_CONF_H_
