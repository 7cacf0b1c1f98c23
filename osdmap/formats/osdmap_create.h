// Building a new binary OSDMap the way Ceph 16.2's osdmaptool does
// (`--createsimple N` and `--create-from-conf`: OSDMap::build_simple_optioned,
// build_simple_crush_map, build_simple_crush_map_from_conf and
// build_simple_crush_rules in src/osd/OSDMap.cc), and the empty map it works
// on with `--clobber` alone (a default-constructed OSDMap). The result is the
// map before osdmaptool's final inc_epoch (epoch 0), with every field as Ceph
// sets it; the caller supplies the clock and fsid, the only values that
// differ between two runs. Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_OSDMAP_CREATE_H_
#define CRUSHKIT_OSDMAP_FORMATS_OSDMAP_CREATE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/formats/binary_types.h"
#include "osdmap/formats/osdmap_binary.h"

namespace crushkit::osdmap {

// Where one OSD goes in the CRUSH hierarchy (a `[osd.N]` section of a
// ceph.conf): empty host/rack become "unknownhost"/"unknownrack"; empty
// row/room/datacenter are left out. The root is always "default".
struct OsdLocation {
  std::int32_t id = 0;
  std::string host;
  std::string rack;
  std::string row;
  std::string room;
  std::string datacenter;
};

struct CreateOsdMapOptions {
  // --createsimple N: N OSDs at host=localhost rack=localrack. Ignored when
  // `locations` is non-empty (--create-from-conf: max_osd = highest id + 1,
  // OSDs inserted in the order given, which osdmaptool makes the
  // lexicographic order of the section names).
  std::int32_t num_osd = 0;
  std::vector<OsdLocation> locations;
  bool from_conf = false;
  // --pg-bits/--pgp-bits (osd_pg_bits/osd_pgp_bits, both 6 by default).
  int pg_bits = 6;
  int pgp_bits = 6;
  // --with-default-pool: pool 1 'rbd'.
  bool with_default_pool = false;
  int pool_default_size = 3;      // osd_pool_default_size
  int pool_default_min_size = 0;  // osd_pool_default_min_size (0: size - size/2)
  int chooseleaf_type = 1;        // osd_crush_chooseleaf_type (0: choose osd)
  // The plugin of osd_pool_default_erasure_code_profile (profile "default"):
  // jerasure up to Squid, isa in Tentacle.
  std::string default_ec_plugin = "jerasure";
  binary::Utime now;  // created = modified
  std::array<std::uint8_t, 16> fsid{};
};

// The map osdmaptool builds, at epoch 0. Errors: kInvalidArgument for
// num_osd < 1 without locations, bits outside [0, 31], or a negative OSD id.
// Cost: O(OSDs x depth) plus the encoding of the crush map.
absl::StatusOr<OsdMapBinary> CreateOsdMap(const CreateOsdMapOptions& options);

// The OSDMap Ceph's default constructor makes, as OSDMap::encode writes it
// (client and OSD sections v9): what osdmaptool 16.2 works on when given
// `--clobber` without --createsimple/--create-from-conf (it never reads the
// file then). Epoch 0, zero fsid and stamps, no flags, max_osd 0, no pools
// (pool_max 0), no erasure code profiles, crush_version 1, ratios 0,
// require_min_compat_client and require_osd_release unknown (0), and the
// crush map a default CrushWrapper holds: no devices, types, buckets or
// rules, Ceph's default (jewel) tunables. Never fails; cost O(1).
OsdMapBinary EmptyOsdMap();

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_OSDMAP_CREATE_H_
