// crushtool's modifications stage (src/tools/crushtool.cc, Ceph 16.2) on
// crush/edit/edit.h: --reweight-item, --remove-item, --add-item/--update-item,
// --add-bucket, --move, --create-*-rule, --remove-rule, --reweight,
// --rebuild-class-roots, in that fixed order, with crushtool's
// stdout/stderr lines and exit codes (a failing edit ends crushtool with the
// negative errno as exit status, i.e. 256 - errno).
// Thread-safety: pure function on its arguments (and the two streams).
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_MODIFICATIONS_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_MODIFICATIONS_H_

#include <cstdio>
#include <optional>

#include "crush/model.h"
#include "tools/crushtool/options.h"

namespace crushkit::tools::crushtool {

// Applies the modifications requested in `options` to `model`, printing to
// `out`/`err` as crushtool does. Sets *modified when an edit succeeded.
// Returns the exit code to stop with, or nullopt to go on to the display and
// output stages. Where Ceph would crash (crush/edit/edit.h's kInternal and
// kUnimplemented), prints `crushkit crushtool: <reason>` and returns 1.
std::optional<int> ApplyModifications(const CrushtoolOptions& options, crush::MapModel& model,
                                      bool* modified, std::FILE* out, std::FILE* err);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_MODIFICATIONS_H_
