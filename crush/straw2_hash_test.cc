// Every straw2 hash kernel must equal the scalar Hash32_3 (itself pinned to
// Ceph's vectors in hash_test.cc) for every lane and every block tail.
#include "crush/internal/straw2_hash.h"

#include <cstdint>
#include <random>
#include <vector>

#include "crush/hash.h"
#include "crush/types.h"
#include "gtest/gtest.h"

namespace crushkit::crush::internal {
namespace {

struct Kernel {
  const char* name;
  Straw2HashBlockFn fn;
};

std::vector<Kernel> Kernels() {
  std::vector<Kernel> k = {{"scalar", &Straw2HashBlockScalar}, {"vec4", &Straw2HashBlockVec4}};
  if (Straw2HashAvx2Supported()) k.push_back({"avx2", &Straw2HashBlockAvx2});
  k.push_back({"selected", SelectStraw2HashBlock()});
  return k;
}

void ExpectMatchesScalar(std::uint32_t x, std::uint32_t r, const std::vector<ItemId>& ids) {
  const auto n = static_cast<std::uint32_t>(ids.size());
  for (const Kernel& k : Kernels()) {
    std::vector<std::uint32_t> u(ids.size() + 1, 0xdeadbeefu);
    k.fn(x, r, ids.data(), n, u.data());
    for (std::uint32_t j = 0; j < n; ++j) {
      ASSERT_EQ(u[j], Hash32_3(x, static_cast<std::uint32_t>(ids[j]), r) & 0xffffu)
          << k.name << " x=" << x << " r=" << r << " id=" << ids[j] << " j=" << j;
    }
    EXPECT_EQ(u[n], 0xdeadbeefu) << k.name << " wrote past n=" << n;
  }
}

TEST(Straw2HashTest, AllKernelsEqualScalarOnRandomInputs) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 2000; ++iter) {
    const std::uint32_t n = rng() % 70;  // covers empty blocks and every tail length
    std::vector<ItemId> ids(n);
    for (auto& id : ids) id = static_cast<ItemId>(rng());
    ExpectMatchesScalar(rng(), rng() % 4 == 0 ? rng() % 64 : rng(), ids);
  }
}

TEST(Straw2HashTest, AllKernelsEqualScalarOnTypicalIds) {
  // Devices 0.., buckets -1.. and the extremes, with small x and r.
  std::vector<ItemId> ids;
  for (int i = -40; i < 40; ++i) ids.push_back(i);
  ids.push_back(INT32_MIN);
  ids.push_back(INT32_MAX);
  for (std::uint32_t x = 0; x < 64; ++x) {
    for (std::uint32_t r = 0; r < 8; ++r) ExpectMatchesScalar(x, r, ids);
  }
  ExpectMatchesScalar(0xffffffffu, 0xffffffffu, ids);
}

}  // namespace
}  // namespace crushkit::crush::internal
