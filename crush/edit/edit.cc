// CrushWrapper's hierarchy edits (src/crush/CrushWrapper.cc, Ceph 16.2):
// names and lookups, add_bucket/bucket_add_item/bucket_remove_item with
// their choose_args bookkeeping, update_choose_args; and the public
// functions of edit.h over internal::Editor. The item edits (insert_item,
// update_item, remove_item, move_bucket/detach_bucket, create_or_move_item,
// check_item_loc, reweight) live in edit_items.cc, weight adjustment in
// edit_weights.cc, shadow trees in shadow_trees.cc.
#include "crush/edit/edit.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "crush/builder.h"
#include "crush/edit/internal/editor.h"
#include "crush/status_macros.h"
#include "crush/util/errno_status.h"

namespace crushkit::crush {
namespace internal {

absl::Status IgnoringCephErrors(const absl::Status& status) {
  const absl::StatusCode code = status.code();
  return code == absl::StatusCode::kInternal || code == absl::StatusCode::kUnimplemented
             ? status
             : absl::OkStatus();
}

absl::Status CephBucketAddItem(Bucket& bucket, ItemId item, Weight weight, int straw_calc_version) {
  absl::Status s = AddBucketItem(bucket, item, weight, straw_calc_version);
  if (s.code() == absl::StatusCode::kOutOfRange) return ErrnoStatus(34, std::string(s.message()));
  return s;
}

bool Editor::IsValidName(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return c == '-' || c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
           (c >= 'a' && c <= 'z');
  });
}

bool Editor::NameExists(std::string_view name) const {
  if (sole_writer_) return IndexedName(name) != nullptr;
  return std::any_of(map_.item_names.begin(), map_.item_names.end(),
                     [&](const auto& kv) { return kv.second == name; });
}

ItemId Editor::ItemIdOf(std::string_view name) const {
  if (sole_writer_) {
    const NameEntry* e = IndexedName(name);
    return e == nullptr ? 0 : e->highest;
  }
  ItemId id = 0;
  for (const auto& [i, n] : map_.item_names) {
    if (n == name) id = i;
  }
  return id;
}

const Editor::NameEntry* Editor::IndexedName(std::string_view name) const {
  if (!names_indexed_) {
    name_index_.clear();
    name_index_.reserve(map_.item_names.size());
    for (const auto& [id, n] : map_.item_names) {
      NameEntry& e = name_index_[n];
      e.highest = id;  // ascending ids: the last is the highest
      ++e.count;
    }
    names_indexed_ = true;
  }
  auto it = name_index_.find(name);
  return it == name_index_.end() ? nullptr : &it->second;
}

void Editor::IndexName(const std::string& name, ItemId id) {
  if (!names_indexed_) return;
  NameEntry& e = name_index_[name];
  e.highest = e.count == 0 ? id : std::max(e.highest, id);
  ++e.count;
}

void Editor::UnindexName(const std::string& name, ItemId id) {
  if (!names_indexed_) return;
  auto it = name_index_.find(name);
  if (it == name_index_.end()) {
    names_indexed_ = false;  // cannot happen while the index is kept
  } else if (it->second.count == 1) {
    name_index_.erase(it);
  } else if (it->second.highest == id) {
    names_indexed_ = false;  // the next highest is not known: rebuild
  } else {
    --it->second.count;
  }
}

void Editor::SetItemName(ItemId id, const std::string& name) {
  auto [it, added] = map_.item_names.try_emplace(id, name);
  if (!added) {
    if (it->second == name) return;
    UnindexName(it->second, id);
    it->second = name;
  }
  IndexName(name, id);
}

void Editor::EraseItemName(ItemId id) {
  auto it = map_.item_names.find(id);
  if (it == map_.item_names.end()) return;
  UnindexName(it->second, id);
  map_.item_names.erase(it);
}

bool Editor::IsShadow(ItemId id) const {
  auto it = map_.item_names.find(id);
  return it != map_.item_names.end() && !IsValidName(it->second);
}

int Editor::TypeIdOf(std::string_view type_name) const {
  int id = -1;
  for (const auto& [i, n] : map_.type_names) {
    if (n == type_name) id = i;
  }
  return id;
}

bool Editor::SearchItemExists(ItemId item) const {
  for (const Bucket& b : map_.buckets) {
    if (b.alg == BucketAlg::kNone) continue;
    if (std::find(b.items.begin(), b.items.end(), item) != b.items.end()) return true;
  }
  return false;
}

bool Editor::SubtreeContains(ItemId root, ItemId item) const {
  if (root == item) return true;
  if (root >= 0) return false;
  const Bucket* b = map_.FindBucket(root);
  if (b == nullptr) return false;
  return std::any_of(b->items.begin(), b->items.end(),
                     [&](ItemId child) { return SubtreeContains(child, item); });
}

// find_roots(): buckets no bucket holds (one pass over all items, marking
// bucket slots, rather than Ceph's search per bucket; same set).
std::set<ItemId> Editor::FindRoots() const {
  std::vector<bool> linked(map_.buckets.size(), false);
  std::set<ItemId> linked_beyond;  // ids past the last slot (none in a sound map)
  for (const Bucket& b : map_.buckets) {
    if (b.alg == BucketAlg::kNone) continue;
    for (ItemId item : b.items) {
      if (item >= 0) continue;
      const auto slot = static_cast<std::size_t>(BucketSlot(item));
      if (slot < linked.size()) {
        linked[slot] = true;
      } else {
        linked_beyond.insert(item);
      }
    }
  }
  const auto is_linked = [&](ItemId id) {
    if (id >= 0) return false;
    const auto slot = static_cast<std::size_t>(BucketSlot(id));
    return slot < linked.size() ? linked[slot] : linked_beyond.count(id) != 0;
  };
  std::set<ItemId> roots;
  for (const Bucket& b : map_.buckets) {
    if (b.alg != BucketAlg::kNone && !is_linked(b.id)) roots.insert(b.id);
  }
  return roots;
}

std::set<ItemId> Editor::FindShadowRoots() const {
  std::set<ItemId> roots;
  for (ItemId r : FindRoots()) {
    if (IsShadow(r)) roots.insert(r);
  }
  return roots;
}

std::set<ItemId> Editor::FindNonshadowRoots() const {
  std::set<ItemId> roots;
  for (ItemId r : FindRoots()) {
    if (!IsShadow(r)) roots.insert(r);
  }
  return roots;
}

absl::Status Editor::CheckAcyclic() const {
  // 0 unvisited, 1 on the stack, 2 done; iterative DFS over bucket slots.
  std::vector<int> state(map_.buckets.size(), 0);
  for (std::size_t start = 0; start < map_.buckets.size(); ++start) {
    if (map_.buckets[start].alg == BucketAlg::kNone || state[start] != 0) continue;
    std::vector<std::pair<std::size_t, std::size_t>> stack = {{start, 0}};
    state[start] = 1;
    while (!stack.empty()) {
      auto& [slot, next] = stack.back();
      const Bucket& b = map_.buckets[slot];
      if (next == b.items.size()) {
        state[slot] = 2;
        stack.pop_back();
        continue;
      }
      const ItemId child = b.items[next++];
      if (child >= 0 || map_.FindBucket(child) == nullptr) continue;
      const auto cs = static_cast<std::size_t>(BucketSlot(child));
      if (state[cs] == 1) {
        return absl::InternalError("crush map buckets form a cycle at bucket " +
                                   std::to_string(child) + "; Ceph would recurse forever");
      }
      if (state[cs] == 0) {
        state[cs] = 1;
        stack.emplace_back(cs, 0);
      }
    }
  }
  return absl::OkStatus();
}

// CrushWrapper::add_bucket(): builder.c crush_make_bucket + crush_add_bucket,
// then every choose_args map gets a weight set (the given weights, every
// position) for a non-empty bucket.
absl::StatusOr<ItemId> Editor::AddBucket(ItemId id, BucketAlg alg, std::uint16_t type,
                                         const std::vector<ItemId>& items,
                                         const std::vector<Weight>& weights) {
  if (alg == BucketAlg::kNone) alg = DefaultBucketAlg(map_);
  if (alg == BucketAlg::kNone) return ErrnoStatus(22, "no bucket algorithm is allowed");
  auto made =
      MakeBucket(alg, kHashRjenkins1, type, items, weights, map_.tunables.straw_calc_version);
  if (!made.ok()) {
    return absl::InternalError("crush_make_bucket fails here (" +
                               std::string(made.status().message()) + "); Ceph asserts");
  }
  CRUSH_ASSIGN_OR_RETURN(ItemId new_id, crush::AddBucket(map_, id, std::move(*made)));
  if (!items.empty()) {
    for (auto& [index, cmap_binding] : map_.choose_args) {
      ChooseArgMap& cmap = cmap_binding;  // a structured binding cannot be captured (C++20, clang)
      const std::size_t positions = [&] {
        for (auto it = cmap.rbegin(); it != cmap.rend(); ++it) {
          if (!it->second.weight_set.empty()) return it->second.weight_set.size();
        }
        return std::size_t{1};
      }();
      ChooseArg& arg = cmap[new_id];
      arg.ids.clear();
      arg.weight_set.assign(positions, weights);
      empty_weight_sets_.erase({index, new_id});
    }
  }
  return new_id;
}

// CrushWrapper::bucket_add_item(): weight sets and ids grow with the bucket.
absl::Status Editor::BucketAddItem(ItemId bucket, ItemId item, Weight weight) {
  Bucket* b = map_.FindBucket(bucket);
  CRUSH_RETURN_IF_ERROR(CephBucketAddItem(*b, item, weight, map_.tunables.straw_calc_version));
  for (auto& [index, cmap] : map_.choose_args) {
    auto it = cmap.find(bucket);
    if (it == cmap.end()) continue;
    for (auto& ws : it->second.weight_set) {
      if (ws.size() + 1 != b->items.size()) {
        return absl::InternalError("weight set size mismatch; Ceph asserts");
      }
      ws.push_back(weight);
    }
    if (!it->second.ids.empty()) it->second.ids.push_back(item);
  }
  return absl::OkStatus();
}

// CrushWrapper::bucket_remove_item(): the item's position leaves every
// weight set and ids vector of the bucket too.
absl::Status Editor::BucketRemoveItem(ItemId bucket, ItemId item) {
  Bucket* b = map_.FindBucket(bucket);
  const auto pos = static_cast<std::size_t>(std::find(b->items.begin(), b->items.end(), item) -
                                            b->items.begin());
  const std::size_t old_size = b->items.size();
  CRUSH_RETURN_IF_ERROR(RemoveBucketItem(*b, item, map_.tunables.straw_calc_version));
  // A tree bucket may keep its size (the leaf stays, zeroed) or drop more
  // than one trailing leaf; Ceph's weight-set code still shrinks the weight
  // sets by exactly one position, and so do we.
  for (auto& [index, cmap] : map_.choose_args) {
    auto it = cmap.find(bucket);
    if (it == cmap.end()) continue;
    for (auto& ws : it->second.weight_set) {
      if (ws.size() != old_size)
        return absl::InternalError("weight set size mismatch; Ceph asserts");
      ws.erase(ws.begin() + static_cast<std::ptrdiff_t>(pos));
    }
    if (!it->second.ids.empty()) {
      if (it->second.ids.size() != old_size) return absl::InternalError("ids size mismatch");
      it->second.ids.erase(it->second.ids.begin() + static_cast<std::ptrdiff_t>(pos));
    }
  }
  return absl::OkStatus();
}

void Editor::RemoveBucket(ItemId id) {
  map_.buckets[static_cast<std::size_t>(BucketSlot(id))] = Bucket{};
}

// CrushWrapper::update_choose_args(): args of missing or non-straw2 buckets
// are dropped; weight sets with the common position count are resized to
// their bucket.
void Editor::UpdateChooseArgs() {
  for (auto it = empty_weight_sets_.begin(); it != empty_weight_sets_.end();) {
    const Bucket* b = it->second < 0 ? map_.FindBucket(it->second) : nullptr;
    it =
        b == nullptr || b->alg != BucketAlg::kStraw2 ? empty_weight_sets_.erase(it) : std::next(it);
  }
  for (auto& [index, cmap] : map_.choose_args) {
    std::size_t positions = 1;
    for (auto it = cmap.rbegin(); it != cmap.rend(); ++it) {
      if (!it->second.weight_set.empty()) {
        positions = it->second.weight_set.size();
        break;
      }
    }
    for (auto it = cmap.begin(); it != cmap.end();) {
      const Bucket* b = it->first < 0 ? map_.FindBucket(it->first) : nullptr;
      ChooseArg& arg = it->second;
      if (b == nullptr || b->alg != BucketAlg::kStraw2) {
        it = cmap.erase(it);
        continue;
      }
      if (!arg.weight_set.empty() && arg.weight_set.size() == positions) {
        for (auto& ws : arg.weight_set) ws.resize(b->items.size(), 0);
      }
      ++it;
    }
  }
}

// CrushWrapper::update_device_class().
absl::Status Editor::SetDeviceClass(ItemId id, std::string_view class_name) {
  auto cur = map_.class_map.find(id);
  if (cur != map_.class_map.end()) {
    auto cn = map_.class_names.find(cur->second);
    if (cn != map_.class_names.end() && cn->second != class_name) {
      return absl::UnavailableError("item " + std::to_string(id) + " already has class '" +
                                    cn->second + "'");
    }
  }
  const std::int32_t class_id = GetOrCreateClassId(std::string(class_name));
  if (id < 0) return absl::InvalidArgumentError("id " + std::to_string(id) + " is negative");
  if (cur != map_.class_map.end() && cur->second == class_id) return absl::OkStatus();
  map_.class_map[id] = class_id;
  return RebuildRootsWithClasses();
}

}  // namespace internal

int CephErrno(const absl::Status& status) { return util::ErrnoOf(status); }

std::string CephErrorText(const absl::Status& status) { return util::ErrnoMessage(status); }

bool IsValidCrushName(std::string_view name) { return internal::Editor::IsValidName(name); }

bool IsShadowItem(const MapModel& map, ItemId id) {
  return internal::Editor(const_cast<MapModel&>(map)).IsShadow(id);
}

std::set<ItemId> FindNonshadowRoots(const MapModel& map) {
  return internal::Editor(const_cast<MapModel&>(map)).FindNonshadowRoots();
}

BucketAlg DefaultBucketAlg(const MapModel& map) {
  const std::uint32_t algs = map.tunables.allowed_bucket_algs;
  for (BucketAlg alg : {BucketAlg::kStraw2, BucketAlg::kStraw, BucketAlg::kTree, BucketAlg::kList,
                        BucketAlg::kUniform}) {
    if ((algs & (1U << static_cast<unsigned>(alg))) != 0) return alg;
  }
  return BucketAlg::kNone;
}

bool CheckItemLoc(const MapModel& map, ItemId item, const Location& loc, Weight* weight) {
  return internal::Editor(const_cast<MapModel&>(map)).CheckItemLoc(item, loc, weight);
}

absl::StatusOr<ItemId> FindItem(const MapModel& map, std::string_view name) {
  const internal::Editor editor(const_cast<MapModel&>(map));
  if (!editor.NameExists(name)) {
    return absl::NotFoundError("no item named '" + std::string(name) + "'");
  }
  return editor.ItemIdOf(name);
}

absl::Status InsertItem(MapModel& map, ItemId id, float weight, std::string_view name,
                        const Location& loc) {
  return internal::Editor(map).InsertItem(id, weight, std::string(name), loc, true);
}

absl::Status UpdateItem(MapModel& map, ItemId id, float weight, std::string_view name,
                        const Location& loc) {
  return internal::Editor(map).UpdateItem(id, weight, std::string(name), loc).status();
}

absl::Status RemoveItem(MapModel& map, ItemId id, bool unlink_only) {
  return internal::Editor(map).RemoveItem(id, unlink_only);
}

absl::StatusOr<ItemId> CreateBucket(MapModel& map, std::string_view name, std::string_view type,
                                    const Location& loc) {
  internal::Editor editor(map);
  if (editor.NameExists(name)) {
    return absl::AlreadyExistsError("bucket '" + std::string(name) + "' already exists");
  }
  const int type_id = editor.TypeIdOf(type);
  if (type_id <= 0) return absl::InvalidArgumentError("bad bucket type: " + std::string(type));
  CRUSH_ASSIGN_OR_RETURN(ItemId id, editor.AddBucket(0, BucketAlg::kNone,
                                                     static_cast<std::uint16_t>(type_id), {}, {}));
  if (!IsValidCrushName(name)) {
    return absl::InvalidArgumentError("bad bucket name: " + std::string(name));
  }
  editor.SetItemName(id, std::string(name));
  if (!loc.empty() && !editor.CheckItemLoc(id, loc, nullptr)) {
    CRUSH_RETURN_IF_ERROR(editor.MoveBucket(id, loc));
  }
  return id;
}

absl::Status MoveBucket(MapModel& map, ItemId id, const Location& loc) {
  return internal::Editor(map).MoveBucket(id, loc);
}

absl::StatusOr<bool> CreateOrMoveItem(MapModel& map, ItemId id, float weight, std::string_view name,
                                      const Location& loc) {
  CRUSH_ASSIGN_OR_RETURN(
      int r, internal::Editor(map).CreateOrMoveItem(id, weight, std::string(name), loc));
  return r != 0;
}

absl::Status SetDeviceClass(MapModel& map, ItemId id, std::string_view class_name) {
  return internal::Editor(map).SetDeviceClass(id, class_name);
}

EditSession::EditSession(MapModel& map)
    : editor_(std::make_unique<internal::Editor>(map, /*sole_writer=*/true)) {}

EditSession::~EditSession() = default;

absl::StatusOr<ItemId> EditSession::FindItem(std::string_view name) const {
  if (!editor_->NameExists(name)) {
    return absl::NotFoundError("no item named '" + std::string(name) + "'");
  }
  return editor_->ItemIdOf(name);
}

absl::Status EditSession::InsertItem(ItemId id, float weight, std::string_view name,
                                     const Location& loc) {
  editor_->StartCall();
  return editor_->InsertItem(id, weight, std::string(name), loc, true);
}

absl::Status EditSession::SetDeviceClass(ItemId id, std::string_view class_name) {
  editor_->StartCall();
  return editor_->SetDeviceClass(id, class_name);
}

absl::Status RebuildRootsWithClasses(MapModel& map) {
  internal::Editor editor(map);
  CRUSH_RETURN_IF_ERROR(editor.CheckAcyclic());
  return editor.RebuildRootsWithClasses();
}

absl::Status PopulateShadowTrees(
    MapModel& map, const std::map<std::int32_t, std::map<std::int32_t, std::int32_t>>& shadow_ids,
    ShadowCloneConflict* conflict) {
  internal::Editor editor(map);
  CRUSH_RETURN_IF_ERROR(editor.CheckAcyclic());
  return editor.PopulateClasses(shadow_ids, conflict);
}

absl::Status ReweightAll(MapModel& map) { return internal::Editor(map).Reweight(); }

void FinalizeMaxDevices(MapModel& map) {
  // Ceph's int max_devices wraps past INT32_MAX; the conversion keeps that.
  map.max_devices = static_cast<std::int32_t>(FinalizedMaxDevices(map));
}

}  // namespace crushkit::crush
