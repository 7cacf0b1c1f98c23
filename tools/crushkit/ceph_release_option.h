// `--ceph-release NAME` for the modern subcommands whose output depends on
// the Ceph release (text dialect, binary encoding).
#ifndef CRUSHKIT_TOOLS_CRUSHKIT_CEPH_RELEASE_OPTION_H_
#define CRUSHKIT_TOOLS_CRUSHKIT_CEPH_RELEASE_OPTION_H_

#include <string>

#include <CLI/CLI.hpp>

namespace crushkit::tools {

// Adds the option to `cmd`, storing the name as given in *name; resolve it
// with ResolveCephRelease (tools/common/ceph_release_env.h).
inline void AddCephReleaseOption(CLI::App* cmd, std::string* name) {
  cmd->add_option("--ceph-release", *name,
                  "behave as this Ceph release: pacific (16.2), reef (18.2) or tentacle (20.2); "
                  "default: $CRUSHKIT_CEPH_RELEASE, else tentacle");
}

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_CRUSHKIT_CEPH_RELEASE_OPTION_H_
