#include "tools/common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

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

}  // namespace

int ReadFdFully(int fd, std::size_t max_bytes, std::string* data) {
  if (data->size() > max_bytes) return EFBIG;

  // A regular file's size lets the string be allocated once instead of
  // regrown (each regrowth of a large buffer copies it into fresh pages).
  struct stat st {};

  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size > max_bytes - data->size()) return EFBIG;
    data->reserve(data->size() + size);
  }
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return 0;
    if (static_cast<std::size_t>(n) > max_bytes - data->size()) return EFBIG;
    data->append(buf, static_cast<std::size_t>(n));
  }
}

int WriteFdFully(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

int ReplaceFileAtomically(const std::string& path, std::string_view data, mode_t mode) {
  struct stat st {};

  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return EISDIR;
    if (!S_ISREG(st.st_mode)) {
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) return errno;
      const int err = WriteFdFully(fd, data);
      ::close(fd);
      return err;
    }
  }
  const std::size_t slash = path.rfind('/');
  std::string tmpl = slash == std::string::npos ? std::string("./") : path.substr(0, slash + 1);
  tmpl += ".crushkit.XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return errno;
  // mkstemp creates 0600; give the output the usual umask-derived mode.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, mode & ~mask);
  int err = WriteFdFully(fd, data);
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmpl.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) ::unlink(tmpl.c_str());
  return err;
}

int ProbeOutputFile(const std::string& path) {
  struct stat st {};

  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return EISDIR;
    if (!S_ISREG(st.st_mode)) return 0;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return errno;
    ::close(fd);
    return 0;
  }
  // O_EXCL: only a file this call created is removed again.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0) {
    // EEXIST: a dangling symlink (O_EXCL does not follow it) or a file made
    // since the stat; the write will find out.
    return errno == EEXIST ? 0 : errno;
  }
  ::close(fd);
  ::unlink(path.c_str());
  return 0;
}

absl::StatusOr<std::string> ReadFileBytes(const std::string& path, std::size_t max_bytes) {
  const bool is_stdin = path == "-";
  const int fd = is_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("cannot open '", path, "'"));
  std::string out;
  const int err = ReadFdFully(fd, max_bytes, &out);
  if (!is_stdin) ::close(fd);
  if (err == EFBIG) {
    return absl::ResourceExhaustedError(
        absl::StrCat("'", path, "' is larger than the ", max_bytes, "-byte input limit"));
  }
  if (err != 0) return ErrnoStatus(err, absl::StrCat("cannot read '", path, "'"));
  return out;
}

absl::Status WriteFileAtomically(const std::string& path, std::string_view data) {
  if (path == "-") {
    if (const int err = WriteFdFully(STDOUT_FILENO, data); err != 0) {
      return ErrnoStatus(err, "cannot write standard output");
    }
    return absl::OkStatus();
  }
  if (const int err = ReplaceFileAtomically(path, data, 0666); err != 0) {
    return ErrnoStatus(err, absl::StrCat("cannot write '", path, "'"));
  }
  return absl::OkStatus();
}

void WriteAndFlush(std::FILE* f, const std::string& s) {
  if (!s.empty()) std::fwrite(s.data(), 1, s.size(), f);
  std::fflush(f);
}

}  // namespace crushkit::tools
