// The upmap balancer on a 1,000-OSD cluster (40 hosts x 25 OSDs, straw2,
// CRUSH weights 1.0 to 3.0 in five steps) with three pools: replicated
// size 3 with 16,384 PGs, EC 4+2 (indep) with 4,096 PGs and replicated
// size 3 with 2,048 PGs. One iteration = one BalanceUpmaps() call: the
// initial mapping of all 22,528 PGs, then up to range(0) moves at
// deviation 1, as `crushkit balance --max N --deviation 1` runs it.
#include <benchmark/benchmark.h>

#include "osdmap/balancer/upmap_balancer.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::osdmap {
namespace {

ClusterState MakeState() {
  crush_testing::ClusterSpec spec;
  spec.hosts = 40;
  spec.osds_per_host = 25;
  for (int o = 0; o < 1000; ++o) {
    // The bench script's weights: 1 + ((o * 7919) % 5) * 0.5.
    spec.osd_weights.push_back(static_cast<crush::Weight>(0x10000 + ((o * 7919) % 5) * 0x8000));
  }
  ClusterState s;
  s.crush = crush_testing::MakeClusterModel(spec);
  s.osds.assign(1000, OsdInfo{kOsdExists | kOsdUp, 0x10000, kDefaultPrimaryAffinity});
  const auto add = [&](std::int64_t id, PoolType type, std::uint32_t size, int rule,
                       std::uint32_t pgs) {
    Pool p;
    p.id = id;
    p.name = "pool" + std::to_string(id);
    p.type = type;
    p.size = size;
    p.crush_rule = rule;
    p.pg_num = p.pgp_num = pgs;
    if (type == PoolType::kErasure) {
      p.ec_k = 4;
      p.ec_m = 2;
    }
    s.pools[id] = p;
  };
  add(1, PoolType::kReplicated, 3, crush_testing::kReplicatedRule, 16384);
  add(2, PoolType::kErasure, 6, crush_testing::kEcRule, 4096);
  add(3, PoolType::kReplicated, 3, crush_testing::kReplicatedRule, 2048);
  return s;
}

void BM_BalanceUpmaps(benchmark::State& state) {
  const ClusterState cluster = MakeState();
  BalancerOptions options;
  options.max_changes = static_cast<int>(state.range(0));
  options.max_deviation = 1;
  // One thread: Google Benchmark's cpu time is the calling thread's, which
  // would miss the mapping done on the others.
  options.threads = 1;
  double before = 0;
  double after = 0;
  int moves = 0;
  for (auto _ : state) {
    auto r = BalanceUpmaps(cluster, options);
    if (!r.ok()) {
      state.SkipWithError("BalanceUpmaps failed");
      return;
    }
    before = r->overall_before.max_deviation;
    after = r->overall_after.max_deviation;
    moves = r->moves;
    benchmark::DoNotOptimize(r->changes.data());
  }
  state.counters["moves"] = moves;
  state.counters["max_dev_before"] = before;
  state.counters["max_dev_after"] = after;
}

BENCHMARK(BM_BalanceUpmaps)
    ->Arg(0)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace crushkit::osdmap
