#include "tools/common/heap.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace crushkit::tools {
namespace {

// The tuning only moves where memory comes from; allocation must keep
// working for blocks below, at and beyond the prepared size.
TEST(HeapTest, AllocationWorksAfterPreparing) {
  PrepareHeapForLargeMaps(8u << 20);
  PrepareHeapForLargeMaps(1024);  // below the threshold: no effect
  std::vector<std::string> blocks;
  for (std::size_t size :
       {std::size_t{16}, std::size_t{1} << 20, std::size_t{12} << 20, std::size_t{40} << 20}) {
    blocks.emplace_back(size, 'z');
    EXPECT_EQ(blocks.back()[size - 1], 'z');
  }
  blocks.clear();
  void* again = std::malloc(std::size_t{4} << 20);
  ASSERT_NE(again, nullptr);
  std::memset(again, 1, std::size_t{4} << 20);
  std::free(again);
}

}  // namespace
}  // namespace crushkit::tools
