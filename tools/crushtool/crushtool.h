// `crushkit crushtool`: the crushtool command line of Ceph 16.2 (Pacific),
// 18.2 (Reef) or 20.2 (Tentacle) on crushkit's libraries. Stages run in Ceph's fixed order (input,
// compile, tunables, display/test, output) whatever the argument order; stdout/stderr texts and
// exit codes are Ceph's. Every crushtool 16.2 action and option is
// supported (tools/crushtool/README.md lists the files, one stage each).
// Thread-safety: uses only its arguments (and the files they name).
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_CRUSHTOOL_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_CRUSHTOOL_H_

#include <cstdio>
#include <string>
#include <vector>

#include "crush/ceph_release.h"

namespace crushkit::tools::crushtool {

// Runs `release`'s crushtool with `args` (argv without the program name),
// writing to `out`/`err`. Returns the exit code. The release decides the
// text dialect of -c/-d, the bytes written, the accepted flags and --help.
int RunCrushtoolCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err,
                        crush::CephRelease release);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_CRUSHTOOL_H_
