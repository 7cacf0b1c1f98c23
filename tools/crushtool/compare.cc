#include "tools/crushtool/compare.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "crush/codec.h"
#include "crush/mapper.h"
#include "crush/util/text_format.h"
#include "tools/crushtool/ceph_io.h"
#include "tools/crushtool/test_batches.h"
#include "tools/crushtool/test_report.h"

namespace crushkit::tools::crushtool {

int CompareMaps(const crush::CrushMap& map, const crush::CrushMap& other, const TestOptions& opt,
                bool statistics, TestOutput& output) {
  const auto [min_rule, max_rule, min_x, max_x] = TestRangesFor(map, opt);
  const std::vector<crush::Weight> weight = TestDeviceWeights(map, opt);
  const crush::ChooseArgsRef args = map.ResolveChooseArgs(0);
  const crush::ChooseArgsRef other_args = other.ResolveChooseArgs(0);
  long long diverged = 0;
  bool missing_rule = false;
  bool differ = false;

  for (int r = min_rule; r < map.max_rules() && r <= max_rule; ++r) {
    if (!map.RuleExists(r)) {
      if (statistics) output.out += "rule " + std::to_string(r) + " dne\n";
      continue;
    }
    const crush::Rule& rule = map.model().rules[static_cast<std::size_t>(r)];
    if (opt.ruleset >= 0 && rule.ruleset != opt.ruleset) continue;
    const auto [minr, maxr] = TestNumRepRange(rule, opt);
    // Below other's max_rules an empty slot is a null rule Ceph dereferences.
    if (!other.RuleExists(r) && r < other.max_rules()) missing_rule = true;
    long long bad = 0;
    for (long long nr = minr; nr <= maxr; ++nr) {
      if (nr > kMaxNumRep) {
        output.WriteErr("crushkit crushtool: num_rep " + std::to_string(nr) +
                        " exceeds the supported maximum " + std::to_string(kMaxNumRep) + "\n");
        return 1;
      }
      const int reps = static_cast<int>(std::max<long long>(nr, 0));
      crush::Workspace ws(map, reps), other_ws(other, reps);
      std::vector<crush::ItemId> out(static_cast<std::size_t>(reps)), out2(out.size());
      for (long long x = min_x; x <= max_x; ++x) {
        const auto ux = static_cast<std::uint32_t>(x);
        const int n = crush::DoRule(map, r, ux, weight, ws, out, args);
        const int n2 = crush::DoRule(other, r, ux, weight, other_ws, out2, other_args);
        if (ws.diverged_from_ceph()) ++diverged;
        if (other_ws.diverged_from_ceph()) ++diverged;
        if (!std::equal(out.begin(), out.begin() + n, out2.begin(), out2.begin() + n2)) ++bad;
      }
    }
    if (bad != 0) differ = true;
    // Ceph computes the total in `int`; x86-64 wraps, so do we.
    const int total = WrapMul(InputCount(minr, maxr), InputCount(min_x, max_x));
    // Ceph counts in an int.
    const auto bad_int = static_cast<int>(static_cast<std::uint32_t>(bad));
    const double ratio = static_cast<double>(bad_int) / static_cast<double>(total);
    output.out += "rule " + std::to_string(r) + " had " + std::to_string(bad_int) + "/" +
                  std::to_string(total) + " mismatched mappings (" + util::FormatCephDouble(ratio) +
                  ")\n";
    output.MaybeFlush();
  }
  if (differ) {
    output.WriteErr("warning: maps are NOT equivalent\n");
  } else {
    output.out += "maps appear equivalent\n";
  }
  if (missing_rule) {
    output.WriteErr(
        "crushkit crushtool: warning: the compared map lacks a rule the input map has"
        " (an empty slot below its max_rules, which Ceph's crushtool dereferences and"
        " crashes on); crushkit compared those inputs with an empty result\n");
  }
  if (diverged > 0) {
    output.WriteErr(DivergedMappingsWarning(diverged));
  }
  return differ ? 1 : 0;
}

std::optional<int> RunCompareStage(const CrushtoolOptions& o, const crush::MapModel& model,
                                   crush::CephRelease release, std::FILE* out, std::FILE* err) {
  std::string data, error;
  if (!ReadMapFile(o.compare, &data, &error)) {
    WriteAndFlush(err, std::string(kMe) + ": error reading '" + o.compare + "': " + error + "\n");
    return 1;
  }
  crush::DecodeOptions decode_options;
  decode_options.ignore_trailing_bytes = true;  // as Pacific's decoder
  auto decoded = crush::DecodeCrushMap(data, decode_options);
  if (!decoded.ok() || !crush::CheckDecodable(*decoded, release).ok()) {
    WriteAndFlush(err, std::string(kMe) + ": unable to decode " + o.compare + "\n");
    return 1;
  }
  auto map = crush::CrushMap::Build(model);
  auto other = crush::CrushMap::Build(*decoded);
  if (!map.ok() || !other.ok()) {
    const absl::Status& s = map.ok() ? other.status() : map.status();
    WriteAndFlush(
        err, "crushkit crushtool: cannot compare the maps: " + std::string(s.message()) + "\n");
    return 1;
  }
  // crushtool turns --show-utilization[-all] into --show-statistics only
  // inside its --test stage, which runs before this one.
  const bool statistics =
      o.tester.output_statistics ||
      (o.test && (o.tester.output_utilization || o.tester.output_utilization_all));
  TestOutput output;
  output.out_file = out;
  output.err_file = err;
  const int r = CompareMaps(*map, *other, o.tester, statistics, output);
  output.Flush();
  if (r != 0) return 1;
  return std::nullopt;
}

}  // namespace crushkit::tools::crushtool
