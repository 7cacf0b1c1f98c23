// The one crush-map edit osdmaptool performs: CrushWrapper::adjust_item_weight
// (osdmaptool --adjust-crush-weight, and --mark-up-in for zero-weight OSDs).
// Pure function on a MapModel; thread-compatible.
#ifndef CRUSHKIT_OSDMAP_CRUSH_EDIT_H_
#define CRUSHKIT_OSDMAP_CRUSH_EDIT_H_

#include "absl/status/statusor.h"
#include "crush/model.h"
#include "crush/types.h"

namespace crushkit::osdmap {

// Sets the weight of `id` to `weight` in every bucket that holds it (its
// first position there) and propagates each bucket's new total weight to its
// own parents, as Ceph's CrushWrapper::adjust_item_weightf(..., true) does.
// Returns how many buckets changed (0 if the item is in no bucket: Ceph's
// -ENOENT, not an error). Straw (v1) buckets get their straws recomputed
// with the map's straw_calc_version, as builder.c does.
// With choose_args, Ceph's weight-set bookkeeping is reproduced step by
// step: the item's weight-set entries are set too, every bucket lacking a
// weight set in a choose_args map gets one (its CRUSH item weights), and the
// per-position sums are propagated upwards.
// Cost: O(buckets^2 x height x positions) with choose_args, as in Ceph.
// Errors: kInvalidArgument for a bucket cycle; kUnimplemented where Ceph
// reads past a weight set shorter than its bucket.
absl::StatusOr<int> AdjustItemWeight(crush::MapModel& map, crush::ItemId id,
                                     crush::Weight weight);

// CrushWrapper::adjust_item_weightf(): validate_weightf() first, then
// AdjustItemWeight((int)(weight * 0x10000)). Both conversions are done as
// Ceph's x86-64 build does them: validation converts the 16.16 product to
// uint64 and refuses values above INT_MAX, which also refuses NaN, -inf and
// weights below -1/65536 (negative int64 seen as huge) but lets +inf through
// (it then becomes INT_MIN); out-of-range int conversions give INT_MIN.
// Errors: kOutOfRange when validation refuses (the map is unchanged; Ceph's
// osdmaptool ignores this and still prints "Adjusted ..."), else as
// AdjustItemWeight.
absl::StatusOr<int> AdjustItemWeightF(crush::MapModel& map, crush::ItemId id, float weight);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_CRUSH_EDIT_H_
