// `crushkit crushtool ARGS...`: Ceph crushtool's own flag syntax, handled by
// the crushkit_crushtool library (tools/crushtool/).
#include <cstdio>

#include "tools/crushkit/commands.h"
#include "tools/crushtool/crushtool.h"

namespace crushkit::tools {

int RunCrushtool(const std::vector<std::string>& args) {
  return crushtool::RunCrushtoolCommand(args, stdout, stderr);
}

}  // namespace crushkit::tools
