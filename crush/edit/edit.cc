// CrushWrapper's hierarchy edits (src/crush/CrushWrapper.cc, Ceph 16.2):
// names and lookups, add_bucket/bucket_add_item/bucket_remove_item with
// their choose_args bookkeeping, update_choose_args, insert_item,
// update_item, remove_item, move_bucket/detach_bucket, create_or_move_item,
// check_item_loc, reweight; and crushtool's do_add_bucket. Weight
// adjustment lives in edit_weights.cc, shadow trees in shadow_trees.cc.
#include "crush/edit/edit.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
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
  return std::any_of(map_.item_names.begin(), map_.item_names.end(),
                     [&](const auto& kv) { return kv.second == name; });
}

ItemId Editor::ItemIdOf(std::string_view name) const {
  ItemId id = 0;
  for (const auto& [i, n] : map_.item_names) {
    if (n == name) id = i;
  }
  return id;
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

// find_roots(): buckets no bucket holds (one pass over all items rather
// than Ceph's search per bucket; same set).
std::set<ItemId> Editor::FindRoots() const {
  std::set<ItemId> linked;
  for (const Bucket& b : map_.buckets) {
    if (b.alg == BucketAlg::kNone) continue;
    for (ItemId item : b.items) {
      if (item < 0) linked.insert(item);
    }
  }
  std::set<ItemId> roots;
  for (const Bucket& b : map_.buckets) {
    if (b.alg != BucketAlg::kNone && linked.count(b.id) == 0) roots.insert(b.id);
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
  CRUSH_RETURN_IF_ERROR(CheckAcyclic());
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
    map_.item_names[item] = name;
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
      map_.item_names[new_id] = q->second;
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
      it->second = name;
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
    map_.item_names.erase(item);
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
  map.item_names[id] = std::string(name);
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
  internal::Editor editor(map);
  auto cur = map.class_map.find(id);
  if (cur != map.class_map.end()) {
    auto cn = map.class_names.find(cur->second);
    if (cn != map.class_names.end() && cn->second != class_name) {
      return absl::UnavailableError("item " + std::to_string(id) + " already has class '" +
                                    cn->second + "'");
    }
  }
  const std::int32_t class_id = editor.GetOrCreateClassId(std::string(class_name));
  if (id < 0) return absl::InvalidArgumentError("id " + std::to_string(id) + " is negative");
  if (cur != map.class_map.end() && cur->second == class_id) return absl::OkStatus();
  map.class_map[id] = class_id;
  return editor.RebuildRootsWithClasses();
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
