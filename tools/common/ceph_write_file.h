// Ceph's bufferlist::write_file() for the crushtool and osdmaptool fronts:
// the same outcome for a path and the lines it prints on std::cerr when it
// fails, while the file is still replaced atomically (ReplaceFileAtomically),
// so a failed run leaves no partial file behind.
// Thread-safety: touches only its arguments and the file system.
#ifndef CRUSHKIT_TOOLS_COMMON_CEPH_WRITE_FILE_H_
#define CRUSHKIT_TOOLS_COMMON_CEPH_WRITE_FILE_H_

#include <sys/types.h>

#include <string>
#include <string_view>

namespace crushkit::tools {

// The mode bufferlist::write_file() creates files with, before the umask.
inline constexpr mode_t kCephOutputFileMode = 0644;

// Writes `data` to `path` where bufferlist::write_file(path) would succeed.
// "-" is a file name here, as for Ceph. Returns 0 or the errno; on failure
// *log holds what bufferlist::write_file prints: when open(2) of `path`
// would fail (ProbeOutputFile)
//   bufferlist::write_file(PATH): failed to open file: (2) No such file or directory
// and when writing fails (a full device)
//   bufferlist::write_fd(PATH): write_fd error: (28) No space left on device
// each ending in a newline. Cost: a probe open, then one atomic replace.
int CephWriteFile(const std::string& path, std::string_view data, std::string* log);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_COMMON_CEPH_WRITE_FILE_H_
