// Reading a crush map file the way every crushkit command that takes one
// does: Ceph's binary encoding (detected by CRUSH_MAGIC) or a text map,
// compiled as `crushtool -c` of the release CRUSHKIT_CEPH_RELEASE names would (Ceph's quirks
// accepted, with a warning), with the compiler's located diagnostics on stderr.
#ifndef CRUSHKIT_TOOLS_CRUSHKIT_CRUSH_LOADING_H_
#define CRUSHKIT_TOOLS_CRUSHKIT_CRUSH_LOADING_H_

#include <string>

#include "absl/status/statusor.h"

#include "crush/model.h"

namespace crushkit::tools {

// The map's binary encoding (a text map is compiled and encoded). An empty
// file or other binary data is an error saying what it is. On error
// the diagnostics have been printed; the status says what failed.
absl::StatusOr<std::string> LoadCrushMapBytes(const std::string& path);

// LoadCrushMapBytes, decoded. Errors name the file.
absl::StatusOr<crush::MapModel> LoadCrushModel(const std::string& path);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_CRUSHKIT_CRUSH_LOADING_H_
