// Capturing output in tests: RunShell() runs a shell command and returns its
// stdout (e.g. an oracle's output), the exit status going to *rc when asked
// for (-1 if the command did not exit normally); ReadAll() reads a stream.
// Thread-safety: as popen() and stdio.
#ifndef CRUSHKIT_TESTS_TESTING_RUN_SHELL_H_
#define CRUSHKIT_TESTS_TESTING_RUN_SHELL_H_

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace crush_testing {

inline std::string RunShell(const std::string& cmd, int* rc = nullptr) {
  std::string out;
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) {
    if (rc != nullptr) *rc = -1;
    return out;
  }
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  if (rc != nullptr) *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

// Everything in `f` from its start (e.g. a tmpfile() a tool under test wrote
// its output to).
inline std::string ReadAll(std::FILE* f) {
  std::string s;
  std::rewind(f);
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) s.append(buf, n);
  return s;
}

}  // namespace crush_testing

#endif  // CRUSHKIT_TESTS_TESTING_RUN_SHELL_H_
