// Small ClusterStates for osdmap/ tests: every OSD existing, up and in, and
// one pool, so a test states only what it changes.
#ifndef CRUSHKIT_TESTS_TESTING_OSDMAP_STATE_H_
#define CRUSHKIT_TESTS_TESTING_OSDMAP_STATE_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "crush/model.h"
#include "osdmap/cluster_state.h"

namespace crush_testing {

// `num_osds` OSDs, each existing, up, reweight 1.0 and default primary
// affinity, the crush map `crush`, and pool 1 "p": `type`, size 3,
// pg_num = pgp_num = 16, `crush_rule`.
inline crushkit::osdmap::ClusterState MakeOnePoolState(
    std::size_t num_osds, crushkit::osdmap::PoolType type, crushkit::crush::MapModel crush = {},
    std::int32_t crush_rule = 0) {
  using crushkit::osdmap::OsdInfo;
  crushkit::osdmap::ClusterState s;
  s.crush = std::move(crush);
  s.osds.assign(num_osds, OsdInfo{crushkit::osdmap::kOsdExists | crushkit::osdmap::kOsdUp,
                                  0x10000, crushkit::osdmap::kDefaultPrimaryAffinity});
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

}  // namespace crush_testing

#endif  // CRUSHKIT_TESTS_TESTING_OSDMAP_STATE_H_
