#include "tools/common/ceph_release_env.h"

#include <cstdlib>
#include <string>

namespace crushkit::tools {

absl::StatusOr<crush::CephRelease> CephReleaseFromEnvironment() {
  const char* value = std::getenv(kCephReleaseEnv);
  if (value == nullptr || *value == '\0') return crush::kDefaultCephRelease;
  absl::StatusOr<crush::CephRelease> release = crush::ParseCephRelease(value);
  if (!release.ok()) {
    return absl::InvalidArgumentError(std::string(kCephReleaseEnv) + ": " +
                                      std::string(release.status().message()));
  }
  return *release;
}

absl::StatusOr<crush::CephRelease> ResolveCephRelease(const std::string& flag) {
  if (flag.empty()) return CephReleaseFromEnvironment();
  return crush::ParseCephRelease(flag);
}

}  // namespace crushkit::tools
