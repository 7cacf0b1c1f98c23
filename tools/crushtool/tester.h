// `crushtool --test`: Pacific 16.2 CrushTester::test() reproduced on
// crushkit's mapper, with byte-identical output (mapping lines, bad
// mappings, statistics, utilization with C++ ostream float formatting, the
// choose_tries histogram) wherever Ceph's own behaviour is defined. Where
// Ceph crashes or has undefined behaviour the choices are documented in
// tools/crushtool/README.md ("Well-defined answers").
//
// Output is appended to a TestOutput (stdout text, stderr text); callers may
// flush it while the test runs (see TestOutput::flush_threshold).
// Thread-safety: RunCrushTest uses only its arguments.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_TESTER_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_TESTER_H_

#include <cstddef>
#include <cstdio>
#include <string>

#include "crush/map.h"
#include "crush/mapper.h"
#include "tools/crushtool/options.h"

namespace crushkit::tools::crushtool {

// Where the tester writes. Text accumulates in `out`/`err`; if the FILE*
// fields are set, MaybeFlush() writes `out` to `out_file` whenever it grows
// beyond `flush_threshold` bytes (so a million mapping lines do not sit in
// memory). Writing `err` always flushes `out` first so the interleaving on
// a shared terminal matches Ceph's (cout is flushed by std::endl).
struct TestOutput {
  std::string out;
  std::string err;
  std::FILE* out_file = nullptr;
  std::FILE* err_file = nullptr;
  std::size_t flush_threshold = 1 << 20;

  void MaybeFlush();
  void Flush();
  void WriteErr(const std::string& text);
};

// Largest --num-rep crushkit maps with: the mapper's result cap. (Ceph's
// crushtool crashes with a stack overflow from roughly 500,000 on.)
inline constexpr int kMaxNumRep = crush::kMaxWorkspaceResult;

// Runs the test over `map` as `crushtool -i MAP --test ...` would after the
// tunables stage. Returns the process exit status contribution: 0, or 1 for
// a num_rep above kMaxNumRep (crushkit's defined refusal, message on err).
int RunCrushTest(const crush::CrushMap& map, const TestOptions& options, TestOutput& output);

// C++ ostream default formatting of a float (precision 6, %g style), which
// is how CrushTester prints "expected" counts.
std::string FormatFloat(float value);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_TESTER_H_
