// Which Ceph release the command-line fronts behave as: the
// CRUSHKIT_CEPH_RELEASE environment variable (so that `crushtool` shims in
// operators' scripts follow their cluster), else the current release.
// Thread-safety: reads the environment; call before starting threads.
#ifndef CRUSHKIT_TOOLS_COMMON_CEPH_RELEASE_ENV_H_
#define CRUSHKIT_TOOLS_COMMON_CEPH_RELEASE_ENV_H_

#include <string>

#include "absl/status/statusor.h"

#include "crush/ceph_release.h"

namespace crushkit::tools {

inline constexpr const char* kCephReleaseEnv = "CRUSHKIT_CEPH_RELEASE";

// The release named by CRUSHKIT_CEPH_RELEASE, or crush::kDefaultCephRelease
// when it is unset or empty. An unknown name is kInvalidArgument whose
// message names the variable and lists the supported releases.
absl::StatusOr<crush::CephRelease> CephReleaseFromEnvironment();

// The release a modern subcommand works as: `flag` (its --ceph-release
// value) when non-empty, else CephReleaseFromEnvironment(). Errors as above.
absl::StatusOr<crush::CephRelease> ResolveCephRelease(const std::string& flag);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_COMMON_CEPH_RELEASE_ENV_H_
