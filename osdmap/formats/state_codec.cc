#include "osdmap/formats/state_codec.h"

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"

#include "crush/codec.h"
#include "crush/status_macros.h"
#include "crush/util/text_excerpt.h"
#include "osdmap/formats/input_sniff.h"
#include "osdmap/formats/osdmap_binary_state.h"
#include "osdmap/formats/proto_json.h"
#include "osdmap/proto/state.pb.h"

namespace crushkit::osdmap {
namespace {

absl::StatusOr<PgId> ParsePgField(const std::string& text, const std::string& where) {
  auto pg = ParsePgId(text);
  if (!pg) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": invalid pgid '", util::TerminalExcerpt(text), "'; expected <pool>.<hex seed>"));
  }
  return *pg;
}

// A NaN would also break ClusterState's equality (a state unequal to itself).
absl::Status RatioField(bool has, float value, const char* name, float* out) {
  if (!has) return absl::OkStatus();
  if (!(value >= 0.0f && value <= 1.0f)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", value, " is not in [0, 1]"));
  }
  *out = value;
  return absl::OkStatus();
}

}  // namespace

namespace {

// The pools.
void PoolsToProto(const ClusterState& state, proto::ClusterState* out) {
  for (const auto& [id, pool] : state.pools) {
    auto* p = out->add_pools();
    p->set_id(id);
    p->set_name(pool.name);
    p->set_type(static_cast<proto::Pool::Type>(pool.type));
    p->set_size(pool.size);
    p->set_min_size(pool.min_size);
    p->set_crush_rule(pool.crush_rule);
    p->set_pg_num(pool.pg_num);
    p->set_pgp_num(pool.pgp_num);
    p->set_pg_num_pending(pool.pg_num_pending);
    p->set_flags(pool.flags);
    p->set_object_hash(pool.object_hash);
    p->set_erasure_code_profile(pool.erasure_code_profile);
    p->set_ec_k(pool.ec_k);
    p->set_ec_m(pool.ec_m);
    p->set_stripe_width(pool.stripe_width);
    if (pool.read_ratio) p->set_read_ratio(*pool.read_ratio);
  }
}

// pg_upmap, pg_upmap_items, pg_upmap_primaries, pg_temp, primary_temp.
void PgOverridesToProto(const ClusterState& state, proto::ClusterState* out) {
  for (const auto& [pg, osds] : state.pg_upmap) {
    auto* p = out->add_pg_upmap();
    p->set_pgid(FormatPgId(pg));
    for (auto o : osds) p->add_osds(o);
  }
  for (const auto& [pg, items] : state.pg_upmap_items) {
    auto* p = out->add_pg_upmap_items();
    p->set_pgid(FormatPgId(pg));
    for (const auto& [from, to] : items) {
      auto* it = p->add_items();
      it->set_from(from);
      it->set_to(to);
    }
  }
  for (const auto& [pg, osd] : state.pg_upmap_primaries) {
    auto* p = out->add_pg_upmap_primaries();
    p->set_pgid(FormatPgId(pg));
    p->set_osd(osd);
  }
  for (const auto& [pg, osds] : state.pg_temp) {
    auto* p = out->add_pg_temp();
    p->set_pgid(FormatPgId(pg));
    for (auto o : osds) p->add_osds(o);
  }
  for (const auto& [pg, osd] : state.primary_temp) {
    auto* p = out->add_primary_temp();
    p->set_pgid(FormatPgId(pg));
    p->set_osd(osd);
  }
}

// PG stats, OSD and pool usage.
void UsageToProto(const ClusterState& state, proto::ClusterState* out) {
  for (const auto& [pg, st] : state.pg_stats) {
    auto* p = out->add_pg_stats();
    p->set_pgid(FormatPgId(pg));
    p->set_num_objects(st.num_objects);
    p->set_num_bytes(st.num_bytes);
    p->set_num_omap_bytes(st.num_omap_bytes);
  }
  for (const auto& [id, u] : state.osd_usage) {
    auto* p = out->add_osd_usage();
    p->set_id(id);
    p->set_kb(u.kb);
    p->set_kb_used(u.kb_used);
    if (u.kb_avail) p->set_kb_avail(*u.kb_avail);
  }
  for (const auto& [id, u] : state.pool_usage) {
    auto* p = out->add_pool_usage();
    p->set_id(id);
    p->set_stored_bytes(u.stored_bytes);
    p->set_objects(u.objects);
  }
}

// The OSDs (REQUIRES: max_osd checked) and the pools.
absl::Status OsdsAndPoolsFromProto(const proto::ClusterState& msg, ClusterState* out) {
  ClusterState& state = *out;
  state.osds.resize(static_cast<std::size_t>(msg.max_osd()));
  for (const auto& p : msg.osds()) {
    if (p.id() < 0 || p.id() >= msg.max_osd()) {
      return absl::InvalidArgumentError(
          absl::StrCat("osds: osd.", p.id(), " is outside max_osd ", msg.max_osd()));
    }
    OsdInfo& o = state.osds[static_cast<std::size_t>(p.id())];
    o.state =
        (p.exists() ? kOsdExists : 0) | (p.up() ? kOsdUp : 0) | (p.destroyed() ? kOsdDestroyed : 0);
    o.weight = p.weight();
    o.primary_affinity = p.has_primary_affinity() ? p.primary_affinity() : kDefaultPrimaryAffinity;
  }
  for (const auto& p : msg.pools()) {
    Pool pool;
    pool.id = p.id();
    pool.name = p.name();
    pool.type = static_cast<PoolType>(p.type());
    pool.size = p.size();
    pool.min_size = p.min_size();
    pool.crush_rule = p.crush_rule();
    pool.pg_num = p.pg_num();
    pool.pgp_num = p.pgp_num();
    pool.pg_num_pending = p.pg_num_pending();
    pool.flags = p.flags();
    pool.object_hash = p.object_hash();
    pool.erasure_code_profile = p.erasure_code_profile();
    pool.ec_k = p.ec_k();
    pool.ec_m = p.ec_m();
    pool.stripe_width = p.stripe_width();
    if (p.has_read_ratio()) pool.read_ratio = p.read_ratio();
    if (!state.pools.emplace(pool.id, pool).second) {
      return absl::InvalidArgumentError(absl::StrCat("pools: duplicate pool id ", pool.id));
    }
  }
  return absl::OkStatus();
}

// pg_upmap, pg_upmap_items, pg_upmap_primaries, pg_temp, primary_temp.
absl::Status PgOverridesFromProto(const proto::ClusterState& msg, ClusterState* out) {
  ClusterState& state = *out;
  for (const auto& p : msg.pg_upmap()) {
    CRUSH_ASSIGN_OR_RETURN(PgId pg, ParsePgField(p.pgid(), "pg_upmap"));
    state.pg_upmap[pg].assign(p.osds().begin(), p.osds().end());
  }
  for (const auto& p : msg.pg_upmap_items()) {
    CRUSH_ASSIGN_OR_RETURN(PgId pg, ParsePgField(p.pgid(), "pg_upmap_items"));
    auto& v = state.pg_upmap_items[pg];
    for (const auto& it : p.items()) v.emplace_back(it.from(), it.to());
  }
  for (const auto& p : msg.pg_upmap_primaries()) {
    CRUSH_ASSIGN_OR_RETURN(PgId pg, ParsePgField(p.pgid(), "pg_upmap_primaries"));
    state.pg_upmap_primaries[pg] = p.osd();
  }
  for (const auto& p : msg.pg_temp()) {
    CRUSH_ASSIGN_OR_RETURN(PgId pg, ParsePgField(p.pgid(), "pg_temp"));
    state.pg_temp[pg].assign(p.osds().begin(), p.osds().end());
  }
  for (const auto& p : msg.primary_temp()) {
    CRUSH_ASSIGN_OR_RETURN(PgId pg, ParsePgField(p.pgid(), "primary_temp"));
    state.primary_temp[pg] = p.osd();
  }
  return absl::OkStatus();
}

// PG stats, OSD and pool usage.
absl::Status UsageFromProto(const proto::ClusterState& msg, ClusterState* out) {
  ClusterState& state = *out;
  for (const auto& p : msg.pg_stats()) {
    CRUSH_ASSIGN_OR_RETURN(PgId pg, ParsePgField(p.pgid(), "pg_stats"));
    state.pg_stats[pg] = PgStat{p.num_objects(), p.num_bytes(), p.num_omap_bytes()};
  }
  for (const auto& p : msg.osd_usage()) {
    if (p.id() < 0) {
      return absl::InvalidArgumentError(absl::StrCat("osd_usage: negative osd id ", p.id()));
    }
    OsdUsage u{p.kb(), p.kb_used(), std::nullopt};
    if (p.has_kb_avail()) u.kb_avail = p.kb_avail();
    if (!state.osd_usage.emplace(p.id(), u).second) {
      return absl::InvalidArgumentError(absl::StrCat("osd_usage: osd.", p.id(), " listed twice"));
    }
  }
  for (const auto& p : msg.pool_usage()) {
    if (!state.pool_usage.emplace(p.id(), PoolUsage{p.stored_bytes(), p.objects()}).second) {
      return absl::InvalidArgumentError(absl::StrCat("pool_usage: pool ", p.id(), " listed twice"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

void ToProto(const ClusterState& state, proto::ClusterState* out) {
  out->Clear();
  out->set_epoch(state.epoch);
  out->set_max_osd(state.max_osd());
  for (int i = 0; i < state.max_osd(); ++i) {
    const OsdInfo& o = state.osds[static_cast<std::size_t>(i)];
    if (o == OsdInfo{}) continue;
    auto* p = out->add_osds();
    p->set_id(i);
    p->set_exists(o.state & kOsdExists);
    p->set_up(o.state & kOsdUp);
    p->set_destroyed(o.state & kOsdDestroyed);
    p->set_weight(o.weight);
    if (o.primary_affinity != kDefaultPrimaryAffinity) p->set_primary_affinity(o.primary_affinity);
  }
  PoolsToProto(state, out);
  PgOverridesToProto(state, out);
  UsageToProto(state, out);
  out->set_crush_map(EncodeCrush(state));
  out->set_fsid(state.fsid);
  out->set_ceph_release(std::string(crush::CephReleaseName(state.ceph_release)));
  out->set_nearfull_ratio(state.nearfull_ratio);
  out->set_backfillfull_ratio(state.backfillfull_ratio);
  out->set_full_ratio(state.full_ratio);
  if (state.mapping_check) {
    const MappingCheck& c = *state.mapping_check;
    auto* m = out->mutable_mapping_check();
    m->set_pgs(c.pgs);
    for (const std::string& s : c.sources) m->add_sources(s);
    m->set_agrees(c.agrees);
    m->set_differing_pgs(c.differing_pgs);
    m->set_differing_osds(c.differing_osds);
    for (const std::string& e : c.examples) m->add_examples(e);
  }
}

absl::StatusOr<ClusterState> FromProto(const proto::ClusterState& msg) {
  ClusterState state;
  state.epoch = msg.epoch();
  if (msg.max_osd() < 0 || msg.max_osd() > crush::kMaxDecodedDevices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_osd: ", msg.max_osd(), " is out of range [0, ", crush::kMaxDecodedDevices, "]"));
  }
  CRUSH_RETURN_IF_ERROR(OsdsAndPoolsFromProto(msg, &state));
  CRUSH_RETURN_IF_ERROR(PgOverridesFromProto(msg, &state));
  CRUSH_RETURN_IF_ERROR(UsageFromProto(msg, &state));
  state.fsid = msg.fsid();
  if (!msg.ceph_release().empty()) {
    absl::StatusOr<crush::CephRelease> release = crush::ParseCephRelease(msg.ceph_release());
    if (!release.ok())
      return absl::InvalidArgumentError(absl::StrCat(
          "ceph_release: ", util::BoundMessage(std::string(release.status().message()))));
    state.ceph_release = *release;
  }
  // Files written before the ratios existed keep ClusterState's defaults.
  CRUSH_RETURN_IF_ERROR(RatioField(msg.has_nearfull_ratio(), msg.nearfull_ratio(), "nearfull_ratio",
                                   &state.nearfull_ratio));
  CRUSH_RETURN_IF_ERROR(RatioField(msg.has_backfillfull_ratio(), msg.backfillfull_ratio(),
                                   "backfillfull_ratio", &state.backfillfull_ratio));
  CRUSH_RETURN_IF_ERROR(
      RatioField(msg.has_full_ratio(), msg.full_ratio(), "full_ratio", &state.full_ratio));
  if (msg.has_mapping_check()) {
    const auto& m = msg.mapping_check();
    state.mapping_check = MappingCheck{
        .pgs = m.pgs(),
        .sources = {m.sources().begin(), m.sources().end()},
        .agrees = m.agrees(),
        .differing_pgs = m.differing_pgs(),
        .differing_osds = m.differing_osds(),
        .examples = {m.examples().begin(), m.examples().end()},
    };
  }
  auto model = crush::DecodeCrushMap(msg.crush_map());
  if (!model.ok()) {
    return absl::Status(model.status().code(),
                        absl::StrCat("crush_map: ", model.status().message()));
  }
  state.crush = std::move(*model);
  CRUSH_RETURN_IF_ERROR(ValidateState(state));
  return state;
}

absl::StatusOr<std::string> SerializeState(const ClusterState& state, StateFormat format) {
  proto::ClusterState msg;
  ToProto(state, &msg);
  std::string out;
  if (format == StateFormat::kBinary) {
    if (!msg.SerializeToString(&out)) return absl::InternalError("cannot serialize state");
    return out;
  }
  absl::StatusOr<std::string> json = ProtoToJson(msg, /*print_defaults=*/false);
  if (!json.ok())
    return absl::InternalError(absl::StrCat("cannot print state: ", json.status().message()));
  return json;
}

absl::StatusOr<ClusterState> ParseState(const std::string& bytes) {
  const InputKind kind = SniffInput(bytes);
  proto::ClusterState msg;
  switch (kind) {
    case InputKind::kCephBinaryOsdMap:
      return ImportCephBinaryOsdMap(bytes);
    case InputKind::kStateBinary:
      if (!msg.ParseFromString(bytes)) {
        return absl::InvalidArgumentError(
            "binary state: damaged (its protobuf fields do not parse); re-create it with "
            "'crushkit import'");
      }
      return FromProto(msg);
    case InputKind::kStateJson:
    case InputKind::kOtherJson: {
      google::protobuf::util::JsonParseOptions opts;
      opts.ignore_unknown_fields = false;
      auto st = google::protobuf::util::JsonStringToMessage(bytes, &msg, opts);
      if (st.ok()) return FromProto(msg);
      // JSON that is not even meant to be a state is refused as such.
      if (kind == InputKind::kOtherJson) return RefuseInput(InputRole::kState, kind, bytes);
      return absl::InvalidArgumentError(
          absl::StrCat("state JSON: ", LocateJsonError(bytes, std::string(st.message()))));
    }
    default:
      break;
  }
  return RefuseInput(InputRole::kState, kind, bytes);
}

StateFormat StateFormatForPath(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0 ? StateFormat::kJson
                                                                            : StateFormat::kBinary;
}

}  // namespace crushkit::osdmap
