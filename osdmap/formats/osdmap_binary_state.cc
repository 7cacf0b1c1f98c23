#include "osdmap/formats/osdmap_binary_state.h"

#include <array>
#include <cstdlib>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"

#include "crush/codec.h"
#include "crush/status_macros.h"
#include "osdmap/formats/import.h"

namespace crushkit::osdmap {
namespace {

// uuid_d::print(): 8-4-4-4-12 lowercase hex.
std::string FormatUuid(const std::array<std::uint8_t, 16>& u) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < u.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(kHex[u[i] >> 4]);
    s.push_back(kHex[u[i] & 15]);
  }
  return s;
}

// Pool names come from the file and may hold any byte; messages naming them
// must not put raw bytes on a terminal.
absl::Status Escaped(const absl::Status& status) {
  if (status.ok()) return status;
  std::string out;
  for (char c : status.message()) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out.push_back(c);
    } else {
      absl::StrAppend(&out, "\\x", absl::Hex(u, absl::kZeroPad2));
    }
  }
  return absl::Status(status.code(), out);
}

absl::Status CheckOsdVector(std::size_t size, std::int32_t max_osd, const char* field) {
  if (size < static_cast<std::size_t>(max_osd)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " has ", size, " entries, fewer than max_osd ", max_osd));
  }
  return absl::OkStatus();
}

std::uint32_t ProfileNumber(const std::map<std::string, binary::StringMap>& profiles,
                            const std::string& name, const char* key) {
  auto it = profiles.find(name);
  if (it == profiles.end()) return 0;
  auto kv = it->second.find(key);
  return kv == it->second.end()
             ? 0
             : static_cast<std::uint32_t>(std::strtoul(kv->second.c_str(), nullptr, 10));
}

absl::StatusOr<Pool> PoolFromBinary(std::int64_t id, const binary::BinaryPool& p,
                                    const OsdMapBinary& map) {
  if (p.type != 1 && p.type != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("pool ", id, ": type ", p.type, " is not 1 (replicated) or 3 (erasure)"));
  }
  Pool pool;
  pool.id = id;
  if (auto it = map.pool_name.find(id); it != map.pool_name.end()) pool.name = it->second;
  pool.type = static_cast<PoolType>(p.type);
  pool.size = p.size;
  pool.min_size = p.min_size;
  pool.crush_rule = p.crush_rule;
  pool.pg_num = p.pg_num;
  pool.pgp_num = p.pgp_num;
  if (p.frame.v >= 28 && p.pg_num_pending != p.pg_num) pool.pg_num_pending = p.pg_num_pending;
  pool.flags = binary::CephDecodedPoolFlags(p);  // what `ceph osd dump` shows
  pool.object_hash = p.object_hash;
  pool.erasure_code_profile = p.erasure_code_profile;
  pool.stripe_width = p.stripe_width;
  // pool_opts_t::READ_RATIO (key 24) as an int; decoding fills a map, so the
  // last entry of a key wins.
  for (const binary::PoolOpt& o : p.opts.opts) {
    if (o.key == 24)
      pool.read_ratio = o.type == 1 ? std::optional<std::int64_t>(o.i) : std::nullopt;
  }
  if (pool.type == PoolType::kErasure) {
    pool.ec_k = ProfileNumber(map.erasure_code_profiles, pool.erasure_code_profile, "k");
    pool.ec_m = ProfileNumber(map.erasure_code_profiles, pool.erasure_code_profile, "m");
  }
  return pool;
}

}  // namespace

std::string ReleaseNameOf(std::uint8_t release) {
  static constexpr std::array<const char*, 21> kNames = {
      "unknown",  "argonaut", "bobtail",    "cuttlefish", "dumpling", "emperor",  "firefly",
      "giant",    "hammer",   "infernalis", "jewel",      "kraken",   "luminous", "mimic",
      "nautilus", "octopus",  "pacific",    "quincy",     "reef",     "squid",    "tentacle"};
  return release < kNames.size() ? kNames[release] : "unknown";
}

absl::StatusOr<ClusterState> ClusterStateFromOsdMap(const OsdMapBinary& map) {
  if (map.max_osd < 0 || map.max_osd > crush::kMaxDecodedDevices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_osd: ", map.max_osd, " is out of range [0, ", crush::kMaxDecodedDevices, "]"));
  }
  CRUSH_RETURN_IF_ERROR(CheckOsdVector(map.osd_state.size(), map.max_osd, "osd_state"));
  CRUSH_RETURN_IF_ERROR(CheckOsdVector(map.osd_weight.size(), map.max_osd, "osd_weight"));
  ClusterState state;
  state.epoch = map.epoch;
  state.fsid = FormatUuid(map.fsid);
  state.ceph_release = ReleaseOfCluster(ReleaseNameOf(map.require_osd_release));
  if (map.osd.v >= 2) {
    state.nearfull_ratio = map.nearfull_ratio();
    state.full_ratio = map.full_ratio();
  }
  if (map.osd.v >= 3) state.backfillfull_ratio = map.backfillfull_ratio();
  state.osds.resize(static_cast<std::size_t>(map.max_osd));
  for (std::size_t i = 0; i < state.osds.size(); ++i) {
    const std::uint32_t raw = map.osd_state[i];
    OsdInfo& info = state.osds[i];
    // CRUSH sees the weight vector as it is, a non-existent OSD's too (only
    // then does OSDMap drop it from the result); `ceph osd dump` lists
    // existing OSDs only, so the rest stays default.
    info.weight = map.osd_weight[i];
    if ((raw & kOsdExists) == 0) continue;
    info.state = raw & (kOsdExists | kOsdUp | kOsdDestroyed);
    if (i < map.osd_primary_affinity.size()) info.primary_affinity = map.osd_primary_affinity[i];
  }
  for (const auto& [id, p] : map.pools) {
    CRUSH_ASSIGN_OR_RETURN(Pool pool, PoolFromBinary(id, p, map));
    state.pools.emplace(id, std::move(pool));
  }
  state.pg_upmap = map.pg_upmap;
  state.pg_upmap_items = map.pg_upmap_items;
  state.pg_upmap_primaries = map.pg_upmap_primaries;
  state.pg_temp = map.pg_temp;
  state.primary_temp = map.primary_temp;
  // The crush map as Ceph holds it after decoding: CrushWrapper::decode
  // normalises (update_choose_args drops the weight sets of non-straw2
  // buckets), and every Ceph encode (--export-crush, --save, getcrushmap)
  // writes that, not the embedded bytes (EncodeCrush(state)).
  state.crush = map.crush;
  CRUSH_RETURN_IF_ERROR(Escaped(ValidateState(state)));
  return state;
}

absl::StatusOr<ClusterState> ImportCephBinaryOsdMap(std::string_view bytes) {
  return ImportDecodedOsdMap(DecodeOsdMap(bytes));
}

absl::StatusOr<ClusterState> ImportDecodedOsdMap(const absl::StatusOr<OsdMapBinary>& map) {
  if (!map.ok()) {
    return absl::Status(map.status().code(),
                        absl::StrCat("binary osdmap: ", map.status().message()));
  }
  auto state = ClusterStateFromOsdMap(*map);
  if (!state.ok()) {
    return absl::Status(state.status().code(),
                        absl::StrCat("binary osdmap: ", state.status().message()));
  }
  return state;
}

bool StartsLikeBinaryOsdMap(std::string_view bytes) {
  return bytes.size() >= 2 && bytes[0] == 8 && bytes[1] == 7;
}

absl::Status ApplyClusterState(const ClusterState& state, OsdMapBinary* map) {
  if (state.max_osd() != map->max_osd) {
    return absl::InvalidArgumentError(absl::StrCat("the state has max_osd ", state.max_osd(),
                                                   ", the binary osdmap ", map->max_osd));
  }
  if (!state.pg_upmap_primaries.empty() && map->client.v < 10) {
    return absl::InvalidArgumentError(
        absl::StrCat("the state has pg_upmap_primaries, which an osdmap client section v",
                     map->client.v, " cannot hold"));
  }
  const auto n = static_cast<std::size_t>(map->max_osd);
  map->osd_state.resize(std::max(map->osd_state.size(), n));
  map->osd_weight.resize(std::max(map->osd_weight.size(), n));
  bool affinity_needed = !map->osd_primary_affinity.empty();
  for (const OsdInfo& info : state.osds)
    affinity_needed |= info.primary_affinity != kDefaultPrimaryAffinity;
  if (affinity_needed) map->osd_primary_affinity.resize(n, kDefaultPrimaryAffinity);
  constexpr std::uint32_t kMine = kOsdExists | kOsdUp | kOsdDestroyed;
  for (std::size_t i = 0; i < n; ++i) {
    const OsdInfo& info = state.osds[i];
    map->osd_state[i] = (map->osd_state[i] & ~kMine) | (info.state & kMine);
    if ((info.state & kOsdExists) == 0) continue;
    map->osd_weight[i] = info.weight;
    if (affinity_needed) map->osd_primary_affinity[i] = info.primary_affinity;
  }
  map->pg_upmap = state.pg_upmap;
  map->pg_upmap_items = state.pg_upmap_items;
  map->pg_upmap_primaries = state.pg_upmap_primaries;
  map->pg_temp = state.pg_temp;
  map->primary_temp = state.primary_temp;
  // osdmaptool --test-map-pgs --pg_num N sets pg_num on the map it may then
  // save (pg_pool_t::set_pg_num, which also sets pg_num_pending).
  for (auto& [id, p] : map->pools) {
    const Pool* pool = state.FindPool(id);
    if (pool != nullptr && pool->pg_num != p.pg_num) {
      p.pg_num = pool->pg_num;
      p.pg_num_pending = pool->pg_num;
    }
  }
  // Compared as bytes, not models: a map whose embedded bytes are not
  // Ceph's normalised encoding takes the re-encoded one, as Ceph's save does.
  std::string crush_bytes = EncodeCrush(state);
  if (crush_bytes != map->crush_bytes) {
    map->crush_bytes = std::move(crush_bytes);
    map->crush = state.crush;
  }
  return absl::OkStatus();
}

}  // namespace crushkit::osdmap
