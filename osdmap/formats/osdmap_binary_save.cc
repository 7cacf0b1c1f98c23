#include "osdmap/formats/osdmap_binary_save.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crush/codec.h"
#include "crush/status_macros.h"
#include "osdmap/formats/binary_io.h"
#include "osdmap/formats/osdmap_binary_state.h"

namespace crushkit::osdmap {
namespace {

constexpr std::uint8_t kLuminous = 12;
constexpr std::uint8_t kNautilus = 14;
constexpr std::uint32_t kFlagRequireJewel = 1u << 16;
constexpr std::uint32_t kFlagRequireKraken = 1u << 17;
constexpr std::uint32_t kFlagRequireLuminous = 1u << 18;
constexpr std::uint32_t kFlagRecoveryDeletes = 1u << 19;
constexpr std::uint32_t kFlagPglogHardlimit = 1u << 22;

// osd_xinfo_t: decode stores (float)u32 / (float)0xffffffff, encode writes
// (uint32_t)(p * float(0xffffffff)). The product of 1.0 is 2^32, which gcc
// on x86-64 converts through a 64-bit integer, keeping the low 32 bits.
std::uint32_t LaggyRoundTrip(std::uint32_t raw) {
  const float p = static_cast<float>(raw) / static_cast<float>(0xffffffffu);
  const float scaled = p * static_cast<float>(0xffffffffu);
  return static_cast<std::uint32_t>(static_cast<std::int64_t>(scaled) & 0xffffffff);
}

// One entry of a raw map<entity_addr_t, utime_t>.
struct AddrEntry {
  std::string key;  // the in-memory entity_addr_t, Ceph's sort key
  std::string raw;  // address and time as on the wire
};

// OSDMap::encode copies the blocklist into a std::map<entity_addr_t, ...>,
// ordered by memcmp over the in-memory struct: u32 type, u32 nonce, then the
// 28-byte sockaddr union (sa_family little-endian, port and address in
// network order, zero padded). Only the msgr2 form (marker 1) is sorted;
// a map holding legacy-form addresses is left as it is.
void SortAddrTimeMap(std::string* raw) {
  if (raw->size() < 4) return;
  binary::Reader r(*raw);
  std::uint32_t n = 0;
  if (!r.U32("count", &n).ok()) return;
  std::vector<AddrEntry> entries;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::string_view start = r.rest();
    std::uint8_t marker = 0;
    std::uint8_t v = 0;
    std::uint8_t compat = 0;
    std::uint32_t len = 0;
    std::string body;
    if (!r.U8("marker", &marker).ok() || marker != 1 || !r.U8("v", &v).ok() ||
        !r.U8("compat", &compat).ok() || !r.U32("len", &len).ok() || len < 12 ||
        !r.Bytes("addr", len, &body).ok() || !r.Skip("time", 8).ok()) {
      return;
    }
    AddrEntry e;
    e.key = body.substr(0, 8) + body.substr(12);
    e.key.resize(8 + 28, '\0');
    e.raw.assign(start.substr(0, start.size() - r.rest().size()));
    entries.push_back(std::move(e));
  }
  if (r.remaining() != 0) return;
  std::stable_sort(entries.begin(), entries.end(),
                   [](const AddrEntry& a, const AddrEntry& b) { return a.key < b.key; });
  std::string out = raw->substr(0, 4);
  for (const AddrEntry& e : entries) out += e.raw;
  *raw = std::move(out);
}

}  // namespace

void NormaliseLikeCephDecode(OsdMapBinary* map) {
  SortAddrTimeMap(&map->blocklist);
  SortAddrTimeMap(&map->range_blocklist);
  if (map->osd.v >= 5) {
    if (map->require_osd_release >= kNautilus) map->flags |= kFlagPglogHardlimit;
    if (map->require_osd_release >= kLuminous) {
      map->flags &= ~(kFlagRequireJewel | kFlagRequireKraken | kFlagRequireLuminous);
      map->flags |= kFlagRecoveryDeletes;
    }
  }
  for (auto& [id, pool] : map->pools) pool.flags = binary::CephDecodedPoolFlags(pool);
  for (BinaryOsdXinfo& x : map->osd_xinfo)
    x.laggy_probability = LaggyRoundTrip(x.laggy_probability);
  // CrushWrapper::decode's normalisation (see ClusterStateFromOsdMap).
  map->crush_bytes = crush::EncodeCrushMap(map->crush);
}

void EncodeLikeRelease(OsdMapBinary* map, crush::CephRelease release) {
  if (release == crush::CephRelease::kPacific) return;
  // OSDMap::encode with SERVER_REEF: client section v10.
  if (map->client.v < 10) map->client.v = 10;
  map->crush_bytes = crush::EncodeCrushMapAs(map->crush, release);
  if (release != crush::CephRelease::kTentacle) return;
  for (auto& [id, pool] : map->pools) {
    if (pool.frame.v >= 32) continue;
    // pg_pool_t::encode with SERVER_TENTACLE: v32 compat 5. The v31
    // optional is written from `peering`; v32's nonprimary_shards (a
    // shard_id_set, empty for every pool but Tentacle's optimised EC ones)
    // is two zero bytes, as osdmaptool 20.2 writes it.
    pool.frame.v = 32;
    pool.frame.compat = 5;
    pool.frame.tail.assign(2, '\0');
  }
}

absl::StatusOr<std::string> SaveLikeOsdmaptool(std::string_view original, const ClusterState& state,
                                               const OsdmaptoolSave& save) {
  CRUSH_ASSIGN_OR_RETURN(OsdMapBinary map, DecodeOsdMap(original));
  return SaveLikeOsdmaptool(std::move(map), state, save);
}

absl::StatusOr<std::string> SaveLikeOsdmaptool(OsdMapBinary map, const ClusterState& state,
                                               const OsdmaptoolSave& save) {
  NormaliseLikeCephDecode(&map);
  CRUSH_RETURN_IF_ERROR(ApplyClusterState(state, &map));
  map.epoch = save.epoch;
  if (save.incrementals_applied) {
    map.modified = {};
    map.new_removed_snaps.clear();
    map.new_purged_snaps.clear();
    // The incrementals carry no cluster snapshot, which clears it.
    map.cluster_snapshot.clear();
    map.cluster_snapshot_epoch = 0;
  }
  if (save.crush_imported) {
    if (map.require_osd_release >= kLuminous) ++map.crush_version;
    // A new crush map drops the flags of items (CrushWrapper::item_exists:
    // a name) and classes it lacks.
    std::erase_if(map.crush_node_flags,
                  [&](const auto& kv) { return map.crush.item_names.count(kv.first) == 0; });
    std::erase_if(map.device_class_flags,
                  [&](const auto& kv) { return map.crush.class_names.count(kv.first) == 0; });
  }
  EncodeLikeRelease(&map, save.release);
  return EncodeOsdMap(map);
}

}  // namespace crushkit::osdmap
