#include "osdmap/osdmap_binary_save.h"

#include <cstdint>

#include "crush/status_macros.h"
#include "osdmap/osdmap_binary_state.h"

namespace crushkit::osdmap {
namespace {

constexpr std::uint8_t kLuminous = 12;
constexpr std::uint8_t kNautilus = 14;
constexpr std::uint32_t kFlagRequireJewel = 1u << 16;
constexpr std::uint32_t kFlagRequireKraken = 1u << 17;
constexpr std::uint32_t kFlagRequireLuminous = 1u << 18;
constexpr std::uint32_t kFlagRecoveryDeletes = 1u << 19;
constexpr std::uint32_t kFlagPglogHardlimit = 1u << 22;
constexpr std::uint64_t kPoolFlagSelfmanagedSnaps = 1u << 13;
constexpr std::uint64_t kPoolFlagPoolSnaps = 1u << 14;

// osd_xinfo_t: decode stores (float)u32 / (float)0xffffffff, encode writes
// (uint32_t)(p * float(0xffffffff)). The product of 1.0 is 2^32, which gcc
// on x86-64 converts through a 64-bit integer, keeping the low 32 bits.
std::uint32_t LaggyRoundTrip(std::uint32_t raw) {
  const float p = static_cast<float>(raw) / static_cast<float>(0xffffffffu);
  const float scaled = p * static_cast<float>(0xffffffffu);
  return static_cast<std::uint32_t>(static_cast<std::int64_t>(scaled) & 0xffffffff);
}

}  // namespace

void NormaliseLikeCephDecode(OsdMapBinary* map) {
  if (map->osd.v >= 5) {
    if (map->require_osd_release >= kNautilus) map->flags |= kFlagPglogHardlimit;
    if (map->require_osd_release >= kLuminous) {
      map->flags &= ~(kFlagRequireJewel | kFlagRequireKraken | kFlagRequireLuminous);
      map->flags |= kFlagRecoveryDeletes;
    }
  }
  for (auto& [id, pool] : map->pools) {
    if (pool.snap_seq > 0 && (pool.flags & (kPoolFlagSelfmanagedSnaps | kPoolFlagPoolSnaps)) == 0) {
      pool.flags |= pool.removed_snaps.empty() ? kPoolFlagPoolSnaps : kPoolFlagSelfmanagedSnaps;
    }
  }
  for (BinaryOsdXinfo& x : map->osd_xinfo) x.laggy_probability = LaggyRoundTrip(x.laggy_probability);
}

absl::StatusOr<std::string> SaveLikeOsdmaptool(std::string_view original, const ClusterState& state,
                                               const OsdmaptoolSave& save) {
  CRUSH_ASSIGN_OR_RETURN(OsdMapBinary map, DecodeOsdMap(original));
  NormaliseLikeCephDecode(&map);
  CRUSH_RETURN_IF_ERROR(ApplyClusterState(state, &map));
  map.epoch = save.epoch;
  if (save.incrementals_applied) {
    map.modified = {};
    map.new_removed_snaps.clear();
    map.new_purged_snaps.clear();
  }
  if (save.crush_imported && map.require_osd_release >= kLuminous) ++map.crush_version;
  return EncodeOsdMap(map);
}

}  // namespace crushkit::osdmap
