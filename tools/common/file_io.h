// File helpers shared by the crushkit commands and the `crushkit crushtool`
// front: bounded reads and atomic writes. A failed write never leaves a
// partial or missing output file.
//
// Two layers: the Status functions (ReadFileBytes, WriteFileAtomically) for
// crushkit's own commands, and the errno-style primitives under them
// (ReadFdFully, WriteFdFully, ReplaceFileAtomically) for callers that must
// print someone else's error texts (the crushtool front prints Ceph's).
// Thread-safety: functions touch only their arguments and the file system.
#ifndef CRUSHKIT_TOOLS_COMMON_FILE_IO_H_
#define CRUSHKIT_TOOLS_COMMON_FILE_IO_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

#include "crush/text_format.h"

namespace crushkit::tools {

// Largest input file crushkit reads (maps, state files, JSON dumps).
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 30;

// Reads the whole file at `path` ("-" reads standard input). Errors:
// kNotFound / kPermissionDenied / kUnavailable from the OS, kResourceExhausted
// for files larger than `max_bytes`. Cost: one read per 64 KiB, or a single
// read into an exactly sized buffer for regular files.
absl::StatusOr<std::string> ReadFileBytes(const std::string& path,
                                          std::size_t max_bytes = kMaxInputFileBytes);

// Writes `data` to `path` atomically (see ReplaceFileAtomically, mode 0666
// before the umask). "-" writes standard output.
absl::Status WriteFileAtomically(const std::string& path, std::string_view data);

// Appends everything readable from `fd` to *data, retrying EINTR. Returns 0,
// EFBIG if *data would grow past `max_bytes`, or the errno of a failed read.
int ReadFdFully(int fd, std::size_t max_bytes, std::string* data);

// Writes all of `data` to `fd`, retrying short writes and EINTR. Returns 0 or
// the errno of the failed write.
int WriteFdFully(int fd, std::string_view data);

// Replaces `path` with `data`: a temporary file in the same directory is
// written, fsync'ed, given `mode` (less the umask) and renamed over `path`;
// on error it is removed and any existing `path` is untouched. `path` naming
// something that is not a regular file (a device such as /dev/null, a FIFO)
// is written in place, since renaming over it would replace the device
// itself; a directory is EISDIR. Returns 0 or an errno value.
int ReplaceFileAtomically(const std::string& path, std::string_view data, mode_t mode);

// The errno with which open(path, O_WRONLY | O_CREAT | O_TRUNC) would fail,
// or 0: the check a Ceph tool makes by opening its output file before it
// writes anything there. Leaves the file system as it was: an existing file
// is opened without truncating it, an absent one is created and removed.
// Paths naming a device or a FIFO are not opened (a FIFO would block until a
// reader comes) and report 0; the write itself reports their errors.
int ProbeOutputFile(const std::string& path);

// Ceph's cpp_strerror(): "(2) No such file or directory" (one definition,
// in crush/text_format.h).
using crush::CppStrerror;

// Writes `s` to `f` (nothing when empty) and flushes, so stdout and stderr
// interleave as Ceph's unbuffered streams do (the crushtool and osdmaptool
// fronts).
void WriteAndFlush(std::FILE* f, const std::string& s);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_COMMON_FILE_IO_H_
