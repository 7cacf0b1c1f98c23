#include "tools/crushtool/tester.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "crush/mapper.h"
#include "crush/model.h"
#include "crush/types.h"
#include "tools/crushtool/lrand48.h"
#include "tools/crushtool/mark_down.h"
#include "tools/crushtool/random_placement.h"
#include "tools/crushtool/test_batches.h"
#include "tools/crushtool/test_csv.h"
#include "tools/crushtool/test_mapping.h"
#include "tools/crushtool/test_report.h"

namespace crushkit::tools::crushtool {
namespace {

using crush::CrushMap;
using crush::ItemId;
using crush::MapModel;
using crush::Weight;

// CrushWrapper::get_bucket_type(): the bucket's type, or -ENOENT (-2) for a
// device id or a missing bucket.
int BucketTypeOrEnoent(const MapModel& m, ItemId id) {
  const crush::Bucket* b = m.FindBucket(id);
  if (b == nullptr || b->alg == crush::BucketAlg::kNone) return -2;
  return b->type;
}

// CrushTester::get_maximum_affected_by_rule(), quirks included: every step
// whose op is >= 2 and != emit (so also the set_* steps, with their arg2)
// counts as a "choose" of type arg2; the candidates are all *named* items
// whose bucket type matches (shadow buckets included).
int MaximumAffectedByRule(const CrushMap& map, int rule) {
  const MapModel& m = map.model();
  const crush::Rule& r = m.rules[static_cast<std::size_t>(rule)];
  std::vector<int> affected_types;
  std::map<int, int> replications_by_type;
  for (const crush::RuleStep& s : r.steps) {
    const auto op = static_cast<std::uint32_t>(s.op);
    if (op >= 2 && op != 4) {
      affected_types.push_back(s.arg2);
      replications_by_type[s.arg2] = s.arg1;
    }
  }
  std::map<int, int> max_devices_of_type;
  for (int type : affected_types) {
    for (const auto& [id, name] : m.item_names) {
      if (BucketTypeOrEnoent(m, id) == type) max_devices_of_type[type]++;
    }
  }
  for (int type : affected_types) {
    if (replications_by_type[type] > 0 && replications_by_type[type] < max_devices_of_type[type]) {
      max_devices_of_type[type] = replications_by_type[type];
    }
  }
  int max_affected = std::max(map.max_buckets(), map.max_devices());
  for (int type : affected_types) {
    if (max_devices_of_type[type] > 0 && max_devices_of_type[type] < max_affected) {
      max_affected = max_devices_of_type[type];
    }
  }
  return max_affected;
}

// CrushWrapper::check_item_present(): the item is in some bucket.
std::vector<bool> PresentDevices(const MapModel& m, int max_devices) {
  std::vector<bool> present(static_cast<std::size_t>(max_devices), false);
  for (const crush::Bucket& b : m.buckets) {
    if (b.alg == crush::BucketAlg::kNone) continue;
    for (ItemId item : b.items) {
      if (item >= 0 && item < max_devices) present[static_cast<std::size_t>(item)] = true;
    }
  }
  return present;
}

std::string RuleName(const MapModel& m, int rule) {
  // Ceph streams a null char* here (and then builds a std::string from it,
  // which throws); crushkit prints an unnamed rule's name as empty.
  auto it = m.rule_names.find(rule);
  return it == m.rule_names.end() ? std::string() : it->second;
}

// Each device's expected share of `num_objects` mappings of `num_rep`
// results (CrushTester::test(): in float, capped at the rule's maximum).
std::vector<float> ExpectedObjects(std::span<const Weight> weight, int total_weight, int num_rep,
                                   int max_affected, int num_objects) {
  const auto expected_objects =
      static_cast<float>(WrapMul(std::min(num_rep, max_affected), num_objects));
  std::vector<float> expected(weight.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const float proportional = static_cast<float>(weight[i]) / static_cast<float>(total_weight);
    expected[i] = proportional * expected_objects;
  }
  return expected;
}

// One `crushtool --test` run: CrushTester::test()'s loop over rules and
// num_reps, and what it keeps across them.
class CrushTest {
 public:
  CrushTest(const CrushMap& map, const TestOptions& opt, TestOutput& output,
            const TestThreading& threading)
      : map_(map),
        m_(map.model()),
        opt_(opt),
        output_(output),
        threading_(threading),
        ranges_(TestRangesFor(map, opt)),
        statistics_(opt.output_statistics || opt.output_utilization || opt.output_utilization_all),
        weight_(TestDeviceWeights(map, opt)),
        choose_args_(map.ResolveChooseArgs(0)) {}

  int Run();

 private:
  int TestRule(int r);
  int TestNumRep(int r, const std::string& rule_prefix, int nr, int max_affected);
  void AddChooseTries(const std::vector<std::uint32_t>& profile);
  int Undefined(const absl::Status& status);

  const CrushMap& map_;
  const MapModel& m_;
  const TestOptions& opt_;
  TestOutput& output_;
  const TestThreading& threading_;
  const TestRanges ranges_;
  const bool statistics_;
  std::vector<Weight> weight_;  // after --mark-down-ratio
  const crush::ChooseArgsRef choose_args_;
  Lrand48 rng_;  // CrushTester's lrand48() stream
  std::vector<std::uint32_t> choose_tries_;
  // Mappings whose result is crushkit's documented answer where Ceph's is
  // undefined (see crush/mapper.h); reported once on stderr at the end.
  long long diverged_ = 0;
  // Bucket ids in results: Ceph's tester indexes its per-device counters
  // with them, writing out of bounds (often into its choose_tries histogram).
  long long emitted_buckets_ = 0;
  // Quincy+ accept a negative --min-rep/--max-rep and size a stack array with
  // it (undefined: they print garbage or die of stack smashing).
  bool negative_num_rep_ = false;
};

int CrushTest::Undefined(const absl::Status& status) {
  output_.WriteErr("crushkit crushtool: undefined in Ceph: " + std::string(status.message()) +
                   "\n");
  return 1;
}

int CrushTest::Run() {
  if (opt_.output_utilization_all) output_.WriteErr(DeviceWeightsLine(weight_));
  if (auto s = MarkDevicesDown(m_, opt_.mark_down_device_ratio, opt_.mark_down_bucket_ratio,
                               weight_, rng_);
      !s.ok()) {
    return Undefined(s);
  }
  // Ceph's choose_tries array has choose_total_tries + 1 slots and prints
  // choose_total_tries of them; the mapper caps the histogram at 2^16.
  const std::uint64_t profile_slots =
      std::min<std::uint64_t>(std::uint64_t{m_.tunables.choose_total_tries} + 1, 1U << 16);
  choose_tries_.assign(opt_.output_choose_tries ? static_cast<std::size_t>(profile_slots) : 0, 0);

  for (int r = ranges_.min_rule; r < map_.max_rules() && r <= ranges_.max_rule; ++r) {
    if (const int rc = TestRule(r); rc != 0) return rc;
  }

  if (opt_.output_choose_tries) {
    AppendChooseTries(output_.out, choose_tries_, m_.tunables.choose_total_tries);
  }
  output_.MaybeFlush();
  if (emitted_buckets_ > 0) output_.WriteErr(EmittedBucketsWarning(emitted_buckets_));
  if (negative_num_rep_) output_.WriteErr(NegativeNumRepWarning());
  if (diverged_ > 0) output_.WriteErr(DivergedMappingsWarning(diverged_));
  return 0;
}

int CrushTest::TestRule(int r) {
  if (!map_.RuleExists(r)) {
    if (statistics_) output_.out += "rule " + std::to_string(r) + " dne\n";
    return 0;
  }
  const crush::Rule& rule = m_.rules[static_cast<std::size_t>(r)];
  if (opt_.ruleset >= 0 && rule.ruleset != opt_.ruleset) return 0;
  const auto [minr, maxr] = TestNumRepRange(rule, opt_);
  const std::string rule_prefix = RulePrefix(r, RuleName(m_, r));
  if (statistics_) {
    output_.out += RuleStatisticsHeader(rule_prefix, ranges_.min_x, ranges_.max_x, minr, maxr);
  }
  const int max_affected = MaximumAffectedByRule(map_, r);
  for (int nr = minr; nr <= maxr; ++nr) {
    if (const int rc = TestNumRep(r, rule_prefix, nr, max_affected); rc != 0) return rc;
    if (nr == maxr) break;  // nr <= maxr with maxr == INT_MAX must not overflow
  }
  return 0;
}

int CrushTest::TestNumRep(int r, const std::string& rule_prefix, int nr, int max_affected) {
  if (nr > kMaxNumRep) {
    // Ceph keeps rawout and its workspace on the stack and dies of a stack
    // overflow well below this; we refuse instead of allocating.
    output_.WriteErr("crushkit crushtool: num_rep " + std::to_string(nr) +
                     " exceeds the supported maximum " + std::to_string(kMaxNumRep) + "\n");
    return 1;
  }
  if (nr < 0) negative_num_rep_ = true;
  const int num_objects = InputCount(ranges_.min_x, ranges_.max_x);
  int total_weight = 0;
  for (Weight w : weight_) total_weight = WrapAdd(total_weight, static_cast<int>(w));
  if (total_weight == 0) return 0;
  const std::vector<float> expected =
      ExpectedObjects(weight_, total_weight, nr, max_affected, num_objects);

  RuleRun run;
  run.map = &map_;
  run.rule = r;
  run.num_rep = nr;
  run.weight = weight_;
  run.choose_args = choose_args_;
  run.pool_id = opt_.pool_id;
  run.output_mappings = opt_.output_mappings;
  run.output_bad_mappings = opt_.output_bad_mappings;
  run.choose_tries_profile = opt_.output_choose_tries;
  run.segments = BatchSegments(ranges_.min_x, ranges_.max_x, opt_.batches, num_objects);
  std::optional<RandomPlacer> placer;
  std::vector<std::vector<ItemId>> placements;
  if (opt_.simulate) {
    absl::StatusOr<RandomPlacer> p = RandomPlacer::ForRule(m_, r, max_affected);
    if (!p.ok()) return Undefined(p.status());
    placer.emplace(*std::move(p));
    run.placer = &*placer;
    run.rng = &rng_;
  }
  if (opt_.output_csv) run.placements = &placements;

  absl::StatusOr<RuleCounts> counts = MapRule(run, threading_, output_);
  if (!counts.ok()) return Undefined(counts.status());
  diverged_ += counts->diverged;
  emitted_buckets_ += counts->emitted_buckets;
  AddChooseTries(counts->choose_tries);
  if (statistics_) {
    AppendResultSizes(output_.out, rule_prefix, nr, counts->sizes, num_objects);
    AppendUtilization(output_.out, counts->per_device, expected, opt_.output_utilization,
                      opt_.output_utilization_all);
  }
  if (opt_.output_csv) {
    const CsvRuleRun csv{
        r, nr, ranges_.min_x, ranges_.max_x, weight_, counts->per_device, expected, placements};
    if (auto s = WriteTestCsv(m_, opt_, csv); !s.ok()) {
      output_.WriteErr("crushkit crushtool: --output-csv: " + std::string(s.message()) + "\n");
      return 1;
    }
  }
  output_.MaybeFlush();
  return 0;
}

void CrushTest::AddChooseTries(const std::vector<std::uint32_t>& profile) {
  const std::size_t n = std::min(profile.size(), choose_tries_.size());
  for (std::size_t i = 0; i < n; ++i) choose_tries_[i] += profile[i];
}

}  // namespace

std::vector<Weight> TestDeviceWeights(const CrushMap& map, const TestOptions& opt) {
  const int max_devices = map.max_devices();
  const std::vector<bool> present = PresentDevices(map.model(), max_devices);
  std::vector<Weight> weight(static_cast<std::size_t>(max_devices));
  for (int o = 0; o < max_devices; ++o) {
    auto it = opt.device_weight.find(o);
    if (it != opt.device_weight.end()) {
      weight[static_cast<std::size_t>(o)] = it->second;
    } else {
      weight[static_cast<std::size_t>(o)] = present[static_cast<std::size_t>(o)] ? 0x10000 : 0;
    }
  }
  return weight;
}

std::pair<int, int> TestNumRepRange(const crush::Rule& rule, const TestOptions& opt) {
  if (opt.rule_sizes_default && (opt.min_rep < 0 || opt.max_rep < 0)) {
    return {rule.min_size, rule.max_size};
  }
  return {opt.min_rep, opt.max_rep};
}

TestThreading TestThreadingFromEnvironment() {
  TestThreading threading;
  const char* env = std::getenv("CRUSHKIT_THREADS");
  if (env == nullptr || *env < '0' || *env > '9') return threading;  // digits only
  char* end = nullptr;
  const long n = std::strtol(env, &end, 10);
  if (*end != '\0' || n < 1 || n > kMaxTestThreads) return threading;
  threading.threads = static_cast<int>(n);
  threading.min_parallel_x = 0;
  return threading;
}

void TestOutput::MaybeFlush() {
  if (out_file != nullptr && out.size() >= flush_threshold) Flush();
}

void TestOutput::Flush() {
  if (out_file != nullptr && !out.empty()) {
    std::fwrite(out.data(), 1, out.size(), out_file);
    std::fflush(out_file);
    out.clear();
  }
}

void TestOutput::WriteErr(const std::string& text) {
  if (err_file == nullptr) {
    err += text;
    return;
  }
  Flush();
  std::fwrite(text.data(), 1, text.size(), err_file);
  std::fflush(err_file);
}

TestRanges TestRangesFor(const CrushMap& map, const TestOptions& opt) {
  TestRanges r{opt.min_rule, opt.max_rule, opt.min_x, opt.max_x};
  if (r.min_rule < 0 || r.max_rule < 0) {
    r.min_rule = 0;
    r.max_rule = map.max_rules() - 1;
  }
  if (r.min_x < 0 || r.max_x < 0) {
    r.min_x = 0;
    r.max_x = 1023;
  }
  return r;
}

int RunCrushTest(const CrushMap& map, const TestOptions& opt, TestOutput& output) {
  return RunCrushTest(map, opt, output, TestThreadingFromEnvironment());
}

int RunCrushTest(const CrushMap& map, const TestOptions& opt, TestOutput& output,
                 const TestThreading& threading) {
  return CrushTest(map, opt, output, threading).Run();
}

}  // namespace crushkit::tools::crushtool
