// crushtool's --build stage (src/tools/crushtool.cc, Ceph 16.2) on
// crush/edit/layered_map.h: the layers, the multi-root warning, the
// "replicated_rule", with crushtool's messages and exit codes.
// Thread-safety: pure function on its arguments (and the two streams).
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_BUILD_STAGE_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_BUILD_STAGE_H_

#include <cstdio>
#include <optional>

#include "crush/ceph_release.h"
#include "crush/model.h"
#include "tools/crushtool/options.h"

namespace crushkit::tools::crushtool {

// Replaces `model` (the -i map, or an empty one) with the map
// `options.layers` describe over `options.num_osds` devices, keeping the
// tables CrushWrapper::create() keeps: names, types, rule names, classes. Returns the exit code to
// stop with, or nullopt to go on. Where Ceph's behaviour is undefined, refuses with `crushkit
// crushtool: <reason>` (exit 1); where it is merely odd (a bucket weight past INT32_MAX, a 17-byte
// layer name) warns on stderr and builds what Ceph builds in practice.
std::optional<int> RunBuildStage(const CrushtoolOptions& options, crush::CephRelease release,
                                 crush::MapModel& model, std::FILE* err);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_BUILD_STAGE_H_
