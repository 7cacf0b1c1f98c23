// The map-pgs hot path: one PgMapper (one CRUSH workspace) mapping every PG
// of a pool on a root -> host -> osd straw2 cluster, as `crushkit map-pgs`
// does.
#include <benchmark/benchmark.h>

#include "crush/map.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping.h"

namespace crushkit::osdmap {
namespace {

crush::MapModel MakeCluster(int osds, int per_host) {
  crush::MapModel m;
  const int hosts = (osds + per_host - 1) / per_host;
  m.max_devices = osds;
  m.buckets.resize(static_cast<std::size_t>(hosts + 1));
  crush::Bucket& root = m.buckets[0];
  root.id = -1;
  root.type = 2;
  root.alg = crush::BucketAlg::kStraw2;
  for (int h = 0; h < hosts; ++h) {
    crush::Bucket& b = m.buckets[static_cast<std::size_t>(h + 1)];
    b.id = -2 - h;
    b.type = 1;
    b.alg = crush::BucketAlg::kStraw2;
    for (int o = h * per_host; o < std::min(osds, (h + 1) * per_host); ++o) {
      b.items.push_back(o);
      b.item_weights.push_back(crush::kWeightOne);
      b.weight += crush::kWeightOne;
    }
    root.items.push_back(b.id);
    root.item_weights.push_back(b.weight);
    root.weight += b.weight;
  }
  crush::Rule r;
  r.steps = {{crush::RuleOp::kTake, -1, 0},
             {crush::RuleOp::kChooseleafFirstn, 0, 1},
             {crush::RuleOp::kEmit, 0, 0}};
  m.rules.push_back(r);
  m.rule_exists.push_back(true);
  m.tunables = crush::TunablesFor(crush::TunablesProfile::kJewel);
  return m;
}

void BM_MapPool(benchmark::State& state) {
  const int osds = static_cast<int>(state.range(0));
  ClusterState cs;
  cs.crush = MakeCluster(osds, 20);
  cs.osds.assign(static_cast<std::size_t>(osds), OsdInfo{kOsdExists | kOsdUp, 0x10000, 0x10000});
  Pool p;
  p.id = 1;
  p.pg_num = p.pgp_num = 1u << 16;
  cs.pools[1] = p;
  auto map = crush::CrushMap::Build(cs.crush);
  if (!map.ok()) {
    state.SkipWithError("bad map");
    return;
  }
  CrushPlacement placement(*map, cs.ceph_release);
  PgMapper mapper(cs, placement);
  PgMapping out;
  std::uint32_t ps = 0;
  const Pool& pool = cs.pools[1];
  for (auto _ : state) {
    mapper.MapPg(pool, ps, &out);
    benchmark::DoNotOptimize(out.acting_primary);
    ps = (ps + 1) & 0xffff;
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_MapPool)->Arg(100)->Arg(1000)->Arg(10000);

}  // namespace
}  // namespace crushkit::osdmap
