// The cluster state crushkit maps PGs against: pools, OSD states, upmap and
// temp overrides, and the crush map (its decoded model, once: EncodeCrush()
// writes Ceph's binary encoding where bytes are needed). This is the
// in-memory twin of osdmap/proto/state.proto; convert at the edge with
// osdmap/formats/state_codec.h.
//
// Plain value types with public fields (like crush::MapModel): importers and
// the osdmaptool front edit them directly. Nothing here is validated except
// by ValidateState(); mapping code (pg_mapping.h) REQUIRES a validated state.
// Thread-safety: plain values; concurrent const access is safe.
#ifndef CRUSHKIT_OSDMAP_MODEL_CLUSTER_STATE_H_
#define CRUSHKIT_OSDMAP_MODEL_CLUSTER_STATE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

#include "crush/ceph_release.h"
#include "crush/model.h"
#include "crush/types.h"
#include "osdmap/model/pg_id.h"

namespace crushkit::osdmap {

// Largest pool size / upmap list crushkit maps (Ceph itself caps pool size
// at 10 in the monitor; osdmaptool's histogram has 30 slots).
inline constexpr int kMaxPgOsds = 32;

// Ceph's pg_pool_t::TYPE_*.
enum class PoolType : std::uint8_t { kReplicated = 1, kErasure = 3 };

// pg_pool_t::FLAG_HASHPSPOOL.
inline constexpr std::uint64_t kPoolFlagHashPsPool = 1;

inline constexpr std::uint32_t kDefaultPrimaryAffinity = 0x10000;

struct Pool {
  std::int64_t id = 0;
  std::string name;
  PoolType type = PoolType::kReplicated;
  std::uint32_t size = 3;
  std::uint32_t min_size = 2;
  std::int32_t crush_rule = 0;
  std::uint32_t pg_num = 0;
  std::uint32_t pgp_num = 0;
  std::uint64_t flags = kPoolFlagHashPsPool;
  std::uint32_t object_hash = 2;  // CEPH_STR_HASH_RJENKINS
  std::string erasure_code_profile;
  std::uint32_t ec_k = 0;  // from the profile; 0 for replicated pools
  std::uint32_t ec_m = 0;
  // k x the EC chunk size (`ceph osd dump` stripe_width; an object of S
  // bytes takes ceil(S / stripe_width) chunks of stripe_width / k bytes on
  // every shard). 0 when unknown and for replicated pools; no placement effect.
  std::uint32_t stripe_width = 0;
  // pg_pool_t::pg_num_pending when a merge is in progress (below pg_num);
  // 0 when it equals pg_num. The monitor drops upmaps of merging PGs.
  std::uint32_t pg_num_pending = 0;
  // The pool option read_ratio (Squid and later; `ceph osd pool set P
  // read_ratio N`) when set as an integer: Tentacle then scores the pool's
  // read balance by load (read_balance.h). Any value is kept; Ceph checks
  // the 1..100 range where it uses it. No placement effect.
  std::optional<std::int64_t> read_ratio;

  // OSDMap::pool_raw_used_rate(): raw bytes per stored byte, size for
  // replicated pools, (k + m) / k in float for EC pools, 0 when the
  // profile's k is unknown.
  float RawUsedRate() const {
    if (type == PoolType::kReplicated) return static_cast<float>(size);
    if (ec_k == 0) return 0.0f;
    return static_cast<float>(ec_k + ec_m) / static_cast<float>(ec_k);
  }

  // Replicated pools compact holes away (pg_pool_t::can_shift_osds()).
  bool CanShiftOsds() const { return type == PoolType::kReplicated; }

  std::uint32_t pg_num_mask() const { return PgMask(pg_num); }

  std::uint32_t pgp_num_mask() const { return PgMask(pgp_num); }

  // pg_pool_t::get_pg_num_pending().
  std::uint32_t PgNumPending() const { return pg_num_pending != 0 ? pg_num_pending : pg_num; }

  // pg_pool_t::is_pending_merge(): `ps` merges away (a source at or above
  // pg_num_pending) or receives a merge (the parent of such a source).
  bool IsPendingMerge(std::uint32_t ps) const;

  // pg_pool_t::raw_pg_to_pg(): the folded seed of a raw seed.
  std::uint32_t FoldPs(std::uint32_t raw_ps) const {
    return StableMod(raw_ps, pg_num, pg_num_mask());
  }

  bool operator==(const Pool&) const = default;
};

// Ceph's CEPH_OSD_* state bits that matter for placement.
inline constexpr std::uint32_t kOsdExists = 1;
inline constexpr std::uint32_t kOsdUp = 2;
// CEPH_OSD_DESTROYED: shown as "destroyed" by the OSD tree; no placement effect.
inline constexpr std::uint32_t kOsdDestroyed = 128;

struct OsdInfo {
  std::uint32_t state = 0;                                   // kOsdExists | kOsdUp | kOsdDestroyed
  crush::Weight weight = 0;                                  // reweight, 16.16; 0 = out
  std::uint32_t primary_affinity = kDefaultPrimaryAffinity;  // 16.16

  bool operator==(const OsdInfo&) const = default;
};

// Per-PG statistics from `ceph pg dump` (optional; for movement estimates).
struct PgStat {
  std::uint64_t num_objects = 0;
  std::uint64_t num_bytes = 0;
  std::uint64_t num_omap_bytes = 0;

  bool operator==(const PgStat&) const = default;
};

// Per-OSD capacity and use from `ceph osd df -f json` (optional; the planner
// projects fill from it).
struct OsdUsage {
  std::uint64_t kb = 0;       // total capacity
  std::uint64_t kb_used = 0;  // total - available
  // `ceph osd df` kb_avail (statfs available >> 10), what `ceph df`'s MAX
  // AVAIL reads (pool_max_avail.h); not always kb - kb_used (BlueStore's
  // internally reserved space, each figure shifted separately). nullopt
  // when the input did not carry it: then kb - kb_used stands in.
  std::optional<std::uint64_t> kb_avail;

  bool operator==(const OsdUsage&) const = default;
};

// Per-pool totals from `ceph df -f json` (optional; the planner's fallback
// for PG sizes when there are no per-PG stats).
struct PoolUsage {
  std::uint64_t stored_bytes = 0;  // pools[].stats.stored (logical bytes)
  std::uint64_t objects = 0;       // pools[].stats.objects

  bool operator==(const PoolUsage&) const = default;
};

// The import's self-check (cluster_check.h): every PG re-mapped and compared
// with what the inputs say the cluster does. Kept in the state so the
// commands that plan from it repeat a disagreement.
struct MappingCheck {
  std::uint64_t pgs = 0;                  // PGs crushkit mapped
  std::vector<std::string> sources = {};  // what they were compared with
  bool agrees = true;
  std::uint64_t differing_pgs = 0;         // PGs whose up/acting differ from a pg dump's
  std::uint64_t differing_osds = 0;        // OSDs whose PG counts differ from a report's
  std::vector<std::string> examples = {};  // the first differences, one line each
  // Mappings whose result is crushkit's answer where Ceph's is undefined
  // (CrushPlacement::DivergedFromCeph), for the tool to say so; not stored
  // in state files.
  std::uint64_t diverged_from_ceph = 0;

  bool operator==(const MappingCheck&) const = default;
};

struct ClusterState {
  std::uint32_t epoch = 0;
  // Whose OSDMap code maps the PGs: Pacific resolves a pool's crush_rule
  // through CrushWrapper::find_rule() (ruleset, type and min_size..max_size
  // must match, else the PG maps to nothing); Quincy and later take the rule
  // id as it is. Import sets it (flag, CRUSHKIT_CEPH_RELEASE, or the dump's
  // require_osd_release).
  crush::CephRelease ceph_release = crush::kDefaultCephRelease;
  // The cluster's fsid (`ceph osd dump` "fsid"); empty when unknown.
  std::string fsid;
  // OSDMap's full ratios (`ceph osd dump` nearfull_ratio, ...); Ceph's
  // defaults when the dump did not carry them.
  float nearfull_ratio = 0.85f;
  float backfillfull_ratio = 0.90f;
  float full_ratio = 0.95f;
  // osds.size() is Ceph's max_osd.
  std::vector<OsdInfo> osds;
  std::map<std::int64_t, Pool> pools;
  std::map<PgId, std::vector<std::int32_t>> pg_upmap;
  std::map<PgId, std::vector<std::pair<std::int32_t, std::int32_t>>> pg_upmap_items;
  std::map<PgId, std::int32_t> pg_upmap_primaries;
  std::map<PgId, std::vector<std::int32_t>> pg_temp;
  std::map<PgId, std::int32_t> primary_temp;
  std::map<PgId, PgStat> pg_stats;
  std::map<std::int32_t, OsdUsage> osd_usage;    // by OSD id
  std::map<std::int64_t, PoolUsage> pool_usage;  // by pool id
  // The crush map. Its bytes are EncodeCrush(state): the codec re-encodes
  // every map Ceph writes byte for byte (crush/codec.h), so keeping the
  // bytes the cluster had beside the model would only duplicate it.
  crush::MapModel crush;
  // Set by `crushkit import`; nullopt when nothing was checked.
  std::optional<MappingCheck> mapping_check = std::nullopt;

  int max_osd() const { return static_cast<int>(osds.size()); }

  // OSDMap::exists()/is_up()/is_in(); false for ids out of range.
  bool Exists(std::int32_t osd) const {
    return osd >= 0 && osd < max_osd() && (osds[static_cast<std::size_t>(osd)].state & kOsdExists);
  }

  bool IsUp(std::int32_t osd) const {
    return Exists(osd) && (osds[static_cast<std::size_t>(osd)].state & kOsdUp);
  }

  bool IsIn(std::int32_t osd) const {
    return Exists(osd) && osds[static_cast<std::size_t>(osd)].weight != 0;
  }

  // The pool, or nullptr.
  const Pool* FindPool(std::int64_t id) const {
    auto it = pools.find(id);
    return it == pools.end() ? nullptr : &it->second;
  }

  bool operator==(const ClusterState&) const = default;
};

// Checks the invariants the mapping code relies on: pool ids >= 0 and equal
// to their key, known pool types, pool sizes <= kMaxPgOsds, upmap/temp lists
// no longer than kMaxPgOsds. Errors name the offending pool or PG
// (kInvalidArgument).
// Accepted on purpose, because osdmaptool maps them without complaint and
// crushkit prints what it prints (osdmaptool_test.cc PatchedMapTest):
// pool size 0 (every PG maps to empty sets, primary -1), pg_num 0 (no PGs;
// objects fold with a zero mask) and pgp_num > pg_num. Ceph's monitor never
// creates such pools.
absl::Status ValidateState(const ClusterState& state);

// The state's crush map as Ceph encodes it (crush::EncodeCrushMap): what a
// state file, a binary OSDMap and `osdmaptool --export-crush` carry.
// Cost: O(crush map size), one allocation.
std::string EncodeCrush(const ClusterState& state);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_CLUSTER_STATE_H_
