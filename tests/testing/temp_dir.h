// A private scratch directory for a test, made with mkdtemp(3) under
// $TMPDIR (or /tmp) and removed with everything in it when the TempDir is
// destroyed. A failed mkdtemp is a test failure (ADD_FAILURE), never a
// silent write into "" or the working directory.
// Thread-safety: one TempDir per thread; distinct objects never collide.
#ifndef CRUSHKIT_TESTS_TESTING_TEMP_DIR_H_
#define CRUSHKIT_TESTS_TESTING_TEMP_DIR_H_

#include <stdlib.h>  // mkdtemp

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "gtest/gtest.h"

namespace crush_testing {

class TempDir {
 public:
  // Creates $TMPDIR/<prefix>.XXXXXX. On failure records a test failure and
  // path() is empty (ok() false).
  explicit TempDir(const std::string& prefix = "crushkit_test") {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + prefix + ".XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp(" << tmpl << ") failed: " << std::strerror(errno);
      return;
    }
    path_ = buf.data();
  }

  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  bool ok() const { return !path_.empty(); }

  // The directory, without a trailing slash.
  const std::string& path() const { return path_; }

  // path() + "/" + name.
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace crush_testing

#endif  // CRUSHKIT_TESTS_TESTING_TEMP_DIR_H_
