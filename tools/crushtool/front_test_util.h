// Test helper: runs the crushtool front in process and captures what it
// prints, for tests that compare it with Ceph's crushtool or pin an answer.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_FRONT_TEST_UTIL_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_FRONT_TEST_UTIL_H_

#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "tools/crushtool/crushtool.h"

namespace crushkit::tools::crushtool::test_util {

struct Result {
  int rc = 0;
  std::string out, err;
  bool operator==(const Result&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const Result& r) {
  return os << "rc=" << r.rc << "\n--stdout--\n" << r.out << "--stderr--\n" << r.err;
}

inline std::string ReadBack(std::FILE* f) {
  std::string s;
  std::rewind(f);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) s.append(buf, n);
  return s;
}

// RunCrushtoolCommand(args) with stdout and stderr captured; Pacific unless
// told otherwise, as the installed oracle (Debian 12's crushtool) is 16.2.
inline Result RunOurs(const std::vector<std::string>& args,
                      crush::CephRelease release = crush::CephRelease::kPacific) {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  Result r;
  r.rc = RunCrushtoolCommand(args, out, err, release);
  r.out = ReadBack(out);
  r.err = ReadBack(err);
  std::fclose(out);
  std::fclose(err);
  return r;
}

}  // namespace crushkit::tools::crushtool::test_util

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_FRONT_TEST_UTIL_H_
