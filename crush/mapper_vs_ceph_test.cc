// DoRule against Ceph's own compiled mapper (libceph-common's crush_do_rule,
// loaded by tests/testing/ceph_mapper.h), in one process, input by input:
// the 10,000-OSD map the benchmarks use and smaller maps with every bucket
// alg Ceph's builder makes here, uneven CRUSH weights and reweights
// (out, partly in). Skipped without ceph-base; a failure under
// CRUSHKIT_REQUIRE_ORACLE.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"

#include "crush/hash.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"
#include "tests/testing/ceph_mapper.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/oracle.h"

namespace crushkit::crush {
namespace {

using crush_testing::CephMapper;

// Loads Ceph's mapper for `map`, or skips (fails under
// CRUSHKIT_REQUIRE_ORACLE) when libceph-common is not installed.
#define LOAD_CEPH_OR_SKIP(var, map)                                   \
  auto var##_or = CephMapper::Load((map).model());                    \
  if (absl::IsNotFound(var##_or.status())) {                          \
    if (crush_testing::OracleRequired()) FAIL() << var##_or.status(); \
    GTEST_SKIP() << var##_or.status();                                \
  }                                                                   \
  ASSERT_TRUE(var##_or.ok()) << var##_or.status();                    \
  const CephMapper& var = **var##_or

// The number of inputs on which DoRule and Ceph's mapper differ, each of
// the first few reported as a test failure.
int CountDifferences(const CrushMap& map, const CephMapper& ceph, int rule, int result_max,
                     const std::vector<Weight>& reweights, int inputs, std::uint32_t seed) {
  std::vector<std::uint32_t> first;
  const int differences = crush_testing::CountDifferencesFromCeph(map, ceph, rule, result_max,
                                                                  reweights, inputs, seed, &first);
  for (const std::uint32_t x : first) ADD_FAILURE() << "rule " << rule << " x " << x << " differs";
  return differences;
}

TEST(MapperVsCephTest, TenThousandOsdMapMatchesCephsCompiledMapper) {
  const CrushMap& map = crush_testing::TenThousandOsdMap();
  LOAD_CEPH_OR_SKIP(ceph, map);
  std::vector<Weight> reweights(static_cast<std::size_t>(map.max_devices()), kWeightOne);
  EXPECT_EQ(CountDifferences(map, ceph, crush_testing::kReplicatedRule, 3, reweights, 20000, 1), 0);
  EXPECT_EQ(CountDifferences(map, ceph, crush_testing::kEcRule, 11, reweights, 5000, 2), 0);
  EXPECT_EQ(CountDifferences(map, ceph, crush_testing::kRackRule, 3, reweights, 5000, 3), 0);
  // Every 7th OSD out, every 5th half in: retries and rejections.
  for (std::size_t i = 0; i < reweights.size(); ++i) {
    if (i % 7 == 0)
      reweights[i] = 0;
    else if (i % 5 == 0)
      reweights[i] = kWeightOne / 2;
  }
  EXPECT_EQ(CountDifferences(map, ceph, crush_testing::kReplicatedRule, 3, reweights, 20000, 4), 0);
  EXPECT_EQ(CountDifferences(map, ceph, crush_testing::kEcRule, 11, reweights, 5000, 5), 0);
}

TEST(MapperVsCephTest, EveryBucketAlgWithUnevenWeightsMatches) {
  const BucketAlg algs[] = {BucketAlg::kUniform, BucketAlg::kList, BucketAlg::kTree,
                            BucketAlg::kStraw2};
  int maps = 0;
  for (const BucketAlg host_alg : algs) {
    for (const BucketAlg rack_alg : algs) {
      crush_testing::ClusterSpec spec;
      spec.hosts = 12;
      spec.osds_per_host = 5;
      spec.racks = 4;
      spec.host_alg = host_alg;
      spec.rack_alg = rack_alg;
      spec.root_alg = rack_alg == BucketAlg::kUniform ? BucketAlg::kStraw2 : rack_alg;
      for (int i = 0; i < spec.hosts * spec.osds_per_host; ++i) {
        // Uniform hosts need equal weights within a host.
        const int step = host_alg == BucketAlg::kUniform ? i / spec.osds_per_host : i;
        spec.osd_weights.push_back(static_cast<Weight>(kWeightOne / 4 * (1 + step % 9)));
      }
      const CrushMap map = crush_testing::MakeCluster(spec);
      LOAD_CEPH_OR_SKIP(ceph, map);
      std::vector<Weight> reweights(static_cast<std::size_t>(map.max_devices()), kWeightOne);
      for (std::size_t i = 0; i < reweights.size(); i += 4) reweights[i] = kWeightOne / 3;
      reweights[7] = 0;
      SCOPED_TRACE(testing::Message() << "host alg " << static_cast<int>(host_alg) << ", rack alg "
                                      << static_cast<int>(rack_alg));
      EXPECT_EQ(CountDifferences(map, ceph, crush_testing::kReplicatedRule, 3, reweights, 2000, 6),
                0);
      EXPECT_EQ(CountDifferences(map, ceph, crush_testing::kEcRule, 6, reweights, 1000, 7), 0);
      EXPECT_EQ(CountDifferences(map, ceph, crush_testing::kRackRule, 3, reweights, 1000, 8), 0);
      ++maps;
    }
  }
  EXPECT_EQ(maps, 16);
}

TEST(MapperVsCephTest, RefusesWhatCephsBuilderCannotExpressHere) {
  crush_testing::ClusterSpec spec;
  spec.tunables = TunablesFor(TunablesProfile::kBobtail);
  const CrushMap map = crush_testing::MakeCluster(spec);
  const auto ceph = CephMapper::Load(map.model());
  EXPECT_TRUE(absl::IsInvalidArgument(ceph.status())) << ceph.status();
}

}  // namespace
}  // namespace crushkit::crush
