// Proving that a map edit cannot move any data, without mapping: the edits
// that only add items a straw2 draw can never pick. A straw2 bucket gives an
// item of weight 0 the lowest possible draw, and an item wins only with a
// strictly higher draw than every item before it (bucket_straw2_choose), so
// items of weight 0 appended to a bucket that already had an item are never
// chosen, and nothing below them is ever reached. Adding a host or a rack
// with CRUSH weight 0 (osd_crush_initial_weight = 0) is such an edit.
//
// Thread-safety: a pure function.
#ifndef CRUSHKIT_CRUSH_EDIT_ZERO_WEIGHT_ADDITIONS_H_
#define CRUSHKIT_CRUSH_EDIT_ZERO_WEIGHT_ADDITIONS_H_

#include "crush/model.h"

namespace crushkit::crush {

// True if every DoRule() result of `before` (any rule, input, result size,
// reweights of the devices `before` names, choose_args index) is the same
// on `after`, because `after` differs from `before` only by:
//  * new buckets (ids `before` does not use) and new devices;
//  * items appended to straw2 buckets of `before` that had at least one
//    item, each appended with weight 0 in the bucket and in every weight-set
//    position of its choose_args, the bucket's own weight unchanged;
//  * names, classes and other data the mapper does not read.
// Tunables, rules and every other bucket must be identical, no rule may
// take a bucket that `before` lacks, and choose_local_fallback_tries must be
// 0 (legacy tunables permute buckets whatever the weights). False means "not proven", not "moves".
// Cost: O(size of the maps).
bool OnlyAddsZeroWeightItems(const MapModel& before, const MapModel& after);

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_EDIT_ZERO_WEIGHT_ADDITIONS_H_
