// DoRule throughput on a 10,000-OSD three-level straw2 map (hosts of 10,
// racks of 20 hosts, one root): replicated size 3 (chooseleaf firstn host)
// and EC 8+3 (chooseleaf indep host). Models an OSD remapping PGs: x varies
// each iteration and the workspace is reused, as a daemon thread would.
#include <array>
#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "crush/hash.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::crush {
namespace {

const CrushMap& TenThousandOsdMap() {
  static const CrushMap* map = [] {
    crush_testing::ClusterSpec spec;
    spec.hosts = 1000;
    spec.osds_per_host = 10;
    spec.racks = 50;
    return new CrushMap(crush_testing::MakeCluster(spec));
  }();
  return *map;
}

template <std::size_t kReplicas>
void RunRule(benchmark::State& state, int rule) {
  const CrushMap& map = TenThousandOsdMap();
  const std::vector<Weight> reweights(static_cast<std::size_t>(map.max_devices()), kWeightOne);
  Workspace ws(map, static_cast<int>(kReplicas));
  std::array<ItemId, kReplicas> out{};
  std::uint32_t x = 1;
  for (auto _ : state) {
    x = Hash32_1(x);
    benchmark::DoNotOptimize(DoRule(map, rule, x, reweights, ws, out));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Replicated3_10kOsds(benchmark::State& state) {
  RunRule<3>(state, crush_testing::kReplicatedRule);
}
BENCHMARK(BM_Replicated3_10kOsds);

void BM_Ec8p3_10kOsds(benchmark::State& state) { RunRule<11>(state, crush_testing::kEcRule); }
BENCHMARK(BM_Ec8p3_10kOsds);

// Same replicated rule with 5% of the OSDs half-out (exercises is_out retries).
void BM_Replicated3_10kOsds_Reweighted(benchmark::State& state) {
  const CrushMap& map = TenThousandOsdMap();
  std::vector<Weight> reweights(static_cast<std::size_t>(map.max_devices()), kWeightOne);
  for (std::size_t i = 0; i < reweights.size(); i += 20) reweights[i] = kWeightOne / 2;
  Workspace ws(map, 3);
  std::array<ItemId, 3> out{};
  std::uint32_t x = 1;
  for (auto _ : state) {
    x = Hash32_1(x);
    benchmark::DoNotOptimize(DoRule(map, crush_testing::kReplicatedRule, x, reweights, ws, out));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Replicated3_10kOsds_Reweighted);

// Building the flat map itself (validation + flattening), for reference.
void BM_BuildCrushMap_10kOsds(benchmark::State& state) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 1000;
  spec.osds_per_host = 10;
  spec.racks = 50;
  const MapModel model = crush_testing::MakeClusterModel(spec);
  for (auto _ : state) {
    auto map = CrushMap::Build(model);
    benchmark::DoNotOptimize(map);
  }
}
BENCHMARK(BM_BuildCrushMap_10kOsds)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace crushkit::crush
