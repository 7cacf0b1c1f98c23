// Synthetic CRUSH maps for tests and benchmarks: a root over optional racks
// over hosts over OSDs, with per-level bucket algorithms and the derived
// per-algorithm arrays (list sum_weights, tree node_weights) filled in the
// way Ceph's builder.c stores them. Straw (v1) buckets are not supported
// (their straws need Ceph's floating-point builder; see crush/builder.h).
//
// Layout and ids: root "default" is bucket -1; racks (if any) follow, then
// hosts, in order. OSD i is device i, named "osd.i", placed in host
// i / osds_per_host. Types: 0 osd, 1 host, 3 rack, 11 root.
// Rules:
//   0 "replicated_rule": take default, chooseleaf firstn 0 type host, emit
//   1 "ec_rule" (erasure): set_chooseleaf_tries 5, set_choose_tries 100,
//     take default, chooseleaf indep 0 type host, emit
//   2 "rack_rule" (only with racks): take default, chooseleaf firstn 0
//     type rack, emit
// Thread-safety: plain functions over values.
#ifndef CRUSHKIT_TESTS_TESTING_CLUSTER_BUILDER_H_
#define CRUSHKIT_TESTS_TESTING_CLUSTER_BUILDER_H_

#include <vector>

#include "crush/map.h"
#include "crush/model.h"
#include "crush/types.h"

namespace crush_testing {

inline constexpr int kOsdType = 0;
inline constexpr int kHostType = 1;
inline constexpr int kRackType = 3;
inline constexpr int kRootType = 11;

inline constexpr int kReplicatedRule = 0;
inline constexpr int kEcRule = 1;
inline constexpr int kRackRule = 2;

struct ClusterSpec {
  int hosts = 4;
  int osds_per_host = 4;
  // 0: hosts hang directly off the root; otherwise host h goes to rack
  // h / ceil(hosts / racks) (consecutive blocks).
  int racks = 0;
  crushkit::crush::BucketAlg host_alg = crushkit::crush::BucketAlg::kStraw2;
  crushkit::crush::BucketAlg rack_alg = crushkit::crush::BucketAlg::kStraw2;
  crushkit::crush::BucketAlg root_alg = crushkit::crush::BucketAlg::kStraw2;
  // CRUSH weight of OSD i: osd_weights[i] if present, else 1.0.
  std::vector<crushkit::crush::Weight> osd_weights;
  crushkit::crush::Tunables tunables =
      crushkit::crush::TunablesFor(crushkit::crush::TunablesProfile::kJewel);
};

// Builds the model described above. REQUIRES: hosts, osds_per_host >= 1;
// no straw (v1) algorithm.
crushkit::crush::MapModel MakeClusterModel(const ClusterSpec& spec);

// Fills the derived arrays of `bucket` (weight, uniform_item_weight,
// sum_weights, node_weights) from its items and item_weights, as builder.c
// does. For uniform buckets item_weights[0] (or 0) becomes the item weight
// and item_weights is cleared.
void FinishBucket(crushkit::crush::Bucket& bucket);

// MakeClusterModel + CrushMap::Build; aborts the test binary on failure.
crushkit::crush::CrushMap MakeCluster(const ClusterSpec& spec);

// Convenience for benchmarks: `osds` OSDs in hosts of `per_host`, straw2,
// no racks, jewel tunables.
crushkit::crush::CrushMap MakeCluster(int osds, int per_host);

// The benchmarks' map: 10,000 OSDs, 1,000 hosts of 10 in 50 racks of 20
// hosts, one root, all straw2 (spec and map built once, never freed).
const ClusterSpec& TenThousandOsdSpec();
const crushkit::crush::CrushMap& TenThousandOsdMap();

}  // namespace crush_testing

#endif  // CRUSHKIT_TESTS_TESTING_CLUSTER_BUILDER_H_
