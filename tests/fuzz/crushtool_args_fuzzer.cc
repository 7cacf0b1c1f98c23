// Fuzz target: the crushtool-compatible argument parser
// (tools/crushtool/options.h) and Ceph's strict integer conversions.
//
// Input: arguments separated by NUL bytes (a file of `printf 'a\0b'` form;
// the dictionary holds every option spelling). The parser must return for
// any argument list with an exit status in [0, 255], and strict integer
// conversion must either succeed with an empty error or fail with a message
// and the value 0.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tests/fuzz/fuzz_check.h"
#include "tools/common/ceph_args.h"
#include "tools/crushtool/options.h"

namespace ct = crushkit::tools::crushtool;

// Longer argument lists add no coverage: the parser handles each argument
// on its own (and compares it with every option spelling, so cost grows
// with the count).
constexpr std::size_t kMaxArgs = 16;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args;
  std::size_t start = 0;
  while (start <= input.size() && args.size() < kMaxArgs) {
    const std::size_t end = input.find('\0', start);
    args.emplace_back(
        input.substr(start, end == std::string_view::npos ? input.npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  for (const std::string& a : args) {
    std::string err;
    const std::int64_t v = crushkit::tools::StrictStrtoll(a, &err);
    FUZZ_CHECK(err.empty() || v == 0, "failed conversion returned a value");
    // strict_strtoll() rejects the empty string.
    FUZZ_CHECK(!err.empty() || !a.empty(), "empty string accepted as an integer");
    (void)crushkit::tools::ClassifyArgValue(a);
    (void)crushkit::tools::DashesToUnderscores(a);
  }
  for (crushkit::crush::CephRelease release :
       {crushkit::crush::CephRelease::kPacific, crushkit::crush::CephRelease::kTentacle}) {
    const ct::ParseOutcome outcome = ct::ParseCrushtoolArgs(args, "crushtool", release);
    if (outcome.exit_now) {
      // A process exit status; Ceph's main() returns 0, 1 (EXIT_FAILURE) or
      // small positive values.
      FUZZ_CHECK(outcome.exit_code >= 0 && outcome.exit_code < 256, "exit code out of range");
    }
  }
  return 0;
}
