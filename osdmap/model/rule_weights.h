// The share of a CRUSH rule's placements each device should get, as Ceph's
// CrushWrapper::get_rule_weight_osd_map() computes it: every take step
// contributes its subtree's devices with their bucket item weights
// normalised to sum 1. The monitor's upmap cleanup (upmap_cleanup.h) uses it
// to spot devices outside a rule's subtree or with zero CRUSH weight; the
// upmap balancer and a planner use it as each OSD's expected share.
// Pure functions of a crush::MapModel; thread-safe.
#ifndef CRUSHKIT_OSDMAP_MODEL_RULE_WEIGHTS_H_
#define CRUSHKIT_OSDMAP_MODEL_RULE_WEIGHTS_H_

#include <cstdint>
#include <map>

#include "absl/status/statusor.h"

#include "crush/ceph_release.h"
#include "crush/model.h"

namespace crushkit::osdmap {

// CrushWrapper::get_rule_weight_osd_map(rule): device id -> weight.
// For each take step, in rule order: a taken device counts 1; a taken
// bucket is walked breadth first (every path, so a bucket linked twice
// counts twice), each device getting its item weight in the bucket that
// holds it (the last one walked, if several) and the sum adding every
// occurrence; the devices' weights divided by that sum are then added to
// the result. All arithmetic is in float, 16.16 weights taken as integers,
// exactly as Ceph does it, so the values (and a 0/0 NaN for a take whose
// subtree weighs nothing) are bit-identical. Other steps are ignored, and
// how many replicas each take places is not taken into account (Ceph's
// FIXME). A rule without take steps gives an empty map.
// Errors: kNotFound if `rule` is not a rule id of `map`; kInvalidArgument if
// a take step or a bucket item names a missing bucket (Ceph asserts or reads
// out of bounds); kResourceExhausted past 2^24 bucket visits (a cycle, or a
// pathological DAG; CrushMap::Build rejects cycles).
// Cost: O(buckets visited + devices x log devices) per take step.
absl::StatusOr<std::map<std::int32_t, float>> RuleWeightOsdMap(const crush::MapModel& map,
                                                               int rule);

// The same as `release`'s OSDMap::calc_read_balance_score sees it. Tentacle
// (20.2) normalises once over all take steps: every device walked keeps its
// last item weight, divided by the sum of every take's weight (so two takes
// of one root give each device half its single-take weight, and disjoint
// takes sum to 1; measured against osdmaptool 20.2's primary_affinity_weighted,
// e.g. 0.78870559 for a one-device take plus a three-device take holding it).
// A taken device resets that sum to 1, as in the per-take code (not seen in
// a Tentacle run). Pacific and Reef: RuleWeightOsdMap(map, rule).
absl::StatusOr<std::map<std::int32_t, float>> RuleWeightOsdMap(const crush::MapModel& map, int rule,
                                                               crush::CephRelease release);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_RULE_WEIGHTS_H_
