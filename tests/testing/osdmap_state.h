// Small ClusterStates for osdmap/ tests: every OSD existing, up and in, so a
// test states only what it changes. MakeOnePoolState: one pool on a given
// crush map; MakeTestState: hosts of OSDs (straw2, jewel), pool 1 "rep"
// (replicated, size 3, min_size 2, chooseleaf firstn host) and pool 2 "ec"
// (erasure 2+1, chooseleaf indep host); MakeRackState: racks of hosts and a
// replicated pool with rack failure domain.
#ifndef CRUSHKIT_TESTS_TESTING_OSDMAP_STATE_H_
#define CRUSHKIT_TESTS_TESTING_OSDMAP_STATE_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "crush/model.h"
#include "osdmap/model/cluster_state.h"
#include "tests/testing/cluster_builder.h"

namespace crush_testing {

// `num_osds` OSDs, each existing, up, reweight 1.0 and default primary
// affinity, the crush map `crush`, and pool 1 "p": `type`, size 3,
// pg_num = pgp_num = 16, `crush_rule`.
inline crushkit::osdmap::ClusterState MakeOnePoolState(std::size_t num_osds,
                                                       crushkit::osdmap::PoolType type,
                                                       crushkit::crush::MapModel crush = {},
                                                       std::int32_t crush_rule = 0) {
  using crushkit::osdmap::OsdInfo;
  crushkit::osdmap::ClusterState s;
  s.crush = std::move(crush);
  s.osds.assign(num_osds, OsdInfo{crushkit::osdmap::kOsdExists | crushkit::osdmap::kOsdUp, 0x10000,
                                  crushkit::osdmap::kDefaultPrimaryAffinity});
  crushkit::osdmap::Pool p;
  p.id = 1;
  p.name = "p";
  p.type = type;
  p.size = 3;
  p.crush_rule = crush_rule;
  p.pg_num = 16;
  p.pgp_num = 16;
  s.pools[1] = p;
  return s;
}

inline constexpr std::int64_t kRepPool = 1;
inline constexpr std::int64_t kEcPool = 2;

struct TestStateSpec {
  int hosts = 6;
  int osds_per_host = 1;
  std::uint32_t rep_pg_num = 2;
  std::uint32_t ec_pg_num = 2;
  std::uint32_t ec_min_size = 2;
};

inline crushkit::osdmap::ClusterState MakeTestState(const TestStateSpec& spec) {
  using namespace crushkit::osdmap;
  ClusterSpec cluster;
  cluster.hosts = spec.hosts;
  cluster.osds_per_host = spec.osds_per_host;
  ClusterState s;
  s.crush = MakeClusterModel(cluster);
  s.osds.assign(static_cast<std::size_t>(spec.hosts * spec.osds_per_host),
                OsdInfo{kOsdExists | kOsdUp, 0x10000, kDefaultPrimaryAffinity});
  Pool rep;
  rep.id = kRepPool;
  rep.name = "rep";
  rep.size = 3;
  rep.min_size = 2;
  rep.crush_rule = kReplicatedRule;
  rep.pg_num = rep.pgp_num = spec.rep_pg_num;
  s.pools[kRepPool] = rep;
  Pool ec = rep;
  ec.id = kEcPool;
  ec.name = "ec";
  ec.type = PoolType::kErasure;
  ec.crush_rule = kEcRule;
  ec.ec_k = 2;
  ec.ec_m = 1;
  ec.min_size = spec.ec_min_size;
  ec.pg_num = ec.pgp_num = spec.ec_pg_num;
  s.pools[kEcPool] = ec;
  return s;
}

struct RackStateSpec {
  int hosts = 6;
  int osds_per_host = 2;
  int racks = 3;
  std::uint32_t pg_num = 64;
  std::uint64_t pg_objects = 10;
  std::uint64_t pg_bytes = 1 << 20;
};

// `racks` racks of hosts of OSDs (ClusterSpec: straw2, weight 1 each), and
// pool 1 "rbd": replicated, size 3, min_size 2, rack failure domain
// (kRackRule), `pg_num` PGs of `pg_objects` objects and `pg_bytes` bytes.
inline crushkit::osdmap::ClusterState MakeRackState(const RackStateSpec& spec) {
  using namespace crushkit::osdmap;
  ClusterSpec cluster;
  cluster.hosts = spec.hosts;
  cluster.osds_per_host = spec.osds_per_host;
  cluster.racks = spec.racks;
  ClusterState s;
  s.crush = MakeClusterModel(cluster);
  s.osds.assign(static_cast<std::size_t>(spec.hosts * spec.osds_per_host),
                OsdInfo{kOsdExists | kOsdUp, 0x10000, kDefaultPrimaryAffinity});
  Pool rbd;
  rbd.id = 1;
  rbd.name = "rbd";
  rbd.size = 3;
  rbd.min_size = 2;
  rbd.crush_rule = kRackRule;
  rbd.pg_num = rbd.pgp_num = spec.pg_num;
  s.pools[1] = rbd;
  for (std::uint32_t ps = 0; ps < spec.pg_num; ++ps)
    s.pg_stats[PgId{1, ps}] = PgStat{spec.pg_objects, spec.pg_bytes, 0};
  return s;
}

}  // namespace crush_testing

#endif  // CRUSHKIT_TESTS_TESTING_OSDMAP_STATE_H_
