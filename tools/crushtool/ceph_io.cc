#include "tools/crushtool/ceph_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace crushkit::tools::crushtool {
namespace {

bool ReadAll(int fd, std::string* data, std::size_t max_bytes, int* err) {
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      *err = errno;
      return false;
    }
    if (n == 0) return true;
    if (data->size() + static_cast<std::size_t>(n) > max_bytes) {
      *err = EFBIG;
      return false;
    }
    data->append(buf, static_cast<std::size_t>(n));
  }
}

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

std::string CppStrerror(int err) {
  return "(" + std::to_string(err) + ") " + std::strerror(err);
}

bool ReadMapFile(const std::string& path, std::string* data, std::string* error) {
  data->clear();
  int err = 0;
  if (path == "-") {
    if (!ReadAll(STDIN_FILENO, data, kMaxMapFileBytes, &err)) {
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
  const bool ok = ReadAll(fd, data, kMaxMapFileBytes, &err);
  ::close(fd);
  if (!ok) {
    *error = "bufferlist::read_file(" + path + "): read error:" + CppStrerror(err);
    return false;
  }
  return true;
}

int WriteFileAtomic(const std::string& path, std::string_view data) {
  // Writing through a symlink or onto a non-regular file (a device, a FIFO)
  // replaces nothing: write in place as Ceph does.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    const bool ok = WriteAll(fd, data);
    const int err = errno;
    ::close(fd);
    return ok ? 0 : err;
  }
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return EISDIR;
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  std::string tmpl = (slash == std::string::npos ? std::string("./") : dir) + ".crushkit.XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return errno;
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0644 & ~mask);
  bool ok = WriteAll(fd, data);
  int err = ok ? 0 : errno;
  if (ok && ::fsync(fd) != 0) {
    ok = false;
    err = errno;
  }
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && ::rename(tmpl.c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) ::unlink(tmpl.c_str());
  return err;
}

}  // namespace crushkit::tools::crushtool
