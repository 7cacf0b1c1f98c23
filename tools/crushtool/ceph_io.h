// File input/output for `crushkit crushtool` with the error texts of Ceph's
// bufferlist::read_file()/write_file() (as printed by crushtool), while
// writing outputs atomically (temp file in the same directory + rename), so a
// failed or interrupted run never leaves a truncated map, and `-o` may name
// the `-i` file.
// Thread-safety: functions touch only their arguments and the file system.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_CEPH_IO_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_CEPH_IO_H_

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

#include "tools/common/file_io.h"  // CppStrerror, WriteAndFlush

namespace crushkit::tools::crushtool {

// argv[0] as Ceph prints it in messages ("crushtool: ..."); scripts compare
// these texts.
inline constexpr const char* kMe = "crushtool";

// Largest map file read (Ceph has no limit; 1 GiB is far above any real map).
inline constexpr std::size_t kMaxMapFileBytes = std::size_t{1} << 30;

// Reads `path` ("-" = standard input). On failure returns false and sets
// *error to the text crushtool prints after "crushtool: error reading 'P': ",
// e.g. "can't open P: (2) No such file or directory".
bool ReadMapFile(const std::string& path, std::string* data, std::string* error);

// Writes `data` to `path` atomically. On failure returns the errno-style
// error (> 0) and leaves any existing `path` untouched.
int WriteFileAtomic(const std::string& path, std::string_view data);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_CEPH_IO_H_
