#include "tools/osdmaptool/osdmap_dump.h"

#include <bit>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

#include "osdmap/formats/entity_addr.h"
#include "osdmap/formats/hit_set_params.h"
#include "osdmap/formats/osdmap_binary_state.h"
#include "osdmap/formats/osdmap_health.h"
#include "osdmap/formats/osdmap_print.h"
#include "osdmap/model/pg_id.h"
#include "tools/crushtool/ceph_formatter.h"

namespace crushkit::tools::osdmaptool {
namespace {

using crushtool::CephFormatter;
using osdmap::OsdMapBinary;
using osdmap::binary::BinaryPool;

std::string Stamp(const osdmap::binary::Utime& t) { return osdmap::FormatUtime(t); }

// OSDMap::dump_read_balance_score (Reef and later), inside the pool's
// section, for a replicated pool: the scores when calc_read_balance_score
// succeeded (Tentacle names the score type; a size-aware score shows the
// average and the busiest OSDs instead of the fair score's details), with
// its warning if any; when it failed with a reason, that reason and the
// (zero) scores; nothing when it failed without one (no PG mapped).
void DumpLoad(CephFormatter& f, std::string_view name, const osdmap::ReadBalanceLoad& l) {
  f.OpenObject(name);
  f.DumpInt("osd", l.osd);
  f.DumpInt("pgs", l.pgs);
  f.DumpInt("primaries", l.primaries);
  f.DumpInt("load", l.load);
  f.Close();
}

void DumpReadBalance(CephFormatter& f, const BinaryPool& p, const osdmap::PrintRelease& as,
                     std::int64_t id) {
  auto it = as.read_balance.find(id);
  if (p.type != 1 || it == as.read_balance.end()) return;
  const osdmap::ReadBalanceInfo& rbi = it->second.info;
  if (it->second.rc < 0) {
    if (rbi.err_msg.empty()) return;
    f.OpenObject("read_balance");
    f.DumpString("error_message", rbi.err_msg);
    f.DumpFloat("score_acting", rbi.acting_adj_score);
    f.DumpFloat("score_stable", rbi.adjusted_score);
    f.Close();
    return;
  }
  const bool size_aware = rbi.score_type == osdmap::ReadBalanceScoreType::kSizeOptimal;
  f.OpenObject("read_balance");
  if (as.release == crush::CephRelease::kTentacle) {
    f.DumpString("score_type", size_aware ? "OSD size aware" : "Fair distribution");
  }
  f.DumpFloat("score_acting", rbi.acting_adj_score);
  f.DumpFloat("score_stable", rbi.adjusted_score);
  if (size_aware) {
    f.DumpInt("average_osd_load", static_cast<std::int64_t>(rbi.average_osd_load));
    DumpLoad(f, "most_loaded_osd", rbi.most_loaded);
    if (rbi.most_loaded.osd != rbi.most_loaded_acting.osd) {
      DumpLoad(f, "most_loaded_acting_osd", rbi.most_loaded_acting);
    }
  } else {
    f.DumpFloat("optimal_score", rbi.optimal_score);
    f.DumpFloat("raw_score_acting", rbi.acting_raw_score);
    f.DumpFloat("raw_score_stable", rbi.raw_score);
    f.DumpFloat("primary_affinity_weighted", rbi.pa_weighted);
    f.DumpFloat("average_primary_affinity", rbi.pa_avg);
    f.DumpFloat("average_primary_affinity_weighted", rbi.pa_weighted_avg);
  }
  if (!rbi.err_msg.empty()) f.DumpString("error_message", rbi.err_msg);
  f.Close();
}

// Mirrors Ceph's pg_pool_t::dump() (src/osd/osd_types.cc) line by line, with each release's
// fields.
absl::Status DumpPool(CephFormatter& f, std::int64_t id, const std::string& name,
                      const BinaryPool& p, const osdmap::PrintRelease& as) {
  const bool tentacle = as.release == crush::CephRelease::kTentacle;
  const auto hit_set = osdmap::ParseHitSetParams(p.hit_set_params);
  if (!hit_set.ok()) return hit_set.status();
  const auto grades = osdmap::HitSetGradeTable(p);
  if (!grades.ok()) return grades.status();
  f.OpenObject("pool");
  f.DumpInt("pool", id);
  f.DumpString("pool_name", name);
  f.DumpStream("create_time", Stamp(p.create_time));
  f.DumpUnsigned("flags", p.flags);
  f.DumpString("flags_names", osdmap::PoolFlagString(p.flags));
  f.DumpInt("type", p.type);
  f.DumpInt("size", p.size);
  f.DumpInt("min_size", p.min_size);
  f.DumpInt("crush_rule", p.crush_rule);
  const osdmap::binary::PeeringCrush peering = p.peering.value_or(osdmap::binary::PeeringCrush{});
  f.DumpUnsigned("peering_crush_bucket_count", peering.bucket_count);
  f.DumpUnsigned("peering_crush_bucket_target", peering.bucket_target);
  f.DumpUnsigned("peering_crush_bucket_barrier", peering.bucket_barrier);
  f.DumpInt("peering_crush_bucket_mandatory_member", peering.mandatory_member);
  if (tentacle) f.DumpBool("is_stretch_pool", peering.bucket_count != 0);
  f.DumpInt("object_hash", p.object_hash);
  f.DumpString("pg_autoscale_mode", osdmap::AutoscaleModeName(p.pg_autoscale_mode));
  f.DumpUnsigned("pg_num", p.pg_num);
  f.DumpUnsigned("pg_placement_num", p.pgp_num);
  f.DumpUnsigned("pg_placement_num_target", p.pgp_num_target);
  f.DumpUnsigned("pg_num_target", p.pg_num_target);
  f.DumpUnsigned("pg_num_pending", p.pg_num_pending);
  f.OpenObject("last_pg_merge_meta");
  const auto& mm = p.last_pg_merge_meta;
  f.DumpStream("source_pgid", osdmap::FormatPgId(mm.source_pgid));
  f.DumpUnsigned("ready_epoch", mm.ready_epoch);
  f.DumpUnsigned("last_epoch_started", mm.last_epoch_started);
  f.DumpUnsigned("last_epoch_clean", mm.last_epoch_clean);
  f.DumpStream("source_version",
               absl::StrCat(mm.source_version.epoch, "'", mm.source_version.version));
  f.DumpStream("target_version",
               absl::StrCat(mm.target_version.epoch, "'", mm.target_version.version));
  f.Close();
  f.DumpStream("last_change", absl::StrCat(p.last_change));
  f.DumpStream("last_force_op_resend", absl::StrCat(p.last_force_op_resend));
  f.DumpStream("last_force_op_resend_prenautilus",
               absl::StrCat(p.last_force_op_resend_prenautilus));
  f.DumpStream("last_force_op_resend_preluminous",
               absl::StrCat(p.last_force_op_resend_preluminous));
  f.DumpUnsigned("auid", p.auid);
  // is_pool_snaps_mode(): FLAG_POOL_SNAPS (1 << 14) alone, whatever the
  // snapshots (16.2 checked on pools with snapshots and SELFMANAGED_SNAPS).
  f.DumpString("snap_mode", (p.flags & (1u << 14)) != 0 ? "pool" : "selfmanaged");
  f.DumpUnsigned("snap_seq", p.snap_seq);
  f.DumpUnsigned("snap_epoch", p.snap_epoch);
  f.OpenArray("pool_snaps");
  for (const auto& [key, snap] : p.snaps) {
    f.OpenObject("pool_snap_info");  // pool_snap_info_t::dump
    f.DumpUnsigned("snapid", snap.snapid);
    f.DumpStream("stamp", Stamp(snap.stamp));
    f.DumpString("name", snap.name);
    f.Close();
  }
  f.Close();
  f.DumpStream("removed_snaps", osdmap::FormatIntervals(p.removed_snaps));
  f.DumpUnsigned("quota_max_bytes", p.quota_max_bytes);
  f.DumpUnsigned("quota_max_objects", p.quota_max_objects);
  f.OpenArray("tiers");
  for (std::uint64_t t : p.tiers) f.DumpUnsigned("pool_id", t);
  f.Close();
  f.DumpInt("tier_of", p.tier_of);
  f.DumpInt("read_tier", p.read_tier);
  f.DumpInt("write_tier", p.write_tier);
  f.DumpString("cache_mode", osdmap::CacheModeName(p.cache_mode));
  f.DumpUnsigned("target_max_bytes", p.target_max_bytes);
  f.DumpUnsigned("target_max_objects", p.target_max_objects);
  f.DumpUnsigned("cache_target_dirty_ratio_micro", p.cache_target_dirty_ratio_micro);
  f.DumpUnsigned("cache_target_dirty_high_ratio_micro", p.cache_target_dirty_high_ratio_micro);
  f.DumpUnsigned("cache_target_full_ratio_micro", p.cache_target_full_ratio_micro);
  f.DumpUnsigned("cache_min_flush_age", p.cache_min_flush_age);
  f.DumpUnsigned("cache_min_evict_age", p.cache_min_evict_age);
  f.DumpString("erasure_code_profile", p.erasure_code_profile);
  f.OpenObject("hit_set_params");  // HitSet::Params::dump
  f.DumpString("type", osdmap::HitSetTypeName(hit_set->type));
  if (hit_set->type == osdmap::HitSetType::kBloom) {
    f.DumpFloat("false_positive_probability", osdmap::HitSetFpp(*hit_set));
    f.DumpInt("target_size", static_cast<std::int64_t>(hit_set->target_size));
    f.DumpInt("seed", static_cast<std::int64_t>(hit_set->seed));
  }
  f.Close();
  f.DumpUnsigned("hit_set_period", p.hit_set_period);
  f.DumpUnsigned("hit_set_count", p.hit_set_count);
  f.DumpBool("use_gmt_hitset", p.use_gmt_hitset != 0);
  f.DumpUnsigned("min_read_recency_for_promote", p.min_read_recency_for_promote);
  f.DumpUnsigned("min_write_recency_for_promote", p.min_write_recency_for_promote);
  f.DumpUnsigned("hit_set_grade_decay_rate", p.hit_set_grade_decay_rate);
  f.DumpUnsigned("hit_set_search_last_n", p.hit_set_search_last_n);
  f.OpenArray("grade_table");
  for (std::uint32_t g : *grades) f.DumpUnsigned("value", g);
  f.Close();
  f.DumpUnsigned("stripe_width", p.stripe_width);
  f.DumpUnsigned("expected_num_objects", p.expected_num_objects);
  f.DumpBool("fast_read", p.fast_read != 0);
  // Tentacle's erasure-coded pools name the shards that are never primary;
  // a replicated pool (all osdmaptool makes) has none.
  if (tentacle) f.DumpStream("nonprimary_shards", "{}");
  f.OpenObject("options");
  for (const osdmap::NamedPoolOpt& opt : osdmap::NamedPoolOpts(p.opts, as.release)) {
    if (opt.opt->type == 0) {
      f.DumpString(opt.name, opt.opt->str);
    } else if (opt.opt->type == 1) {
      f.DumpInt(opt.name, opt.opt->i);
    } else {
      f.DumpFloat(opt.name, std::bit_cast<double>(opt.opt->double_bits));
    }
  }
  f.Close();
  f.OpenObject("application_metadata");
  for (const auto& [app, kv] : p.application_metadata) {
    f.OpenObject(app);
    for (const auto& [k, v] : kv) f.DumpString(k, v);
    f.Close();
  }
  f.Close();
  DumpReadBalance(f, p, as, id);
  f.Close();
  return absl::OkStatus();
}

absl::Status DumpOsd(CephFormatter& f, const OsdMapBinary& m, std::size_t i) {
  const std::uint32_t state = m.osd_state[i];
  f.OpenObject("osd_info");
  f.DumpInt("osd", static_cast<std::int64_t>(i));
  f.DumpStream("uuid", osdmap::FormatUuid(i < m.osd_uuid.size() ? m.osd_uuid[i]
                                                                : std::array<std::uint8_t, 16>{}));
  f.DumpInt("up", (state & 1) && (state & 2) ? 1 : 0);
  f.DumpInt("in", m.osd_weight[i] ? 1 : 0);
  f.DumpFloat("weight", static_cast<float>(m.osd_weight[i]) / static_cast<float>(0x10000));
  const std::uint32_t aff = i < m.osd_primary_affinity.size() ? m.osd_primary_affinity[i] : 0x10000;
  f.DumpFloat("primary_affinity", static_cast<float>(aff) / static_cast<float>(0x10000));
  const osdmap::BinaryOsdInfo& info = m.osd_info[i];
  f.DumpUnsigned("last_clean_begin", info.last_clean_begin);
  f.DumpUnsigned("last_clean_end", info.last_clean_end);
  f.DumpUnsigned("up_from", info.up_from);
  f.DumpUnsigned("up_thru", info.up_thru);
  f.DumpUnsigned("down_at", info.down_at);
  f.DumpUnsigned("lost_at", info.lost_at);
  const std::pair<const char*, const std::string*> vecs[] = {
      {"public_addrs", &m.client_addrs[i]},
      {"cluster_addrs", &m.cluster_addrs[i]},
      {"heartbeat_back_addrs", &m.hb_back_addrs[i]},
      {"heartbeat_front_addrs", &m.hb_front_addrs[i]}};
  std::vector<std::string> legacy;
  for (const auto& [name, raw] : vecs) {
    auto addrs = osdmap::DecodeAddrvec(*raw);
    if (!addrs.ok()) return addrs.status();
    f.OpenObject(name);
    f.OpenArray("addrvec");
    for (const osdmap::EntityAddr& a : *addrs) {
      f.OpenObject("addr");  // entity_addr_t::dump
      f.DumpString("type", osdmap::AddrTypeName(a.type));
      f.DumpStream("addr", a.sockaddr);
      f.DumpUnsigned("nonce", a.nonce);
      f.Close();
    }
    f.Close();
    f.Close();
    legacy.push_back(osdmap::AddrvecLegacyString(*addrs));
  }
  // The compat fields: get_legacy_str() of each vector.
  const char* const legacy_names[] = {"public_addr", "cluster_addr", "heartbeat_back_addr",
                                      "heartbeat_front_addr"};
  for (std::size_t k = 0; k < legacy.size(); ++k) f.DumpStream(legacy_names[k], legacy[k]);
  f.OpenArray("state");
  for (const std::string& s : osdmap::OsdStateNames(state)) f.DumpString("state", s);
  f.Close();
  f.Close();
  return absl::OkStatus();
}

void DumpXinfo(CephFormatter& f, const OsdMapBinary& m, std::size_t i) {
  const osdmap::BinaryOsdXinfo& x = m.osd_xinfo[i];
  f.OpenObject("xinfo");
  f.DumpInt("osd", static_cast<std::int64_t>(i));
  f.DumpStream("down_stamp", Stamp(x.down_stamp));
  // osd_xinfo_t::decode: laggy_probability = (float)lp / (float)0xffffffff.
  f.DumpFloat("laggy_probability",
              static_cast<float>(x.laggy_probability) / static_cast<float>(0xffffffffu));
  f.DumpUnsigned("laggy_interval", x.laggy_interval);
  f.DumpInt("features", static_cast<std::int64_t>(x.features));
  f.DumpUnsigned("old_weight", x.old_weight);
  f.DumpStream("last_purged_snaps_scrub", Stamp(x.last_purged_snaps_scrub));
  f.DumpUnsigned("dead_epoch", x.dead_epoch);
  f.Close();
}

// pg_upmap and pg_temp: an array of {pgid, osds: [...]} objects named
// `entry`.
template <class PgOsdMap>
void DumpPgOsds(CephFormatter& f, const char* array, const char* entry, const PgOsdMap& lists) {
  f.OpenArray(array);
  for (const auto& [pg, osds] : lists) {
    f.OpenObject(entry);
    f.DumpStream("pgid", osdmap::FormatPgId(pg));
    f.OpenArray("osds");
    for (std::int32_t o : osds) f.DumpInt("osd", o);
    f.Close();
    f.Close();
  }
  f.Close();
}

void DumpPgLists(CephFormatter& f, const OsdMapBinary& m, bool reef_or_later) {
  DumpPgOsds(f, "pg_upmap", "mapping", m.pg_upmap);
  f.OpenArray("pg_upmap_items");
  for (const auto& [pg, pairs] : m.pg_upmap_items) {
    f.OpenObject("mapping");
    f.DumpStream("pgid", osdmap::FormatPgId(pg));
    f.OpenArray("mappings");
    for (const auto& [from, to] : pairs) {
      f.OpenObject("mapping");
      f.DumpInt("from", from);
      f.DumpInt("to", to);
      f.Close();
    }
    f.Close();
    f.Close();
  }
  f.Close();
  if (reef_or_later) {
    f.OpenArray("pg_upmap_primaries");
    for (const auto& [pg, osd] : m.pg_upmap_primaries) {
      f.OpenObject("primary_mapping");
      f.DumpStream("pgid", osdmap::FormatPgId(pg));
      f.DumpInt("primary_osd", osd);
      f.Close();
    }
    f.Close();
  }
  DumpPgOsds(f, "pg_temp", "osds", m.pg_temp);
  // A flat array of pgid, osd, pgid, osd... (the key names are lost).
  f.OpenArray("primary_temp");
  for (const auto& [pg, osd] : m.primary_temp) {
    f.DumpStream("pgid", osdmap::FormatPgId(pg));
    f.DumpInt("osd", osd);
  }
  f.Close();
}

// OSDMap::dump's removed/purged snap queues.
void DumpSnapQueues(CephFormatter& f, const OsdMapBinary& m) {
  const std::pair<const char*, const osdmap::SnapIntervalMap*> queues[] = {
      {"removed_snaps_queue", &m.removed_snaps_queue},
      {"new_removed_snaps", &m.new_removed_snaps},
      {"new_purged_snaps", &m.new_purged_snaps}};
  for (const auto& [name, queue] : queues) {
    f.OpenArray(name);
    for (const auto& [pool, snaps] : *queue) {
      f.OpenObject("pool");
      f.DumpInt("pool", pool);
      f.OpenArray("snaps");
      for (const auto& [begin, length] : osdmap::SortedIntervals(snaps)) {
        f.OpenObject("interval");
        f.DumpUnsigned("begin", begin);
        f.DumpUnsigned("length", length);
        f.Close();
      }
      f.Close();
      f.Close();
    }
    f.Close();
  }
}

// OSDMap::dump's crush_node_flags, device_class_flags and stretch_mode.
void DumpNodeFlagsAndStretch(CephFormatter& f, const OsdMapBinary& m) {
  // Each node (by name if it has one) or class -> its flag names.
  auto flag_arrays = [&f](const char* section, const std::map<std::int32_t, std::uint32_t>& flags,
                          const std::map<std::int32_t, std::string>& names) {
    f.OpenObject(section);
    for (const auto& [id, bits] : flags) {
      auto name = names.find(id);
      f.OpenArray(name != names.end() ? name->second : std::to_string(id));
      for (const std::string& flag : osdmap::OsdStateNames(bits)) f.DumpString("flag", flag);
      f.Close();
    }
    f.Close();
  };
  flag_arrays("crush_node_flags", m.crush_node_flags, m.crush.item_names);
  flag_arrays("device_class_flags", m.device_class_flags, m.crush.class_names);
  f.OpenObject("stretch_mode");
  f.DumpBool("stretch_mode_enabled", m.stretch_mode_enabled != 0);
  f.DumpUnsigned("stretch_bucket_count", m.stretch_bucket_count);
  f.DumpUnsigned("degraded_stretch_mode", m.degraded_stretch_mode);
  f.DumpUnsigned("recovering_stretch_mode", m.recovering_stretch_mode);
  f.DumpInt("stretch_mode_bucket", m.stretch_mode_bucket);
  f.Close();
}

}  // namespace

absl::StatusOr<std::string> DumpOsdMap(const OsdMapBinary& m, std::string_view format,
                                       const osdmap::PrintRelease& as) {
  const bool reef_or_later = as.release != crush::CephRelease::kPacific;
  if (absl::Status st = osdmap::CheckPerOsdVectors(m); !st.ok()) return st;
  // Formatter::create(format, "", "json"): an unknown name is compact json.
  const bool known = format == "json-pretty" || format == "xml" || format == "xml-pretty" ||
                     format == "html" || format == "html-pretty" || format == "table" ||
                     format == "table-kv";
  std::unique_ptr<CephFormatter> f = CephFormatter::Create(known ? format : "json");
  f->OpenObject("osdmap");
  f->DumpUnsigned("epoch", m.epoch);
  f->DumpStream("fsid", osdmap::FormatUuid(m.fsid));
  f->DumpStream("created", Stamp(m.created));
  f->DumpStream("modified", Stamp(m.modified));
  f->DumpStream("last_up_change", Stamp(m.last_up_change));
  f->DumpStream("last_in_change", Stamp(m.last_in_change));
  f->DumpString("flags", osdmap::MapFlagString(m.flags));
  f->DumpUnsigned("flags_num", m.flags);
  f->OpenArray("flags_set");
  for (const std::string& s : osdmap::MapFlagSet(m.flags)) f->DumpString("flag", s);
  f->Close();
  f->DumpUnsigned("crush_version", m.crush_version);
  f->DumpFloat("full_ratio", m.full_ratio());
  f->DumpFloat("backfillfull_ratio", m.backfillfull_ratio());
  f->DumpFloat("nearfull_ratio", m.nearfull_ratio());
  f->DumpString("cluster_snapshot", m.cluster_snapshot);
  f->DumpInt("pool_max", m.pool_max);
  f->DumpInt("max_osd", m.max_osd);
  f->DumpString("require_min_compat_client", osdmap::ReleaseNameOf(m.require_min_compat_client));
  f->DumpString("min_compat_client", osdmap::MinCompatClient(m, as.release));
  f->DumpString("require_osd_release", osdmap::ReleaseNameOf(m.require_osd_release));
  if (reef_or_later) f->DumpBool("allow_crimson", m.allow_crimson != 0);
  f->OpenArray("pools");
  for (const auto& [id, p] : m.pools) {
    auto name = m.pool_name.find(id);
    if (absl::Status st = DumpPool(*f, id, name == m.pool_name.end() ? "" : name->second, p, as);
        !st.ok()) {
      return st;
    }
  }
  f->Close();
  f->OpenArray("osds");
  for (std::size_t i = 0; i < static_cast<std::size_t>(m.max_osd); ++i) {
    if (!(m.osd_state[i] & 1)) continue;
    if (absl::Status st = DumpOsd(*f, m, i); !st.ok()) return st;
  }
  f->Close();
  f->OpenArray("osd_xinfo");
  for (std::size_t i = 0; i < static_cast<std::size_t>(m.max_osd); ++i) {
    if (m.osd_state[i] & 1) DumpXinfo(*f, m, i);
  }
  f->Close();
  DumpPgLists(*f, m, reef_or_later);
  for (const bool range : {false, true}) {
    auto entries = osdmap::DecodeBlocklist(range ? m.range_blocklist : m.blocklist, !range);
    if (!entries.ok()) return entries.status();
    f->OpenObject(range ? "range_blocklist" : "blocklist");
    for (const osdmap::BlocklistEntry& e : *entries) f->DumpStream(e.addr, Stamp(e.expires));
    f->Close();
  }
  f->OpenObject("erasure_code_profiles");
  for (const auto& [name, kv] : m.erasure_code_profiles) {
    f->OpenObject(name);
    for (const auto& [k, v] : kv) f->DumpString(k, v);
    f->Close();
  }
  f->Close();
  DumpSnapQueues(*f, m);
  DumpNodeFlagsAndStretch(*f, m);
  f->Close();
  return f->Flush();
}

absl::StatusOr<std::string> DumpHealth(const OsdMapBinary& m, const OsdMapBinary& as_decoded,
                                       crush::CephRelease release) {
  osdmap::HealthConfig config;
  config.release = release;
  auto checks = osdmap::CheckHealth(m, config, &as_decoded);
  if (!checks.ok()) return checks.status();
  // JSONFormatter(true).dump_object("checks", health_check_map_t).
  auto f = CephFormatter::Create("json-pretty");
  f->OpenObject("checks");
  for (const auto& [code, c] : *checks) {
    f->OpenObject(code);
    f->DumpString("severity", c.severity);
    f->OpenObject("summary");
    f->DumpString("message", c.summary);
    f->DumpInt("count", c.count);
    f->Close();
    f->OpenArray("detail");
    for (const std::string& line : c.detail) {
      f->OpenObject("detail_item");
      f->DumpString("message", line);
      f->Close();
    }
    f->Close();
    f->Close();
  }
  f->Close();
  return f->Flush();
}

}  // namespace crushkit::tools::osdmaptool
