// `crushtool --test`: Pacific 16.2 CrushTester::test() reproduced on
// crushkit's mapper, with byte-identical output (mapping lines, bad
// mappings, statistics, utilization with C++ ostream float formatting, the
// choose_tries histogram) wherever Ceph's own behaviour is defined. Where
// Ceph crashes or has undefined behaviour the choices are documented in
// tools/crushtool/README.md ("Well-defined answers").
//
// Output is appended to a TestOutput (stdout text, stderr text); callers may
// flush it while the test runs (see TestOutput::flush_threshold).
//
// This file runs the loop over rules and num_reps (CrushTester::test());
// test_mapping.h maps each (rule, num_rep), on several threads for large x
// ranges, with output byte-identical to the single-threaded run
// (tester_test.cc checks this); test_report.h prints. See TestThreading for
// the knobs and the CRUSHKIT_THREADS environment variable.
// Thread-safety: RunCrushTest uses only its arguments (and, in the
// three-argument form, reads the environment).
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_TESTER_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_TESTER_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

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

// How RunCrushTest spreads each (rule, num_rep)'s x range over threads.
struct TestThreading {
  // Threads mapping inputs: 0 = automatic (hardware_concurrency() capped at
  // kMaxAutoTestThreads), 1 = single-threaded (the plain loop), N = N
  // (capped at kMaxTestThreads).
  int threads = 0;
  // A (rule, num_rep) with fewer inputs than this is mapped on the calling
  // thread: below it, thread start-up and workspace set-up do not pay.
  std::uint64_t min_parallel_x = 4097;
  // Inputs per work chunk (the unit of buffering and scheduling); >= 1.
  std::uint64_t chunk_x = 4096;
};

inline constexpr int kMaxAutoTestThreads = 8;
inline constexpr int kMaxTestThreads = 64;

// The threading RunCrushTest uses by default: automatic, unless the
// environment variable CRUSHKIT_THREADS holds an integer N in
// 1..kMaxTestThreads, which forces N threads for every x range of more than
// one chunk (CRUSHKIT_THREADS=1: single-threaded, for debugging). Any other
// value is ignored (crushtool's output must not change).
TestThreading TestThreadingFromEnvironment();

// The device weights CrushTester::test() and compare() map with: the
// --weight value for a device given one, else 0x10000 for a device held by
// some bucket and 0 for the others; map.max_devices() entries.
std::vector<crush::Weight> TestDeviceWeights(const crush::CrushMap& map,
                                             const TestOptions& options);

// The rule and input ranges CrushTester::test() and compare() use: the
// options', else every rule and x = 0..1023.
struct TestRanges {
  int min_rule = 0, max_rule = 0, min_x = 0, max_x = 0;
};

TestRanges TestRangesFor(const crush::CrushMap& map, const TestOptions& options);

// The num_rep range tested for `rule`: --num-rep (or --min-rep/--max-rep),
// else, on Pacific, the rule's min_size..max_size.
std::pair<int, int> TestNumRepRange(const crush::Rule& rule, const TestOptions& options);

// Runs the test over `map` as `crushtool -i MAP --test ...` would after the
// tunables stage. Returns the process exit status contribution: 0, or 1 for
// a num_rep above kMaxNumRep (crushkit's defined refusal, message on err).
// The output does not depend on `threading`.
int RunCrushTest(const crush::CrushMap& map, const TestOptions& options, TestOutput& output,
                 const TestThreading& threading);
// As above with TestThreadingFromEnvironment().
int RunCrushTest(const crush::CrushMap& map, const TestOptions& options, TestOutput& output);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_TESTER_H_
