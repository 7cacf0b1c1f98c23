#include "tools/common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

#include "crush/util/errno_status.h"

namespace crushkit::tools {
namespace {

// Writes `data` over `path` without replacing the file: open (following
// links, creating when absent), truncate, write. What Ceph's write_file()
// does for every path; here only for paths a rename must not touch.
int WriteInPlace(const std::string& path, std::string_view data, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, mode);
  if (fd < 0) return errno;
  int err = WriteFdFully(fd, data);
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

std::string DirectoryOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Flushes a rename to disk. Best effort: some file systems refuse fsync on
// a directory, and the data itself is already on disk.
void SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
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

int ResolveOutputPath(const std::string& path, OutputTarget* target) {
  // Symlinks are followed by hand: the file at the end of the chain is the
  // one replaced, so the links themselves survive (a rename over the link
  // would replace it). Links under /proc (/dev/stdout -> /proc/self/fd/1)
  // are magic: their text is not a path that names the open file, so they
  // are written through in place, as Ceph writes every output.
  std::string p = path;
  for (int hops = 0; hops <= kMaxSymlinkHops; ++hops) {
    struct stat st {};

    if (::lstat(p.c_str(), &st) != 0) {
      if (errno != ENOENT) return errno;
      *target = {OutputTarget::kReplace, p, std::nullopt};
      return 0;
    }
    if (S_ISLNK(st.st_mode)) {
      if (p.rfind("/proc/", 0) == 0) {
        *target = {OutputTarget::kInPlace, p, std::nullopt};
        return 0;
      }
      std::string link(static_cast<std::size_t>(PATH_MAX), '\0');
      const ssize_t n = ::readlink(p.c_str(), link.data(), link.size());
      if (n < 0) return errno;
      if (static_cast<std::size_t>(n) >= link.size()) return ENAMETOOLONG;
      link.resize(static_cast<std::size_t>(n));
      p = link.front() == '/' ? link : DirectoryOf(p) + "/" + link;
      continue;
    }
    if (S_ISDIR(st.st_mode)) return EISDIR;
    if (S_ISREG(st.st_mode)) {
      *target = {OutputTarget::kReplace, p, st.st_mode & 07777};
      return 0;
    }
    // A device, FIFO or socket: /dev/null, a tty, >(...) pipes.
    *target = {OutputTarget::kInPlace, p, std::nullopt};
    return 0;
  }
  return ELOOP;
}

int ReplaceFileAtomically(const std::string& path, std::string_view data, mode_t mode) {
  OutputTarget target;
  if (const int err = ResolveOutputPath(path, &target); err != 0) return err;
  if (target.kind == OutputTarget::kInPlace) return WriteInPlace(target.path, data, mode);

  const std::string dir = DirectoryOf(target.path);
  std::string tmpl = dir + "/.crushkit.XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) {
    // A file we may write in a directory we may not create in: write it in
    // place (not atomic, but what Ceph would do) rather than fail.
    const int err = errno;
    if (target.existing_mode && (err == EACCES || err == EPERM || err == EROFS)) {
      return WriteInPlace(target.path, data, mode);
    }
    return err;
  }
  // mkstemp creates 0600. A replaced file keeps its mode, as open(O_TRUNC)
  // would leave it; a new one gets `mode` less the umask.
  mode_t final_mode = 0;
  if (target.existing_mode) {
    final_mode = *target.existing_mode;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    final_mode = mode & ~mask;
  }
  ::fchmod(fd, final_mode);
  int err = WriteFdFully(fd, data);
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmpl.c_str(), target.path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmpl.c_str());
    return err;
  }
  SyncDirectory(dir);
  return 0;
}

int ProbeOutputFile(const std::string& path) {
  OutputTarget target;
  if (const int err = ResolveOutputPath(path, &target); err != 0) return err;

  struct stat st {};

  if (::stat(target.path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return EISDIR;
    // Devices and FIFOs are not opened (a FIFO would block until a reader
    // comes); the write reports their errors.
    if (!S_ISREG(st.st_mode)) return 0;
    const int fd = ::open(target.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return errno;
    ::close(fd);
    return 0;
  }
  // O_EXCL: only a file this call created is removed again.
  const int fd =
      ::open(target.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0) return errno == EEXIST ? 0 : errno;  // made since the stat: the write will tell
  ::close(fd);
  ::unlink(target.path.c_str());
  return 0;
}

absl::StatusOr<std::string> ReadFileBytes(const std::string& path, std::size_t max_bytes) {
  const bool is_stdin = path == "-";
  const int fd = is_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return util::OsErrorStatus(errno, absl::StrCat("cannot open '", path, "'"));
  std::string out;
  const int err = ReadFdFully(fd, max_bytes, &out);
  if (!is_stdin) ::close(fd);
  if (err == EFBIG) {
    return absl::ResourceExhaustedError(
        absl::StrCat("'", path, "' is larger than the ", max_bytes, "-byte input limit"));
  }
  if (err != 0) return util::OsErrorStatus(err, absl::StrCat("cannot read '", path, "'"));
  return out;
}

absl::Status WriteFileAtomically(const std::string& path, std::string_view data) {
  if (path == "-") {
    if (const int err = WriteFdFully(STDOUT_FILENO, data); err != 0) {
      return util::OsErrorStatus(err, "cannot write standard output");
    }
    return absl::OkStatus();
  }
  if (const int err = ReplaceFileAtomically(path, data, 0666); err != 0) {
    return util::OsErrorStatus(err, absl::StrCat("cannot write '", path, "'"));
  }
  return absl::OkStatus();
}

void WriteAndFlush(std::FILE* f, const std::string& s) {
  if (!s.empty()) std::fwrite(s.data(), 1, s.size(), f);
  std::fflush(f);
}

}  // namespace crushkit::tools
