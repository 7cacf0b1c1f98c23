// The text of `crushtool --test`'s report, byte for byte as Pacific 16.2's
// CrushTester prints it: the per-x mapping and bad-mapping lines, the
// statistics (result sizes, utilization with C++ ostream float formatting),
// the `devices weights (hex)` line, the choose_tries histogram, and
// crushkit's warnings where Ceph's answer is undefined. Formatting only: the
// numbers come from tester.cc and test_mapping.cc. Thread-safe.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_TEST_REPORT_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_TEST_REPORT_H_

#include <cstdint>
#include <span>
#include <string>

#include "crush/types.h"

namespace crushkit::tools::crushtool {

// `CRUSH rule R x X [a,b,c]` (`RNG rule ...` for --simulate's placements).
void AppendMappingLine(std::string& out, bool simulated, int rule, int x,
                       std::span<const crush::ItemId> result);

// `bad mapping rule R x X num_rep N result [a,b]`.
void AppendBadMappingLine(std::string& out, int rule, int x, int num_rep,
                          std::span<const crush::ItemId> result);

// The stderr line of --show-utilization-all: `devices weights (hex): [...]`.
std::string DeviceWeightsLine(std::span<const crush::Weight> weight);

// `rule R (NAME)`, the prefix of a rule's statistics lines.
std::string RulePrefix(int rule, const std::string& name);

// `rule R (NAME), x = A..B, numrep = C..D`.
std::string RuleStatisticsHeader(const std::string& rule_prefix, int min_x, int max_x, int min_rep,
                                 int max_rep);

// One `... num_rep N result size == S:\tCOUNT/NUM_OBJECTS` line per result
// size some mapping had (sizes[s]: mappings with s results; Ceph counts in
// an int, which wraps).
void AppendResultSizes(std::string& out, const std::string& rule_prefix, int num_rep,
                       std::span<const std::uint64_t> sizes, int num_objects);

// `  device D:\t\t stored : N\t expected : E` per device: with --show-
// utilization the devices expected and stored something, with
// --show-utilization-all (and not --show-utilization) every device.
void AppendUtilization(std::string& out, std::span<const long long> stored,
                       std::span<const float> expected, bool utilization, bool utilization_all);

// --show-choose-tries: `%2zu: %9u` for the first `total_tries` counters.
void AppendChooseTries(std::string& out, std::span<const std::uint32_t> histogram,
                       std::uint32_t total_tries);

// The stderr warnings crushkit adds where Ceph's answer is undefined: bucket
// ids in results (Ceph counts them out of bounds), a negative num_rep (Ceph
// sizes a stack array with it), and `diverged` mappings whose result is
// crushkit's documented answer (--test and --compare).
std::string EmittedBucketsWarning(long long emitted_buckets);
std::string NegativeNumRepWarning();
std::string DivergedMappingsWarning(long long diverged);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_TEST_REPORT_H_
