#include "osdmap/formats/osdmap_print.h"

#include <arpa/inet.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include "crush/edit/display.h"
#include "crush/model.h"
#include "crush/status_macros.h"
#include "crush/util/text_format.h"
#include "osdmap/formats/binary_io.h"
#include "osdmap/formats/entity_addr.h"
#include "osdmap/formats/hit_set_params.h"
#include "osdmap/formats/osdmap_binary_state.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_id.h"

namespace crushkit::osdmap {
namespace {

// OSDMap::get_flag_string's order (not bit order), CEPH_OSDMAP_* bits from
// include/rados.h; nearfull (bit 0) and full (bit 1) are never printed.
constexpr std::pair<std::uint32_t, const char*> kMapFlags[] = {{1u << 2, "pauserd"},
                                                               {1u << 3, "pausewr"},
                                                               {1u << 4, "pauserec"},
                                                               {1u << 5, "noup"},
                                                               {1u << 6, "nodown"},
                                                               {1u << 7, "noout"},
                                                               {1u << 8, "noin"},
                                                               {1u << 9, "nobackfill"},
                                                               {1u << 14, "norebalance"},
                                                               {1u << 10, "norecover"},
                                                               {1u << 11, "noscrub"},
                                                               {1u << 12, "nodeep-scrub"},
                                                               {1u << 13, "notieragent"},
                                                               {1u << 21, "nosnaptrim"},
                                                               {1u << 15, "sortbitwise"},
                                                               {1u << 16, "require_jewel_osds"},
                                                               {1u << 17, "require_kraken_osds"},
                                                               {1u << 18, "require_luminous_osds"},
                                                               {1u << 19, "recovery_deletes"},
                                                               {1u << 20, "purged_snapdirs"},
                                                               {1u << 22, "pglog_hardlimit"}};

// pg_pool_t::get_flags_string.
std::string PoolFlagsImpl(std::uint64_t f) {
  static constexpr const char* kNames[] = {"hashpspool",    "full",
                                           "ec_overwrites", "incomplete_clones",
                                           "nodelete",      "nopgchange",
                                           "nosizechange",  "write_fadvise_dontneed",
                                           "noscrub",       "nodeep-scrub",
                                           "full_quota",    "nearfull",
                                           "backfillfull",  "selfmanaged_snaps",
                                           "pool_snaps",    "creating",
                                           "eio",           "bulk"};
  std::vector<std::string> names;
  for (std::size_t i = 0; i < std::size(kNames); ++i) {
    if (f & (1ull << i)) names.emplace_back(kNames[i]);
  }
  return absl::StrJoin(names, ",");
}

std::string CacheModeNameImpl(std::uint8_t m) {
  static constexpr const char* kNames[] = {"none",        "writeback", "forward", "readonly",
                                           "readforward", "readproxy", "proxy"};
  return m < std::size(kNames) ? kNames[m] : "unknown";
}

std::string AutoscaleModeNameImpl(std::uint8_t m) {
  static constexpr const char* kNames[] = {"off", "warn", "on"};
  return m < std::size(kNames) ? kNames[m] : "";
}

// interval_set<snapid_t> operator<<: "[start~len,...]" in snapid_t's hex,
// in the order of the std::map Ceph decodes it into (denc's emplace_hint:
// sorted, first duplicate wins).
std::string IntervalsImpl(const binary::IntervalSet& s) {
  std::vector<std::string> parts;
  for (const auto& [start, len] : SortedIntervals(s)) {
    parts.push_back(absl::StrCat(FormatSnapId(start), "~", FormatSnapId(len)));
  }
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

// pg_pool_t operator<<.
absl::StatusOr<std::string> PoolLine(const binary::BinaryPool& p, crush::CephRelease release) {
  CRUSH_ASSIGN_OR_RETURN(const HitSetView hit_set, ParseHitSetParams(p.hit_set_params));
  std::string o =
      p.type == 3 ? absl::StrCat("erasure profile ", p.erasure_code_profile) : "replicated";
  absl::StrAppend(&o, " size ", p.size, " min_size ", p.min_size, " crush_rule ", p.crush_rule,
                  " object_hash ",
                  p.object_hash == 1   ? "linux"
                  : p.object_hash == 2 ? "rjenkins"
                                       : "???",
                  " pg_num ", p.pg_num, " pgp_num ", p.pgp_num);
  if (p.pg_num_target != p.pg_num) absl::StrAppend(&o, " pg_num_target ", p.pg_num_target);
  if (p.pgp_num_target != p.pgp_num) absl::StrAppend(&o, " pgp_num_target ", p.pgp_num_target);
  if (p.pg_num_pending != p.pg_num) absl::StrAppend(&o, " pg_num_pending ", p.pg_num_pending);
  const std::string mode = AutoscaleModeNameImpl(p.pg_autoscale_mode);
  if (!mode.empty()) absl::StrAppend(&o, " autoscale_mode ", mode);
  absl::StrAppend(&o, " last_change ", p.last_change);
  if (p.last_force_op_resend || p.last_force_op_resend_prenautilus ||
      p.last_force_op_resend_preluminous) {
    absl::StrAppend(&o, " lfor ", p.last_force_op_resend, "/", p.last_force_op_resend_prenautilus,
                    "/", p.last_force_op_resend_preluminous);
  }
  if (p.auid) absl::StrAppend(&o, " owner ", p.auid);
  if (p.flags) absl::StrAppend(&o, " flags ", PoolFlagString(p.flags));
  if (p.quota_max_bytes) absl::StrAppend(&o, " max_bytes ", p.quota_max_bytes);
  if (p.quota_max_objects) absl::StrAppend(&o, " max_objects ", p.quota_max_objects);
  if (!p.tiers.empty()) absl::StrAppend(&o, " tiers ", absl::StrJoin(p.tiers, ","));
  if (p.tier_of >= 0) absl::StrAppend(&o, " tier_of ", p.tier_of);
  if (p.read_tier >= 0) absl::StrAppend(&o, " read_tier ", p.read_tier);
  if (p.write_tier >= 0) absl::StrAppend(&o, " write_tier ", p.write_tier);
  if (p.cache_mode) absl::StrAppend(&o, " cache_mode ", CacheModeNameImpl(p.cache_mode));
  if (p.target_max_bytes) absl::StrAppend(&o, " target_bytes ", p.target_max_bytes);
  if (p.target_max_objects) absl::StrAppend(&o, " target_objects ", p.target_max_objects);
  if (hit_set.type != HitSetType::kNone) {
    absl::StrAppend(&o, " hit_set ", FormatHitSetParams(hit_set), " ", p.hit_set_period, "s x",
                    p.hit_set_count, " decay_rate ", p.hit_set_grade_decay_rate, " search_last_n ",
                    p.hit_set_search_last_n);
  }
  if (p.min_read_recency_for_promote) {
    absl::StrAppend(&o, " min_read_recency_for_promote ", p.min_read_recency_for_promote);
  }
  if (p.min_write_recency_for_promote) {
    absl::StrAppend(&o, " min_write_recency_for_promote ", p.min_write_recency_for_promote);
  }
  absl::StrAppend(&o, " stripe_width ", p.stripe_width);
  if (p.expected_num_objects) absl::StrAppend(&o, " expected_num_objects ", p.expected_num_objects);
  if (p.fast_read) absl::StrAppend(&o, " fast_read ", p.fast_read);
  for (const NamedPoolOpt& opt : NamedPoolOpts(p.opts, release)) {
    absl::StrAppend(&o, " ", opt.name, " ", FormatPoolOptValue(*opt.opt));
  }
  if (!p.application_metadata.empty()) {
    std::vector<std::string> apps;
    for (const auto& [name, meta] : p.application_metadata) apps.push_back(name);
    absl::StrAppend(&o, " application ", absl::StrJoin(apps, ","));
  }
  return o;
}

// entity_addrvec_t operator<<: brackets only around more than one address.
absl::StatusOr<std::string> AddrvecText(const std::string& raw) {
  CRUSH_ASSIGN_OR_RETURN(const std::vector<EntityAddr> addrs, DecodeAddrvec(raw));
  std::vector<std::string> texts;
  for (const EntityAddr& a : addrs) texts.push_back(a.text);
  const std::string joined = absl::StrJoin(texts, ",");
  return addrs.size() > 1 ? absl::StrCat("[", joined, "]") : joined;
}

std::vector<std::string> OsdStatesImpl(std::uint32_t s) {
  static constexpr const char* kNames[] = {
      "exists",    "up",   "autoout", "new",  "full",  "nearfull", "backfillfull",
      "destroyed", "noup", "nodown",  "noin", "noout", "stop"};
  std::set<std::string> names;
  for (std::size_t i = 0; i < 32; ++i) {
    if (!(s & (1u << i))) continue;
    names.insert(i < std::size(kNames) ? kNames[i] : "???");
  }
  return {names.begin(), names.end()};
}

std::string UuidImpl(const std::array<std::uint8_t, 16>& u) {
  std::string o;
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) o += '-';
    absl::StrAppendFormat(&o, "%02x", u[i]);
  }
  return o;
}

// OSDMap::print_osd.
absl::StatusOr<std::string> OsdLine(const OsdMapBinary& m, std::size_t i) {
  const std::uint32_t state = m.osd_state[i];
  const bool up = (state & 1) && (state & 2);
  std::string o = absl::StrCat("osd.", i, up ? " up  " : " down", m.osd_weight[i] ? " in " : " out",
                               " weight ", util::FormatCephDouble(m.osd_weight[i] / 65536.0f));
  if (i < m.osd_primary_affinity.size() && m.osd_primary_affinity[i] != 0x10000) {
    absl::StrAppend(&o, " primary_affinity ",
                    util::FormatCephDouble(m.osd_primary_affinity[i] / 65536.0f));
  }
  const BinaryOsdInfo& info = m.osd_info[i];
  absl::StrAppend(&o, " up_from ", info.up_from, " up_thru ", info.up_thru, " down_at ",
                  info.down_at, " last_clean_interval [", info.last_clean_begin, ",",
                  info.last_clean_end, ")");
  if (info.lost_at) absl::StrAppend(&o, " lost_at ", info.lost_at);
  CRUSH_ASSIGN_OR_RETURN(std::string pub, AddrvecText(m.client_addrs[i]));
  CRUSH_ASSIGN_OR_RETURN(std::string cluster, AddrvecText(m.cluster_addrs[i]));
  absl::StrAppend(&o, " ", pub, " ", cluster, " ", absl::StrJoin(OsdStatesImpl(state), ","));
  if (i < m.osd_uuid.size() && m.osd_uuid[i] != std::array<std::uint8_t, 16>{}) {
    absl::StrAppend(&o, " ", UuidImpl(m.osd_uuid[i]));
  }
  return o;
}

std::string IntList(const std::vector<std::int32_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

}  // namespace

std::string FormatUtime(const binary::Utime& t) {
  const std::uint32_t usec = t.nsec / 1000;
  if (t.sec < 315360000u) return absl::StrFormat("%d.%06d", t.sec, usec);
  const std::time_t tt = static_cast<std::time_t>(t.sec);
  std::tm tm{};
  ::localtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  char zone[16];
  std::strftime(zone, sizeof(zone), "%z", &tm);
  return absl::StrFormat("%s.%06d%s", buf, usec, zone);
}

namespace {

// CrushWrapper::has_incompat_choose_args(): anything beyond one compat
// (-1) map whose buckets each have no override, or exactly one weight-set
// position and no substitute ids.
bool HasIncompatChooseArgs(const crush::MapModel& c) {
  if (c.choose_args.empty()) return false;
  if (c.choose_args.size() > 1 || c.choose_args.begin()->first != crush::kCompatChooseArgs) {
    return true;
  }
  for (const auto& [bucket, arg] : c.choose_args.begin()->second) {
    if (arg.weight_set.empty() && arg.ids.empty()) continue;
    if (arg.weight_set.size() != 1 || !arg.ids.empty()) return true;
  }
  return false;
}

bool RuleHasStep(const crush::MapModel& c, int rule, crush::RuleOp op) {
  const auto& steps = c.rules[static_cast<std::size_t>(rule)].steps;
  return std::any_of(steps.begin(), steps.end(),
                     [op](const crush::RuleStep& s) { return s.op == op; });
}

}  // namespace

std::string MinCompatClient(const OsdMapBinary& m, crush::CephRelease release) {
  if (release != crush::CephRelease::kPacific && !m.pg_upmap_primaries.empty()) return "reef";
  return MinCompatClient(m);
}

std::string MinCompatClient(const OsdMapBinary& m) {
  // OSDMap::get_min_compat_client() over get_features(CEPH_ENTITY_TYPE_CLIENT)
  // as Pacific computes them: the crush tunables and bucket algorithms, the
  // rules the pools use (vary_r / stable steps), upmaps, pool flags and
  // tiers, and primary affinity.
  const crush::MapModel& c = m.crush;
  const crush::Tunables& t = c.tunables;
  bool tunables3 = t.chooseleaf_vary_r != 0;
  bool tunables5 = t.chooseleaf_stable != 0;
  const bool tunables2 = t.chooseleaf_descend_once != 0;
  const bool v4 = std::any_of(c.buckets.begin(), c.buckets.end(), [](const crush::Bucket& b) {
    return b.alg == crush::BucketAlg::kStraw2;
  });
  bool hashpspool = false;
  bool cachepool = false;
  for (const auto& [id, p] : m.pools) {
    hashpspool |= (p.flags & 1) != 0;
    cachepool |= !p.tiers.empty() || p.tier_of >= 0;
    const int rule = FindCrushRule(c, p.crush_rule, p.type, p.size, crush::CephRelease::kPacific);
    if (rule >= 0) {
      tunables3 |= RuleHasStep(c, rule, crush::RuleOp::kSetChooseleafVaryR);
      tunables5 |= RuleHasStep(c, rule, crush::RuleOp::kSetChooseleafStable);
    }
  }
  const bool affinity = std::any_of(m.osd_primary_affinity.begin(), m.osd_primary_affinity.end(),
                                    [](std::uint32_t a) { return a != 0x10000; });
  if (!m.pg_upmap.empty() || !m.pg_upmap_items.empty() || HasIncompatChooseArgs(c)) {
    return "luminous";
  }
  if (tunables5) return "jewel";
  if (v4) return "hammer";
  if (affinity || tunables3 || cachepool) return "firefly";
  if (tunables2 || hashpspool) return "dumpling";
  return "argonaut";
}

absl::Status CheckPerOsdVectors(const OsdMapBinary& m) {
  if (m.max_osd < 0) return absl::InvalidArgumentError(absl::StrCat("max_osd ", m.max_osd));
  const std::pair<const char*, std::size_t> sizes[] = {
      {"osd_state", m.osd_state.size()},         {"osd_weight", m.osd_weight.size()},
      {"osd_info", m.osd_info.size()},           {"osd_xinfo", m.osd_xinfo.size()},
      {"client_addrs", m.client_addrs.size()},   {"cluster_addrs", m.cluster_addrs.size()},
      {"hb_back_addrs", m.hb_back_addrs.size()}, {"hb_front_addrs", m.hb_front_addrs.size()}};
  for (const auto& [field, size] : sizes) {
    if (size < static_cast<std::size_t>(m.max_osd)) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, " has ", size, " entries, fewer than max_osd ", m.max_osd));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PrintRelease> PrintReleaseFor(const ClusterState& state,
                                             crush::CephRelease release) {
  PrintRelease as;
  as.release = release;
  if (release == crush::CephRelease::kPacific) return as;
  for (const auto& [id, pool] : state.pools) {
    if (pool.type != PoolType::kReplicated) continue;
    CRUSH_ASSIGN_OR_RETURN(ReadBalanceScore score, CalcReadBalanceScore(state, id));
    as.read_balance.emplace(id, std::move(score));
  }
  return as;
}

namespace {

// OSDMap::print_pools(): each pool's line, its read balance score or
// message, its snaps and removed snaps.
absl::Status PrintPools(const OsdMapBinary& m, const PrintRelease& as, std::string* o) {
  for (const auto& [id, p] : m.pools) {
    auto name = m.pool_name.find(id);
    CRUSH_ASSIGN_OR_RETURN(std::string line, PoolLine(p, as.release));
    // Reef's print_pools: the acting score of a replicated pool whose
    // calc_read_balance_score succeeded, fmt's {:.2f}.
    if (auto rb = as.read_balance.find(id);
        p.type == 1 && rb != as.read_balance.end() && rb->second.rc >= 0) {
      absl::StrAppend(&line,
                      absl::StrFormat(" read_balance_score %.2f",
                                      static_cast<double>(rb->second.info.acting_adj_score)));
    }
    absl::StrAppend(o, "pool ", id, " '", name == m.pool_name.end() ? "" : name->second, "' ", line,
                    "\n");
    // ... and its message on a line of its own: the reason it failed, or a
    // warning beside a score.
    if (auto rb = as.read_balance.find(id);
        p.type == 1 && rb != as.read_balance.end() && !rb->second.info.err_msg.empty()) {
      absl::StrAppend(o, rb->second.rc < 0 ? " ERROR: " : " Warning: ", rb->second.info.err_msg,
                      "\n");
    }
    // print_pools prints the snapid inside pool_snap_info_t, not the map key.
    for (const auto& [key, snap] : p.snaps) {
      absl::StrAppend(o, "\tsnap ", FormatSnapId(snap.snapid), " '", snap.name, "' ",
                      FormatUtime(snap.stamp), "\n");
    }
    if (!p.removed_snaps.empty())
      absl::StrAppend(o, "\tremoved_snaps ", IntervalsImpl(p.removed_snaps), "\n");
    auto q = m.removed_snaps_queue.find(id);
    if (q != m.removed_snaps_queue.end()) {
      absl::StrAppend(o, "\tremoved_snaps_queue ", IntervalsImpl(q->second), "\n");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> FormatOsdMapPlain(const OsdMapBinary& m, const PrintRelease& as) {
  CRUSH_RETURN_IF_ERROR(CheckPerOsdVectors(m));
  std::string o = absl::StrCat(
      "epoch ", m.epoch, "\nfsid ", UuidImpl(m.fsid), "\ncreated ", FormatUtime(m.created),
      "\nmodified ", FormatUtime(m.modified), "\nflags ", MapFlagString(m.flags),
      "\ncrush_version ", m.crush_version, "\nfull_ratio ", util::FormatCephDouble(m.full_ratio()),
      "\nbackfillfull_ratio ", util::FormatCephDouble(m.backfillfull_ratio()), "\nnearfull_ratio ",
      util::FormatCephDouble(m.nearfull_ratio()), "\n");
  if (m.require_min_compat_client != 0) {
    absl::StrAppend(&o, "require_min_compat_client ", ReleaseNameOf(m.require_min_compat_client),
                    "\n");
  }
  absl::StrAppend(&o, "min_compat_client ", MinCompatClient(m, as.release), "\n");
  if (m.require_osd_release != 0) {
    absl::StrAppend(&o, "require_osd_release ", ReleaseNameOf(m.require_osd_release), "\n");
  }
  absl::StrAppend(&o, "stretch_mode_enabled ", m.stretch_mode_enabled ? "true" : "false", "\n");
  if (m.stretch_mode_enabled) {
    absl::StrAppend(&o, "stretch_bucket_count ", m.stretch_bucket_count, "\ndegraded_stretch_mode ",
                    m.degraded_stretch_mode, "\nrecovering_stretch_mode ",
                    m.recovering_stretch_mode, "\nstretch_mode_bucket ", m.stretch_mode_bucket,
                    "\n");
  }
  if (m.cluster_snapshot_epoch == m.epoch && !m.cluster_snapshot.empty()) {
    absl::StrAppend(&o, "cluster_snapshot ", m.cluster_snapshot, "\n");
  }
  o += "\n";
  CRUSH_RETURN_IF_ERROR(PrintPools(m, as, &o));
  absl::StrAppend(&o, "\nmax_osd ", m.max_osd, "\n");
  for (std::size_t i = 0; i < static_cast<std::size_t>(m.max_osd); ++i) {
    if (!(m.osd_state[i] & 1)) continue;
    CRUSH_ASSIGN_OR_RETURN(std::string line, OsdLine(m, i));
    absl::StrAppend(&o, line, "\n");
  }
  o += "\n";
  for (const auto& [pg, osds] : m.pg_upmap)
    absl::StrAppend(&o, "pg_upmap ", FormatPgId(pg), " ", IntList(osds), "\n");
  for (const auto& [pg, pairs] : m.pg_upmap_items) {
    std::vector<std::int32_t> flat;
    for (const auto& [from, to] : pairs) {
      flat.push_back(from);
      flat.push_back(to);
    }
    absl::StrAppend(&o, "pg_upmap_items ", FormatPgId(pg), " ", IntList(flat), "\n");
  }
  // Reef's read balancer entries (OSDMap::print, Reef and later).
  if (as.release != crush::CephRelease::kPacific) {
    for (const auto& [pg, osd] : m.pg_upmap_primaries)
      absl::StrAppend(&o, "pg_upmap_primary ", FormatPgId(pg), " ", osd, "\n");
  }
  for (const auto& [pg, osds] : m.pg_temp)
    absl::StrAppend(&o, "pg_temp ", FormatPgId(pg), " ", IntList(osds), "\n");
  for (const auto& [pg, osd] : m.primary_temp) {
    absl::StrAppend(&o, "primary_temp ", FormatPgId(pg), " ", osd, "\n");
  }
  CRUSH_ASSIGN_OR_RETURN(const std::vector<BlocklistEntry> blocklist,
                         DecodeBlocklist(m.blocklist, /*ceph_hash_order=*/true));
  for (const BlocklistEntry& e : blocklist) {
    absl::StrAppend(&o, "blocklist ", e.addr, " expires ", FormatUtime(e.expires), "\n");
  }
  CRUSH_ASSIGN_OR_RETURN(const std::vector<BlocklistEntry> ranges,
                         DecodeBlocklist(m.range_blocklist, /*ceph_hash_order=*/false));
  for (const BlocklistEntry& e : ranges) {
    absl::StrAppend(&o, "range blocklist ", e.addr, " expires ", FormatUtime(e.expires), "\n");
  }
  return o;
}

std::string MapFlagString(std::uint32_t flags) {
  std::vector<std::string> names;
  for (const auto& [bit, name] : kMapFlags) {
    if (flags & bit) names.emplace_back(name);
  }
  return absl::StrJoin(names, ",");
}

std::vector<std::string> MapFlagSet(std::uint32_t flags) {
  std::set<std::string> names;
  for (std::uint32_t i = 0; i < 32; ++i) {
    if (!(flags & (1u << i))) continue;
    std::string name;
    for (const auto& [bit, n] : kMapFlags) {
      if (bit == (1u << i)) name = n;
    }
    names.insert(name);
  }
  return {names.begin(), names.end()};
}

std::string PoolFlagString(std::uint64_t flags) { return PoolFlagsImpl(flags); }

std::string CacheModeName(std::uint8_t mode) { return CacheModeNameImpl(mode); }

std::string AutoscaleModeName(std::uint8_t mode) { return AutoscaleModeNameImpl(mode); }

std::vector<std::string> OsdStateNames(std::uint32_t state) { return OsdStatesImpl(state); }

std::string FormatUuid(const std::array<std::uint8_t, 16>& uuid) { return UuidImpl(uuid); }

std::string FormatIntervals(const binary::IntervalSet& s) { return IntervalsImpl(s); }

std::string FormatSnapId(std::uint64_t id) {
  if (id == ~std::uint64_t{1}) return "head";     // CEPH_NOSNAP
  if (id == ~std::uint64_t{0}) return "snapdir";  // CEPH_SNAPDIR
  return absl::StrFormat("%x", id);
}

std::map<std::uint64_t, std::uint64_t> SortedIntervals(const binary::IntervalSet& s) {
  std::map<std::uint64_t, std::uint64_t> m;
  for (const auto& [start, len] : s) m.emplace(start, len);
  return m;
}

std::vector<NamedPoolOpt> NamedPoolOpts(const binary::PoolOpts& opts, crush::CephRelease release) {
  // pool_opts_t::key_t (osd/osd_types.h) and opt_mapping's names and types,
  // sorted by name as that std::map is.
  struct Desc {
    const char* name;
    std::int32_t key;
    std::int32_t type;
  };

  static constexpr Desc kDescs[] = {{"compression_algorithm", 7, 0},
                                    {"compression_max_blob_size", 9, 1},
                                    {"compression_min_blob_size", 10, 1},
                                    {"compression_mode", 6, 0},
                                    {"compression_required_ratio", 8, 2},
                                    {"csum_max_block", 12, 1},
                                    {"csum_min_block", 13, 1},
                                    {"csum_type", 11, 1},
                                    {"dedup_cdc_chunk_size", 22, 1},
                                    {"dedup_chunk_algorithm", 21, 0},
                                    {"dedup_tier", 20, 1},
                                    {"deep_scrub_interval", 2, 2},
                                    {"fingerprint_algorithm", 14, 0},
                                    {"pg_autoscale_bias", 18, 2},
                                    {"pg_num_max", 23, 1},
                                    {"pg_num_min", 15, 1},
                                    {"read_lease_interval", 19, 2},
                                    {"recovery_op_priority", 4, 1},
                                    {"recovery_priority", 3, 1},
                                    {"scrub_max_interval", 1, 2},
                                    {"scrub_min_interval", 0, 2},
                                    {"scrub_priority", 5, 1},
                                    {"target_size_bytes", 16, 1},
                                    {"target_size_ratio", 17, 2}};
  static constexpr Desc kTentacleDescs[] = {{"pct_update_delay", 25, 1}, {"read_ratio", 24, 1}};
  std::vector<Desc> descs(std::begin(kDescs), std::end(kDescs));
  if (release == crush::CephRelease::kTentacle) {
    descs.insert(descs.end(), std::begin(kTentacleDescs), std::end(kTentacleDescs));
    std::sort(descs.begin(), descs.end(),
              [](const Desc& a, const Desc& b) { return std::string_view(a.name) < b.name; });
  }
  std::vector<NamedPoolOpt> out;
  for (const Desc& d : descs) {
    // Decoding fills a map: the last value for a key wins.
    const binary::PoolOpt* found = nullptr;
    for (const binary::PoolOpt& o : opts.opts) {
      if (o.key == d.key) found = &o;
    }
    if (found != nullptr) out.push_back({d.name, found, found->type == d.type});
  }
  return out;
}

std::string FormatPoolOptValue(const binary::PoolOpt& opt) {
  if (opt.type == 0) return opt.str;
  if (opt.type == 1) return absl::StrCat(opt.i);
  return util::FormatCephDouble(std::bit_cast<double>(opt.double_bits));
}

}  // namespace crushkit::osdmap
