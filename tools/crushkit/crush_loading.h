// Reading a crush map file the way every crushkit command that takes one
// does: Ceph's binary encoding (detected by CRUSH_MAGIC) or a text map,
// compiled as `crushtool -c` of the caller's release would (Ceph's quirks
// accepted, with a warning), with the compiler's located diagnostics on stderr.
// The caller says which release: the cluster state's when the map is loaded
// for one (`import --crush`, `diff --crush-after`), else
// ResolveCephRelease()'s (tools/common/ceph_release_env.h).
#ifndef CRUSHKIT_TOOLS_CRUSHKIT_CRUSH_LOADING_H_
#define CRUSHKIT_TOOLS_CRUSHKIT_CRUSH_LOADING_H_

#include <string>

#include "absl/status/statusor.h"

#include "crush/ceph_release.h"
#include "crush/model.h"

namespace crushkit::tools {

// The map's binary encoding (a text map is compiled as `release` and encoded
// as `release` writes it; binary bytes are returned as they are). An empty
// file or other binary data is an error saying what it is. On error
// the diagnostics have been printed; the status says what failed.
absl::StatusOr<std::string> LoadCrushMapBytes(const std::string& path, crush::CephRelease release);

// LoadCrushMapBytes, decoded. Errors name the file.
absl::StatusOr<crush::MapModel> LoadCrushModel(const std::string& path, crush::CephRelease release);

// For the commands that read only a crush map (check, test, tree): as above,
// as the release CephReleaseFromEnvironment() gives (CRUSHKIT_CEPH_RELEASE,
// else the installed Ceph's, else the current one). Its errors too.
absl::StatusOr<crush::MapModel> LoadCrushModel(const std::string& path);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_CRUSHKIT_CRUSH_LOADING_H_
