// Between the binary OSDMap (osdmap_binary.h) and crushkit's ClusterState:
// what `crushkit import` gives the JSON dump (import.h), read from the
// binary map, and the reverse edit that writes a changed state's upmaps,
// temps, OSD states, weights and affinities back onto the binary map (so a
// tool can `--save` a modified osdmap). Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_OSDMAP_BINARY_STATE_H_
#define CRUSHKIT_OSDMAP_FORMATS_OSDMAP_BINARY_STATE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "osdmap/formats/osdmap_binary.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap {

// The ClusterState `crushkit import` builds from the same map's `ceph osd
// dump -f json` and crush map: epoch, fsid (printed uuid), ratios,
// ceph_release (from require_osd_release as ReleaseOfCluster does), OSDs
// (only existing ones carry state, weight, affinity; states reduced to
// exists/up/destroyed), pools (names from pool_name, EC k/m from the
// profile), upmaps, upmap primaries, temps, crush map (the decoded model,
// which re-encodes as Ceph re-encodes: its decode normalises, and newer
// tail groups than the codec knows are dropped).
// Errors: kInvalidArgument for a pool type other than replicated/erasure,
// max_osd out of range, per-OSD vectors shorter than max_osd, then
// ValidateState failures.
absl::StatusOr<ClusterState> ClusterStateFromOsdMap(const OsdMapBinary& map);

// DecodeOsdMap then ClusterStateFromOsdMap; errors keep their codes and
// are prefixed "binary osdmap: ".
absl::StatusOr<ClusterState> ImportCephBinaryOsdMap(std::string_view bytes);

// The same for a map already decoded: `decoded` is DecodeOsdMap(bytes)
// (a failure is prefixed as above), for a caller that also keeps the
// decoded map.
absl::StatusOr<ClusterState> ImportDecodedOsdMap(const absl::StatusOr<OsdMapBinary>& decoded);

// True when `bytes` starts like OSDMap::encode's wrapper (u8 8, u8 7): what
// a command taking "JSON or binary osdmap" treats as binary, so that a
// damaged map gets the decoder's error rather than a JSON one.
bool StartsLikeBinaryOsdMap(std::string_view bytes);

// Writes `state`'s pg_upmap, pg_upmap_items, pg_upmap_primaries, pg_temp,
// primary_temp, OSD weights, exists/up/destroyed bits (other state bits are
// kept), primary affinities (the vector is created when one differs from
// the default) and, if EncodeCrush(state) differs from map->crush_bytes,
// the crush map onto `map`.
// Of the pools only pg_num is written (with pg_num_pending, as
// pg_pool_t::set_pg_num; osdmaptool's --pg_num changes it); everything else
// in `map` is left as it is.
// Errors (map unchanged): kInvalidArgument if max_osd differs, or the state
// has upmap primaries and the map's client section predates them (cv < 10).
absl::Status ApplyClusterState(const ClusterState& state, OsdMapBinary* map);

// Ceph's ceph_release_t number -> its name ("pacific"), "unknown" for 0
// and numbers without a name.
std::string ReleaseNameOf(std::uint8_t release);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_OSDMAP_BINARY_STATE_H_
