#include "osdmap/formats/osdmap_health.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "crush/edit/display.h"
#include "crush/edit/edit.h"
#include "crush/util/text_format.h"
#include "osdmap/formats/osdmap_print.h"
#include "osdmap/model/crush_placement.h"

namespace crushkit::osdmap {
namespace {

using crush::Bucket;
using crush::ItemId;

// CEPH_OSD_* state bits (include/rados.h).
constexpr std::uint32_t kExists = 1u << 0;
constexpr std::uint32_t kUp = 1u << 1;
constexpr std::uint32_t kNew = 1u << 3;
constexpr std::uint32_t kFull = 1u << 4;
constexpr std::uint32_t kNearfull = 1u << 5;
constexpr std::uint32_t kBackfillfull = 1u << 6;
constexpr std::uint32_t kOsdFlagBits = (1u << 8) | (1u << 9) | (1u << 10) | (1u << 11);

// CEPH_OSDMAP_* flags OSDMAP_FLAGS warns about: pauserd ... norebalance,
// and nosnaptrim.
constexpr std::uint32_t kWarnMapFlags = 0x7ffcu | (1u << 21);
constexpr std::uint32_t kSortBitwise = 1u << 15;

// pg_pool_t::FLAG_*.
constexpr std::uint64_t kPoolFull = 1u << 1;
constexpr std::uint64_t kPoolFullQuota = 1u << 10;
constexpr std::uint64_t kPoolNearfull = 1u << 11;
constexpr std::uint64_t kPoolBackfillfull = 1u << 12;

// CEPH_FEATUREMASK_SERVER_{NAUTILUS,OCTOPUS,PACIFIC}: the bit plus
// incarnation 3 (SERVER_JEWEL bit 57 and SERVER_MIMIC bit 28).
constexpr std::uint64_t kIncarnation3 = (1ull << 57) | (1ull << 28);
constexpr std::uint64_t kServerNautilus = (1ull << 2) | kIncarnation3;
constexpr std::uint64_t kServerOctopus = (1ull << 16) | kIncarnation3;
constexpr std::uint64_t kServerPacific = (1ull << 20) | kIncarnation3;

constexpr int kEnoent = -2;

class HealthChecker {
 public:
  HealthChecker(const OsdMapBinary& m, const HealthConfig& config,
                const OsdMapBinary& features_from)
      : m_(m), crush_(m.crush), config_(config), features_from_(features_from) {}

  absl::StatusOr<HealthChecks> Run() {
    if (absl::Status s = DownAndOrphans(); !s.ok()) return s;
    OutOfOrderFull();
    FullOsds();
    MapFlags();
    if (absl::Status s = OsdFlags(); !s.ok()) return s;
    CrushTunables();
    if (absl::Status s = CachePools(); !s.ok()) return s;
    if (!(m_.flags & kSortBitwise))
      Add("OSD_NO_SORTBITWISE", "HEALTH_WARN", "'sortbitwise' flag is not set", 0);
    UpgradeFinished();
    FullPools();
    PoolChecks();
    if (absl::Status s = StretchMode(); !s.ok()) return s;
    return std::move(checks_);
  }

 private:
  HealthCheck& Add(const std::string& code, const char* severity, std::string summary,
                   std::int64_t count) {
    HealthCheck& c = checks_[code];
    c = HealthCheck{severity, std::move(summary), count, {}};
    return c;
  }

  std::uint32_t State(int i) const { return m_.osd_state[static_cast<std::size_t>(i)]; }

  bool Exists(int i) const { return i >= 0 && i < m_.max_osd && (State(i) & kExists); }

  bool IsUp(int i) const { return Exists(i) && (State(i) & kUp); }

  bool IsOut(int i) const { return !Exists(i) || m_.osd_weight[static_cast<std::size_t>(i)] == 0; }

  bool ItemExists(ItemId id) const { return crush_.item_names.count(id) != 0; }

  const std::string* TypeName(int type) const {
    auto it = crush_.type_names.find(type);
    return it == crush_.type_names.end() ? nullptr : &it->second;
  }

  std::string ItemName(ItemId id) const {
    auto it = crush_.item_names.find(id);
    return it == crush_.item_names.end() ? std::string() : it->second;
  }

  // CrushWrapper::get_bucket_type(): -ENOENT for a device or a missing bucket.
  int BucketType(ItemId id) const {
    const Bucket* b = id < 0 ? crush_.FindBucket(id) : nullptr;
    return b == nullptr ? kEnoent : b->type;
  }

  // A view of the bucket's items (none for a device or a missing bucket).
  std::span<const ItemId> Children(ItemId id) const {
    const Bucket* b = id < 0 ? crush_.FindBucket(id) : nullptr;
    return b == nullptr ? std::span<const ItemId>() : std::span<const ItemId>(b->items);
  }

  absl::StatusOr<std::string> Location(ItemId id) const {
    auto path = crush::FullLocationOrdered(crush_, id);
    if (!path.ok()) return path.status();
    return crush::FullLocationOrderedString(*path);
  }

  // OSDMap::subtree_type_is_down.
  absl::StatusOr<bool> SubtreeIsDown(ItemId id, int subtree_type, int depth) {
    if (id >= 0) {
      // Tentacle's subtree_type_is_down does not list a never-booted OSD
      // (checked against osdmaptool 20.2: its host still counts it among the
      // down OSDs of OSD_HOST_DOWN, OSD_DOWN leaves it out).
      const bool down = !IsUp(id);
      const bool listed = !IsOut(id) && !(tentacle() && (State(id) & kNew));
      if (listed) (down ? down_in_ : up_in_).insert(id);
      return down;
    }
    if (depth > crush_.max_buckets() + 1) {
      return absl::InternalError(
          "the CRUSH hierarchy has a cycle (Ceph recurses until it crashes)");
    }
    if (subtree_type_down_[subtree_type].count(id)) return true;
    for (ItemId child : Children(id)) {
      auto down = SubtreeIsDown(child, BucketType(child), depth + 1);
      if (!down.ok()) return down.status();
      if (!*down) {
        subtree_up_.insert(id);
        return false;
      }
    }
    subtree_type_down_[subtree_type].insert(id);
    return true;
  }

  // OSD_DOWN, OSD_<type>_DOWN, OSD_ORPHAN.
  absl::Status DownAndOrphans() {
    const int max_type = crush_.type_names.empty() ? 0 : crush_.type_names.rbegin()->first;
    std::set<int> orphans;
    for (int i = 0; i < m_.max_osd; ++i) {
      if (!Exists(i)) {
        if (ItemExists(i)) orphans.insert(i);
        continue;
      }
      if (IsOut(i) || (State(i) & kNew)) continue;
      if (down_in_.count(i) || up_in_.count(i)) continue;
      if (IsUp(i)) continue;
      down_in_.insert(i);
      ItemId current = i;
      // As Ceph: `type` jumps to each parent's type, and unnamed types skip
      // a step without climbing.
      for (int type = 0; type <= max_type; ++type) {
        if (TypeName(type) == nullptr) continue;
        const Bucket* parent = crush::ImmediateParent(crush_, current);
        if (parent == nullptr) break;
        if (subtree_up_.count(parent->id)) break;
        type = BucketType(parent->id);
        auto down = SubtreeIsDown(parent->id, type, 0);
        if (!down.ok()) return down.status();
        if (!*down) break;
        current = parent->id;
      }
    }
    std::unordered_map<ItemId, int> subtree_osds;
    for (int type = 1; type <= max_type; ++type) {
      if (TypeName(type) == nullptr) continue;
      for (ItemId id : subtree_type_down_[type]) {
        const std::span<const ItemId> children = Children(id);
        if (children.empty()) continue;
        int num = 0;
        for (ItemId child : children) num += child >= 0 ? 1 : std::max(subtree_osds[child], 0);
        subtree_osds[id] = num;
      }
    }
    if (!down_in_.empty()) {
      for (int type = max_type; type > 0; --type) {
        const std::string* tname = TypeName(type);
        if (tname == nullptr || subtree_type_down_[type].empty()) continue;
        const std::set<ItemId>& down = subtree_type_down_[type];
        int sum = 0;
        for (ItemId id : down) sum += subtree_osds[id];
        std::string code = "OSD_" + *tname + "_DOWN";
        for (char& ch : code) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        HealthCheck& c = Add(code, "HEALTH_WARN",
                             absl::StrCat(down.size(), " ", *tname, down.size() > 1 ? "s" : "",
                                          " (", sum, " osds) down"),
                             static_cast<std::int64_t>(down.size()));
        for (auto it = down.rbegin(); it != down.rend(); ++it) {
          std::string line = absl::StrCat(*tname, " ", ItemName(*it));
          if (type != max_type) {
            auto loc = Location(*it);
            if (!loc.ok()) return loc.status();
            absl::StrAppend(&line, " (", *loc, ")");
          }
          absl::StrAppend(&line, " (", subtree_osds[*it], " osds) is down");
          c.detail.push_back(std::move(line));
        }
      }
      HealthCheck& c = Add("OSD_DOWN", "HEALTH_WARN", absl::StrCat(down_in_.size(), " osds down"),
                           static_cast<std::int64_t>(down_in_.size()));
      for (int osd : down_in_) {
        auto loc = Location(osd);
        if (!loc.ok()) return loc.status();
        c.detail.push_back(absl::StrCat("osd.", osd, " (", *loc, ") is down"));
      }
    }
    if (!orphans.empty()) {
      HealthCheck& c =
          Add("OSD_ORPHAN", "HEALTH_WARN",
              absl::StrCat(orphans.size(), " osds exist in the crush map but not in the osdmap"),
              static_cast<std::int64_t>(orphans.size()));
      for (int osd : orphans)
        c.detail.push_back(absl::StrCat("osd.", osd, " exists in crush map but not in osdmap"));
    }
    return absl::OkStatus();
  }

  // OSD_OUT_OF_ORDER_FULL: as OSDService::check_full_status raises them.
  void OutOfOrderFull() {
    float fsr = config_.osd_failsafe_full_ratio;
    if (fsr > 1.0f) fsr /= 100;
    float fr = m_.full_ratio();
    float br = m_.backfillfull_ratio();
    const float nr = m_.nearfull_ratio();
    using util::FormatCephFloat;
    std::vector<std::string> detail;
    if (br < nr) {
      detail.push_back(absl::StrCat("backfillfull_ratio (", FormatCephFloat(br),
                                    ") < nearfull_ratio (", FormatCephFloat(nr), "), increased"));
      br = nr;
    }
    if (fr < br) {
      detail.push_back(absl::StrCat("full_ratio (", FormatCephFloat(fr), ") < backfillfull_ratio (",
                                    FormatCephFloat(br), "), increased"));
      fr = br;
    }
    if (fsr < fr) {
      detail.push_back(absl::StrCat("osd_failsafe_full_ratio (", FormatCephFloat(fsr),
                                    ") < full_ratio (", FormatCephFloat(fr), "), increased"));
    }
    if (!detail.empty()) {
      Add("OSD_OUT_OF_ORDER_FULL", "HEALTH_ERR", "full ratio(s) out of order", 0).detail =
          std::move(detail);
    }
  }

  // OSD_FULL, OSD_BACKFILLFULL, OSD_NEARFULL (get_full_osd_counts: up and in
  // OSDs, the strongest state only).
  void FullOsds() {
    std::vector<int> full, backfillfull, nearfull;
    for (int i = 0; i < m_.max_osd; ++i) {
      if (!IsUp(i) || IsOut(i)) continue;
      if (State(i) & kFull) {
        full.push_back(i);
      } else if (State(i) & kBackfillfull) {
        backfillfull.push_back(i);
      } else if (State(i) & kNearfull) {
        nearfull.push_back(i);
      }
    }
    auto add = [&](const std::vector<int>& osds, const char* code, const char* severity,
                   const char* what, const char* is) {
      if (osds.empty()) return;
      HealthCheck& c = Add(code, severity, absl::StrCat(osds.size(), " ", what, " osd(s)"),
                           static_cast<std::int64_t>(osds.size()));
      for (int osd : osds) c.detail.push_back(absl::StrCat("osd.", osd, " is ", is));
    };
    add(full, "OSD_FULL", "HEALTH_ERR", "full", "full");
    add(backfillfull, "OSD_BACKFILLFULL", "HEALTH_WARN", "backfillfull", "backfill full");
    add(nearfull, "OSD_NEARFULL", "HEALTH_WARN", "nearfull", "near full");
  }

  void MapFlags() {
    if (!(m_.flags & kWarnMapFlags)) return;
    const std::string s = MapFlagString(m_.flags & kWarnMapFlags);
    // Ceph's count is the length of the flag string ("kludgey but sufficient").
    Add("OSDMAP_FLAGS", "HEALTH_WARN", s + " flag(s) set", static_cast<std::int64_t>(s.size()));
  }

  // OSD_FLAGS: per-OSD noup/nodown/noin/noout, then CRUSH nodes and device
  // classes with such flags.
  absl::Status OsdFlags() {
    std::vector<std::string> detail;
    auto names = [](std::uint32_t flags) { return absl::StrJoin(OsdStateNames(flags), ","); };
    for (int i = 0; i < m_.max_osd; ++i) {
      if (State(i) & kOsdFlagBits) {
        detail.push_back(absl::StrCat("osd.", i, " has flags ", names(State(i) & kOsdFlagBits)));
      }
    }
    for (const auto& [id, flags] : m_.crush_node_flags) {
      if (!flags || !ItemExists(id)) continue;
      const std::string* tname = TypeName(id >= 0 ? 0 : BucketType(id));
      detail.push_back(
          absl::StrCat(tname ? *tname : "node", " ", ItemName(id), " has flags ", names(flags)));
    }
    for (const auto& [id, flags] : m_.device_class_flags) {
      auto cls = crush_.class_names.find(id);
      if (!flags || cls == crush_.class_names.end()) continue;
      detail.push_back(absl::StrCat("device class '", cls->second, "' has flags ", names(flags)));
    }
    if (detail.empty()) return absl::OkStatus();
    HealthCheck& c =
        Add("OSD_FLAGS", "HEALTH_WARN",
            absl::StrCat(
                detail.size(),
                " OSDs or CRUSH {nodes, device-classes} have {NOUP,NODOWN,NOIN,NOOUT} flags set"),
            static_cast<std::int64_t>(detail.size()));
    c.detail = std::move(detail);
    return absl::OkStatus();
  }

  void CrushTunables() {
    static constexpr char kSee[] =
        "see http://docs.ceph.com/en/latest/rados/operations/crush-map/#tunables";
    if (config_.mon_warn_on_legacy_crush_tunables) {
      const std::string min = crush::MinRequiredVersion(crush_, /*msr=*/false);
      if (min < config_.mon_crush_min_required_version) {
        Add("OLD_CRUSH_TUNABLES", "HEALTH_WARN",
            absl::StrCat("crush map has legacy tunables (require ", min, ", min is ",
                         config_.mon_crush_min_required_version, ")"),
            0)
            .detail.push_back(kSee);
      }
    }
    if (config_.mon_warn_on_crush_straw_calc_version_zero &&
        crush_.tunables.straw_calc_version == 0) {
      Add("OLD_CRUSH_STRAW_CALC_VERSION", "HEALTH_WARN", "crush map has straw_calc_version=0", 0)
          .detail.push_back(kSee);
    }
  }

  std::string PoolName(std::int64_t id) const {
    auto it = m_.pool_name.find(id);
    return it == m_.pool_name.end() ? std::string() : it->second;
  }

  // CACHE_POOL_NO_HIT_SET (pg_pool_t::cache_mode_requires_hit_set).
  absl::Status CachePools() {
    if (!config_.mon_warn_on_cache_pools_without_hit_sets) return absl::OkStatus();
    std::vector<std::string> detail;
    for (const auto& [id, p] : m_.pools) {
      bool requires_hit_set = false;
      switch (p.cache_mode) {
        case 0:
        case 2:
        case 3:
        case 6:
          break;  // none, forward, readonly, proxy
        case 1:
        case 4:
        case 5:
          requires_hit_set = true;
          break;  // writeback, readforward, readproxy
        default:
          return absl::InternalError(absl::StrCat("pool ", id, " has unknown cache mode ",
                                                  p.cache_mode, " (Ceph aborts here)"));
      }
      if (requires_hit_set && p.hit_set_params.type == 0) {
        detail.push_back(absl::StrCat("pool '", PoolName(id), "' with cache_mode ",
                                      CacheModeName(p.cache_mode),
                                      " needs hit_set_type to be set but it is not"));
      }
    }
    if (!detail.empty()) {
      Add("CACHE_POOL_NO_HIT_SET", "HEALTH_WARN",
          absl::StrCat(detail.size(), " cache pools are missing hit_sets"),
          static_cast<std::int64_t>(detail.size()))
          .detail = std::move(detail);
    }
    return absl::OkStatus();
  }

  // OSD_UPGRADE_FINISHED: the features every up OSD advertises (xinfo; 0 =
  // bogus, skipped) name a release newer than require_osd_release.
  void UpgradeFinished() {
    const OsdMapBinary& fm = features_from_;
    std::uint64_t features = 0;
    bool first = true;
    for (int i = 0; i < fm.max_osd; ++i) {
      const std::uint32_t s = fm.osd_state[static_cast<std::size_t>(i)];
      if ((s & (kExists | kUp)) != (kExists | kUp) ||
          static_cast<std::size_t>(i) >= fm.osd_xinfo.size())
        continue;
      const std::uint64_t f = fm.osd_xinfo[static_cast<std::size_t>(i)].features;
      if (f == 0) continue;
      features = first ? f : (features & f);
      first = false;
    }
    std::optional<std::string> pending;
    auto have = [&](std::uint64_t mask) { return (features & mask) == mask; };
    if (have(kServerPacific) && m_.require_osd_release < 16) {
      pending = "pacific";
    } else if (have(kServerOctopus) && m_.require_osd_release < 15) {
      pending = "octopus";
    } else if (have(kServerNautilus) && m_.require_osd_release < 14) {
      pending = "nautilus";
    }
    if (!pending) return;
    const std::string s = absl::StrCat("all OSDs are running ", *pending,
                                       " or later but require_osd_release < ", *pending);
    Add("OSD_UPGRADE_FINISHED", "HEALTH_WARN", s, 0).detail.push_back(s);
  }

  void FullPools() {
    std::vector<std::string> full, backfillfull, nearfull;
    for (const auto& [id, p] : m_.pools) {
      const std::string name = PoolName(id);
      if (p.flags & kPoolFull) {
        full.push_back(
            absl::StrCat("pool '", name, "' is full (",
                         (p.flags & kPoolFullQuota) ? "running out of quota" : "no space", ")"));
      } else if (p.flags & kPoolBackfillfull) {
        backfillfull.push_back(absl::StrCat("pool '", name, "' is backfillfull"));
      } else if (p.flags & kPoolNearfull) {
        nearfull.push_back(absl::StrCat("pool '", name, "' is nearfull"));
      }
    }
    auto add = [&](std::vector<std::string>& detail, const char* code, const char* what) {
      if (detail.empty()) return;
      Add(code, "HEALTH_WARN", absl::StrCat(detail.size(), " pool(s) ", what),
          static_cast<std::int64_t>(detail.size()))
          .detail = std::move(detail);
    };
    add(full, "POOL_FULL", "full");
    add(backfillfull, "POOL_BACKFILLFULL", "backfillfull");
    add(nearfull, "POOL_NEARFULL", "nearfull");
  }

  void PoolChecks() {
    if (config_.mon_warn_on_pool_pg_num_not_power_of_two) {
      std::vector<std::string> detail;
      for (const auto& [id, p] : m_.pools) {
        if (std::has_single_bit(p.pg_num_target)) continue;
        detail.push_back(absl::StrCat("pool '", PoolName(id), "' pg_num ", p.pg_num_target,
                                      " is not a power of two"));
      }
      if (!detail.empty()) {
        Add("POOL_PG_NUM_NOT_POWER_OF_TWO", "HEALTH_WARN",
            absl::StrCat(detail.size(), " pool(s) have non-power-of-two pg_num"),
            static_cast<std::int64_t>(detail.size()))
            .detail = std::move(detail);
      }
    }
    if (config_.mon_warn_on_pool_no_redundancy) {
      std::vector<std::string> detail;
      for (const auto& [id, p] : m_.pools) {
        if (p.size == 1)
          detail.push_back(absl::StrCat("pool '", PoolName(id), "' has no replicas configured"));
      }
      if (!detail.empty()) {
        Add("POOL_NO_REDUNDANCY", "HEALTH_WARN",
            absl::StrCat(detail.size(), " pool(s) have no replicas configured"),
            static_cast<std::int64_t>(detail.size()))
            .detail = std::move(detail);
      }
    }
  }

  absl::Status StretchMode() {
    const char* code = m_.recovering_stretch_mode ? "RECOVERING_STRETCH_MODE"
                       : m_.degraded_stretch_mode ? "DEGRADED_STRETCH_MODE"
                                                  : nullptr;
    if (config_.mon_warn_on_degraded_stretch_mode && code != nullptr) {
      Add(code, "HEALTH_WARN",
          absl::StrCat("We are ", m_.recovering_stretch_mode ? "recovering" : "missing",
                       " stretch mode buckets, only requiring ", m_.degraded_stretch_mode, " of ",
                       m_.stretch_bucket_count, " buckets to peer"),
          0);
    }
    if (!m_.stretch_mode_enabled) return absl::OkStatus();
    // get_subtree_of_type(): below every root (shadow roots included), the
    // non-shadow items of that type.
    std::vector<ItemId> subtrees;
    for (ItemId root : crush::FindAllRoots(crush_)) {
      if (crush_.FindBucket(root) == nullptr) continue;
      if (absl::Status s = ChildrenOfType(root, m_.stretch_mode_bucket, 0, &subtrees); !s.ok())
        return s;
    }
    if (subtrees.size() != 2) {
      Add("INCORRECT_NUM_BUCKETS_STRETCH_MODE", "HEALTH_WARN", "Stretch mode buckets != 2", 0);
      return absl::OkStatus();
    }
    // CrushWrapper::get_item_weight (-ENOENT when absent) of the two sites.
    auto weight = [&](ItemId id) -> std::int64_t {
      auto w = CrushItemWeight(crush_, id);
      return w ? static_cast<std::int32_t>(*w) : kEnoent;
    };
    if (tentacle()) {
      // 20.2 warns only past a 10% difference relative to the lighter site
      // (measured against osdmaptool 20.2: sites of 10.748 raise it from
      // 9.764 down and from 11.824 up, not at 9.774 or 11.819).
      const double w0 = static_cast<double>(weight(subtrees[0])) / 0x10000;
      const double w1 = static_cast<double>(weight(subtrees[1])) / 0x10000;
      if (std::abs(w0 - w1) > 0.1 * std::min(w0, w1)) {
        Add("STRETCH_MODE_BUCKET_WEIGHT_IMBALANCE", "HEALTH_WARN",
            "Stretch mode buckets differ in weight by more than 10%", 0);
      }
    } else if (weight(subtrees[0]) != weight(subtrees[1])) {
      Add("UNEVEN_WEIGHTS_STRETCH_MODE", "HEALTH_WARN",
          "Stretch mode buckets have different weights!", 0);
    }
    return absl::OkStatus();
  }

  // CrushWrapper::get_children_of_type(id, type, items, exclude_shadow=true).
  absl::Status ChildrenOfType(ItemId id, int type, int depth, std::vector<ItemId>* items) const {
    if (id >= 0) {
      if (type == 0) items->push_back(id);
      return absl::OkStatus();
    }
    const Bucket* b = crush_.FindBucket(id);
    if (b == nullptr || b->type < type) return absl::OkStatus();
    if (b->type == type) {
      if (!crush::IsShadowItem(crush_, id)) items->push_back(id);
      return absl::OkStatus();
    }
    if (depth > crush_.max_buckets()) {
      return absl::InternalError(
          "the CRUSH hierarchy has a cycle (Ceph recurses until it crashes)");
    }
    for (ItemId child : b->items) {
      if (absl::Status s = ChildrenOfType(child, type, depth + 1, items); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  bool tentacle() const { return config_.release == crush::CephRelease::kTentacle; }

  const OsdMapBinary& m_;
  const crush::MapModel& crush_;
  const HealthConfig& config_;
  const OsdMapBinary& features_from_;
  HealthChecks checks_;
  std::set<int> down_in_, up_in_;
  std::set<ItemId> subtree_up_;
  std::unordered_map<int, std::set<ItemId>> subtree_type_down_;
};

}  // namespace

absl::StatusOr<HealthChecks> CheckHealth(const OsdMapBinary& map, const HealthConfig& config,
                                         const OsdMapBinary* features_from) {
  return HealthChecker(map, config, features_from != nullptr ? *features_from : map).Run();
}

}  // namespace crushkit::osdmap
