// crushtool's display stages after the modifications, in Ceph's order:
// --show-location, --tree, --bucket-tree (the devices under --bucket-name,
// CrushWrapper::get_leaves) and --dump (RunDisplayStage, before the
// decompile stage), then --check (RunCheckStage, after it).
// Thread-safety: writes to the given FILEs only.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_DISPLAY_STAGE_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_DISPLAY_STAGE_H_

#include <cstdio>
#include <optional>

#include "crush/ceph_release.h"
#include "crush/model.h"
#include "tools/crushtool/options.h"

namespace crushkit::tools::crushtool {

// Prints the location, tree, leaves and dump `o` asks for, the dump as
// `release` spells it. Returns an exit code
// when crushtool must stop (crushkit refuses a map on which Ceph crashes or
// never ends; the reason goes to `err`), nullopt to go on.
std::optional<int> RunDisplayStage(const CrushtoolOptions& o, const crush::MapModel& model,
                                   crush::CephRelease release, std::FILE* out, std::FILE* err);

// --check [MAX_ID]: overlapping-rule warnings, then with MAX_ID >= 0 the
// name-map check; returns 1 (EXIT_FAILURE) when that fails. Both print to
// stdout: crushtool's CrushTester reports to the stream it was given, cout.
// A map whose walk crashes Ceph is refused on `err`, exit 1.
std::optional<int> RunCheckStage(const CrushtoolOptions& o, const crush::MapModel& model,
                                 std::FILE* out, std::FILE* err);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_DISPLAY_STAGE_H_
