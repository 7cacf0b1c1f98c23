// File helpers shared by the crushkit commands: bounded reads and atomic
// writes. A failed write never leaves a partial or missing output file.
#ifndef CRUSHKIT_TOOLS_COMMON_FILE_IO_H_
#define CRUSHKIT_TOOLS_COMMON_FILE_IO_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace crushkit::tools {

// Largest input file crushkit reads (maps, state files, JSON dumps).
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 30;

// Reads the whole file at `path` ("-" reads standard input). Errors:
// kNotFound / kPermissionDenied / kUnavailable from the OS, kResourceExhausted
// for files larger than `max_bytes`.
absl::StatusOr<std::string> ReadFileBytes(const std::string& path,
                                          std::size_t max_bytes = kMaxInputFileBytes);

// Writes `data` to `path` atomically: a temporary file in the same directory
// is written, fsync'ed and renamed over `path`. On error the temporary file is
// removed and any existing `path` is untouched. "-" writes standard output.
absl::Status WriteFileAtomically(const std::string& path, std::string_view data);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_COMMON_FILE_IO_H_
