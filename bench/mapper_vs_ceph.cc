// crushkit's DoRule against Ceph's own compiled mapper, side by side in one
// process: Ceph's crush_do_rule from ceph-base's libceph-common.so.2 (the
// code Ceph's daemons and tools run, loaded with dlopen; see
// tests/testing/ceph_mapper.h) and crush::DoRule, on the same 10,000-OSD
// three-level straw2 map as crush/mapper_benchmark.cc (hosts of 10, racks
// of 20 hosts), the same x sequence, one thread each. Before timing, both
// map 20,000 inputs per rule and must agree on every result.
// The same geometry with mixed OSD weights (1.0-3.0 in five steps, as real
// clusters mix disk sizes) runs too: its hosts take straw2's general path
// (a numerator per item) instead of the equal-weight shortcuts.
// Prints Google Benchmark's table, then one line per rule: the ratio of
// Ceph's time per mapping to crushkit's (medians with --benchmark_repetitions).
//   build/bench/mapper_vs_ceph --benchmark_repetitions=5
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"

#include "crush/hash.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"
#include "tests/testing/ceph_mapper.h"
#include "tests/testing/cluster_builder.h"

namespace {

using crush_testing::CephMapper;
using crush_testing::CephWorkspace;
using crushkit::crush::CrushMap;
using crushkit::crush::DoRule;
using crushkit::crush::Hash32_1;
using crushkit::crush::ItemId;
using crushkit::crush::Weight;
using crushkit::crush::Workspace;

using crush_testing::TenThousandOsdMap;

// TenThousandOsdMap's geometry with OSD i weighing 1.0 + 0.5 * (i % 5).
const CrushMap& MixedWeightMap() {
  static const auto* map = [] {
    crush_testing::ClusterSpec spec = crush_testing::TenThousandOsdSpec();
    const int osds = spec.hosts * spec.osds_per_host;
    for (int i = 0; i < osds; ++i) {
      spec.osd_weights.push_back(crushkit::crush::kWeightOne +
                                 crushkit::crush::kWeightOne / 2 * static_cast<Weight>(i % 5));
    }
    return new CrushMap(crush_testing::MakeCluster(spec));
  }();
  return *map;
}

const std::vector<Weight>& AllIn() {
  static const std::vector<Weight> weights(
      static_cast<std::size_t>(TenThousandOsdMap().max_devices()), crushkit::crush::kWeightOne);
  return weights;
}

// Ceph's copy of each map, loaded in main().
const CephMapper* ceph_equal = nullptr;
const CephMapper* ceph_mixed = nullptr;

const CrushMap& MapOf(bool mixed) { return mixed ? MixedWeightMap() : TenThousandOsdMap(); }

const CephMapper& CephOf(bool mixed) { return mixed ? *ceph_mixed : *ceph_equal; }

template <std::size_t kReplicas>
void Crushkit(benchmark::State& state, int rule, bool mixed) {
  const CrushMap& map = MapOf(mixed);
  Workspace ws(map, static_cast<int>(kReplicas));
  std::array<ItemId, kReplicas> out{};
  std::uint32_t x = 1;
  for (auto _ : state) {
    x = Hash32_1(x);
    benchmark::DoNotOptimize(DoRule(map, rule, x, AllIn(), ws, out));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

template <std::size_t kReplicas>
void Ceph(benchmark::State& state, int rule, bool mixed) {
  const CephMapper& ceph = CephOf(mixed);
  CephWorkspace ws(ceph, static_cast<int>(kReplicas));
  std::array<int, kReplicas> out{};
  std::uint32_t x = 1;
  for (auto _ : state) {
    x = Hash32_1(x);
    benchmark::DoNotOptimize(ceph.DoRule(rule, static_cast<int>(x), AllIn(), ws, out));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

// Both mappers agree on `inputs` consecutive x of the benchmark's sequence.
bool SameResults(bool mixed, int rule, int result_max, int inputs) {
  std::vector<std::uint32_t> first;
  if (crush_testing::CountDifferencesFromCeph(MapOf(mixed), CephOf(mixed), rule, result_max,
                                              AllIn(), inputs, 1, &first) == 0) {
    return true;
  }
  std::fprintf(stderr, "%s map, rule %d x %u: crushkit and Ceph differ\n",
               mixed ? "mixed-weight" : "equal-weight", rule, first.front());
  return false;
}

// Keeps each benchmark's CPU time per iteration (the median when there
// are repetitions) to print the ratios after the table.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Iteration && seconds_.count(run.run_name.function_name) == 0) {
        seconds_[run.run_name.function_name] = run.GetAdjustedCPUTime();
      } else if (median) {
        seconds_[run.run_name.function_name] = run.GetAdjustedCPUTime();
      }
    }
  }

  void PrintRatio(const std::string& what) const {
    const auto c = seconds_.find("Ceph_" + what);
    const auto k = seconds_.find("Crushkit_" + what);
    if (c == seconds_.end() || k == seconds_.end() || k->second <= 0) return;
    std::printf("%-22s Ceph %8.3f us  crushkit %8.3f us  ratio %5.2fx\n", what.c_str(),
                c->second / 1000, k->second / 1000, c->second / k->second);
  }

 private:
  std::map<std::string, double> seconds_;  // benchmark -> ns per mapping
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  auto equal = CephMapper::Load(TenThousandOsdMap().model());
  auto mixed = equal.ok() ? CephMapper::Load(MixedWeightMap().model()) : equal.status();
  if (!mixed.ok()) {
    std::fprintf(stderr, "mapper_vs_ceph: %s\n", mixed.status().ToString().c_str());
    return 2;
  }
  ceph_equal = equal->get();
  ceph_mixed = mixed->get();
  for (const bool m : {false, true}) {
    if (!SameResults(m, crush_testing::kReplicatedRule, 3, 20000) ||
        !SameResults(m, crush_testing::kEcRule, 11, 20000)) {
      return 1;
    }
  }
  for (const bool m : {false, true}) {
    const std::string suffix = m ? "_10kOsdsMixedWeights" : "_10kOsds";
    benchmark::RegisterBenchmark(("Ceph_Replicated3" + suffix).c_str(), Ceph<3>,
                                 crush_testing::kReplicatedRule, m);
    benchmark::RegisterBenchmark(("Crushkit_Replicated3" + suffix).c_str(), Crushkit<3>,
                                 crush_testing::kReplicatedRule, m);
    benchmark::RegisterBenchmark(("Ceph_Ec8p3" + suffix).c_str(), Ceph<11>, crush_testing::kEcRule,
                                 m);
    benchmark::RegisterBenchmark(("Crushkit_Ec8p3" + suffix).c_str(), Crushkit<11>,
                                 crush_testing::kEcRule, m);
  }
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  for (const char* what : {"Replicated3_10kOsds", "Ec8p3_10kOsds",
                           "Replicated3_10kOsdsMixedWeights", "Ec8p3_10kOsdsMixedWeights"}) {
    reporter.PrintRatio(what);
  }
  benchmark::Shutdown();
  return 0;
}
