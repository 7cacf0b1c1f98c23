// The backfill simulation on a large change: `state.range(0)` PGs moving
// among 10,000 OSDs (random primary, 1-3 random targets, one in ten
// degraded), as `crushkit diff` would hand them over after adding a rack.
// The jobs are built once; each iteration simulates the whole schedule.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "osdmap/planning/backfill_schedule.h"

namespace crushkit::osdmap {
namespace {

std::vector<BackfillJob> MakeJobs(std::uint32_t pgs, int osds) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::int32_t> osd(0, osds - 1);
  std::uniform_int_distribution<std::uint64_t> bytes(1ull << 30, 8ull << 30);
  std::vector<BackfillJob> jobs(pgs);
  for (std::uint32_t i = 0; i < pgs; ++i) {
    BackfillJob& j = jobs[i];
    j.pg = PgId{1, i};
    j.primary = osd(rng);
    const int n = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < n; ++k) j.targets.push_back(osd(rng));
    j.bytes_per_target = bytes(rng);
    j.objects_per_target = j.bytes_per_target >> 22;
    j.priority = i % 10 == 0 ? kBackfillDegradedPriority : kBackfillPriority;
  }
  return jobs;
}

void Simulate(benchmark::State& state, bool hold_and_wait) {
  constexpr int kOsds = 10000;
  const std::vector<BackfillJob> jobs = MakeJobs(static_cast<std::uint32_t>(state.range(0)), kOsds);
  BackfillOsdInfo info;
  info.device_class.resize(kOsds);
  info.host.resize(kOsds);
  for (int o = 0; o < kOsds; ++o) {
    info.device_class[static_cast<std::size_t>(o)] = o % 4 == 0 ? "ssd" : "hdd";
    info.host[static_cast<std::size_t>(o)] = "host" + std::to_string(o / 20);
  }
  BackfillOptions options;
  options.max_backfills = static_cast<int>(state.range(1));
  options.hold_and_wait = hold_and_wait;
  for (auto _ : state) {
    auto schedule = SimulateBackfill(jobs, info, options);
    benchmark::DoNotOptimize(schedule);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_SimulateBackfill(benchmark::State& state) { Simulate(state, /*hold_and_wait=*/true); }

// The work-conserving order, the library's default before fa32d1c: what an
// A/B against older revisions compares with their BM_SimulateBackfill.
void BM_SimulateBackfillAllAtOnce(benchmark::State& state) {
  Simulate(state, /*hold_and_wait=*/false);
}

// 10,000 PGs is the CI smoke case (osdmap/CMakeLists.txt: SMOKE_FILTER).
BENCHMARK(BM_SimulateBackfill)
    ->Args({10000, 1})
    ->Args({100000, 1})
    ->Args({100000, 3})
    ->Args({1000000, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateBackfillAllAtOnce)
    ->Args({10000, 1})
    ->Args({100000, 1})
    ->Args({100000, 3})
    ->Args({1000000, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace crushkit::osdmap
