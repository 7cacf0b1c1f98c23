// Private to crush/edit*.cc and crush/edit/shadow_trees.cc: Ceph's CrushWrapper
// editing methods as one procedural class over a MapModel. The class keeps
// CrushWrapper's call structure on purpose: the order in which buckets are
// scanned, weight sets are created and shadow ids are picked decides the
// bytes crushtool writes, so the methods mirror the Ceph functions they name
// rather than a tidier design. Not installed; thread-compatible.
#ifndef CRUSHKIT_CRUSH_EDIT_INTERNAL_EDITOR_H_
#define CRUSHKIT_CRUSH_EDIT_INTERNAL_EDITOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "crush/edit/edit.h"
#include "crush/model.h"
#include "crush/types.h"
#include "crush/util/errno_status.h"

namespace crushkit::crush::internal {

// A Status carrying the errno Ceph returns (see CephErrno in edit.h).
using util::ErrnoStatus;

// `status` if it means Ceph would crash (kInternal, kUnimplemented), else OK:
// for results Ceph ignores.
absl::Status IgnoringCephErrors(const absl::Status& status);

// crush_bucket_add_item() with its errno: a 32-bit overflow is -ERANGE.
absl::Status CephBucketAddItem(Bucket& bucket, ItemId item, Weight weight, int straw_calc_version);

// Ceph's float -> 16.16 conversions on x86-64 (validate_weightf and the
// `(int)(weight * (float)0x10000)` cast).
bool WeightFitsLikeCeph(float weight);
Weight FloatToWeightLikeCeph(float weight);

class Editor {
 public:
  // `sole_writer`: nothing but this Editor changes `map` while it lives, so
  // the name index (below) stays right across calls and name lookups use
  // it; the map's acyclicity, once checked, is trusted too (every edit made
  // through the Editor keeps it). Otherwise name lookups scan the names.
  explicit Editor(MapModel& map, bool sole_writer = false) : map_(map), sole_writer_(sole_writer) {}

  MapModel& map() { return map_; }

  // --- names (name_exists, get_item_id, is_valid_crush_name, ...) ---
  static bool IsValidName(std::string_view name);
  bool NameExists(std::string_view name) const;
  // get_item_id(): the highest id carrying `name` (Ceph's reverse map is
  // built in id order), or 0 when none does (Ceph's "hrm").
  ItemId ItemIdOf(std::string_view name) const;

  bool ItemExists(ItemId id) const { return map_.item_names.count(id) != 0; }

  // The writers of map_.item_names within the Editor (set_item_name and
  // the erasures): they keep the name index right.
  void SetItemName(ItemId id, const std::string& name);
  void EraseItemName(ItemId id);

  bool IsShadow(ItemId id) const;
  // split_id_class(): the original bucket of a take step's item ("host~ssd"
  // -> host) and its class id (-1 for a non-shadow item). False where Ceph
  // returns an error: the item has no name, or its base or class is unknown.
  bool SplitIdClass(ItemId step_item, ItemId* original, std::int32_t* class_id = nullptr) const;
  int TypeIdOf(std::string_view type_name) const;  // -1 if unknown

  // --- structure ---
  bool BucketExists(ItemId id) const { return id < 0 && map_.FindBucket(id) != nullptr; }

  bool SearchItemExists(ItemId item) const;
  bool SubtreeContains(ItemId root, ItemId item) const;
  std::set<ItemId> FindRoots() const;
  std::set<ItemId> FindShadowRoots() const;
  std::set<ItemId> FindNonshadowRoots() const;
  // Errors: kInternal when buckets form a cycle (Ceph recurses forever).
  absl::Status CheckAcyclic() const;

  // --- bucket primitives with choose_args bookkeeping ---
  // CrushWrapper::add_bucket: alg kNone means the map's default algorithm.
  absl::StatusOr<ItemId> AddBucket(ItemId id, BucketAlg alg, std::uint16_t type,
                                   const std::vector<ItemId>& items,
                                   const std::vector<Weight>& weights);
  absl::Status BucketAddItem(ItemId bucket, ItemId item, Weight weight);
  absl::Status BucketRemoveItem(ItemId bucket, ItemId item);
  void RemoveBucket(ItemId id);  // crush_remove_bucket
  void UpdateChooseArgs();

  // --- weights (edit_weights.cc) ---
  absl::StatusOr<int> AdjustItemWeight(ItemId id, Weight weight, bool update_weight_sets,
                                       int depth = 0);
  absl::StatusOr<int> AdjustItemWeightInBucket(ItemId id, Weight weight, ItemId bucket,
                                               bool update_weight_sets, int depth = 0);
  absl::StatusOr<int> AdjustItemWeightInLoc(ItemId id, Weight weight, const Location& loc,
                                            bool update_weight_sets);
  // Returns -ENOENT-like 0 changes as 0, like Ceph's count (< 0 only via Status).
  absl::StatusOr<int> AdjustItemWeightFInLoc(ItemId id, float weight, const Location& loc,
                                             bool update_weight_sets);
  // get_item_weight(): a bucket's own weight or the first item weight found.
  std::int64_t ItemWeight(ItemId id) const;

  // --- hierarchy edits (edit.cc) ---
  absl::Status InsertItem(ItemId item, float weight, const std::string& name, const Location& loc,
                          bool init_weight_sets);
  absl::StatusOr<int> UpdateItem(ItemId item, float weight, const std::string& name,
                                 const Location& loc);
  absl::Status RemoveItem(ItemId item, bool unlink_only);
  absl::Status MoveBucket(ItemId id, const Location& loc);
  absl::StatusOr<int> CreateOrMoveItem(ItemId item, float weight, const std::string& name,
                                       const Location& loc);
  bool CheckItemLoc(ItemId item, const Location& loc, Weight* weight) const;
  absl::Status Reweight();

  // update_device_class() (edit.cc).
  absl::Status SetDeviceClass(ItemId id, std::string_view class_name);

  // A public call of an EditSession starts: the state Ceph would keep only
  // within one process (empty_weight_sets_) is forgotten, as a new Editor
  // per call forgets it.
  void StartCall() { empty_weight_sets_.clear(); }

  // --- shadow trees (shadow_trees.cc) ---
  absl::Status RebuildRootsWithClasses();
  std::int32_t GetOrCreateClassId(const std::string& name);
  using ClassBuckets = std::map<std::int32_t, std::map<std::int32_t, std::int32_t>>;
  // populate_classes(); `conflict` (may be null) learns which clone found its
  // id taken (kAlreadyExists).
  absl::Status PopulateClasses(const ClassBuckets& old_class_bucket,
                               ShadowCloneConflict* conflict = nullptr);

 private:
  absl::StatusOr<std::int64_t> DetachBucket(ItemId item);
  bool MaybeRemoveLastInstance(ItemId item, bool unlink_only, absl::Status* status);
  bool BucketIsInUse(ItemId item) const;
  absl::Status BucketAdjustItemWeight(Bucket& b, ItemId item, Weight weight,
                                      bool update_weight_sets);
  absl::StatusOr<int> ChooseArgsAdjust(std::int64_t index, ItemId id,
                                       const std::vector<Weight>& weight, int depth);
  absl::StatusOr<int> ChooseArgsAdjustInBucket(std::int64_t index, ItemId bucket, ItemId id,
                                               const std::vector<Weight>& weight, int depth);
  absl::Status CheckDepth(int depth) const;
  absl::Status ReweightBucket(ItemId id, int depth);
  absl::Status ReweightBucketWeightSets(ItemId id, ChooseArgMap& cmap, std::vector<Weight>* out,
                                        int depth);

  // shadow_trees.cc
  void CleanupDeadClasses();
  bool ClassIsDead(std::int32_t class_id) const;
  absl::Status TrimRootsWithClass();
  void RemoveRoot(ItemId item, int depth);
  using CmapItemWeight = std::map<std::int64_t, std::map<ItemId, std::vector<Weight>>>;
  absl::StatusOr<ItemId> DeviceClassClone(ItemId original, std::int32_t device_class,
                                          const ClassBuckets& old_class_bucket,
                                          const std::set<std::int32_t>& used_ids,
                                          CmapItemWeight* cmap_item_weight, int depth);

  // The bucket a device_class_clone() call is cloning, and the clone's name.
  struct CloneSource {
    ItemId original = 0;
    std::int32_t device_class = 0;
    const std::string& copy_name;
  };

  absl::StatusOr<std::vector<std::size_t>> CloneItemsOfClass(const CloneSource& source,
                                                             const ClassBuckets& old_class_bucket,
                                                             const std::set<std::int32_t>& used_ids,
                                                             CmapItemWeight* cmap_item_weight,
                                                             int depth, Bucket& copy);
  ItemId ShadowIdFor(ItemId original, std::int32_t device_class,
                     const ClassBuckets& old_class_bucket,
                     const std::set<std::int32_t>& used_ids) const;
  absl::Status CloneWeightSets(ItemId original, ItemId clone, const std::vector<ItemId>& copy_items,
                               const std::vector<std::size_t>& item_orig_pos,
                               CmapItemWeight* cmap_item_weight);
  absl::StatusOr<ChooseArg> CloneWeightSet(const std::vector<std::vector<Weight>>& orig_ws,
                                           ItemId clone, const std::vector<ItemId>& copy_items,
                                           const std::vector<std::size_t>& item_orig_pos,
                                           std::map<ItemId, std::vector<Weight>>& recorded);

  // The name index: name -> the highest id carrying it (what ItemIdOf's
  // scan finds) and how many ids carry it, used by NameExists / ItemIdOf
  // when sole_writer_. Built on first use, kept by SetItemName /
  // EraseItemName; an erasure it cannot follow (the highest id of a
  // duplicated name) drops it, to be built again when next needed.
  struct NameEntry {
    ItemId highest = 0;
    std::uint32_t count = 0;
  };

  struct NameHash {
    using is_transparent = void;

    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  // The entry of `name` (null if no id carries it), the index built first
  // if it is not. REQUIRES: sole_writer_.
  const NameEntry* IndexedName(std::string_view name) const;
  void IndexName(const std::string& name, ItemId id);
  void UnindexName(const std::string& name, ItemId id);

  MapModel& map_;
  const bool sole_writer_;
  bool acyclic_checked_ = false;  // when sole_writer_: CheckAcyclic passed
  mutable bool names_indexed_ = false;
  mutable std::unordered_map<std::string, NameEntry, NameHash, std::equal_to<>> name_index_;
  // During PopulateClasses: name -> highest id (Ceph's name_rmap, built
  // when populate_classes starts and, like Ceph's, not told of renames), so
  // device_class_clone's name_exists is a lookup, and the conflict to report.
  std::unordered_map<std::string, ItemId> clone_name_index_;
  ShadowCloneConflict* conflict_ = nullptr;
  // (choose_args index, bucket) pairs whose weight set Ceph has allocated
  // with zero positions (device_class_clone's calloc(0) for clones of
  // buckets without a weight set): not NULL, so never re-created, and
  // adjust_item_weight_in_bucket asserts on them. Not encoded, so they live
  // only as long as this Editor (one public call).
  std::set<std::pair<std::int64_t, ItemId>> empty_weight_sets_;
};

}  // namespace crushkit::crush::internal

#endif  // CRUSHKIT_CRUSH_EDIT_INTERNAL_EDITOR_H_
