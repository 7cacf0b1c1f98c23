// The crushkit tools' input-file size limit (tests/fuzz/README.md,
// "Limits"), just below and just above. Kept apart from limits_test.cc so
// the crush-core limits build and run with the tools turned off.
#include <cstddef>
#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tools/common/file_io.h"

namespace crushkit::tools {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::HasSubstr;

TEST(InputSizeLimitTest, FilesUpToTheLimitAreRead) {
  EXPECT_EQ(kMaxInputFileBytes, std::size_t{1} << 30);
  const crush_testing::TempDir tmp("limits_input");
  ASSERT_TRUE(tmp.ok());
  const std::string path = tmp.File("input");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite("0123456789", 1, 10, f);
    std::fclose(f);
  }
  auto at = ReadFileBytes(path, 10);
  ASSERT_THAT(at, IsOk());
  EXPECT_EQ(*at, "0123456789");
  EXPECT_THAT(ReadFileBytes(path, 9),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("input limit")));
}

}  // namespace
}  // namespace crushkit::tools
