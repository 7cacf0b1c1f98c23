// CrushWrapper's item edits (src/crush/CrushWrapper.cc, Ceph 16.2):
// check_item_loc, insert_item, update_item, remove_item (with
// _bucket_is_in_use, split_id_class and _maybe_remove_last_instance),
// detach_bucket/move_bucket, create_or_move_item, reweight_bucket and
// reweight, as members of internal::Editor. Lookups and the bucket
// primitives they use are in edit.cc.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "crush/builder.h"
#include "crush/edit/edit.h"
#include "crush/edit/internal/editor.h"
#include "crush/status_macros.h"

namespace crushkit::crush::internal {

bool Editor::CheckItemLoc(ItemId item, const Location& loc, Weight* weight) const {
  for (const auto& [type_id, type_name] : map_.type_names) {
    if (type_id == 0) continue;
    auto q = loc.find(type_name);
    if (q == loc.end()) continue;
    if (!NameExists(q->second)) return false;
    const ItemId id = ItemIdOf(q->second);
    if (id >= 0) return false;
    const Bucket* b = map_.FindBucket(id);
    if (b == nullptr) return false;  // Ceph asserts; callers check first
    for (std::size_t j = 0; j < b->items.size(); ++j) {
      if (b->items[j] == item) {
        if (weight != nullptr) *weight = BucketItemWeight(*b, j);
        return true;
      }
    }
    return false;
  }
  return false;
}

// insert_item().
absl::Status Editor::InsertItem(ItemId item, float weight, const std::string& name,
                                const Location& loc, bool init_weight_sets) {
  if (!acyclic_checked_) {
    CRUSH_RETURN_IF_ERROR(CheckAcyclic());
    // A sole writer's edits keep the map acyclic (a link that would close
    // a loop is refused below), so one check serves the Editor's life.
    acyclic_checked_ = sole_writer_;
  }
  if (!IsValidName(name)) return ErrnoStatus(22, "invalid name '" + name + "'");
  for (const auto& [k, v] : loc) {
    if (!IsValidName(k) || !IsValidName(v)) {
      return ErrnoStatus(22, "loc[" + k + "] = '" + v + "' not a valid crush name");
    }
  }
  if (!WeightFitsLikeCeph(weight)) return ErrnoStatus(75, "weight does not fit 16.16");
  if (NameExists(name)) {
    if (ItemIdOf(name) != item) return ErrnoStatus(17, "name '" + name + "' already exists");
  } else {
    SetItemName(item, name);
  }
  ItemId cur = item;
  for (const auto& [type_id, type_name] : map_.type_names) {
    if (type_id == 0) continue;
    auto q = loc.find(type_name);
    if (q == loc.end()) continue;
    if (!NameExists(q->second)) {
      CRUSH_ASSIGN_OR_RETURN(
          ItemId new_id,
          AddBucket(0, BucketAlg::kNone, static_cast<std::uint16_t>(type_id), {cur}, {0}));
      SetItemName(new_id, q->second);
      cur = new_id;
      continue;
    }
    const ItemId id = ItemIdOf(q->second);
    if (!BucketExists(id)) return ErrnoStatus(22, "'" + q->second + "' is not a bucket");
    if (SubtreeContains(id, cur)) return ErrnoStatus(22, "item already below " + q->second);
    const Bucket* b = map_.FindBucket(id);
    if (b->type != type_id) return ErrnoStatus(22, "bucket '" + q->second + "' has another type");
    if (SubtreeContains(cur, b->id)) return ErrnoStatus(40, "cannot form loop");
    if (!BucketAddItem(id, cur, 0).ok()) {
      return absl::InternalError("bucket_add_item fails here; Ceph asserts");
    }
    break;
  }
  CRUSH_ASSIGN_OR_RETURN(int changed,
                         AdjustItemWeightFInLoc(item, weight, loc, item >= 0 && init_weight_sets));
  if (changed > 0) {
    if (item >= map_.max_devices) map_.max_devices = item + 1;
    return RebuildRootsWithClasses();
  }
  return ErrnoStatus(22, "didn't find anywhere to add item " + std::to_string(item));
}

// update_item(): 1 when something changed, 0 when not.
absl::StatusOr<int> Editor::UpdateItem(ItemId item, float weight, const std::string& name,
                                       const Location& loc) {
  CRUSH_RETURN_IF_ERROR(CheckAcyclic());
  if (!IsValidName(name)) return ErrnoStatus(22, "invalid name '" + name + "'");
  for (const auto& [k, v] : loc) {
    if (!IsValidName(k) || !IsValidName(v)) return ErrnoStatus(22, "invalid location");
  }
  if (!WeightFitsLikeCeph(weight)) return ErrnoStatus(75, "weight does not fit 16.16");
  const Weight iweight = FloatToWeightLikeCeph(weight);
  Weight old_iweight = 0;
  int ret = 0;
  if (CheckItemLoc(item, loc, &old_iweight)) {
    if (old_iweight != iweight) {
      CRUSH_RETURN_IF_ERROR(AdjustItemWeightInLoc(item, iweight, loc, true).status());
      CRUSH_RETURN_IF_ERROR(RebuildRootsWithClasses());
      ret = 1;
    }
    auto it = map_.item_names.find(item);
    if (it == map_.item_names.end()) {
      return absl::InternalError("item has no name; Ceph builds a string from NULL");
    }
    if (it->second != name) {
      SetItemName(item, name);
      ret = 1;
    }
    return ret;
  }
  if (ItemExists(item)) CRUSH_RETURN_IF_ERROR(IgnoringCephErrors(RemoveItem(item, true)));
  CRUSH_RETURN_IF_ERROR(InsertItem(item, weight, name, loc, true));
  return 1;
}

// split_id_class(): false means "error" (which makes _bucket_is_in_use()
// answer "not in use" and reclassify() fail).
bool Editor::SplitIdClass(ItemId step_item, ItemId* original, std::int32_t* class_id) const {
  auto it = map_.item_names.find(step_item);
  if (it == map_.item_names.end()) return false;
  const std::string& name = it->second;
  const std::size_t pos = name.find('~');
  if (pos == std::string::npos) {
    *original = step_item;
    if (class_id != nullptr) *class_id = -1;
    return true;
  }
  const std::string base = name.substr(0, pos);
  const std::string cls = name.substr(pos + 1);
  if (!NameExists(base)) return false;
  const bool class_exists = std::any_of(map_.class_names.begin(), map_.class_names.end(),
                                        [&](const auto& kv) { return kv.second == cls; });
  if (!class_exists) return false;
  *original = ItemIdOf(base);
  if (class_id != nullptr) {
    // get_class_id(): Ceph's reverse class map keeps the highest id of a
    // repeated name.
    for (const auto& [id, n] : map_.class_names) {
      if (n == cls) *class_id = id;
    }
  }
  return true;
}

bool Editor::BucketIsInUse(ItemId item) const {
  for (const auto& [orig, by_class] : map_.class_buckets) {
    for (const auto& [cls, shadow] : by_class) {
      if (shadow == item) return true;
    }
  }
  for (std::size_t r = 0; r < map_.rules.size(); ++r) {
    if (!map_.rule_exists[r]) continue;
    for (const RuleStep& step : map_.rules[r].steps) {
      if (step.op != RuleOp::kTake) continue;
      ItemId original = 0;
      if (!SplitIdClass(step.arg1, &original)) return false;
      if (step.arg1 == item || original == item) return true;
    }
  }
  return false;
}

// _maybe_remove_last_instance(): true if it did something (then `status`
// holds the shadow-tree rebuild's result).
bool Editor::MaybeRemoveLastInstance(ItemId item, bool unlink_only, absl::Status* status) {
  if (SearchItemExists(item)) return false;
  if (item < 0 && BucketIsInUse(item)) return false;
  if (item < 0 && !unlink_only) {
    RemoveBucket(item);
    map_.class_buckets.erase(item);
    map_.class_map.erase(item);
    UpdateChooseArgs();
  }
  if ((item >= 0 || !unlink_only) && map_.item_names.count(item) != 0) {
    EraseItemName(item);
    if (item >= 0 && !unlink_only) map_.class_map.erase(item);
  }
  // Ceph ignores the rebuild's result here (a failed rebuild leaves the
  // shadow trees it had made so far).
  *status = IgnoringCephErrors(RebuildRootsWithClasses());
  return true;
}

// remove_item().
absl::Status Editor::RemoveItem(ItemId item, bool unlink_only) {
  CRUSH_RETURN_IF_ERROR(CheckAcyclic());
  if (item < 0 && !unlink_only) {
    const Bucket* t = map_.FindBucket(item);
    if (t == nullptr) return ErrnoStatus(2, "bucket " + std::to_string(item) + " does not exist");
    if (!t->items.empty()) return ErrnoStatus(39, "bucket " + std::to_string(item) + " not empty");
    if (BucketIsInUse(item)) return ErrnoStatus(16, "bucket " + std::to_string(item) + " in use");
  }
  bool found = false;
  for (std::size_t slot = 0; slot < map_.buckets.size(); ++slot) {
    if (map_.buckets[slot].alg == BucketAlg::kNone) continue;
    const ItemId bid = BucketIdOfSlot(static_cast<int>(slot));
    // Ceph's loop goes on at i + 1 after a removal, so an adjacent
    // duplicate is skipped; the size is re-read every round.
    for (std::size_t i = 0; i < map_.buckets[slot].items.size(); ++i) {
      if (map_.buckets[slot].items[i] != item) continue;
      CRUSH_RETURN_IF_ERROR(AdjustItemWeightInBucket(item, 0, bid, true).status());
      CRUSH_RETURN_IF_ERROR(BucketRemoveItem(bid, item));
      found = true;
    }
  }
  absl::Status rebuilt;
  if (MaybeRemoveLastInstance(item, unlink_only, &rebuilt)) {
    CRUSH_RETURN_IF_ERROR(rebuilt);
    found = true;
  }
  if (!found) return ErrnoStatus(2, "item " + std::to_string(item) + " not found");
  return absl::OkStatus();
}

// detach_bucket(): unlinks from the first non-shadow parent; returns the
// bucket's weight.
absl::StatusOr<std::int64_t> Editor::DetachBucket(ItemId item) {
  const Bucket* b = map_.FindBucket(item);
  if (b == nullptr) return absl::InternalError("detach_bucket of a missing bucket; Ceph asserts");
  const Weight bucket_weight = b->weight;
  ItemId parent = 0;
  for (const Bucket& p : map_.buckets) {
    if (p.alg == BucketAlg::kNone || IsShadow(p.id)) continue;
    if (std::find(p.items.begin(), p.items.end(), item) != p.items.end()) {
      if (map_.item_names.count(p.id) == 0 || map_.type_names.count(p.type) == 0) {
        return absl::InternalError("parent bucket without a name or type; Ceph throws");
      }
      // get_item_id(name of parent): the highest id with that name.
      parent = ItemIdOf(map_.item_names.at(p.id));
      break;
    }
  }
  if (BucketExists(parent)) {
    CRUSH_RETURN_IF_ERROR(AdjustItemWeightInBucket(item, 0, parent, true).status());
    const Bucket* pb = map_.FindBucket(parent);
    if (std::find(pb->items.begin(), pb->items.end(), item) == pb->items.end()) {
      return absl::InternalError("detach_bucket: parent lost the item; Ceph asserts");
    }
    CRUSH_RETURN_IF_ERROR(BucketRemoveItem(parent, item));
  }
  return bucket_weight;
}

// move_bucket().
absl::Status Editor::MoveBucket(ItemId id, const Location& loc) {
  if (id >= 0) return ErrnoStatus(22, "only buckets can be moved");
  if (!ItemExists(id)) return ErrnoStatus(2, "bucket " + std::to_string(id) + " has no name");
  CRUSH_RETURN_IF_ERROR(CheckAcyclic());
  const std::string name = map_.item_names.at(id);
  CRUSH_ASSIGN_OR_RETURN(std::int64_t weight, DetachBucket(id));
  // `int bucket_weight = detach_bucket(...)`, then weight / (float)0x10000.
  const auto as_int = static_cast<std::int32_t>(static_cast<std::uint32_t>(weight));
  return InsertItem(id, static_cast<float>(as_int) / static_cast<float>(0x10000), name, loc, false);
}

// create_or_move_item(): 0 unchanged, 1 changed.
absl::StatusOr<int> Editor::CreateOrMoveItem(ItemId item, float weight, const std::string& name,
                                             const Location& loc) {
  if (!IsValidName(name)) return ErrnoStatus(22, "invalid name '" + name + "'");
  if (CheckItemLoc(item, loc, nullptr)) return 0;
  CRUSH_RETURN_IF_ERROR(CheckAcyclic());
  if (SearchItemExists(item)) {
    const auto w = static_cast<std::int32_t>(ItemWeight(item));
    weight = static_cast<float>(w) / static_cast<float>(0x10000);
    CRUSH_RETURN_IF_ERROR(IgnoringCephErrors(RemoveItem(item, true)));
  }
  CRUSH_RETURN_IF_ERROR(InsertItem(item, weight, name, loc, true));
  return 1;
}

// builder.c crush_reweight_bucket() and its per-algorithm helpers.
absl::Status Editor::ReweightBucket(ItemId id, int depth) {
  CRUSH_RETURN_IF_ERROR(CheckDepth(depth));
  const auto overflow = [] { return absl::InternalError("bucket weight overflows; Ceph asserts"); };
  const std::size_t size = map_.FindBucket(id)->items.size();
  std::uint64_t sum = 0;
  std::uint32_t buckets = 0, leaves = 0;
  Weight total = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const ItemId child = map_.FindBucket(id)->items[i];
    if (child < 0) {
      if (map_.FindBucket(child) == nullptr) {
        return absl::InternalError("bucket " + std::to_string(id) + " holds missing bucket " +
                                   std::to_string(child) + "; Ceph dereferences NULL");
      }
      CRUSH_RETURN_IF_ERROR(ReweightBucket(child, depth + 1));
    }
    Bucket& b = *map_.FindBucket(id);
    const Weight cw = child < 0 ? map_.FindBucket(child)->weight : 0;
    switch (b.alg) {
      case BucketAlg::kUniform:
        if (child < 0) {
          if (cw > 0xffffffffULL - sum) return overflow();
          sum += cw;
          ++buckets;
        } else {
          ++leaves;
        }
        continue;
      case BucketAlg::kTree: {
        const auto node = static_cast<std::size_t>(TreeNodeOfLeaf(static_cast<int>(i)));
        if (node >= b.node_weights.size()) return absl::InternalError("tree node array too short");
        if (child < 0) b.node_weights[node] = cw;
        if (b.node_weights[node] > 0xffffffffU - total) return overflow();
        total += b.node_weights[node];
        continue;
      }
      default:
        if (i >= b.item_weights.size()) return absl::InternalError("item weights too short");
        if (child < 0) b.item_weights[i] = cw;
        if (b.item_weights[i] > 0xffffffffU - total) return overflow();
        total += b.item_weights[i];
    }
  }
  Bucket& b = *map_.FindBucket(id);
  if (b.alg == BucketAlg::kUniform) {
    if (buckets > leaves) b.uniform_item_weight = static_cast<Weight>(sum / buckets);
    b.weight = b.uniform_item_weight * static_cast<Weight>(b.items.size());
  } else {
    b.weight = total;
    if (b.alg == BucketAlg::kStraw)
      b.straws = CalcStraws(b.item_weights, map_.tunables.straw_calc_version);
  }
  return absl::OkStatus();
}

// CrushWrapper::reweight_bucket() on one choose_args map: sums position 0
// of each device's weight set into every position and stores each child
// bucket's sums over its entry in position 0 (the last position wins).
absl::Status Editor::ReweightBucketWeightSets(ItemId id, ChooseArgMap& cmap,
                                              std::vector<Weight>* weightv, int depth) {
  CRUSH_RETURN_IF_ERROR(CheckDepth(depth));
  auto it = cmap.find(id);
  const std::size_t npos = it == cmap.end() ? 0 : it->second.weight_set.size();
  weightv->resize(npos, 0);
  const std::size_t size = map_.FindBucket(id)->items.size();
  if (npos > 0 && it->second.weight_set[0].size() < size) {
    return absl::UnimplementedError("weight set shorter than its bucket; Ceph reads past it");
  }
  for (std::size_t i = 0; i < size; ++i) {
    const ItemId item = map_.FindBucket(id)->items[i];
    if (item >= 0) {
      for (std::size_t pos = 0; pos < npos; ++pos) (*weightv)[pos] += cmap[id].weight_set[0][i];
      continue;
    }
    std::vector<Weight> subw(npos, 0);
    CRUSH_RETURN_IF_ERROR(ReweightBucketWeightSets(item, cmap, &subw, depth + 1));
    // Ceph's resize() of `subw` to the child's (smaller) position count
    // keeps the storage; the positions it then reads past the end still hold
    // the zeros they were created with.
    subw.resize(std::max(subw.size(), npos), 0);
    for (std::size_t pos = 0; pos < npos; ++pos) {
      (*weightv)[pos] += subw[pos];
      cmap[id].weight_set[0][i] = subw[pos];
    }
  }
  return absl::OkStatus();
}

// CrushWrapper::reweight().
absl::Status Editor::Reweight() {
  CRUSH_RETURN_IF_ERROR(CheckAcyclic());
  for (ItemId root : FindNonshadowRoots()) {
    if (root >= 0) continue;
    CRUSH_RETURN_IF_ERROR(ReweightBucket(root, 0));
    for (auto& [index, cmap] : map_.choose_args) {
      std::vector<Weight> discarded;
      CRUSH_RETURN_IF_ERROR(ReweightBucketWeightSets(root, cmap, &discarded, 0));
    }
  }
  return RebuildRootsWithClasses();
}

}  // namespace crushkit::crush::internal
