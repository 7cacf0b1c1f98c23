// Ceph's binary OSDMap (`ceph osd getmap`, `osdmaptool --createsimple/
// --save`): OSDMap::encode/decode in Ceph's src/osd/OSDMap.cc, as Pacific
// 16.2 writes it and as Quincy, Reef, Squid and Tentacle extend it.
//
// Layout (all integers little-endian; details in
// /work/shared/reference/ceph-osdmap-encoding.md):
//   u8 8, u8 7, u32 len                        wrapper (v >= 7 required)
//     client section  ENCODE_START(cv, 1)      cv 9 (Pacific) / 10 (Reef+)
//       fsid, epoch, created, modified, pools, pool_name, pool_max, flags,
//       max_osd, osd_state, osd_weight, client_addrs, pg_temp, primary_temp,
//       osd_primary_affinity, crush (bufferlist), [cv3] erasure_code_profiles,
//       [cv4] pg_upmap, pg_upmap_items, [cv6] crush_version, [cv7]
//       new_removed_snaps, new_purged_snaps, [cv9] last_up_change,
//       last_in_change, [cv10] pg_upmap_primaries
//     osd section     ENCODE_START(ov, 1)      ov 9, 10 stretch, 11, 12
//       hb_back_addrs, osd_info, blocklist, cluster_addrs,
//       cluster_snapshot_epoch, cluster_snapshot, osd_uuid, osd_xinfo,
//       hb_front_addrs, [ov2] nearfull/full, [ov3] backfillfull ratio,
//       [ov4 only] min compat client string, [ov5] require_min_compat_client,
//       require_osd_release, [ov6] removed_snaps_queue, [ov8]
//       crush_node_flags, [ov9] device_class_flags, [ov10] stretch fields,
//       [ov11] range_blocklist, [ov12] allow_crimson
//     u32 crc                                  crc32c(-1) of all bytes before
//
// Decoded: everything placement or the tools use (pools with every
// pg_pool_t field, EC profiles, upmaps, temps, OSD states, weights,
// affinities, osd_info, osd_xinfo, uuids, ratios, releases, flags, snaps,
// stretch fields, crush map). Kept as opaque bytes: network addresses and
// blocklists, HitSet parameter bodies, and every struct's unknown trailing
// fields (StructFrame::tail), so that newer releases' maps re-encode
// byte-identically. EncodeOsdMap(DecodeOsdMap(x)) == x for every map Ceph
// writes (osdmaptool 16.2, Reef, Tentacle are tested).
//
// DecodeOsdMap is total: any byte string yields a map or an error; it never
// crashes and never allocates more than a small multiple of the input (every
// count is checked against the remaining bytes first). What decode
// normalises (Ceph does the same): pg_t's version byte and "preferred" word
// (re-encoded as 1 and -1); duplicate keys (first wins) and key order of
// maps (re-encoded sorted); optional-present bytes other than 0/1. Unlike
// Ceph, decode does not apply the flag and snap fix-ups of OSDMap::decode,
// so the bytes stay as written.
// Errors: kInvalidArgument (not an osdmap, bad address marker, unknown pool
// option type, trailing bytes after the map), kDataLoss (truncation, counts
// larger than the remaining bytes, CRC mismatch), kUnimplemented (pre-2012
// classic encodings; struct compat newer than this decoder). Messages name
// the field and byte offset; the embedded crush map's errors are prefixed
// "crush map at offset N: ".
// Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_OSDMAP_BINARY_H_
#define CRUSHKIT_OSDMAP_FORMATS_OSDMAP_BINARY_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/ceph_release.h"
#include "crush/model.h"
#include "osdmap/formats/binary_io.h"
#include "osdmap/formats/binary_types.h"
#include "osdmap/formats/pool_binary.h"
#include "osdmap/model/pg_id.h"

namespace crushkit::osdmap {

// osd_info_t: u8 struct_v (1), then six epochs (no ENCODE_START).
struct BinaryOsdInfo {
  std::uint8_t struct_v = 1;
  std::uint32_t last_clean_begin = 0;
  std::uint32_t last_clean_end = 0;
  std::uint32_t up_from = 0;
  std::uint32_t up_thru = 0;
  std::uint32_t down_at = 0;
  std::uint32_t lost_at = 0;

  bool operator==(const BinaryOsdInfo&) const = default;
};

// osd_xinfo_t: ENCODE_START(4,1).
struct BinaryOsdXinfo {
  binary::StructFrame frame{4, 1, {}};
  binary::Utime down_stamp;
  std::uint32_t laggy_probability = 0;  // raw u32 (float x 0xffffffff)
  std::uint32_t laggy_interval = 0;
  std::uint64_t features = 0;             // [v2]
  std::uint32_t old_weight = 0;           // [v3]
  binary::Utime last_purged_snaps_scrub;  // [v4]
  std::uint32_t dead_epoch = 0;           // [v4]

  bool operator==(const BinaryOsdXinfo&) const = default;
};

using SnapIntervalMap = std::map<std::int64_t, binary::IntervalSet>;

struct OsdMapBinary {
  binary::StructFrame wrapper{8, 7, {}};  // tail: bytes after the crc
  binary::StructFrame client{9, 1, {}};
  binary::StructFrame osd{9, 1, {}};

  // Client-usable section.
  std::array<std::uint8_t, 16> fsid{};
  std::uint32_t epoch = 0;
  binary::Utime created;
  binary::Utime modified;
  std::map<std::int64_t, binary::BinaryPool> pools;
  std::map<std::int64_t, std::string> pool_name;
  std::int32_t pool_max = -1;
  std::uint32_t flags = 0;
  std::int32_t max_osd = 0;
  std::vector<std::uint32_t> osd_state;  // u8 on the wire when cv < 5
  std::vector<std::uint32_t> osd_weight;
  std::vector<std::string> client_addrs;  // raw entity_addrvec_t (addr when cv < 8)
  std::map<PgId, std::vector<std::int32_t>> pg_temp;
  std::map<PgId, std::int32_t> primary_temp;
  std::vector<std::uint32_t> osd_primary_affinity;  // empty = never set
  std::string crush_bytes;                          // written as is; the source of truth on encode
  // Decoded from crush_bytes; tail groups newer than crush/codec.h knows are
  // ignored here (DecodeOptions::ignore_trailing_bytes), as Ceph ignores them.
  crush::MapModel crush;
  std::map<std::string, binary::StringMap> erasure_code_profiles;                     // [cv3]
  std::map<PgId, std::vector<std::int32_t>> pg_upmap;                                 // [cv4]
  std::map<PgId, std::vector<std::pair<std::int32_t, std::int32_t>>> pg_upmap_items;  // [cv4]
  std::uint32_t crush_version = 0;                                                    // [cv6]
  SnapIntervalMap new_removed_snaps;                                                  // [cv7]
  SnapIntervalMap new_purged_snaps;                                                   // [cv7]
  binary::Utime last_up_change;                                                       // [cv9]
  binary::Utime last_in_change;                                                       // [cv9]
  std::map<PgId, std::int32_t> pg_upmap_primaries;                                    // [cv10]

  // OSD-only section.
  std::vector<std::string> hb_back_addrs;  // raw (addrvec when ov >= 7)
  std::vector<BinaryOsdInfo> osd_info;
  std::string blocklist;  // raw map<entity_addr_t, utime_t>, count included
  std::vector<std::string> cluster_addrs;
  std::uint32_t cluster_snapshot_epoch = 0;
  std::string cluster_snapshot;
  std::vector<std::array<std::uint8_t, 16>> osd_uuid;
  std::vector<BinaryOsdXinfo> osd_xinfo;
  std::vector<std::string> hb_front_addrs;
  std::uint32_t nearfull_ratio_bits = 0;                     // [ov2] IEEE float bits
  std::uint32_t full_ratio_bits = 0;                         // [ov2]
  std::uint32_t backfillfull_ratio_bits = 0;                 // [ov3]
  std::string legacy_min_compat_client;                      // [ov4 only]
  std::uint8_t require_min_compat_client = 0;                // [ov5] ceph_release_t
  std::uint8_t require_osd_release = 0;                      // [ov5]
  SnapIntervalMap removed_snaps_queue;                       // [ov6]
  std::map<std::int32_t, std::uint32_t> crush_node_flags;    // [ov8]
  std::map<std::int32_t, std::uint32_t> device_class_flags;  // [ov9]
  std::uint8_t stretch_mode_enabled = 0;                     // [ov10] bool, raw byte
  std::uint32_t stretch_bucket_count = 0;                    // [ov10]
  std::uint32_t degraded_stretch_mode = 0;                   // [ov10]
  std::uint32_t recovering_stretch_mode = 0;                 // [ov10]
  std::int32_t stretch_mode_bucket = 0;                      // [ov10]
  std::string range_blocklist;                               // [ov11] raw, count included
  std::uint8_t allow_crimson = 0;                            // [ov12] bool, raw byte

  float nearfull_ratio() const;
  float full_ratio() const;
  float backfillfull_ratio() const;

  bool operator==(const OsdMapBinary&) const = default;
};

// Decodes a whole binary OSDMap and checks its crc. See the header comment.
// Cost: O(input size).
absl::StatusOr<OsdMapBinary> DecodeOsdMap(std::string_view bytes);

// What `release`'s OSDMap::decode makes of `map` where it differs from
// DecodeOsdMap's release-independent reading: Pacific and Reef read a pool
// Tentacle wrote (pg_pool_t v31+) with v30's layout
// (binary::PeeringAsReadBeforeTentacle), so its peering fields become what
// they misread. Errors: that function's kDataLoss, prefixed "pool N: ", when
// the release cannot decode the map at all (osdmaptool 16.2 and 18.2 on any
// map a Tentacle monitor or osdmaptool 20.2 wrote with a pool). A Tentacle
// release leaves `map` unchanged.
absl::Status ReadAsRelease(crush::CephRelease release, OsdMapBinary* map);

// Encodes `map` at the section and struct versions it carries (the frames),
// writing only the fields those versions have, and appends a fresh crc.
// REQUIRES: the per-OSD vectors that the versions encode hold max_osd
// entries when the map should be readable by Ceph (not checked).
std::string EncodeOsdMap(const OsdMapBinary& map);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_OSDMAP_BINARY_H_
