// A small cluster state for osdmap tests: hosts of OSDs (straw2, jewel),
// every OSD up and in, pool 1 "rep" (replicated, size 3, min_size 2,
// chooseleaf firstn host) and pool 2 "ec" (erasure 2+1, chooseleaf indep
// host). What each test changes is written in the test.
#ifndef CRUSHKIT_TESTS_TESTING_TEST_STATE_H_
#define CRUSHKIT_TESTS_TESTING_TEST_STATE_H_

#include <cstdint>

#include "crush/codec.h"
#include "osdmap/cluster_state.h"
#include "tests/testing/cluster_builder.h"

namespace crush_testing {

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
  s.crush_bytes = crushkit::crush::EncodeCrushMap(s.crush);
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

}  // namespace crush_testing

#endif  // CRUSHKIT_TESTS_TESTING_TEST_STATE_H_
