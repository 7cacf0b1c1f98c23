#include "tools/crushtool/test_report.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "crush/util/text_format.h"

namespace crushkit::tools::crushtool {
namespace {

void AppendVector(std::string& s, std::span<const crush::ItemId> v) {
  s.push_back('[');
  char buf[16];
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s.push_back(',');
    const int len = std::snprintf(buf, sizeof(buf), "%d", v[i]);
    s.append(buf, static_cast<std::size_t>(len));
  }
  s.push_back(']');
}

}  // namespace

void AppendMappingLine(std::string& out, bool simulated, int rule, int x,
                       std::span<const crush::ItemId> result) {
  out += simulated ? "RNG rule " : "CRUSH rule ";
  out += std::to_string(rule);
  out += " x ";
  out += std::to_string(x);
  out.push_back(' ');
  AppendVector(out, result);
  out.push_back('\n');
}

void AppendBadMappingLine(std::string& out, int rule, int x, int num_rep,
                          std::span<const crush::ItemId> result) {
  out += "bad mapping rule " + std::to_string(rule) + " x " + std::to_string(x) + " num_rep " +
         std::to_string(num_rep) + " result ";
  AppendVector(out, result);
  out.push_back('\n');
}

std::string DeviceWeightsLine(std::span<const crush::Weight> weight) {
  std::string line = "devices weights (hex): [";
  char buf[16];
  for (std::size_t i = 0; i < weight.size(); ++i) {
    if (i > 0) line.push_back(',');
    line.append(buf, static_cast<std::size_t>(std::snprintf(buf, sizeof(buf), "%x", weight[i])));
  }
  line += "]\n";
  return line;
}

std::string RulePrefix(int rule, const std::string& name) {
  return "rule " + std::to_string(rule) + " (" + name + ")";
}

std::string RuleStatisticsHeader(const std::string& rule_prefix, int min_x, int max_x, int min_rep,
                                 int max_rep) {
  return rule_prefix + ", x = " + std::to_string(min_x) + ".." + std::to_string(max_x) +
         ", numrep = " + std::to_string(min_rep) + ".." + std::to_string(max_rep) + "\n";
}

void AppendResultSizes(std::string& out, const std::string& rule_prefix, int num_rep,
                       std::span<const std::uint64_t> sizes, int num_objects) {
  for (std::size_t size = 0; size < sizes.size(); ++size) {
    if (sizes[size] == 0) continue;
    // Ceph counts in an int (std::map<int, int>); x86-64 wraps.
    const auto count = static_cast<int>(static_cast<std::uint32_t>(sizes[size]));
    out += rule_prefix + " num_rep " + std::to_string(num_rep) +
           " result size == " + std::to_string(size) + ":\t" + std::to_string(count) + "/" +
           std::to_string(num_objects) + "\n";
  }
}

void AppendUtilization(std::string& out, std::span<const long long> stored,
                       std::span<const float> expected, bool utilization, bool utilization_all) {
  char buf[64];
  for (std::size_t i = 0; i < stored.size(); ++i) {
    const bool print = utilization ? (expected[i] > 0 && stored[i] > 0) : utilization_all;
    if (!print) continue;
    const int len =
        std::snprintf(buf, sizeof(buf), "  device %zu:\t\t stored : %lld\t", i, stored[i]);
    out.append(buf, static_cast<std::size_t>(len));
    out += " expected : " + util::FormatCephFloat(expected[i]) + "\n";
  }
}

void AppendChooseTries(std::string& out, std::span<const std::uint32_t> histogram,
                       std::uint32_t total_tries) {
  char buf[64];
  const std::size_t n = std::min<std::size_t>(total_tries, histogram.size());
  for (std::size_t i = 0; i < n; ++i) {
    const int len = std::snprintf(buf, sizeof(buf), "%2zu: %9u\n", i, histogram[i]);
    out.append(buf, static_cast<std::size_t>(len));
  }
}

std::string EmittedBucketsWarning(long long emitted_buckets) {
  return "crushkit crushtool: warning: results held " + std::to_string(emitted_buckets) +
         " bucket id(s); Ceph's crushtool counts them at negative device indexes (it"
         " reads out of bounds there and may corrupt its other counters); crushkit"
         " counts devices only\n";
}

std::string NegativeNumRepWarning() {
  return "crushkit crushtool: warning: a negative num_rep was tested; Ceph's crushtool"
         " sizes a stack array with it (its answer is undefined, it reads out of bounds);"
         " crushkit maps nothing for it\n";
}

std::string DivergedMappingsWarning(long long diverged) {
  return "crushkit crushtool: warning: " + std::to_string(diverged) +
         " mapping(s) hit a tree bucket descent past its last item (Ceph reads out of"
         " bounds there) or the mapper's work budget; those results are crushkit's"
         " documented answers (crush/mapper.h), not Ceph's\n";
}

}  // namespace crushkit::tools::crushtool
