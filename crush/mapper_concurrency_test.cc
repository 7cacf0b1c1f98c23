// Many threads mapping with one shared CrushMap, each with its own
// Workspace, must agree with one thread. A binary of its own
// (crush_thread_tests) so that CI's TSan build compiles only the tests that
// start threads.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::crush {
namespace {

using ::crush_testing::ClusterSpec;
using ::crush_testing::MakeCluster;

std::vector<Weight> AllIn(const CrushMap& map) {
  return std::vector<Weight>(static_cast<std::size_t>(map.max_devices()), kWeightOne);
}

TEST(MapperConcurrencyTest, ThreadsSharingOneMapAgreeWithSingleThreaded) {
  ClusterSpec spec;
  spec.hosts = 40;
  spec.osds_per_host = 6;
  spec.racks = 5;
  spec.host_alg = BucketAlg::kUniform;  // exercises per-workspace permutation state
  const auto map = std::make_shared<const CrushMap>(MakeCluster(spec));
  const auto reweights = AllIn(*map);
  constexpr std::uint32_t kInputs = 4000;
  std::vector<std::array<ItemId, 6>> expected(kInputs);
  {
    Workspace ws(*map, 6);
    for (std::uint32_t x = 0; x < kInputs; ++x) {
      expected[x].fill(-1);
      ASSERT_EQ(DoRule(*map, x % 2 == 0 ? 0 : 1, x, reweights, ws, expected[x]), 6) << x;
    }
  }
  // The reference itself is right: 6 distinct devices for every input (40
  // hosts, all in), and the first inputs are what Ceph's crushtool 16.2
  // prints for this map (EncodeCrushMap(model), crushtool --test
  // --show-mappings --num-rep 6, rule 0 for even x, rule 1 for odd x).
  for (std::uint32_t x = 0; x < kInputs; ++x) {
    std::set<ItemId> distinct(expected[x].begin(), expected[x].end());
    EXPECT_EQ(distinct.size(), 6u) << x;
    EXPECT_GE(*distinct.begin(), 0) << x;
    EXPECT_LT(*distinct.rbegin(), 240) << x;
  }
  const std::array<std::array<ItemId, 6>, 8> crushtool = {{
      {151, 138, 194, 34, 171, 20},   // rule 0 x 0
      {198, 86, 233, 15, 133, 32},    // rule 1 x 1
      {137, 217, 164, 54, 147, 45},   // rule 0 x 2
      {193, 157, 84, 225, 147, 31},   // rule 1 x 3
      {195, 169, 190, 18, 212, 71},   // rule 0 x 4
      {143, 73, 222, 35, 122, 79},    // rule 1 x 5
      {196, 120, 213, 153, 32, 177},  // rule 0 x 6
      {169, 5, 39, 131, 213, 193},    // rule 1 x 7
  }};
  for (std::size_t x = 0; x < crushtool.size(); ++x) EXPECT_EQ(expected[x], crushtool[x]) << x;
  constexpr int kThreads = 8;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Workspace ws(*map, 6);
      std::array<ItemId, 6> out{};
      for (int round = 0; round < 3; ++round) {
        for (std::uint32_t i = 0; i < kInputs; ++i) {
          const std::uint32_t x = (i * 7919u + static_cast<std::uint32_t>(t) * 131u) % kInputs;
          out.fill(-1);
          DoRule(*map, x % 2 == 0 ? 0 : 1, x, reweights, ws, out);
          if (out != expected[x]) ++mismatches[static_cast<std::size_t>(t)];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[static_cast<std::size_t>(t)], 0);
}

}  // namespace
}  // namespace crushkit::crush
