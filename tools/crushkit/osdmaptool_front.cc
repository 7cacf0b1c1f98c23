// `crushkit osdmaptool MAP ARGS...`: Ceph osdmaptool's own flag syntax,
// handled by the crushkit_osdmaptool library (tools/osdmaptool/).
#include <cstdio>
#include <string>
#include <vector>

#include "tools/crushkit/commands.h"
#include "tools/osdmaptool/osdmaptool.h"

namespace crushkit::tools {

int RunOsdmaptool(const std::vector<std::string>& args) {
  return osdmaptool::RunOsdmaptoolCommand(args, stdout, stderr);
}

}  // namespace crushkit::tools
