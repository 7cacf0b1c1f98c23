// `import crushkit`: Python bindings of crushkit's libraries (README.md
// beside this file). Errors raise ValueError (library messages) or OSError.
#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>

#include "crush/types.h"
#include "crush/version.h"
#include "tools/common/file_io.h"
#include "tools/python/bindings.h"
#include <pybind11/pybind11.h>

namespace crushkit::python {

std::string ReadFileOrThrow(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  std::string bytes;
  if (f) {
    char buf[1 << 16];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) bytes.append(buf, n);
    if (!std::ferror(f.get())) return bytes;
  }
  PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
  throw pybind11::error_already_set();
}

void WriteFileOrThrow(const std::string& path, const std::string& data) {
  const int err = tools::ReplaceFileAtomically(path, data, 0666);
  if (err == 0) return;
  errno = err;
  PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
  throw pybind11::error_already_set();
}

}  // namespace crushkit::python

PYBIND11_MODULE(crushkit, m) {
  m.doc() = "crushkit: Ceph's CRUSH placement, crush maps and OSDMap PG mapping.";
  m.attr("__version__") = CRUSHKIT_VERSION_STRING;
  m.attr("ITEM_NONE") = crushkit::crush::kItemNone;
  crushkit::python::BindCrushMap(m);
  crushkit::python::BindClusterState(m);
}
