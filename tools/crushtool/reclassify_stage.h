// crushtool's --set-subtree-class and --reclassify steps (Ceph 16.2), run
// right after --rebuild-class-roots at the end of the modifications stage:
// every --set-subtree-class BUCKET CLASS in bucket-name order (its errors
// ignored, as crushtool does), then CrushWrapper::reclassify() with the
// --reclassify-root / --reclassify-bucket requests (crush/edit/reclassify.h),
// its progress lines on stdout and "failed to reclassify map" on stderr
// (exit 1) when it fails.
// Thread-safety: pure function on its arguments (and the two streams).
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_RECLASSIFY_STAGE_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_RECLASSIFY_STAGE_H_

#include <cstdio>
#include <optional>

#include "crush/model.h"
#include "tools/crushtool/options.h"

namespace crushkit::tools::crushtool {

// Applies the two steps to `model`; sets *modified when either ran. Returns
// the exit status to stop with, or nullopt. Where Ceph would crash or loop
// (crush/edit/reclassify.h's kInternal/kUnimplemented) prints `crushkit
// crushtool: undefined in Ceph: <reason>` and returns 1.
std::optional<int> ApplyReclassifyStage(const CrushtoolOptions& options, crush::MapModel& model,
                                        bool* modified, std::FILE* out, std::FILE* err);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_RECLASSIFY_STAGE_H_
