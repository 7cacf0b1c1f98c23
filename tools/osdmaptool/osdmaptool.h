// `crushkit osdmaptool MAP [flags]`: osdmaptool 16.2's command line on
// Ceph's binary osdmap or a crushkit state file (`crushkit import`): parse
// (options.h), read the map or create it (--createsimple,
// --create-from-conf: osdmap/formats/osdmap_create.h), run the actions (actions.h),
// print it (--print: osdmap/formats/osdmap_print.h), write it back when osdmaptool
// would, with Ceph's stdout, stderr and exit codes.
// Thread-safety: uses only its arguments (and the files they name).
#ifndef CRUSHKIT_TOOLS_OSDMAPTOOL_OSDMAPTOOL_H_
#define CRUSHKIT_TOOLS_OSDMAPTOOL_OSDMAPTOOL_H_

#include <cstdio>
#include <string>
#include <vector>

namespace crushkit::tools::osdmaptool {

// Runs osdmaptool with `args` (argv without the program name), writing to
// `out`/`err`. Returns the exit code.
int RunOsdmaptoolCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

}  // namespace crushkit::tools::osdmaptool

#endif  // CRUSHKIT_TOOLS_OSDMAPTOOL_OSDMAPTOOL_H_
