// The one CRUSH map-editing library: CrushWrapper's edits as pure functions
// on a MapModel, giving the bytes Ceph's crushtool 16.2 writes for the same
// edit (weights propagated to ancestors, straw/list/tree derived arrays
// rebuilt by builder.h, choose_args weight sets kept in step, the bucket ids
// Ceph assigns). Used by the crushtool front's editing flags, the change
// planner (osdmap/apply_change.h) and `crushkit strategies`.
//
// None of these rebuilds the device-class shadow trees: crushtool calls
// rebuild_roots_with_classes() once after all its modifications, and so must
// callers (RebuildRootsWithClasses below).
// Thread-safety: functions on values; thread-compatible.
#ifndef CRUSHKIT_CRUSH_EDIT_H_
#define CRUSHKIT_CRUSH_EDIT_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crush/model.h"
#include "crush/types.h"

namespace crushkit::crush {

// A CRUSH location as Ceph spells it: type name -> bucket name
// ("host" -> "node3", "rack" -> "rack1", "root" -> "default").
using Location = std::map<std::string, std::string>;

// The item (device or bucket, shadow buckets included) named `name`.
// Errors: kNotFound.
absl::StatusOr<ItemId> FindItem(const MapModel& map, std::string_view name);

// CrushWrapper::adjust_item_weight: sets `id`'s weight in every bucket that
// holds it and propagates to ancestors (weight sets too). Returns the number
// of buckets changed (0: the item is in no bucket, not an error).
absl::StatusOr<int> AdjustItemWeight(MapModel& map, ItemId id, Weight weight);
// CrushWrapper::adjust_item_weightf: validate_weightf, then the above.
absl::StatusOr<int> AdjustItemWeightF(MapModel& map, ItemId id, float weight);

// CrushWrapper::insert_item (crushtool --add-item ID WEIGHT NAME --loc ...):
// links a new item under the lowest bucket of `loc`, creating missing
// ancestors with the map's default bucket algorithm.
absl::Status InsertItem(MapModel& map, ItemId id, float weight, std::string_view name,
                        const Location& loc);

// CrushWrapper::update_item (crushtool --update-item): moves and/or
// reweights an existing item, or inserts it if absent.
absl::Status UpdateItem(MapModel& map, ItemId id, float weight, std::string_view name,
                        const Location& loc);

// CrushWrapper::remove_item (crushtool --remove-item NAME): unlinks `id`
// from every parent and, unless `unlink_only`, deletes it (a bucket must be
// empty and unused by rules).
absl::Status RemoveItem(MapModel& map, ItemId id, bool unlink_only = false);

// crushtool --add-bucket NAME TYPE [--loc ...]: a new empty bucket of the
// map's default algorithm, optionally linked at `loc`. Returns its id.
absl::StatusOr<ItemId> CreateBucket(MapModel& map, std::string_view name, std::string_view type,
                                    const Location& loc = {});

// CrushWrapper::move_bucket (crushtool --move NAME --loc ...).
absl::Status MoveBucket(MapModel& map, ItemId id, const Location& loc);

// CrushWrapper::update_device_class: device `id` gets class `class_name`
// (created if new).
absl::Status SetDeviceClass(MapModel& map, ItemId id, std::string_view class_name);

// CrushWrapper::rebuild_roots_with_classes: regenerates every shadow tree,
// keeping existing shadow ids.
absl::Status RebuildRootsWithClasses(MapModel& map);

// crushtool --reweight: every bucket's weight recomputed bottom-up.
absl::Status ReweightAll(MapModel& map);

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_EDIT_H_
