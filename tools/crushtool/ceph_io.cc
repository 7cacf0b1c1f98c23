#include "tools/crushtool/ceph_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "tools/common/ceph_write_file.h"
#include "tools/common/file_io.h"

namespace crushkit::tools::crushtool {

bool ReadMapFile(const std::string& path, std::string* data, std::string* error) {
  data->clear();
  if (path == "-") {
    if (const int err = ReadFdFully(STDIN_FILENO, kMaxMapFileBytes, data); err != 0) {
      *error = "read error:" + CppStrerror(err);
      return false;
    }
    return true;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "can't open " + path + ": " + CppStrerror(errno);
    return false;
  }
  const int err = ReadFdFully(fd, kMaxMapFileBytes, data);
  ::close(fd);
  if (err != 0) {
    *error = "bufferlist::read_file(" + path + "): read error:" + CppStrerror(err);
    return false;
  }
  return true;
}

int WriteFileAtomic(const std::string& path, std::string_view data) {
  return ReplaceFileAtomically(path, data, kCephOutputFileMode);
}

}  // namespace crushkit::tools::crushtool
