// `--ceph-release NAME` for the modern subcommands whose output depends on
// the Ceph release (text dialect, binary encoding).
#ifndef CRUSHKIT_TOOLS_CRUSHKIT_CEPH_RELEASE_OPTION_H_
#define CRUSHKIT_TOOLS_CRUSHKIT_CEPH_RELEASE_OPTION_H_

#include <string>

#include <CLI/CLI.hpp>

namespace crushkit::tools {

// What the release is when the option is not given.
enum class CephReleaseFallback {
  // Commands without a cluster state: ResolveCephRelease.
  kInstalledCeph,
  // `crushkit import`: CephReleaseOverride, else the dump's release.
  kCluster,
};

// Adds the option to `cmd`, storing the name as given in *name; resolve it
// as `fallback` says (tools/common/ceph_release_env.h).
inline void AddCephReleaseOption(
    CLI::App* cmd, std::string* name,
    CephReleaseFallback fallback = CephReleaseFallback::kInstalledCeph) {
  cmd->add_option("--ceph-release", *name,
                  std::string("behave as this Ceph release: pacific (16.2), reef (18.2) or "
                              "tentacle (20.2); default: $CRUSHKIT_CEPH_RELEASE, else ") +
                      (fallback == CephReleaseFallback::kCluster
                           ? "the dump's require_osd_release (tentacle when it names none)"
                           : "the installed Ceph's (dpkg), else tentacle; `crushkit --version` "
                             "says which"));
}

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_CRUSHKIT_CEPH_RELEASE_OPTION_H_
