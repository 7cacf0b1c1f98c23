#include "tools/common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace crushkit::tools {
namespace {

absl::Status ErrnoStatus(int err, const std::string& what) {
  std::string msg = absl::StrCat(what, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(msg);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(msg);
    default:
      return absl::UnavailableError(msg);
  }
}

// Writes all of `data` to `fd`, retrying short writes and EINTR.
bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> ReadFileBytes(const std::string& path, std::size_t max_bytes) {
  const bool is_stdin = path == "-";
  const int fd = is_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("cannot open '", path, "'"));
  std::string out;
  std::vector<char> buf(1 << 16);
  absl::Status status;
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      status = ErrnoStatus(errno, absl::StrCat("cannot read '", path, "'"));
      break;
    }
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      status = absl::ResourceExhaustedError(
          absl::StrCat("'", path, "' is larger than the ", max_bytes, "-byte input limit"));
      break;
    }
    out.append(buf.data(), static_cast<std::size_t>(n));
  }
  if (!is_stdin) ::close(fd);
  if (!status.ok()) return status;
  return out;
}

absl::Status WriteFileAtomically(const std::string& path, std::string_view data) {
  if (path == "-") {
    if (!WriteAll(STDOUT_FILENO, data)) return ErrnoStatus(errno, "cannot write standard output");
    return absl::OkStatus();
  }
  std::string tmpl = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("cannot create a temporary file for '", path, "'"));
  // mkstemp creates 0600; give the output the usual umask-derived mode.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  const bool ok = WriteAll(fd, data) && ::fsync(fd) == 0;
  const int write_errno = errno;
  if (::close(fd) != 0 || !ok) {
    ::unlink(tmpl.c_str());
    return ErrnoStatus(ok ? errno : write_errno, absl::StrCat("cannot write '", path, "'"));
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    return ErrnoStatus(err, absl::StrCat("cannot rename a temporary file to '", path, "'"));
  }
  return absl::OkStatus();
}

}  // namespace crushkit::tools
