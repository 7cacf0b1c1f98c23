// DoRule throughput on a 10,000-OSD three-level straw2 map (hosts of 10,
// racks of 20 hosts, one root): replicated size 3 (chooseleaf firstn host)
// and EC 8+3 (chooseleaf indep host). Models an OSD remapping PGs: x varies
// each iteration and the workspace is reused, as a daemon thread would.
// BM_DiffPair_*: one x on two maps that differ in one host, without and
// with a ChoiceMemo (crush/choice_memo.h), as crushkit diff maps each PG.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"

#include "crush/choice_memo.h"
#include "crush/codec.h"
#include "crush/crushkit.h"
#include "crush/hash.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::crush {
namespace {

using crush_testing::TenThousandOsdMap;

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

// The same replicated mapping through the C API (crush/crushkit.h): its cost
// over BM_Replicated3_10kOsds is the wrapper's (argument checks, span
// building, choose_args resolution).
void BM_Replicated3_10kOsds_CApi(benchmark::State& state) {
  const std::string bytes = EncodeCrushMap(TenThousandOsdMap().model());
  crushkit_map* map = crushkit_map_from_binary(bytes.data(), bytes.size(), nullptr);
  crushkit_workspace* ws = crushkit_workspace_new(map, 3);
  std::array<std::int32_t, 3> out{};
  std::uint32_t x = 1;
  for (auto _ : state) {
    x = Hash32_1(x);
    benchmark::DoNotOptimize(crushkit_do_rule(map, ws, crush_testing::kReplicatedRule, x,
                                              out.data(), 3, nullptr, 0, CRUSHKIT_NO_CHOOSE_ARGS));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  crushkit_workspace_free(ws);
  crushkit_map_free(map);
}

BENCHMARK(BM_Replicated3_10kOsds_CApi);

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

// crushkit diff's geometry: 20 racks x 20 hosts x 25 OSDs (10,000), straw2,
// and a copy where every OSD of one host weighs 0.5 (so that host, its rack
// and the root differ; 399 hosts and 19 racks are identical).
crush_testing::ClusterSpec DiffSpec() {
  crush_testing::ClusterSpec spec;
  spec.hosts = 400;
  spec.osds_per_host = 25;
  spec.racks = 20;
  return spec;
}

const CrushMap& DiffMapBefore() {
  static const CrushMap* map = new CrushMap(crush_testing::MakeCluster(DiffSpec()));
  return *map;
}

const CrushMap& DiffMapAfter() {
  static const CrushMap* map = [] {
    crush_testing::ClusterSpec spec = DiffSpec();
    spec.osd_weights.assign(10000, kWeightOne);
    for (int i = 0; i < 25; ++i)
      spec.osd_weights[137 * 25 + static_cast<std::size_t>(i)] = kWeightOne / 2;
    return new CrushMap(crush_testing::MakeCluster(spec));
  }();
  return *map;
}

// One x mapped on the before map and then on the after map (what crushkit
// diff does per PG), without (Arg 0) or with (Arg 1) a ChoiceMemo: record
// on before, replay on after. Time is per pair.
template <std::size_t kReplicas>
void RunPair(benchmark::State& state, int rule) {
  const CrushMap& a = DiffMapBefore();
  const CrushMap& b = DiffMapAfter();
  const std::vector<Weight> reweights(10000, kWeightOne);
  Workspace ws_a(a, static_cast<int>(kReplicas));
  Workspace ws_b(b, static_cast<int>(kReplicas));
  ChoiceMemo memo(a, b);
  if (state.range(0) != 0) {
    ws_a.RecordChoicesInto(&memo);
    ws_b.ReplayChoicesFrom(&memo);
  }
  std::array<ItemId, kReplicas> out_a{};
  std::array<ItemId, kReplicas> out_b{};
  std::uint32_t x = 1;
  std::uint64_t hits = 0;
  for (auto _ : state) {
    x = Hash32_1(x);
    benchmark::DoNotOptimize(DoRule(a, rule, x, reweights, ws_a, out_a));
    benchmark::DoNotOptimize(DoRule(b, rule, x, reweights, ws_b, out_b));
    hits += ws_b.memo_hits();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hits_per_pair"] =
      static_cast<double>(hits) /
      static_cast<double>(std::max<std::int64_t>(state.iterations(), 1));
}

void BM_DiffPair_Replicated3(benchmark::State& state) {
  RunPair<3>(state, crush_testing::kReplicatedRule);
}

BENCHMARK(BM_DiffPair_Replicated3)->Arg(0)->Arg(1);

void BM_DiffPair_Ec8p3(benchmark::State& state) { RunPair<11>(state, crush_testing::kEcRule); }

BENCHMARK(BM_DiffPair_Ec8p3)->Arg(0)->Arg(1);

// Building the flat map itself (validation + flattening), for reference.
void BM_BuildCrushMap_10kOsds(benchmark::State& state) {
  const MapModel model = crush_testing::MakeClusterModel(crush_testing::TenThousandOsdSpec());
  for (auto _ : state) {
    auto map = CrushMap::Build(model);
    benchmark::DoNotOptimize(map);
  }
}

BENCHMARK(BM_BuildCrushMap_10kOsds)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace crushkit::crush
