#include "osdmap/changes/apply_change.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "crush/edit/edit.h"
#include "crush/map.h"
#include "crush/model.h"
#include "crush/types.h"
#include "osdmap/changes/apply_change_internal.h"
#include "osdmap/changes/change_op_table.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/changes/change_ops_internal.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap {
namespace internal {

using crush::ItemId;

std::string OsdName(std::int32_t id) { return "osd." + std::to_string(id); }

// Every device under bucket `root` (each once, in depth-first order), and
// every bucket in that subtree (root included) in `buckets` if given.
std::vector<ItemId> DevicesUnder(const crush::MapModel& map, ItemId root,
                                 std::set<ItemId>* buckets) {
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

void Applier::Apply(const ChangeOp& op) {
  crush::MapModel crush = st_.crush;
  std::vector<OsdInfo> osds = st_.osds;
  std::map<std::int64_t, Pool> pools = st_.pools;
  const std::size_t errors = diags_.size();
  const int crush_edits = crush_edits_;
  const std::size_t purged = purged_.size();
  if ((this->*SpecOf(op.kind).apply)(op) && diags_.size() == errors) {
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

bool Applier::Fail(const Word& w, std::string message) {
  diags_.push_back(ChangeDiagnostic{w.line, w.column, std::max(1, static_cast<int>(w.text.size())),
                                    std::move(message)});
  return false;
}

bool Applier::EditFailed(const Word& w, std::string_view what, const absl::Status& s) {
  return Fail(w, absl::StrCat(std::string(what), ": ", s.message()));
}

std::vector<std::string> Applier::ItemNames() const {
  std::vector<std::string> names;
  for (const auto& [id, name] : st_.crush.item_names) {
    if (name.find('~') == std::string::npos) names.push_back(name);
  }
  return names;
}

std::optional<ItemId> Applier::Item(const Word& w) {
  const auto id = crush::FindItem(st_.crush, w.text);
  if (id.ok()) return *id;
  Fail(w, "unknown item '" + w.text + "' in the crush map" +
              internal::DidYouMean(w.text, ItemNames()));
  return std::nullopt;
}

std::optional<ItemId> Applier::Bucket(const Word& w) {
  const std::optional<ItemId> id = Item(w);
  if (!id) return std::nullopt;
  if (*id >= 0) {
    Fail(w, "'" + w.text + "' is a device, not a bucket");
    return std::nullopt;
  }
  return id;
}

std::optional<ItemId> Applier::Device(const Word& w) {
  const std::optional<ItemId> id = Item(w);
  if (!id) return std::nullopt;
  if (*id < 0) {
    Fail(w, "'" + w.text + "' is a bucket, not a device");
    return std::nullopt;
  }
  return id;
}

std::optional<int> Applier::Type(const Word& w) {
  std::vector<std::string> names;
  for (const auto& [id, name] : st_.crush.type_names) {
    if (name == w.text) return id;
    names.push_back(name);
  }
  Fail(w, "unknown type '" + w.text + "'; the crush map's types are " + absl::StrJoin(names, ", "));
  return std::nullopt;
}

std::string Applier::TypeName(int type) const {
  const auto it = st_.crush.type_names.find(type);
  return it == st_.crush.type_names.end() ? std::to_string(type) : it->second;
}

std::optional<crush::Location> Applier::Location(const ChangeOp& op, int item_type, ItemId moving) {
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

bool Applier::OsdExists(const ChangeOp& op, std::size_t i) {
  if (st_.Exists(op.osd_ids[i])) return true;
  return Fail(op.osd_words[i], OsdName(op.osd_ids[i]) + " does not exist");
}

void Applier::CreateOsd(std::int32_t id) {
  if (id >= st_.max_osd()) st_.osds.resize(static_cast<std::size_t>(id) + 1);
  OsdInfo& osd = st_.osds[static_cast<std::size_t>(id)];
  osd = OsdInfo{};
  osd.state = kOsdExists | kOsdUp;
  osd.weight = kWeightIn;
}

}  // namespace internal

absl::StatusOr<ClusterState> ApplyChange(const ClusterState& before, const ChangeList& change) {
  absl::StatusOr<AppliedChange> applied = ApplyChangeBuilt(before, change);
  if (!applied.ok()) return applied.status();
  return std::move(applied->state);
}

absl::StatusOr<AppliedChange> ApplyChangeBuilt(const ClusterState& before,
                                               const ChangeList& change) {
  AppliedChange out;
  ClusterState& st = out.state;
  st = before;
  internal::Applier applier(st);
  for (const ChangeOp& op : change.ops) applier.Apply(op);
  if (!applier.diagnostics().empty()) {
    return absl::InvalidArgumentError(
        FormatChangeDiagnostics(change.file_name, change.lines, applier.diagnostics()));
  }
  if (change.ops.empty()) return out;
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
          return internal::SpecOf(op.kind).crush_effect != internal::CrushEffect::kStructure;
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
    absl::StatusOr<crush::CrushMap> built = crush::CrushMap::Build(st.crush);
    if (!built.ok()) {
      return absl::InternalError(
          absl::StrCat("the edited crush map does not build: ", built.status().message()));
    }
    out.crush_map = std::make_shared<const crush::CrushMap>(*std::move(built));
  }
  if (const absl::Status s = ValidateState(st); !s.ok()) {
    return absl::InternalError(absl::StrCat("the edited state is invalid: ", s.message()));
  }
  return out;
}

}  // namespace crushkit::osdmap
