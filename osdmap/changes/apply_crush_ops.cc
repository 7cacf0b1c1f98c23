// The crush-map operations of a change file (osdmap/changes/change_ops.h), as
// OSDMonitor and CrushWrapper carry them out (crush/edit/edit.h).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

#include "crush/edit/display.h"
#include "crush/edit/edit.h"
#include "crush/model.h"
#include "crush/types.h"
#include "osdmap/changes/apply_change_internal.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/changes/change_ops_internal.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap::internal {

bool Applier::AddBucket(const ChangeOp& op) {
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

bool Applier::AddOrSetOsd(const ChangeOp& op) {
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

bool Applier::Remove(const ChangeOp& op) {
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

bool Applier::Reweight(const ChangeOp& op) {
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

bool Applier::Move(const ChangeOp& op) {
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

// OSDMonitor "osd crush swap-bucket": SOURCE must be an orphan bucket (not
// linked into the tree) and both must use the same bucket algorithm, unless
// --yes-i-really-mean-it; then CrushWrapper::swap_bucket.
bool Applier::SwapBucket(const ChangeOp& op) {
  const std::optional<ItemId> src = Bucket(op.name);
  const std::optional<ItemId> dst = Bucket(op.target);
  if (!src || !dst) return false;
  if (!op.forced) {
    if (crush::ImmediateParent(st_.crush, *src) != nullptr) {
      return Fail(op.name, "source item " + op.name.text +
                               " is not an orphan bucket; pass --yes-i-really-mean-it to "
                               "proceed anyway");
    }
    if (st_.crush.FindBucket(*src)->alg != st_.crush.FindBucket(*dst)->alg) {
      return Fail(op.target,
                  "source and dest buckets use different algorithms; pass "
                  "--yes-i-really-mean-it to proceed anyway");
    }
  }
  const absl::Status s = crush::SwapBucket(st_.crush, *src, *dst);
  if (!s.ok()) {
    return EditFailed(op.command, "cannot swap '" + op.name.text + "' and '" + op.target.text + "'",
                      s);
  }
  ++crush_edits_;
  return true;
}

bool Applier::SetDeviceClass(const ChangeOp& op) {
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

// "osd crush rule create-replicated": CrushWrapper::add_simple_rule_at(name,
// root, type, class, "firstn", TYPE_REPLICATED, -1), crush/edit/edit.h. The
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

bool Applier::Tunables(const ChangeOp& op) {
  const auto profile = FindTunablesProfile(op.name.text);
  if (!profile) return Fail(op.name, "unknown tunables profile '" + op.name.text + "'");
  st_.crush.tunables = crush::TunablesFor(*profile, st_.crush.tunables);
  ++crush_edits_;
  return true;
}

bool Applier::SetTunable(const ChangeOp& op) {
  const TunableSpec* spec = FindTunable(op.name.text);
  if (!spec) return Fail(op.name, "unknown tunable '" + op.name.text + "'");
  spec->set(st_.crush.tunables, op.value);
  ++crush_edits_;
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
  // One editor for the host's devices: its name index saves a scan of
  // every item name per lookup (several per insert; crush/edit/edit.h).
  crush::EditSession edit(st_.crush);
  std::int32_t next = 0;
  for (int i = 0; i < op.osd_count; ++i) {
    while (st_.Exists(next) || st_.crush.item_names.count(next) != 0) ++next;
    if (next > kMaxChangeOsdId)
      return Fail(op.name, "no free OSD id up to " + std::to_string(kMaxChangeOsdId));
    CreateOsd(next);
    const std::string name = OsdName(next);
    absl::Status s = edit.InsertItem(next, static_cast<float>(op.weight), name, in_host);
    if (s.ok() && op.device_class.present()) s = edit.SetDeviceClass(next, op.device_class.text);
    if (!s.ok()) return EditFailed(op.name, "cannot add " + name, s);
  }
  return true;
}

}  // namespace crushkit::osdmap::internal
