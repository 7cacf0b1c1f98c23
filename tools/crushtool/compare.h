// `crushtool --compare OTHER` (Pacific 16.2 CrushTester::compare()): maps
// every rule x num_rep x input on the edited map and on OTHER with the same
// device weights and counts the inputs whose results differ, printing
// "rule N had B/T mismatched mappings (ratio)" per rule and "maps appear
// equivalent" or, on stderr, "warning: maps are NOT equivalent".
// Thread-safety: pure functions on their arguments (and the two streams).
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_COMPARE_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_COMPARE_H_

#include <cstdio>
#include <optional>

#include "crush/ceph_release.h"
#include "crush/map.h"
#include "crush/model.h"
#include "tools/crushtool/options.h"
#include "tools/crushtool/tester.h"

namespace crushkit::tools::crushtool {

// CrushTester::compare(): rules min_rule..max_rule of `map` (all by
// default), inputs min_x..max_x (0..1023 by default; no --pool-id hashing,
// no batches), num_rep as --test picks it, weights TestDeviceWeights(map).
// `statistics` adds "rule N dne" for empty rule slots. A rule that `other`
// lacks maps to an empty result (Ceph crashes on an empty slot below its
// max_rules; crushkit says so on stderr). Returns 0 when every result
// matched, else 1.
int CompareMaps(const crush::CrushMap& map, const crush::CrushMap& other,
                const TestOptions& options, bool statistics, TestOutput& output);

// The --compare stage of crushtool: reads and decodes `options.compare` as
// -i is read (Ceph's "error reading" / "unable to decode" messages), then
// CompareMaps() with the edited `model`. Returns the exit status to stop
// with (1 when the maps differ or a map cannot be read), or nullopt.
std::optional<int> RunCompareStage(const CrushtoolOptions& options, const crush::MapModel& model,
                                   crush::CephRelease release, std::FILE* out, std::FILE* err);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_COMPARE_H_
