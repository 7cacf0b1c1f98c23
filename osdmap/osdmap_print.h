// Ceph 16.2's plain-text rendering of a binary OSDMap, as `osdmaptool
// --print` (= `--dump plain`) writes it (OSDMap::print, print_pools,
// print_osd, pg_pool_t and osd_info_t operator<< in src/osd/): the header,
// the pools, the existing OSDs, then upmaps and temps. Layout and quirks:
// /work/shared/reference/ceph-osdmap-encoding.md section 11.
//
// Timestamps are printed in local time, as Ceph's utime_t does (TZ applies).
// Not rendered yet (kUnimplemented, never a wrong line): blocklists (Ceph
// prints them in unordered_map order), pools with HitSet parameters or pool
// options, OSD addresses other than IPv4/IPv6 addrvecs.
// Pure function; thread-safe except for localtime's TZ lookup.
#ifndef CRUSHKIT_OSDMAP_OSDMAP_PRINT_H_
#define CRUSHKIT_OSDMAP_OSDMAP_PRINT_H_

#include <string>

#include "absl/status/statusor.h"

#include "osdmap/osdmap_binary.h"

namespace crushkit::osdmap {

// The text `osdmaptool --print` writes for `map` (after its banner line).
// Errors: kUnimplemented for the parts listed above; kDataLoss for an OSD
// address that does not parse.
absl::StatusOr<std::string> FormatOsdMapPlain(const OsdMapBinary& map);

// Ceph's utime_t operator<<: "YYYY-MM-DDTHH:MM:SS.uuuuuu+hhmm" in local
// time, or "sec.uuuuuu" below ten years.
std::string FormatUtime(const binary::Utime& t);

// The release `OSDMap::get_min_compat_client()` reports for `map`
// ("argonaut" ... "luminous").
std::string MinCompatClient(const OsdMapBinary& map);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_OSDMAP_PRINT_H_
