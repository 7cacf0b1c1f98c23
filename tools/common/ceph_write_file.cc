#include "tools/common/ceph_write_file.h"

#include <string>

#include "tools/common/file_io.h"

namespace crushkit::tools {

int CephWriteFile(const std::string& path, std::string_view data, std::string* log) {
  // bufferlist::write_file() opens with O_CREAT | O_TRUNC first; the probe
  // gives that open's errno without truncating anything.
  if (const int e = ProbeOutputFile(path); e != 0) {
    *log = "bufferlist::write_file(" + path + "): failed to open file: " + CppStrerror(e) + "\n";
    return e;
  }
  // Past the open, every failure is a failed write for Ceph.
  if (const int e = ReplaceFileAtomically(path, data, kCephOutputFileMode); e != 0) {
    *log = "bufferlist::write_fd(" + path + "): write_fd error: " + CppStrerror(e) + "\n";
    return e;
  }
  return 0;
}

}  // namespace crushkit::tools
