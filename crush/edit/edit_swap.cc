// CrushWrapper::swap_bucket (OSDMonitor "osd crush swap-bucket"): two
// buckets trade their contents and names, so a replacement host can take an
// old host's place in the tree.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

#include "crush/builder.h"
#include "crush/edit/display.h"
#include "crush/edit/edit.h"
#include "crush/edit/internal/editor.h"
#include "crush/status_macros.h"

namespace crushkit::crush {
namespace {

// is_parent_of(): `p` is an ancestor of `child` along immediate parents.
bool IsAncestor(const MapModel& map, ItemId child, ItemId p) {
  // A cycle would loop forever in Ceph; the bucket count bounds the walk.
  for (std::size_t steps = 0; steps <= map.buckets.size(); ++steps) {
    const Bucket* parent = ImmediateParent(map, child);
    if (parent == nullptr) return false;
    if (parent->id == p) return true;
    child = parent->id;
  }
  return false;
}

// Empties bucket `id` the way swap_bucket does, always taking the item in
// position 0: its items and their weights, in the order removed.
absl::StatusOr<std::vector<std::pair<ItemId, Weight>>> TakeAll(internal::Editor& editor,
                                                               ItemId id) {
  std::vector<std::pair<ItemId, Weight>> taken;
  const std::size_t n = editor.map().FindBucket(id)->items.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Bucket& b = *editor.map().FindBucket(id);
    const ItemId item = b.items[0];
    taken.emplace_back(item, BucketItemWeight(b, 0));
    CRUSH_RETURN_IF_ERROR(editor.BucketRemoveItem(id, item));
  }
  // A tree bucket keeps zeroed leaves: Ceph's ceph_assert(size == 0) fails.
  if (!editor.map().FindBucket(id)->items.empty()) {
    return absl::InternalError("a tree bucket cannot be emptied item by item; Ceph asserts");
  }
  return taken;
}

}  // namespace

absl::Status SwapBucket(MapModel& map, ItemId src, ItemId dst) {
  internal::Editor editor(map);
  if (src >= 0 || dst >= 0) return internal::ErrnoStatus(22, "only buckets can be swapped");
  if (!editor.ItemExists(src) || !editor.ItemExists(dst)) {
    return internal::ErrnoStatus(22, "both buckets must exist");
  }
  if (!editor.BucketExists(src) || !editor.BucketExists(dst)) {
    return absl::InternalError("a named bucket id has no bucket; Ceph dereferences it");
  }
  if (IsAncestor(map, src, dst) || IsAncestor(map, dst, src)) {
    return internal::ErrnoStatus(22, "one bucket is inside the other");
  }
  const Weight src_weight = map.FindBucket(src)->weight;
  const Weight dst_weight = map.FindBucket(dst)->weight;
  // Each takes the other's weight in its parents (-ENOENT for an orphan is
  // ignored, as Ceph ignores it).
  CRUSH_RETURN_IF_ERROR(editor.AdjustItemWeight(src, dst_weight, true).status());
  CRUSH_RETURN_IF_ERROR(editor.AdjustItemWeight(dst, src_weight, true).status());

  // Ceph keeps src's items in a std::map, so dst receives them in id order;
  // src receives dst's items in dst's order.
  std::map<ItemId, Weight> from_src;
  CRUSH_ASSIGN_OR_RETURN(auto taken_src, TakeAll(editor, src));
  for (const auto& [item, weight] : taken_src) from_src[item] = weight;
  CRUSH_ASSIGN_OR_RETURN(auto taken_dst, TakeAll(editor, dst));
  for (const auto& [item, weight] : taken_dst) {
    CRUSH_RETURN_IF_ERROR(editor.BucketAddItem(src, item, weight));
  }
  for (const auto& [item, weight] : from_src) {
    CRUSH_RETURN_IF_ERROR(editor.BucketAddItem(dst, item, weight));
  }
  std::swap(map.item_names[src], map.item_names[dst]);
  return editor.RebuildRootsWithClasses();
}

}  // namespace crushkit::crush
