// Device-class shadow trees, as CrushWrapper (Ceph 16.2) maintains them:
// rebuild_roots_with_classes = cleanup_dead_classes + trim_roots_with_class
// (remove_root) + populate_classes (device_class_clone). Shadow ids and the
// order clones are created in are visible in the written map, so the scans
// follow Ceph's exactly (roots in ascending id order, classes in ascending
// class id order, children first in item order).
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "crush/builder.h"
#include "crush/edit/internal/editor.h"
#include "crush/status_macros.h"

namespace crushkit::crush::internal {

std::int32_t Editor::GetOrCreateClassId(const std::string& name) {
  for (const auto& [id, n] : map_.class_names) {
    if (n == name) return id;
  }
  // _alloc_class_id(): one above the highest id (Ceph's wrap-around search
  // needs 2^31 classes).
  const std::int32_t id = map_.class_names.empty() ? 0 : map_.class_names.rbegin()->first + 1;
  map_.class_names[id] = name;
  return id;
}

// _class_is_dead(): no device has the class and no rule takes one of its
// shadow buckets.
bool Editor::ClassIsDead(std::int32_t class_id) const {
  for (const auto& [item, cls] : map_.class_map) {
    if (item >= 0 && cls == class_id) return false;
  }
  for (std::size_t r = 0; r < map_.rules.size(); ++r) {
    if (!map_.rule_exists[r]) continue;
    for (const RuleStep& step : map_.rules[r].steps) {
      if (step.op != RuleOp::kTake) continue;
      for (const auto& [orig, by_class] : map_.class_buckets) {
        auto it = by_class.find(class_id);
        if (it != by_class.end() && it->second == step.arg1) return false;
      }
    }
  }
  return true;
}

// cleanup_dead_classes(). Ceph removes by name through its reverse class
// map, which holds the highest id of a duplicated name, once per name.
void Editor::CleanupDeadClasses() {
  std::vector<std::int32_t> ids;
  for (const auto& [id, name] : map_.class_names) ids.push_back(id);
  std::set<std::string> removed;
  for (std::int32_t id : ids) {
    auto it = map_.class_names.find(id);
    if (it == map_.class_names.end() || !ClassIsDead(id)) continue;
    const std::string name = it->second;
    if (!removed.insert(name).second) continue;
    std::int32_t rname_id = id;
    for (const auto& [other, n] : map_.class_names) {
      if (n == name) rname_id = other;
    }
    map_.class_names.erase(rname_id);
  }
}

// remove_root(): the bucket and everything below it, idempotently.
void Editor::RemoveRoot(ItemId item, int depth) {
  const Bucket* b = map_.FindBucket(item);
  if (b == nullptr || depth > 2 * map_.max_buckets() + 8) return;
  const std::vector<ItemId> children = b->items;
  for (ItemId child : children) {
    if (child < 0) RemoveRoot(child, depth + 1);
  }
  RemoveBucket(item);
  EraseItemName(item);
  map_.class_buckets.erase(item);
  map_.class_map.erase(item);
  UpdateChooseArgs();
}

absl::Status Editor::TrimRootsWithClass() {
  for (ItemId root : FindShadowRoots()) {
    if (root < 0) RemoveRoot(root, 0);
  }
  return absl::OkStatus();
}

absl::Status Editor::RebuildRootsWithClasses() {
  const ClassBuckets old_class_bucket = map_.class_buckets;
  CleanupDeadClasses();
  CRUSH_RETURN_IF_ERROR(TrimRootsWithClass());
  map_.class_buckets.clear();
  return PopulateClasses(old_class_bucket);
}

absl::Status Editor::PopulateClasses(const ClassBuckets& old_class_bucket,
                                     ShadowCloneConflict* conflict) {
  conflict_ = conflict;
  clone_name_index_.clear();
  // Without classes nothing is cloned: skip the index, an O(items) build
  // that an edit per inserted device otherwise pays every time.
  if (map_.class_names.empty()) return absl::OkStatus();
  for (const auto& [id, name] : map_.item_names)
    clone_name_index_[name] = id;  // ascending: highest id wins
  std::set<std::int32_t> used_ids;
  for (const auto& [orig, by_class] : old_class_bucket) {
    for (const auto& [cls, shadow] : by_class) used_ids.insert(shadow);
  }
  // Weight-set sums of the clones made so far: index -> clone -> positions.
  CmapItemWeight cmap_item_weight;
  for (ItemId root : FindNonshadowRoots()) {
    std::vector<std::int32_t> classes;
    for (const auto& [id, name] : map_.class_names) classes.push_back(id);
    for (std::int32_t cls : classes) {
      CRUSH_RETURN_IF_ERROR(
          DeviceClassClone(root, cls, old_class_bucket, used_ids, &cmap_item_weight, 0).status());
    }
  }
  return absl::OkStatus();
}

// device_class_clone().
absl::StatusOr<ItemId> Editor::DeviceClassClone(ItemId original, std::int32_t device_class,
                                                const ClassBuckets& old_class_bucket,
                                                const std::set<std::int32_t>& used_ids,
                                                CmapItemWeight* cmap_item_weight, int depth) {
  CRUSH_RETURN_IF_ERROR(CheckDepth(depth));
  auto name_it = map_.item_names.find(original);
  if (name_it == map_.item_names.end()) {
    return ErrnoStatus(10, "bucket " + std::to_string(original) + " has no name");
  }
  auto class_it = map_.class_names.find(device_class);
  if (class_it == map_.class_names.end()) return ErrnoStatus(9, "unknown class");
  const std::string copy_name = name_it->second + "~" + class_it->second;
  if (auto named = clone_name_index_.find(copy_name); named != clone_name_index_.end())
    return named->second;

  const Bucket* orig = map_.FindBucket(original);
  if (orig == nullptr) {
    return absl::InternalError("device_class_clone of missing bucket " + std::to_string(original) +
                               "; Ceph asserts");
  }
  Bucket copy;
  copy.alg = orig->alg;
  copy.hash = orig->hash;
  copy.type = orig->type;
  const CloneSource source{original, device_class, copy_name};
  CRUSH_ASSIGN_OR_RETURN(
      const std::vector<std::size_t> item_orig_pos,
      CloneItemsOfClass(source, old_class_bucket, used_ids, cmap_item_weight, depth, copy));

  const ItemId bno = ShadowIdFor(original, device_class, old_class_bucket, used_ids);
  const std::vector<ItemId> copy_items = copy.items;
  auto added = crush::AddBucket(map_, bno, std::move(copy));
  if (!added.ok()) {
    if (conflict_ != nullptr) *conflict_ = {original, device_class, bno};
    return ErrnoStatus(
        17, "shadow bucket '" + copy_name + "': " + std::string(added.status().message()));
  }
  const ItemId clone = *added;
  map_.class_map[clone] = device_class;
  SetItemName(clone, copy_name);
  clone_name_index_[copy_name] = clone;
  map_.class_buckets[original][device_class] = clone;
  CRUSH_RETURN_IF_ERROR(
      CloneWeightSets(original, clone, copy_items, item_orig_pos, cmap_item_weight));
  return clone;
}

// Adds to `copy` the original's devices of the class and the clones of its
// child buckets (cloned first, recursively), in item order. Returns, per
// item of `copy`, its position in the original.
absl::StatusOr<std::vector<std::size_t>> Editor::CloneItemsOfClass(
    const CloneSource& source, const ClassBuckets& old_class_bucket,
    const std::set<std::int32_t>& used_ids, CmapItemWeight* cmap_item_weight, int depth,
    Bucket& copy) {
  const int scv = map_.tunables.straw_calc_version;
  std::vector<std::size_t> item_orig_pos;  // clone position -> original position
  const std::size_t size = map_.FindBucket(source.original)->items.size();
  for (std::size_t i = 0; i < size; ++i) {
    // Looked up again each time: cloning a child adds buckets to the map.
    const Bucket& o = *map_.FindBucket(source.original);
    const ItemId item = o.items[i];
    const Weight weight = BucketItemWeight(o, i);
    ItemId added_item = item;
    Weight added_weight = weight;
    if (item >= 0) {
      auto cls = map_.class_map.find(item);
      if (cls == map_.class_map.end() || cls->second != source.device_class) continue;
    } else {
      CRUSH_ASSIGN_OR_RETURN(added_item,
                             DeviceClassClone(item, source.device_class, old_class_bucket, used_ids,
                                              cmap_item_weight, depth + 1));
      const Bucket* child_copy = map_.FindBucket(added_item);
      if (child_copy == nullptr) return absl::InternalError("shadow child missing; Ceph asserts");
      added_weight = child_copy->weight;
    }
    if (absl::Status s = CephBucketAddItem(copy, added_item, added_weight, scv); !s.ok()) {
      auto added_name = map_.item_names.find(added_item);
      return absl::Status(s.code(),
                          "cannot add '" +
                              (added_name != map_.item_names.end() ? added_name->second
                                                                   : std::to_string(added_item)) +
                              "' to '" + source.copy_name + "': " + std::string(s.message()));
    }
    item_orig_pos.push_back(i);
  }
  return item_orig_pos;
}

// The id the shadow bucket gets: the one it had before this rebuild, else
// one free in the map and never used by a shadow bucket.
ItemId Editor::ShadowIdFor(ItemId original, std::int32_t device_class,
                           const ClassBuckets& old_class_bucket,
                           const std::set<std::int32_t>& used_ids) const {
  auto old = old_class_bucket.find(original);
  if (old != old_class_bucket.end() && old->second.count(device_class) != 0) {
    return old->second.at(device_class);
  }
  ItemId bno = -1;
  while ((BucketSlot(bno) < map_.max_buckets() && map_.FindBucket(bno) != nullptr) ||
         used_ids.count(bno) != 0) {
    --bno;
  }
  return bno;
}

// Weight sets of the clone: the original's device entries, the sums
// recorded for child clones made in this rebuild (0 for others). Ceph
// records a fresh vector per position, so only the last position of the
// recorded sums is non-zero; reproduced as is.
absl::Status Editor::CloneWeightSets(ItemId original, ItemId clone,
                                     const std::vector<ItemId>& copy_items,
                                     const std::vector<std::size_t>& item_orig_pos,
                                     CmapItemWeight* cmap_item_weight) {
  for (auto& [index, cmap] : map_.choose_args) {
    auto o = cmap.find(original);
    const std::size_t positions = o == cmap.end() ? 0 : o->second.weight_set.size();
    if (positions == 0) {
      cmap.erase(clone);
      empty_weight_sets_.emplace(index, clone);
      continue;
    }
    empty_weight_sets_.erase({index, clone});
    const std::vector<std::vector<Weight>> orig_ws = o->second.weight_set;
    CRUSH_ASSIGN_OR_RETURN(ChooseArg n, CloneWeightSet(orig_ws, clone, copy_items, item_orig_pos,
                                                       (*cmap_item_weight)[index]));
    cmap[clone] = std::move(n);
  }
  return absl::OkStatus();
}

// One choose_args index of CloneWeightSets; records the clone's sums in
// `recorded` for its parent's clone.
absl::StatusOr<ChooseArg> Editor::CloneWeightSet(const std::vector<std::vector<Weight>>& orig_ws,
                                                 ItemId clone,
                                                 const std::vector<ItemId>& copy_items,
                                                 const std::vector<std::size_t>& item_orig_pos,
                                                 std::map<ItemId, std::vector<Weight>>& recorded) {
  const std::size_t positions = orig_ws.size();
  ChooseArg n;
  n.weight_set.assign(positions, std::vector<Weight>(copy_items.size(), 0));
  for (std::size_t s = 0; s < positions; ++s) {
    std::vector<Weight> bucket_weights(positions, 0);
    for (std::size_t i = 0; i < copy_items.size(); ++i) {
      const ItemId item = copy_items[i];
      Weight w = 0;
      if (item >= 0) {
        if (item_orig_pos[i] >= orig_ws[s].size()) {
          return absl::UnimplementedError("weight set shorter than its bucket; Ceph reads past it");
        }
        w = orig_ws[s][item_orig_pos[i]];
      } else if (auto r = recorded.find(item); r != recorded.end()) {
        if (s >= r->second.size()) {
          // The child clone's weight set has fewer positions: Ceph indexes
          // past the end of its std::vector (heap garbage in the output).
          return absl::UnimplementedError(
              "weight sets with differing position counts; Ceph reads past a vector's end");
        }
        w = r->second[s];
      }
      n.weight_set[s][i] = w;
      bucket_weights[s] += w;
    }
    recorded[clone] = bucket_weights;
  }
  return n;
}

}  // namespace crushkit::crush::internal
