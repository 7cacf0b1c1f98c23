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
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

#include "crush/util/text_format.h"

namespace crushkit::tools {

// Largest input file crushkit reads (maps, state files, JSON dumps).
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 30;

// Reads the whole file at `path` ("-" reads standard input). Errors: the
// OS's errno as crush/util/errno_status.h maps it (kNotFound,
// kPermissionDenied, ..., kUnknown for most) saying "cannot open 'PATH':
// <strerror>"; kResourceExhausted for files larger than `max_bytes`.
// Cost: one read per 64 KiB, or a single read into an exactly sized buffer
// for regular files.
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

// How an output path is written: the file a chain of symlinks ends at is
// replaced (so the links survive); anything a rename must not replace is
// written in place.
struct OutputTarget {
  enum Kind {
    kReplace,  // a regular file, or a new one: temporary file + rename
    kInPlace,  // a device, FIFO, socket or /proc magic link (/dev/stdout)
  };

  Kind kind = kReplace;
  std::string path;                     // the path to replace or open
  std::optional<mode_t> existing_mode;  // permission bits of a regular file replaced
};

// Symlinks followed by ResolveOutputPath before it gives up with ELOOP.
inline constexpr int kMaxSymlinkHops = 40;

// Resolves `path` for writing: follows symlinks hop by hop (relative ones
// against the link's directory) to the regular file, absent path, device,
// FIFO or socket at the end; stops at the first link under /proc/, whose
// text does not name the open file (/proc/self/fd/1 -> "pipe:[...]").
// Returns 0, EISDIR for a directory, ELOOP past kMaxSymlinkHops, or the
// errno of a failed lstat/readlink.
int ResolveOutputPath(const std::string& path, OutputTarget* target);

// Writes `data` to `path` without ever replacing anything but a regular
// file (ResolveOutputPath): a regular file or a new path (also at the end of
// a dangling symlink) gets a temporary file in its own directory, written,
// fsync'ed and renamed over it, then the directory is synced; a replaced
// file keeps its permission bits, a new one gets `mode` less the umask; on
// error the temporary file is removed and the target untouched. Devices,
// FIFOs, sockets and /dev/stdout-style links are opened and written in
// place, as Ceph writes them; a directory is EISDIR. Where the directory
// refuses a new file (EACCES, EPERM, EROFS) but the file exists, it is
// written in place. Returns 0 or an errno value.
int ReplaceFileAtomically(const std::string& path, std::string_view data, mode_t mode);

// The errno with which open(path, O_WRONLY | O_CREAT | O_TRUNC) would fail,
// or 0: the check a Ceph tool makes by opening its output file before it
// writes anything there. Leaves the file system as it was: an existing file
// is opened without truncating it, an absent one is created and removed.
// Paths naming a device or a FIFO are not opened (a FIFO would block until a
// reader comes) and report 0; the write itself reports their errors.
int ProbeOutputFile(const std::string& path);

// Ceph's cpp_strerror(): "(2) No such file or directory" (one definition,
// in crush/util/text_format.h).
using util::CppStrerror;

// Writes `s` to `f` (nothing when empty) and flushes, so stdout and stderr
// interleave as Ceph's unbuffered streams do (the crushtool and osdmaptool
// fronts).
void WriteAndFlush(std::FILE* f, const std::string& s);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_COMMON_FILE_IO_H_
