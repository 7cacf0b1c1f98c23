// The pieces of the `crushkit` Python module (module.cc puts them together).
// A front only: every function converts arguments, calls crush/, compiler/
// or osdmap/, and converts the result; a failed absl::Status becomes a
// Python ValueError carrying the library's message.
#ifndef CRUSHKIT_TOOLS_PYTHON_BINDINGS_H_
#define CRUSHKIT_TOOLS_PYTHON_BINDINGS_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <pybind11/pybind11.h>

namespace crushkit::python {

// Raises ValueError(status.message()). REQUIRES: !status.ok().
[[noreturn]] inline void ThrowStatus(const absl::Status& status) {
  throw pybind11::value_error(std::string(status.message()));
}

// *so, or ValueError.
template <typename T>
T ValueOrThrow(absl::StatusOr<T> so) {
  if (!so.ok()) ThrowStatus(so.status());
  return *std::move(so);
}

// Reads a whole file; OSError (errno and path) if it cannot.
std::string ReadFileOrThrow(const std::string& path);

// Writes `data` to `path` with the CLI's writer (tools/common/file_io.h:
// a regular file replaced atomically, symlinks followed and kept, devices
// and FIFOs written in place); OSError (errno and path) if it cannot.
void WriteFileOrThrow(const std::string& path, const std::string& data);

void BindCrushMap(pybind11::module_& m);
void BindClusterState(pybind11::module_& m);

}  // namespace crushkit::python

#endif  // CRUSHKIT_TOOLS_PYTHON_BINDINGS_H_
