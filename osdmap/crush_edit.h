// The one crush-map edit osdmaptool performs: CrushWrapper::adjust_item_weight
// (osdmaptool --adjust-crush-weight, and --mark-up-in for zero-weight OSDs).
// Pure function on a MapModel; thread-compatible.
#ifndef CRUSHKIT_OSDMAP_CRUSH_EDIT_H_
#define CRUSHKIT_OSDMAP_CRUSH_EDIT_H_

#include "absl/status/statusor.h"
#include "crush/model.h"
#include "crush/types.h"

namespace crushkit::osdmap {

// Sets the weight of `id` to `weight` in every bucket that holds it and
// propagates each bucket's new total weight to its own parents, as Ceph's
// CrushWrapper::adjust_item_weight() does. Returns how many buckets changed
// (0 if the item is in no bucket: Ceph's -ENOENT, not an error).
// Straw (v1) buckets get their straws recomputed with the map's
// straw_calc_version, as builder.c does.
// Errors: kUnimplemented if the map has choose_args (Ceph also rewrites the
// weight sets; not reproduced yet).
absl::StatusOr<int> AdjustItemWeight(crush::MapModel& map, crush::ItemId id,
                                     crush::Weight weight);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_CRUSH_EDIT_H_
