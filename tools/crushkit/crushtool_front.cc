// `crushkit crushtool ARGS...`: Ceph crushtool's own flag syntax, handled by
// the crushkit_crushtool library (tools/crushtool/), as the release named by
// CRUSHKIT_CEPH_RELEASE behaves, else the installed Ceph's, else the current
// one (tools/common/ceph_release_env.h). Nothing is added to Ceph's output.
#include <cstdio>
#include <string>

#include "tools/common/ceph_release_env.h"
#include "tools/crushkit/commands.h"
#include "tools/crushtool/crushtool.h"

namespace crushkit::tools {

int RunCrushtool(const std::vector<std::string>& args) {
  absl::StatusOr<crush::CephRelease> release = CephReleaseFromEnvironment();
  if (!release.ok()) {
    std::fprintf(stderr, "crushkit crushtool: %s\n",
                 std::string(release.status().message()).c_str());
    return 1;
  }
  return crushtool::RunCrushtoolCommand(args, stdout, stderr, *release);
}

}  // namespace crushkit::tools
