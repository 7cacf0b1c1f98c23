#include "osdmap/formats/import.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

#include "crush/codec.h"
#include "crush/status_macros.h"
#include "crush/util/text_excerpt.h"
#include "osdmap/formats/import_internal.h"
#include "osdmap/formats/input_sniff.h"
#include "osdmap/proto/ceph_dump.pb.h"

namespace crushkit::osdmap {
namespace {

absl::Status ImportPool(const ceph::OsdDumpPool& p, std::size_t index, const ceph::OsdDump& dump,
                        ClusterState* state) {
  const std::string at = absl::StrCat("pools[", index, "].");
  if (!p.has_pool()) return internal::MissingField(at + "pool");
  if (!p.has_type()) return internal::MissingField(at + "type");
  if (!p.has_size()) return internal::MissingField(at + "size");
  if (!p.has_crush_rule()) return internal::MissingField(at + "crush_rule");
  if (!p.has_pg_num()) return internal::MissingField(at + "pg_num");
  if (!p.has_pg_placement_num()) return internal::MissingField(at + "pg_placement_num");
  if (!p.has_flags()) return internal::MissingField(at + "flags");
  if (!p.has_object_hash()) return internal::MissingField(at + "object_hash");
  Pool pool;
  pool.id = p.pool();
  pool.name = p.pool_name();
  if (p.type() != 1 && p.type() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat(at, "type: ", p.type(), " is not 1 (replicated) or 3 (erasure)"));
  }
  pool.type = static_cast<PoolType>(p.type());
  pool.size = p.size();
  pool.min_size = p.has_min_size() ? p.min_size() : 0;
  pool.crush_rule = p.crush_rule();
  pool.pg_num = p.pg_num();
  pool.pgp_num = p.pg_placement_num();
  if (p.has_pg_num_pending() && p.pg_num_pending() != pool.pg_num)
    pool.pg_num_pending = p.pg_num_pending();
  pool.flags = p.flags();
  pool.object_hash = p.object_hash();
  pool.erasure_code_profile = p.erasure_code_profile();
  pool.stripe_width = p.stripe_width();
  if (pool.type == PoolType::kErasure) {
    auto it = dump.erasure_code_profiles().find(pool.erasure_code_profile);
    if (it != dump.erasure_code_profiles().end()) {
      pool.ec_k = static_cast<std::uint32_t>(std::strtoul(it->second.k().c_str(), nullptr, 10));
      pool.ec_m = static_cast<std::uint32_t>(std::strtoul(it->second.m().c_str(), nullptr, 10));
    }
  }
  if (!state->pools.emplace(pool.id, pool).second) {
    return absl::InvalidArgumentError(absl::StrCat(at, "pool: duplicate pool id ", pool.id));
  }
  return absl::OkStatus();
}

absl::Status ImportPrimaryTemp(const google::protobuf::ListValue& list, ClusterState* state) {
  // Alternating "pgid", osd values (see ceph_dump.proto).
  const int n = list.values_size();
  if (n % 2 != 0) {
    return absl::InvalidArgumentError(
        "primary_temp: expected alternating pgid strings and osd numbers (odd length)");
  }
  for (int i = 0; i < n; i += 2) {
    const auto& k = list.values(i);
    const auto& v = list.values(i + 1);
    const std::string at = absl::StrCat("primary_temp[", i, "]");
    if (!k.has_string_value()) return absl::InvalidArgumentError(at + ": expected a pgid string");
    if (!v.has_number_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("primary_temp[", i + 1, "]: expected an osd number"));
    }
    CRUSH_ASSIGN_OR_RETURN(PgId pg, internal::ParsePgIdAt(true, k.string_value(), at));
    state->primary_temp[pg] = static_cast<std::int32_t>(v.number_value());
  }
  return absl::OkStatus();
}

// Ceph keeps the ratios as floats and prints them as doubles
// (0.8999999761581421), so the float cast restores the exact value. Ceph's
// monitor refuses ratios outside [0, 1] (OSDMonitor's set-full-ratio).
absl::Status ImportRatio(bool has, double value, const char* path, float* out) {
  if (!has) return absl::OkStatus();
  if (!(value >= 0.0 && value <= 1.0)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", value, " is not in [0, 1]"));
  }
  *out = static_cast<float>(value);
  return absl::OkStatus();
}

absl::Status ImportOsdDfNodes(const google::protobuf::RepeatedPtrField<ceph::OsdDfNode>& nodes,
                              const char* base, int max_osd,
                              std::map<std::int32_t, OsdUsage>* usage) {
  for (int i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes.Get(i);
    const std::string at = absl::StrCat(base, "[", i, "].");
    if (!n.has_id()) return internal::MissingField(at + "id");
    if (n.id() < 0) continue;  // a bucket row of `ceph osd df tree`
    if (n.id() >= max_osd) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, "id: osd.", n.id(), " is outside max_osd ", max_osd));
    }
    if (!n.has_kb()) return internal::MissingField(at + "kb");
    if (!n.has_kb_used()) return internal::MissingField(at + "kb_used");
    if (n.kb_used() > n.kb()) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, "kb_used: ", n.kb_used(), " exceeds kb ", n.kb()));
    }
    OsdUsage u{n.kb(), n.kb_used(), std::nullopt};
    if (n.has_kb_avail()) u.kb_avail = n.kb_avail();
    if (!usage->emplace(n.id(), u).second) {
      return absl::InvalidArgumentError(absl::StrCat(at, "id: osd.", n.id(), " listed twice"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PgId> internal::ParsePgIdAt(bool has, const std::string& text,
                                           const std::string& path) {
  if (!has) return MissingField(path);
  auto pg = ParsePgId(text);
  if (!pg) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": invalid pgid '", util::TerminalExcerpt(text), "'; expected <pool>.<hex seed>"));
  }
  return *pg;
}

crush::CephRelease ReleaseOfCluster(const std::string& require_osd_release) {
  // Mapping changed in Quincy (find_rule dropped); a cluster that requires
  // Quincy or later runs Quincy-or-later monitors.
  static const std::set<std::string, std::less<>> kPreQuincy = {"luminous", "mimic", "nautilus",
                                                                "octopus", "pacific"};
  static const std::set<std::string, std::less<>> kQuincyReef = {"quincy", "reef"};
  if (kPreQuincy.count(require_osd_release) != 0) return crush::CephRelease::kPacific;
  if (kQuincyReef.count(require_osd_release) != 0) return crush::CephRelease::kReef;
  if (require_osd_release == "squid" || require_osd_release == "tentacle")
    return crush::CephRelease::kTentacle;
  return crush::kDefaultCephRelease;
}

crush::CephRelease ReleaseOfOsdDump(const std::string& osd_dump_json) {
  ceph::OsdDumpRelease dump;
  if (!internal::ParseCephJson(osd_dump_json, &dump, "osd dump JSON").ok())
    return crush::kDefaultCephRelease;
  return ReleaseOfCluster(dump.require_osd_release());
}

std::uint32_t WeightFromFloat(double f) {
  if (!(f > 0)) return 0;
  if (f >= 1.0) return 0x10000;
  return static_cast<std::uint32_t>(std::lround(f * 65536.0));
}

absl::StatusOr<ClusterState> ImportCephOsdDump(const std::string& osd_dump_json,
                                               const std::string& crush_bytes) {
  CRUSH_RETURN_IF_ERROR(CheckInputKind(InputRole::kImportOsdMap, osd_dump_json));
  ceph::OsdDump dump;
  CRUSH_RETURN_IF_ERROR(internal::ParseCephJson(osd_dump_json, &dump, "osd dump JSON"));
  return internal::ImportOsdDumpMessage(dump, crush_bytes);
}

namespace {

// Each OSD the dump lists: exists, up, destroyed, weight, primary affinity.
absl::Status ImportOsds(const ceph::OsdDump& dump, ClusterState* out) {
  ClusterState& state = *out;
  for (int i = 0; i < dump.osds_size(); ++i) {
    const auto& o = dump.osds(i);
    const std::string at = absl::StrCat("osds[", i, "].");
    if (!o.has_osd()) return internal::MissingField(at + "osd");
    if (!o.has_up()) return internal::MissingField(at + "up");
    if (!o.has_weight()) return internal::MissingField(at + "weight");
    if (o.osd() < 0 || o.osd() >= dump.max_osd()) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, "osd: osd.", o.osd(), " is outside max_osd ", dump.max_osd()));
    }
    OsdInfo& info = state.osds[static_cast<std::size_t>(o.osd())];
    // Ceph lists only OSDs that exist.
    info.state = kOsdExists | (o.up() ? kOsdUp : 0);
    for (const std::string& flag : o.state()) {
      if (flag == "destroyed") info.state |= kOsdDestroyed;
    }
    info.weight = WeightFromFloat(o.weight());
    info.primary_affinity =
        o.has_primary_affinity() ? WeightFromFloat(o.primary_affinity()) : kDefaultPrimaryAffinity;
  }
  return absl::OkStatus();
}

// The pg_upmap, pg_upmap_items, pg_upmap_primaries and pg_temp entries.
absl::Status ImportPgOverrides(const ceph::OsdDump& dump, ClusterState* out) {
  ClusterState& state = *out;
  for (int i = 0; i < dump.pg_upmap_size(); ++i) {
    const auto& e = dump.pg_upmap(i);
    CRUSH_ASSIGN_OR_RETURN(PgId pg, internal::ParsePgIdAt(e.has_pgid(), e.pgid(),
                                                          absl::StrCat("pg_upmap[", i, "].pgid")));
    state.pg_upmap[pg].assign(e.osds().begin(), e.osds().end());
  }
  for (int i = 0; i < dump.pg_upmap_items_size(); ++i) {
    const auto& e = dump.pg_upmap_items(i);
    CRUSH_ASSIGN_OR_RETURN(PgId pg,
                           internal::ParsePgIdAt(e.has_pgid(), e.pgid(),
                                                 absl::StrCat("pg_upmap_items[", i, "].pgid")));
    auto& items = state.pg_upmap_items[pg];
    for (int j = 0; j < e.mappings_size(); ++j) {
      const auto& m = e.mappings(j);
      const std::string at = absl::StrCat("pg_upmap_items[", i, "].mappings[", j, "].");
      if (!m.has_from()) return internal::MissingField(at + "from");
      if (!m.has_to()) return internal::MissingField(at + "to");
      items.emplace_back(m.from(), m.to());
    }
  }
  for (int i = 0; i < dump.pg_upmap_primaries_size(); ++i) {
    const auto& e = dump.pg_upmap_primaries(i);
    const std::string at = absl::StrCat("pg_upmap_primaries[", i, "].");
    CRUSH_ASSIGN_OR_RETURN(PgId pg, internal::ParsePgIdAt(e.has_pgid(), e.pgid(), at + "pgid"));
    if (!e.has_primary_osd()) return internal::MissingField(at + "primary_osd");
    state.pg_upmap_primaries[pg] = e.primary_osd();
  }
  for (int i = 0; i < dump.pg_temp_size(); ++i) {
    const auto& e = dump.pg_temp(i);
    CRUSH_ASSIGN_OR_RETURN(PgId pg, internal::ParsePgIdAt(e.has_pgid(), e.pgid(),
                                                          absl::StrCat("pg_temp[", i, "].pgid")));
    state.pg_temp[pg].assign(e.osds().begin(), e.osds().end());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ClusterState> internal::ImportOsdDumpMessage(const ceph::OsdDump& dump,
                                                            const std::string& crush_bytes) {
  if (!dump.has_epoch()) return internal::MissingField("epoch");
  if (!dump.has_max_osd()) return internal::MissingField("max_osd");
  if (dump.max_osd() < 0 || dump.max_osd() > crush::kMaxDecodedDevices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_osd: ", dump.max_osd(), " is out of range [0, ", crush::kMaxDecodedDevices, "]"));
  }
  ClusterState state;
  state.epoch = dump.epoch();
  state.fsid = dump.fsid();
  state.ceph_release = ReleaseOfCluster(dump.require_osd_release());
  CRUSH_RETURN_IF_ERROR(ImportRatio(dump.has_nearfull_ratio(), dump.nearfull_ratio(),
                                    "nearfull_ratio", &state.nearfull_ratio));
  CRUSH_RETURN_IF_ERROR(ImportRatio(dump.has_backfillfull_ratio(), dump.backfillfull_ratio(),
                                    "backfillfull_ratio", &state.backfillfull_ratio));
  CRUSH_RETURN_IF_ERROR(
      ImportRatio(dump.has_full_ratio(), dump.full_ratio(), "full_ratio", &state.full_ratio));
  state.osds.resize(static_cast<std::size_t>(dump.max_osd()));
  CRUSH_RETURN_IF_ERROR(ImportOsds(dump, &state));
  for (int i = 0; i < dump.pools_size(); ++i) {
    CRUSH_RETURN_IF_ERROR(ImportPool(dump.pools(i), static_cast<std::size_t>(i), dump, &state));
  }
  CRUSH_RETURN_IF_ERROR(ImportPgOverrides(dump, &state));
  CRUSH_RETURN_IF_ERROR(ImportPrimaryTemp(dump.primary_temp(), &state));

  auto model = crush::DecodeCrushMap(crush_bytes);
  if (!model.ok()) {
    return absl::Status(model.status().code(),
                        absl::StrCat("crush map: ", model.status().message()));
  }
  state.crush = std::move(*model);
  CRUSH_RETURN_IF_ERROR(ValidateState(state));
  return state;
}

absl::Status ReplaceCrushMap(const std::string& crush_bytes, ClusterState* state) {
  auto model = crush::DecodeCrushMap(crush_bytes);
  if (!model.ok()) {
    return absl::Status(model.status().code(),
                        absl::StrCat("crush map: ", model.status().message()));
  }
  ClusterState next = *state;
  next.crush = std::move(*model);
  CRUSH_RETURN_IF_ERROR(ValidateState(next));
  *state = std::move(next);
  return absl::OkStatus();
}

absl::Status ImportCephPgDump(const std::string& pg_dump_json, ClusterState* state) {
  CRUSH_RETURN_IF_ERROR(CheckInputKind(InputRole::kImportPgStats, pg_dump_json));
  ceph::PgDump dump;
  CRUSH_RETURN_IF_ERROR(internal::ParseCephJson(pg_dump_json, &dump, "pg dump JSON"));
  const auto& stats = dump.pg_stats_size() > 0 ? dump.pg_stats() : dump.pg_map().pg_stats();
  const char* base = dump.pg_stats_size() > 0 ? "pg_stats" : "pg_map.pg_stats";
  for (int i = 0; i < stats.size(); ++i) {
    const auto& e = stats.Get(i);
    const std::string at = absl::StrCat(base, "[", i, "].");
    CRUSH_ASSIGN_OR_RETURN(PgId pg, internal::ParsePgIdAt(e.has_pgid(), e.pgid(), at + "pgid"));
    if (!e.has_stat_sum()) return internal::MissingField(at + "stat_sum");
    const auto& s = e.stat_sum();
    if (!s.has_num_objects()) return internal::MissingField(at + "stat_sum.num_objects");
    if (!s.has_num_bytes()) return internal::MissingField(at + "stat_sum.num_bytes");
    state->pg_stats[pg] = PgStat{s.num_objects(), s.num_bytes(), s.num_omap_bytes()};
  }
  return absl::OkStatus();
}

absl::Status ImportCephOsdDf(const std::string& osd_df_json, ClusterState* state) {
  CRUSH_RETURN_IF_ERROR(CheckInputKind(InputRole::kImportOsdDf, osd_df_json));
  ceph::OsdDf df;
  CRUSH_RETURN_IF_ERROR(internal::ParseCephJson(osd_df_json, &df, "osd df JSON"));
  std::map<std::int32_t, OsdUsage> usage;
  CRUSH_RETURN_IF_ERROR(ImportOsdDfNodes(df.nodes(), "nodes", state->max_osd(), &usage));
  CRUSH_RETURN_IF_ERROR(ImportOsdDfNodes(df.stray(), "stray", state->max_osd(), &usage));
  state->osd_usage = std::move(usage);
  return absl::OkStatus();
}

absl::Status ImportCephDf(const std::string& df_json, ClusterState* state) {
  CRUSH_RETURN_IF_ERROR(CheckInputKind(InputRole::kImportDf, df_json));
  ceph::CephDf df;
  CRUSH_RETURN_IF_ERROR(internal::ParseCephJson(df_json, &df, "df JSON"));
  std::map<std::int64_t, PoolUsage> usage;
  for (int i = 0; i < df.pools_size(); ++i) {
    const auto& p = df.pools(i);
    const std::string at = absl::StrCat("pools[", i, "].");
    if (!p.has_id()) return internal::MissingField(at + "id");
    if (state->FindPool(p.id()) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, "id: pool ", p.id(), " is not in the OSD map"));
    }
    if (!p.has_stats()) return internal::MissingField(at + "stats");
    if (!p.stats().has_stored()) return internal::MissingField(at + "stats.stored");
    if (!p.stats().has_objects()) return internal::MissingField(at + "stats.objects");
    if (!usage.emplace(p.id(), PoolUsage{p.stats().stored(), p.stats().objects()}).second) {
      return absl::InvalidArgumentError(absl::StrCat(at, "id: pool ", p.id(), " listed twice"));
    }
  }
  state->pool_usage = std::move(usage);
  return absl::OkStatus();
}

std::vector<std::string> ImportWarnings(const ClusterState& state) {
  std::vector<std::string> warnings;
  const crush::MapModel& m = state.crush;
  for (const auto& [id, pool] : state.pools) {
    const auto r = static_cast<std::size_t>(pool.crush_rule);
    if (pool.crush_rule < 0 || r >= m.rules.size() || !m.rule_exists[r]) {
      warnings.push_back(absl::StrCat("pool ", id, " '", util::TerminalExcerpt(pool.name),
                                      "' uses crush rule ", pool.crush_rule,
                                      ", which the crush map does not have: its PGs map to no OSD "
                                      "(is this the cluster's crush map?)"));
    }
  }
  std::vector<std::int32_t> beyond;
  for (const crush::Bucket& b : m.buckets) {
    for (crush::ItemId item : b.items) {
      if (item >= state.max_osd()) beyond.push_back(item);
    }
  }
  std::sort(beyond.begin(), beyond.end());
  beyond.erase(std::unique(beyond.begin(), beyond.end()), beyond.end());
  if (!beyond.empty()) {
    std::string list;
    for (std::size_t i = 0; i < beyond.size() && i < 5; ++i)
      absl::StrAppend(&list, " osd.", beyond[i]);
    if (beyond.size() > 5) list += " ...";
    warnings.push_back(absl::StrCat("the crush map places ", beyond.size(),
                                    " device(s) beyond the osd map's max_osd ", state.max_osd(),
                                    ":", list,
                                    "; they do not exist for Ceph and receive no PGs "
                                    "(are the osd dump and the crush map from the same cluster?)"));
  }
  return warnings;
}

}  // namespace crushkit::osdmap
