// crushtool's tunables stage (--set-choose-local-tries ... --set-allowed-
// bucket-algs): applies the requested values to a decoded map exactly as
// CrushWrapper's setters do (negative values are ignored; the 8-bit tunables
// keep the low byte of the value) and prepares the model to be re-encoded as
// Pacific crushtool writes it.
// Thread-safety: pure functions on their arguments.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_TUNABLE_EDITS_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_TUNABLE_EDITS_H_

#include "crush/model.h"
#include "tools/crushtool/options.h"

namespace crushkit::tools::crushtool {

// Applies every tunable option >= 0 in `options` to `model`. Returns true if
// any was applied (Ceph's `modified`), even when the value is unchanged.
bool ApplyTunableEdits(const CrushtoolOptions& options, crush::MapModel& model);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_TUNABLE_EDITS_H_
