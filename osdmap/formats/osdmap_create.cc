#include "osdmap/formats/osdmap_create.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

#include "crush/codec.h"
#include "crush/model.h"

namespace crushkit::osdmap {
namespace {

constexpr crush::Weight kOne = 0x10000;

// _build_crush_types(): Pacific's default type list; the last is the root.
constexpr const char* kTypeNames[] = {"osd", "host", "chassis",    "rack", "row",    "pdu",
                                      "pod", "room", "datacenter", "zone", "region", "root"};
constexpr int kRootType = 11;

// An empty entity_addrvec_t as OSDMap::encode writes it with MSG_ADDR2:
// marker 2, then a u32 count of 0.
const std::string& EmptyAddrvec() {
  static const std::string* const kBytes = new std::string("\x02\x00\x00\x00\x00", 5);
  return *kBytes;
}

// CrushWrapper::add_bucket(0, ...) on a map built by crush_create():
// crush_get_next_bucket_id() takes the first empty slot, and
// crush_add_bucket() doubles the slot array from 8 as needed.
crush::ItemId AddBucket(crush::MapModel& m, int type, const std::string& name) {
  std::size_t pos = 0;
  while (pos < m.buckets.size() && m.buckets[pos].alg != crush::BucketAlg::kNone) ++pos;
  while (pos >= m.buckets.size()) m.buckets.resize(m.buckets.empty() ? 8 : m.buckets.size() * 2);
  crush::Bucket& b = m.buckets[pos];
  b.id = -1 - static_cast<crush::ItemId>(pos);
  b.type = static_cast<std::uint16_t>(type);
  b.alg = crush::BucketAlg::kStraw2;
  b.hash = crush::kHashRjenkins1;
  m.item_names[b.id] = name;
  return b.id;
}

// Adds `item` with `weight` to `bucket` and every ancestor's weight
// (CrushWrapper::insert_item's link and adjust_item_weight).
void LinkItem(crush::MapModel& m, crush::ItemId bucket, crush::ItemId item, crush::Weight weight) {
  crush::Bucket* b = m.FindBucket(bucket);
  b->items.push_back(item);
  b->item_weights.push_back(weight);
  for (crush::ItemId child = bucket;;) {
    crush::Bucket* cb = m.FindBucket(child);
    cb->weight += weight;
    crush::ItemId parent = 0;
    for (const crush::Bucket& p : m.buckets) {
      if (p.alg == crush::BucketAlg::kNone) continue;
      auto it = std::find(p.items.begin(), p.items.end(), child);
      if (it == p.items.end()) continue;
      parent = p.id;
      break;
    }
    if (parent == 0) break;
    crush::Bucket* pb = m.FindBucket(parent);
    const auto i = static_cast<std::size_t>(std::find(pb->items.begin(), pb->items.end(), child) -
                                            pb->items.begin());
    pb->item_weights[i] += weight;
    child = parent;
  }
}

crush::ItemId FindName(const crush::MapModel& m, const std::string& name) {
  for (const auto& [id, n] : m.item_names) {
    if (n == name && id < 0) return id;
  }
  return 0;
}

// CrushWrapper::insert_item(osd, 1.0, "osd.N", loc): walk the location's
// types upwards, creating missing buckets and linking each new one into the
// next level, until an existing bucket takes the chain.
void InsertOsd(crush::MapModel& m, std::int32_t osd,
               const std::vector<std::pair<int, std::string>>& loc) {
  m.item_names[osd] = absl::StrCat("osd.", osd);
  crush::ItemId cur = osd;
  crush::Weight weight = kOne;
  for (const auto& [type, name] : loc) {
    const crush::ItemId existing = FindName(m, name);
    if (existing != 0) {
      LinkItem(m, existing, cur, weight);
      return;
    }
    const crush::ItemId created = AddBucket(m, type, name);
    LinkItem(m, created, cur, weight);
    cur = created;
  }
}

std::vector<std::pair<int, std::string>> LocationChain(const OsdLocation& l) {
  std::vector<std::pair<int, std::string>> chain;
  chain.emplace_back(1, l.host.empty() ? "unknownhost" : l.host);
  chain.emplace_back(3, l.rack.empty() ? "unknownrack" : l.rack);
  if (!l.row.empty()) chain.emplace_back(4, l.row);
  if (!l.room.empty()) chain.emplace_back(7, l.room);
  if (!l.datacenter.empty()) chain.emplace_back(8, l.datacenter);
  chain.emplace_back(kRootType, "default");
  return chain;
}

// build_simple_crush_map(_from_conf) + build_simple_crush_rules.
crush::MapModel BuildCrush(const CreateOsdMapOptions& o, const std::vector<OsdLocation>& osds) {
  crush::MapModel m;
  m.tunables = crush::TunablesFor(crush::TunablesProfile::kDefault);
  for (int t = 0; t <= kRootType; ++t) m.type_names[t] = kTypeNames[t];
  const crush::ItemId root = AddBucket(m, kRootType, "default");
  std::int32_t max_id = -1;
  for (const OsdLocation& l : osds) {
    InsertOsd(m, l.id, LocationChain(l));
    max_id = std::max(max_id, l.id);
  }
  crush::Rule rule;
  rule.type = crush::RuleType::kReplicated;
  rule.steps.push_back({crush::RuleOp::kTake, root, 0});
  if (o.chooseleaf_type == 0) {
    rule.steps.push_back({crush::RuleOp::kChooseFirstn, 0, 0});
  } else {
    rule.steps.push_back({crush::RuleOp::kChooseleafFirstn, 0, o.chooseleaf_type});
  }
  rule.steps.push_back({crush::RuleOp::kEmit, 0, 0});
  m.rules.push_back(rule);
  m.rule_exists.push_back(true);
  m.rule_names[0] = "replicated_rule";
  m.max_devices = max_id + 1;
  return m;
}

binary::BinaryPool DefaultPool(const CreateOsdMapOptions& o, std::int32_t max_osd) {
  binary::BinaryPool p;
  p.type = 1;  // replicated
  p.size = static_cast<std::uint8_t>(o.pool_default_size);
  p.min_size = static_cast<std::uint8_t>(
      o.pool_default_min_size != 0 ? std::min(o.pool_default_min_size, o.pool_default_size)
                                   : o.pool_default_size - o.pool_default_size / 2);
  p.crush_rule = 0;
  p.object_hash = 2;  // rjenkins
  const int pgp_bits = std::min(o.pgp_bits, o.pg_bits);
  p.pg_num = static_cast<std::uint32_t>(max_osd) << o.pg_bits;
  p.pgp_num = static_cast<std::uint32_t>(max_osd) << pgp_bits;
  p.pg_num_target = p.pg_num;
  p.pgp_num_target = p.pgp_num;
  p.pg_num_pending = p.pg_num;
  p.flags = 1;  // FLAG_HASHPSPOOL (osd_pool_default_flag_hashpspool)
  p.tier_of = -1;
  p.read_tier = -1;
  p.write_tier = -1;
  p.use_gmt_hitset = 1;
  p.pg_autoscale_mode = 2;  // on (osd_pool_default_pg_autoscale_mode)
  p.application_metadata["rbd"] = {};
  p.last_pg_merge_meta.source_pgid = PgId{0, 0};
  return p;
}

}  // namespace

absl::StatusOr<OsdMapBinary> CreateOsdMap(const CreateOsdMapOptions& options) {
  if (options.pg_bits < 0 || options.pg_bits > 31 || options.pgp_bits < 0 ||
      options.pgp_bits > 31) {
    return absl::InvalidArgumentError("pg bits must be in [0, 31]");
  }
  std::vector<OsdLocation> osds = options.locations;
  if (!options.from_conf) {
    if (options.num_osd < 1) return absl::InvalidArgumentError("osd count must be > 0");
    for (std::int32_t i = 0; i < options.num_osd; ++i)
      osds.push_back({i, "localhost", "localrack", "", "", ""});
  }
  std::int32_t max_osd = 0;
  for (const OsdLocation& l : osds) {
    if (l.id < 0) return absl::InvalidArgumentError(absl::StrCat("negative osd id ", l.id));
    max_osd = std::max(max_osd, l.id + 1);
  }

  OsdMapBinary m;
  m.fsid = options.fsid;
  m.epoch = 0;
  m.created = options.now;
  m.modified = options.now;
  m.crush_version = 1;
  m.max_osd = max_osd;
  const auto n = static_cast<std::size_t>(max_osd);
  m.osd_state.assign(n, 0);
  m.osd_weight.assign(n, 0);
  m.client_addrs.assign(n, EmptyAddrvec());
  m.hb_back_addrs.assign(n, EmptyAddrvec());
  m.cluster_addrs.assign(n, EmptyAddrvec());
  m.hb_front_addrs.assign(n, EmptyAddrvec());
  m.osd_info.assign(n, BinaryOsdInfo{});
  m.osd_xinfo.assign(n, BinaryOsdXinfo{});
  m.osd_uuid.assign(n, {});
  m.erasure_code_profiles["default"] = {
      {"k", "2"}, {"m", "2"}, {"plugin", options.default_ec_plugin}, {"technique", "reed_sol_van"}};
  m.crush = BuildCrush(options, osds);
  m.crush_bytes = crush::EncodeCrushMap(m.crush);
  if (options.with_default_pool) {
    m.pools[1] = DefaultPool(options, max_osd);
    m.pool_name[1] = "rbd";
    m.pool_max = 1;
  } else {
    m.pool_max = 0;
  }
  return m;
}

OsdMapBinary EmptyOsdMap() {
  // OSDMap::OSDMap() leaves everything zero or empty but pool_max (0;
  // OsdMapBinary starts at -1) and crush_version (1); its CrushWrapper's
  // create() sets the default tunables.
  OsdMapBinary m;
  m.pool_max = 0;
  m.crush_version = 1;
  m.crush.tunables = crush::TunablesFor(crush::TunablesProfile::kDefault);
  m.crush_bytes = crush::EncodeCrushMap(m.crush);
  return m;
}

}  // namespace crushkit::osdmap
