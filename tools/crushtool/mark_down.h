// CrushTester::adjust_weights (crushtool --mark-down-ratio R
// [--mark-down-bucket-ratio B]): zero the weight of some devices to test
// placement in a degraded cluster, with CrushTester's lrand48 draws.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_MARK_DOWN_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_MARK_DOWN_H_

#include <vector>

#include "absl/status/status.h"

#include "crush/model.h"
#include "tools/crushtool/lrand48.h"

namespace crushkit::tools::crushtool {

// With device_ratio > 0: the buckets of positive weight whose first item is
// a device are shuffled with `rng` (Ceph's swap loop); of the first
// (int)(bucket_ratio x count) of them, each has its items shuffled (draws
// Ceph makes and then ignores) and its first (int)(device_ratio x size)
// items' weights set to 0. Errors (kUnimplemented, nothing changed) where
// Ceph's answer is undefined: a modulo by zero (exactly one such bucket, or a
// visited bucket of one item: Ceph dies of SIGFPE), a ratio that reaches
// past the end of a list, or an item that is not a device below
// weight.size() (an out-of-bounds write in Ceph).
absl::Status MarkDevicesDown(const crush::MapModel& map, float device_ratio, float bucket_ratio,
                             std::vector<crush::Weight>& weight, Lrand48& rng);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_MARK_DOWN_H_
