// Limits of the osdmap module (see tests/fuzz/README.md, "Limits").
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "osdmap/model/cluster_state.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;

ClusterState OnePool(std::uint32_t size) {
  ClusterState st;
  st.osds.resize(4);
  Pool p;
  p.id = 1;
  p.size = size;
  p.min_size = 1;
  p.pg_num = 8;
  p.pgp_num = 8;
  st.pools[1] = p;
  return st;
}

TEST(OsdmapLimitTest, PoolSizeUpToKMaxPgOsds) {
  EXPECT_THAT(ValidateState(OnePool(kMaxPgOsds)), IsOk());
  EXPECT_THAT(ValidateState(OnePool(kMaxPgOsds + 1)), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(OsdmapLimitTest, UpmapListsUpToKMaxPgOsds) {
  ClusterState st = OnePool(3);
  st.pg_upmap[{1, 0}] = std::vector<std::int32_t>(kMaxPgOsds, 0);
  EXPECT_THAT(ValidateState(st), IsOk());
  st.pg_upmap[{1, 0}].push_back(0);
  EXPECT_THAT(ValidateState(st), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace crushkit::osdmap
