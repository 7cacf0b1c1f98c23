// Test helper shared by the strategies tests: topologies built through the
// same path `crushkit strategies` uses.
#ifndef CRUSHKIT_TOOLS_STRATEGIES_STRATEGIES_TEST_UTIL_H_
#define CRUSHKIT_TOOLS_STRATEGIES_STRATEGIES_TEST_UTIL_H_

#include <memory>

#include "gtest/gtest.h"

#include "tests/testing/status_matchers.h"
#include "tools/strategies/topology.h"

namespace crushkit::strategies::test_util {

// `n` equal devices under one root (MakeFlatModel), as a Topology over the
// devices (domain type 0). Failures are recorded as test failures.
inline Topology Flat(int n) {
  auto model = MakeFlatModel(n);
  EXPECT_THAT(model, crush_testing::IsOk());
  auto topo = TopologyFromModel(std::make_shared<const crush::MapModel>(*model), 0);
  EXPECT_THAT(topo, crush_testing::IsOk());
  return *topo;
}

}  // namespace crushkit::strategies::test_util

#endif  // CRUSHKIT_TOOLS_STRATEGIES_STRATEGIES_TEST_UTIL_H_
