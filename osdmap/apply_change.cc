#include "osdmap/apply_change.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "crush/codec.h"
#include "crush/edit.h"
#include "crush/map.h"
#include "crush/model.h"
#include "crush/types.h"
#include "osdmap/change_ops.h"
#include "osdmap/change_ops_internal.h"
#include "osdmap/cluster_state.h"
#include "osdmap/pg_id.h"

namespace crushkit::osdmap {
namespace {

using crush::ItemId;

std::string OsdName(std::int32_t id) { return "osd." + std::to_string(id); }

// Every device under bucket `root` (each once, in depth-first order), and
// every bucket in that subtree (root included) in `buckets` if given.
std::vector<ItemId> DevicesUnder(const crush::MapModel& map, ItemId root,
                                 std::set<ItemId>* buckets = nullptr) {
  std::vector<ItemId> devices;
  std::set<ItemId> seen_devices;
  std::set<ItemId> seen_buckets;
  std::vector<ItemId> stack = {root};
  while (!stack.empty()) {
    const ItemId id = stack.back();
    stack.pop_back();
    if (id >= 0) {
      if (seen_devices.insert(id).second) devices.push_back(id);
      continue;
    }
    if (!seen_buckets.insert(id).second) continue;
    if (const crush::Bucket* b = map.FindBucket(id)) {
      for (auto it = b->items.rbegin(); it != b->items.rend(); ++it) stack.push_back(*it);
    }
  }
  if (buckets != nullptr) *buckets = std::move(seen_buckets);
  return devices;
}

class Applier {
 public:
  explicit Applier(ClusterState& st) : st_(st) {}

  // Applies `op`; on failure reports why and leaves the state as it was.
  void Apply(const ChangeOp& op) {
    crush::MapModel crush = st_.crush;
    std::vector<OsdInfo> osds = st_.osds;
    std::map<std::int64_t, Pool> pools = st_.pools;
    const std::size_t errors = diags_.size();
    const int crush_edits = crush_edits_;
    const std::size_t purged = purged_.size();
    if (Dispatch(op) && diags_.size() == errors) {
      if (crush_edits_ > crush_edits) last_crush_op_ = op.command;
      return;
    }
    if (diags_.size() == errors) Fail(op.command, "'" + op.text + "' failed");
    st_.crush = std::move(crush);
    st_.osds = std::move(osds);
    st_.pools = std::move(pools);
    crush_edits_ = crush_edits;
    purged_.resize(purged);
  }

  std::vector<ChangeDiagnostic>& diagnostics() { return diags_; }

  bool crush_changed() const { return crush_edits_ > 0; }

  // The command word of the last op that edited the crush map.
  const Word& last_crush_op() const { return last_crush_op_; }

  const std::vector<std::int32_t>& purged() const { return purged_; }

 private:
  bool Dispatch(const ChangeOp& op) {
    switch (op.kind) {
      case ChangeOpKind::kCrushAddBucket:
        return AddBucket(op);
      case ChangeOpKind::kCrushAdd:
      case ChangeOpKind::kCrushSet:
        return AddOrSetOsd(op);
      case ChangeOpKind::kCrushRemove:
      case ChangeOpKind::kCrushUnlink:
        return Remove(op);
      case ChangeOpKind::kCrushReweight:
      case ChangeOpKind::kCrushReweightSubtree:
      case ChangeOpKind::kDrain:
        return Reweight(op);
      case ChangeOpKind::kCrushMove:
        return Move(op);
      case ChangeOpKind::kCrushSetDeviceClass:
        return SetDeviceClass(op);
      case ChangeOpKind::kCrushRuleCreateReplicated:
        return CreateReplicatedRule(op);
      case ChangeOpKind::kCrushTunables: {
        const auto profile = internal::FindTunablesProfile(op.name.text);
        if (!profile) return Fail(op.name, "unknown tunables profile '" + op.name.text + "'");
        st_.crush.tunables = crush::TunablesFor(*profile, st_.crush.tunables);
        ++crush_edits_;
        return true;
      }
      case ChangeOpKind::kCrushSetTunable: {
        const internal::TunableSpec* spec = internal::FindTunable(op.name.text);
        if (!spec) return Fail(op.name, "unknown tunable '" + op.name.text + "'");
        spec->set(st_.crush.tunables, op.value);
        ++crush_edits_;
        return true;
      }
      case ChangeOpKind::kMarkOut:
      case ChangeOpKind::kMarkIn:
      case ChangeOpKind::kMarkDown:
      case ChangeOpKind::kMarkUp:
        return MarkOsds(op);
      case ChangeOpKind::kOsdReweight:
        return OsdReweight(op);
      case ChangeOpKind::kOsdPrimaryAffinity:
        return PrimaryAffinity(op);
      case ChangeOpKind::kPgUpmap:
        return PgUpmap(op);
      case ChangeOpKind::kPgUpmapItems:
        return PgUpmapItems(op);
      case ChangeOpKind::kRmPgUpmap:
      case ChangeOpKind::kRmPgUpmapItems:
        return RemoveUpmap(op);
      case ChangeOpKind::kOsdPurge:
        return Purge(op);
      case ChangeOpKind::kPoolSet:
        return PoolSet(op);
      case ChangeOpKind::kAddHost:
        return AddHost(op);
    }
    return Fail(op.command, "unsupported operation");
  }

  bool Fail(const Word& w, std::string message) {
    diags_.push_back(ChangeDiagnostic{
        w.line, w.column, std::max(1, static_cast<int>(w.text.size())), std::move(message)});
    return false;
  }

  // A crush/edit.h call failed: say what was attempted and why.
  bool EditFailed(const Word& w, std::string_view what, const absl::Status& s) {
    return Fail(w, absl::StrCat(std::string(what), ": ", s.message()));
  }

  // --- lookups (each reports at the word) ---

  std::vector<std::string> ItemNames() const {
    std::vector<std::string> names;
    for (const auto& [id, name] : st_.crush.item_names) {
      if (name.find('~') == std::string::npos) names.push_back(name);
    }
    return names;
  }

  std::optional<ItemId> Item(const Word& w) {
    const auto id = crush::FindItem(st_.crush, w.text);
    if (id.ok()) return *id;
    Fail(w, "unknown item '" + w.text + "' in the crush map" +
                internal::DidYouMean(w.text, ItemNames()));
    return std::nullopt;
  }

  std::optional<ItemId> Bucket(const Word& w) {
    const std::optional<ItemId> id = Item(w);
    if (!id) return std::nullopt;
    if (*id >= 0) {
      Fail(w, "'" + w.text + "' is a device, not a bucket");
      return std::nullopt;
    }
    return id;
  }

  std::optional<ItemId> Device(const Word& w) {
    const std::optional<ItemId> id = Item(w);
    if (!id) return std::nullopt;
    if (*id < 0) {
      Fail(w, "'" + w.text + "' is a bucket, not a device");
      return std::nullopt;
    }
    return id;
  }

  std::optional<int> Type(const Word& w) {
    std::vector<std::string> names;
    for (const auto& [id, name] : st_.crush.type_names) {
      if (name == w.text) return id;
      names.push_back(name);
    }
    Fail(w,
         "unknown type '" + w.text + "'; the crush map's types are " + absl::StrJoin(names, ", "));
    return std::nullopt;
  }

  std::string TypeName(int type) const {
    const auto it = st_.crush.type_names.find(type);
    return it == st_.crush.type_names.end() ? std::to_string(type) : it->second;
  }

  // The TYPE=NAME words of `op` as a crush::Location for an item of type
  // `item_type`. Existing names must be buckets of that type; `moving`
  // (a bucket being moved, or 0) must not end up under its own subtree.
  std::optional<crush::Location> Location(const ChangeOp& op, int item_type, ItemId moving = 0) {
    crush::Location loc;
    bool ok = true;
    std::set<ItemId> subtree;
    if (moving < 0) DevicesUnder(st_.crush, moving, &subtree);
    for (const LocationWord& l : op.location) {
      const std::optional<int> type = Type(l.type);
      if (!type) {
        ok = false;
        continue;
      }
      if (*type == 0) {
        ok = Fail(l.type,
                  "'" + l.type.text + "' is the device type; nothing can be placed under a device");
        continue;
      }
      if (*type <= item_type) {
        ok = Fail(l.type,
                  "location type '" + l.type.text + "' is not above '" + TypeName(item_type) + "'");
        continue;
      }
      const auto id = crush::FindItem(st_.crush, l.name.text);
      if (id.ok()) {
        const crush::Bucket* b = st_.crush.FindBucket(*id);
        if (*id >= 0 || b == nullptr) {
          ok = Fail(l.name, "'" + l.name.text + "' is a device, not a bucket");
          continue;
        }
        if (b->type != *type) {
          ok = Fail(l.name, "bucket '" + l.name.text + "' is a " + TypeName(b->type) + ", not a " +
                                l.type.text);
          continue;
        }
        if (subtree.count(*id) != 0) {
          ok = Fail(l.name, "'" + l.name.text + "' is inside the subtree being moved");
          continue;
        }
      }
      loc[l.type.text] = l.name.text;
    }
    if (!ok) return std::nullopt;
    return loc;
  }

  // The OSD of op.osd_ids[i], which must exist in the osdmap.
  bool OsdExists(const ChangeOp& op, std::size_t i) {
    if (st_.Exists(op.osd_ids[i])) return true;
    return Fail(op.osd_words[i], OsdName(op.osd_ids[i]) + " does not exist");
  }

  // Creates OSD `id` in the osdmap: exists, up, in (max_osd grows to fit).
  void CreateOsd(std::int32_t id) {
    if (id >= st_.max_osd()) st_.osds.resize(static_cast<std::size_t>(id) + 1);
    OsdInfo& osd = st_.osds[static_cast<std::size_t>(id)];
    osd = OsdInfo{};
    osd.state = kOsdExists | kOsdUp;
    osd.weight = kWeightIn;
  }

  static constexpr crush::Weight kWeightIn = 0x10000;

  // --- operations ---

  bool AddBucket(const ChangeOp& op) {
    if (crush::FindItem(st_.crush, op.name.text).ok()) {
      return Fail(op.name, "item '" + op.name.text + "' already exists in the crush map");
    }
    const std::optional<int> type = Type(op.type);
    if (!type) return false;
    if (*type == 0) return Fail(op.type, "'" + op.type.text + "' is the device type");
    const std::optional<crush::Location> loc = Location(op, *type);
    if (!loc) return false;
    const auto id = crush::CreateBucket(st_.crush, op.name.text, op.type.text, *loc);
    if (!id.ok())
      return EditFailed(op.command, "cannot add bucket '" + op.name.text + "'", id.status());
    ++crush_edits_;
    return true;
  }

  bool AddOrSetOsd(const ChangeOp& op) {
    const std::int32_t id = op.osd_ids[0];
    const std::string name = OsdName(id);
    const bool is_set = op.kind == ChangeOpKind::kCrushSet;
    if (is_set && !OsdExists(op, 0)) return false;
    if (is_set && st_.crush.item_names.count(id) == 0) {
      return Fail(op.osd_words[0], name + " is not in the crush map; use 'osd crush add'");
    }
    if (const auto other = crush::FindItem(st_.crush, name); other.ok() && *other != id) {
      return Fail(op.osd_words[0], "the crush map already uses the name '" + name + "' for item " +
                                       std::to_string(*other));
    }
    const std::optional<crush::Location> loc = Location(op, 0);
    if (!loc) return false;
    if (!st_.Exists(id)) CreateOsd(id);
    const float weight = static_cast<float>(op.weight);
    const absl::Status s = is_set || crush::CheckItemLoc(st_.crush, id, *loc)
                               ? crush::UpdateItem(st_.crush, id, weight, name, *loc)
                               : crush::InsertItem(st_.crush, id, weight, name, *loc);
    if (!s.ok()) return EditFailed(op.command, "cannot place " + name, s);
    ++crush_edits_;
    return true;
  }

  bool Remove(const ChangeOp& op) {
    const std::optional<ItemId> id = Item(op.name);
    if (!id) return false;
    const bool unlink = op.kind == ChangeOpKind::kCrushUnlink;
    const absl::Status s = crush::RemoveItem(st_.crush, *id, unlink);
    if (!s.ok()) {
      return EditFailed(op.name,
                        (unlink ? "cannot unlink '" : "cannot remove '") + op.name.text + "'", s);
    }
    ++crush_edits_;
    return true;
  }

  // reweight (a device), reweight-subtree (the devices under a bucket) and
  // drain (either, to 0).
  bool Reweight(const ChangeOp& op) {
    std::vector<ItemId> devices;
    if (op.kind == ChangeOpKind::kCrushReweight) {
      const std::optional<ItemId> id = Device(op.name);
      if (!id) return false;
      devices.push_back(*id);
    } else if (op.kind == ChangeOpKind::kCrushReweightSubtree) {
      const std::optional<ItemId> id = Bucket(op.name);
      if (!id) return false;
      devices = DevicesUnder(st_.crush, *id);
    } else {
      const std::optional<ItemId> id = Item(op.name);
      if (!id) return false;
      devices = *id >= 0 ? std::vector<ItemId>{*id} : DevicesUnder(st_.crush, *id);
    }
    for (const ItemId d : devices) {
      const auto changed =
          op.kind == ChangeOpKind::kDrain
              ? crush::AdjustItemWeight(st_.crush, d, 0)
              : crush::AdjustItemWeightF(st_.crush, d, static_cast<float>(op.weight));
      if (!changed.ok())
        return EditFailed(op.name, "cannot reweight " + OsdName(d), changed.status());
    }
    ++crush_edits_;
    return true;
  }

  bool Move(const ChangeOp& op) {
    const std::optional<ItemId> id = Item(op.name);
    if (!id) return false;
    const crush::Bucket* b = st_.crush.FindBucket(*id);
    const int type = b != nullptr ? b->type : 0;
    const std::optional<crush::Location> loc = Location(op, type, *id);
    if (!loc) return false;
    absl::Status s;
    if (*id < 0) {
      s = crush::MoveBucket(st_.crush, *id, *loc);
    } else {
      // crushtool --move / OSDMonitor "osd crush move" on a device:
      // create_or_move_item() keeps its current weight.
      s = crush::CreateOrMoveItem(st_.crush, *id, 0, op.name.text, *loc).status();
    }
    if (!s.ok()) return EditFailed(op.name, "cannot move '" + op.name.text + "'", s);
    ++crush_edits_;
    return true;
  }

  bool SetDeviceClass(const ChangeOp& op) {
    bool ok = true;
    for (std::size_t i = 0; i < op.osd_ids.size(); ++i) {
      const std::int32_t id = op.osd_ids[i];
      if (!OsdExists(op, i)) {
        ok = false;
        continue;
      }
      if (st_.crush.item_names.count(id) == 0) {
        ok = Fail(op.osd_words[i], OsdName(id) + " is not in the crush map");
        continue;
      }
      const absl::Status s = crush::SetDeviceClass(st_.crush, id, op.device_class.text);
      if (!s.ok()) ok = EditFailed(op.osd_words[i], "cannot set the class of " + OsdName(id), s);
    }
    ++crush_edits_;
    return ok;
  }

  bool CreateReplicatedRule(const ChangeOp& op);
  bool MarkOsds(const ChangeOp& op);
  bool OsdReweight(const ChangeOp& op);
  bool PrimaryAffinity(const ChangeOp& op);
  const Pool* ExistingPg(const ChangeOp& op);
  bool PgUpmap(const ChangeOp& op);
  bool PgUpmapItems(const ChangeOp& op);
  bool RemoveUpmap(const ChangeOp& op);
  bool Purge(const ChangeOp& op);
  bool PoolSet(const ChangeOp& op);
  bool CheckRuleFits(const Word& w, const Pool& pool, int rule, std::uint32_t size);
  bool AddHost(const ChangeOp& op);

  ClusterState& st_;
  std::vector<ChangeDiagnostic> diags_;
  int crush_edits_ = 0;
  Word last_crush_op_;
  std::vector<std::int32_t> purged_;
};

// "osd crush rule create-replicated": CrushWrapper::add_simple_rule_at(name,
// root, type, class, "firstn", TYPE_REPLICATED, -1), crush/edit.h. The
// edits of this change already rebuilt the shadow trees (as CrushWrapper
// does after each), so a class rule takes the current shadow root.
bool Applier::CreateReplicatedRule(const ChangeOp& op) {
  if (crush::FindRuleByName(st_.crush, op.name.text).ok()) {
    return Fail(op.name, "rule '" + op.name.text + "' already exists");
  }
  if (!Item(op.root) || !Type(op.type)) return false;
  crush::SimpleRuleSpec spec;
  spec.name = op.name.text;
  spec.root = op.root.text;
  spec.failure_domain = op.type.text;
  spec.device_class = op.device_class.present() ? op.device_class.text : "";
  spec.mode = "firstn";
  auto id = crush::AddSimpleRule(st_.crush, spec);
  if (!id.ok()) {
    const Word& where = op.device_class.present() ? op.device_class : op.name;
    return Fail(where, crush::CephErrorText(id.status()));
  }
  ++crush_edits_;
  return true;
}

bool Applier::MarkOsds(const ChangeOp& op) {
  bool ok = true;
  for (std::size_t i = 0; i < op.osd_ids.size(); ++i) {
    if (!OsdExists(op, i)) {
      ok = false;
      continue;
    }
    OsdInfo& osd = st_.osds[static_cast<std::size_t>(op.osd_ids[i])];
    switch (op.kind) {
      case ChangeOpKind::kMarkOut:
        osd.weight = 0;
        break;
      case ChangeOpKind::kMarkIn:
        // OSDMonitor "osd in": only an out OSD gets CEPH_OSD_IN.
        if (osd.weight == 0) osd.weight = kWeightIn;
        break;
      case ChangeOpKind::kMarkDown:
        osd.state &= ~kOsdUp;
        break;
      default:
        osd.state |= kOsdUp;
        break;
    }
  }
  return ok;
}

bool Applier::OsdReweight(const ChangeOp& op) {
  if (!OsdExists(op, 0)) return false;
  // OSDMonitor "osd reweight": (int)((double)CEPH_OSD_IN * w).
  st_.osds[static_cast<std::size_t>(op.osd_ids[0])].weight =
      static_cast<crush::Weight>(static_cast<int>(static_cast<double>(kWeightIn) * op.weight));
  return true;
}

bool Applier::PrimaryAffinity(const ChangeOp& op) {
  if (!OsdExists(op, 0)) return false;
  // OSDMonitor "osd primary-affinity": (int)((double)CEPH_OSD_MAX_PRIMARY_AFFINITY * w).
  st_.osds[static_cast<std::size_t>(op.osd_ids[0])].primary_affinity = static_cast<std::uint32_t>(
      static_cast<int>(static_cast<double>(kDefaultPrimaryAffinity) * op.weight));
  return true;
}

// OSDMonitor's common pg-upmap checks: the pool exists and the seed is below
// its pg_num (OSDMap::pg_exists()).
const Pool* Applier::ExistingPg(const ChangeOp& op) {
  const Pool* pool = st_.FindPool(op.pg.pool);
  if (pool == nullptr) {
    Fail(op.pg_word,
         "pg " + op.pg_word.text + ": pool " + std::to_string(op.pg.pool) + " does not exist");
    return nullptr;
  }
  if (op.pg.ps >= pool->pg_num) {
    Fail(op.pg_word, "pg " + FormatPgId(op.pg) + " does not exist (pool '" + pool->name +
                         "' has pg_num " + std::to_string(pool->pg_num) + ")");
    return nullptr;
  }
  return pool;
}

// OSDMonitor "osd pg-upmap": between min_size and size OSDs, each existing;
// repeated OSDs are dropped as Ceph drops them.
bool Applier::PgUpmap(const ChangeOp& op) {
  const Pool* pool = ExistingPg(op);
  if (pool == nullptr) return false;
  const std::size_t n = op.osd_ids.size();
  if (n < pool->min_size || n > pool->size) {
    return Fail(op.pg_word, std::to_string(n) + " OSDs for pg " + FormatPgId(op.pg) + "; pool '" +
                                pool->name + "' needs " + std::to_string(pool->min_size) + ".." +
                                std::to_string(pool->size));
  }
  std::vector<std::int32_t> osds;
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (!OsdExists(op, i)) {
      ok = false;
    } else if (std::find(osds.begin(), osds.end(), op.osd_ids[i]) == osds.end()) {
      osds.push_back(op.osd_ids[i]);
    }
  }
  if (!ok) return false;
  st_.pg_upmap[op.pg] = std::move(osds);
  return true;
}

// OSDMonitor "osd pg-upmap-items": at most `size` pairs of existing OSDs;
// FROM == TO and repeated pairs are dropped as Ceph drops them.
bool Applier::PgUpmapItems(const ChangeOp& op) {
  const Pool* pool = ExistingPg(op);
  if (pool == nullptr) return false;
  const std::size_t pairs = op.osd_ids.size() / 2;
  if (pairs > pool->size) {
    return Fail(op.pg_word, std::to_string(pairs) + " pairs for pg " + FormatPgId(op.pg) +
                                "; pool '" + pool->name + "' has size " +
                                std::to_string(pool->size));
  }
  std::vector<std::pair<std::int32_t, std::int32_t>> items;
  bool ok = true;
  for (std::size_t i = 0; i + 1 < op.osd_ids.size(); i += 2) {
    const std::pair<std::int32_t, std::int32_t> item{op.osd_ids[i], op.osd_ids[i + 1]};
    if (item.first == item.second) continue;
    const bool from = OsdExists(op, i);
    const bool to = OsdExists(op, i + 1);
    if (!from || !to) {
      ok = false;
    } else if (std::find(items.begin(), items.end(), item) == items.end()) {
      items.push_back(item);
    }
  }
  if (!ok) return false;
  if (items.empty()) return Fail(op.pg_word, "no valid FROM TO pair for pg " + FormatPgId(op.pg));
  st_.pg_upmap_items[op.pg] = std::move(items);
  return true;
}

bool Applier::RemoveUpmap(const ChangeOp& op) {
  if (ExistingPg(op) == nullptr) return false;
  if (op.kind == ChangeOpKind::kRmPgUpmap) {
    st_.pg_upmap.erase(op.pg);
  } else {
    st_.pg_upmap_items.erase(op.pg);
  }
  return true;
}

// OSDMonitor::prepare_command_osd_purge(): crush remove, destroy, remove.
bool Applier::Purge(const ChangeOp& op) {
  const std::int32_t id = op.osd_ids[0];
  if (!OsdExists(op, 0)) return false;
  if (st_.IsUp(id)) {
    return Fail(op.osd_words[0], OsdName(id) +
                                     " is up; Ceph purges only down OSDs (add 'osd down " +
                                     std::to_string(id) + "' first)");
  }
  if (st_.crush.item_names.count(id) != 0) {
    const absl::Status s = crush::RemoveItem(st_.crush, id, false);
    if (!s.ok())
      return EditFailed(op.osd_words[0], "cannot remove " + OsdName(id) + " from the crush map", s);
    ++crush_edits_;
  }
  // OSDMap::apply_incremental() on a removed OSD: state cleared, primary
  // affinity back to default; the reweight stays as it was.
  OsdInfo& osd = st_.osds[static_cast<std::size_t>(id)];
  osd.state = 0;
  osd.primary_affinity = kDefaultPrimaryAffinity;
  purged_.push_back(id);
  return true;
}

bool Applier::CheckRuleFits(const Word& w, const Pool& pool, int rule, std::uint32_t size) {
  const crush::MapModel& map = st_.crush;
  if (rule < 0 || rule >= map.max_rules() || !map.rule_exists[static_cast<std::size_t>(rule)]) {
    return Fail(w, "crush rule " + std::to_string(rule) + " does not exist");
  }
  const crush::Rule& r = map.rules[static_cast<std::size_t>(rule)];
  if (static_cast<int>(r.type) != static_cast<int>(pool.type)) {
    return Fail(w, "rule " + std::to_string(rule) + " is not of the pool's type (" +
                       (pool.type == PoolType::kErasure ? "erasure" : "replicated") + ")");
  }
  if (size < r.min_size || size > r.max_size) {
    return Fail(w, "pool size " + std::to_string(size) + " is outside rule " +
                       std::to_string(rule) + "'s sizes " + std::to_string(r.min_size) + ".." +
                       std::to_string(r.max_size));
  }
  return true;
}

bool Applier::PoolSet(const ChangeOp& op) {
  Pool* pool = nullptr;
  for (auto& [id, p] : st_.pools) {
    if (p.name == op.name.text) pool = &p;
  }
  if (pool == nullptr) {
    if (const auto id = internal::ParseDecimal(op.name.text);
        id && st_.pools.count(static_cast<std::int64_t>(*id))) {
      pool = &st_.pools.at(static_cast<std::int64_t>(*id));
    }
  }
  if (pool == nullptr) {
    std::vector<std::string> names;
    for (const auto& [id, p] : st_.pools) names.push_back(p.name);
    return Fail(op.name,
                "unknown pool '" + op.name.text + "'" + internal::DidYouMean(op.name.text, names));
  }
  const std::string& var = op.type.text;
  const auto n = static_cast<std::uint32_t>(op.value);
  if (var == "size") {
    if (pool->type == PoolType::kErasure) {
      return Fail(op.type, "cannot change the size of erasure-coded pool '" + pool->name + "'");
    }
    if (!CheckRuleFits(op.value_word, *pool, pool->crush_rule, n)) return false;
    pool->size = n;
    pool->min_size = n - n / 2;
  } else if (var == "min_size") {
    const std::uint32_t lo = pool->type == PoolType::kErasure ? pool->ec_k : 1;
    if (n < lo || n > pool->size) {
      return Fail(op.value_word, "min_size " + std::to_string(n) + " is out of range; expected " +
                                     std::to_string(lo) + ".." + std::to_string(pool->size));
    }
    pool->min_size = n;
  } else if (var == "pg_num") {
    pool->pg_num = n;
    pool->pgp_num = n;
  } else if (var == "pgp_num") {
    if (n > pool->pg_num) {
      return Fail(op.value_word, "pgp_num " + std::to_string(n) + " is above pg_num " +
                                     std::to_string(pool->pg_num));
    }
    pool->pgp_num = n;
  } else {
    std::optional<int> rule;
    for (const auto& [id, name] : st_.crush.rule_names) {
      if (name == op.value_word.text) rule = id;
    }
    if (!rule) {
      const auto id = internal::ParseDecimal(op.value_word.text);
      if (!id) {
        std::vector<std::string> names;
        for (const auto& [rid, name] : st_.crush.rule_names) names.push_back(name);
        return Fail(op.value_word, "unknown crush rule '" + op.value_word.text + "'" +
                                       internal::DidYouMean(op.value_word.text, names));
      }
      rule = *id > 0xffff ? 0xffff : static_cast<int>(*id);
    }
    if (!CheckRuleFits(op.value_word, *pool, *rule, pool->size)) return false;
    pool->crush_rule = *rule;
  }
  return true;
}

bool Applier::AddHost(const ChangeOp& op) {
  if (crush::FindItem(st_.crush, op.name.text).ok()) {
    return Fail(op.name, "item '" + op.name.text + "' already exists in the crush map");
  }
  std::optional<int> host_type;
  for (const auto& [id, name] : st_.crush.type_names) {
    if (name == "host") host_type = id;
  }
  if (!host_type) return Fail(op.command, "the crush map has no type 'host'");
  const std::optional<crush::Location> loc = Location(op, *host_type);
  if (!loc) return false;
  const auto host = crush::CreateBucket(st_.crush, op.name.text, "host", *loc);
  if (!host.ok())
    return EditFailed(op.name, "cannot add host '" + op.name.text + "'", host.status());
  ++crush_edits_;
  const crush::Location in_host = {{"host", op.name.text}};
  std::int32_t next = 0;
  for (int i = 0; i < op.osd_count; ++i) {
    while (st_.Exists(next) || st_.crush.item_names.count(next) != 0) ++next;
    if (next > kMaxChangeOsdId)
      return Fail(op.name, "no free OSD id up to " + std::to_string(kMaxChangeOsdId));
    CreateOsd(next);
    const std::string name = OsdName(next);
    absl::Status s =
        crush::InsertItem(st_.crush, next, static_cast<float>(op.weight), name, in_host);
    if (s.ok() && op.device_class.present())
      s = crush::SetDeviceClass(st_.crush, next, op.device_class.text);
    if (!s.ok()) return EditFailed(op.name, "cannot add " + name, s);
  }
  return true;
}

}  // namespace

absl::StatusOr<ClusterState> ApplyChange(const ClusterState& before, const ChangeList& change) {
  ClusterState st = before;
  Applier applier(st);
  for (const ChangeOp& op : change.ops) applier.Apply(op);
  if (!applier.diagnostics().empty()) {
    return absl::InvalidArgumentError(
        FormatChangeDiagnostics(change.file_name, change.lines, applier.diagnostics()));
  }
  if (change.ops.empty()) return st;
  ++st.epoch;
  for (const std::int32_t id : applier.purged()) st.osd_usage.erase(id);
  if (applier.crush_changed()) {
    // crushtool and the monitor rebuild the shadow trees once after edits,
    // except after reweights alone: adjust_item_weight reweights the shadow
    // buckets in place (a rebuild there can even reach Ceph's undefined
    // behaviour on weight sets of differing lengths, which the reweight
    // itself never touches). It can fail where Ceph's would (a uniform
    // bucket whose class clone would hold differing weights): the change's
    // fault, not crushkit's.
    const bool reweights_only =
        std::all_of(change.ops.begin(), change.ops.end(), [](const ChangeOp& op) {
          switch (op.kind) {
            case ChangeOpKind::kCrushReweight:
            case ChangeOpKind::kCrushReweightSubtree:
            case ChangeOpKind::kDrain:
            case ChangeOpKind::kCrushTunables:
            case ChangeOpKind::kCrushSetTunable:
            case ChangeOpKind::kMarkOut:
            case ChangeOpKind::kMarkIn:
            case ChangeOpKind::kMarkDown:
            case ChangeOpKind::kMarkUp:
            case ChangeOpKind::kOsdReweight:
            case ChangeOpKind::kOsdPrimaryAffinity:
            case ChangeOpKind::kPgUpmap:
            case ChangeOpKind::kRmPgUpmap:
            case ChangeOpKind::kPgUpmapItems:
            case ChangeOpKind::kRmPgUpmapItems:
            case ChangeOpKind::kPoolSet:
              return true;
            default:
              return false;
          }
        });
    const absl::Status s =
        reweights_only ? absl::OkStatus() : crush::RebuildRootsWithClasses(st.crush);
    if (!s.ok()) {
      const Word& w = applier.last_crush_op();
      const ChangeDiagnostic d{w.line, w.column, std::max(1, static_cast<int>(w.text.size())),
                               absl::StrCat("after this change the device-class shadow trees "
                                            "cannot be rebuilt: ",
                                            s.message())};
      return absl::InvalidArgumentError(
          FormatChangeDiagnostics(change.file_name, change.lines, {d}));
    }
    // CrushWrapper::decode() finalizes, so a monitor holding the new map
    // sees max_devices covering every device.
    crush::FinalizeMaxDevices(st.crush);
    st.crush_bytes = crush::EncodeCrushMap(st.crush);
    if (const auto built = crush::CrushMap::Build(st.crush); !built.ok()) {
      return absl::InternalError(
          absl::StrCat("the edited crush map does not build: ", built.status().message()));
    }
  }
  if (const absl::Status s = ValidateState(st); !s.ok()) {
    return absl::InternalError(absl::StrCat("the edited state is invalid: ", s.message()));
  }
  return st;
}

}  // namespace crushkit::osdmap
