// Running another program and collecting what it prints, with a deadline:
// argv is executed directly (posix_spawnp, PATH lookup, no shell, so no
// argument is ever interpreted), stdin is /dev/null, stdout and stderr are
// captured separately. The child runs in its own process group; at the
// deadline the whole group is killed (SIGKILL) and reaped.
//
// Thread-safety: RunProcess may be called from several threads at once
// (each call owns its pipes and child).
#ifndef CRUSHKIT_TOOLS_COMMON_SUBPROCESS_H_
#define CRUSHKIT_TOOLS_COMMON_SUBPROCESS_H_

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace crushkit::tools {

struct ProcessResult {
  int exit_code = -1;      // the exit status; -1 when killed by a signal
  int signal = 0;          // the signal that ended it, else 0
  bool timed_out = false;  // killed at the deadline
  std::string out;         // stdout
  std::string err;         // stderr
};

// Runs argv[0] (looked up in PATH unless it contains a '/') with argv and
// waits at most `timeout` for it to exit. A non-zero exit, a signal or the
// deadline are results, not errors. Errors: argv empty (kInvalidArgument);
// the program cannot be started (kNotFound when it does not exist or is not
// executable, naming it; else kInternal with strerror); stdout or stderr
// beyond `max_output` bytes (kResourceExhausted; the child is killed).
absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         std::chrono::milliseconds timeout,
                                         std::size_t max_output = std::size_t{4} << 30);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_COMMON_SUBPROCESS_H_
