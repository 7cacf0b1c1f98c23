#include "tools/common/file_io.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::tools {
namespace {

using ::crush_testing::IsOk;
using ::crush_testing::StatusIs;

std::string MakeTempDir() {
  std::string tmpl = ::testing::TempDir() + "/file_io_XXXXXX";
  return ::mkdtemp(tmpl.data());
}

TEST(FileIoTest, WriteThenReadRoundTrips) {
  const std::string path = MakeTempDir() + "/out.bin";
  ASSERT_THAT(WriteFileAtomically(path, std::string("a\0b", 3)), IsOk());
  absl::StatusOr<std::string> got = ReadFileBytes(path);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(*got, std::string("a\0b", 3));
}

TEST(FileIoTest, FailedRenameLeavesTargetAndDirectoryClean) {
  // Renaming a file over a non-empty directory fails even for root, so this
  // exercises the failure path on any machine.
  const std::string dir = MakeTempDir();
  const std::string target = dir + "/target";
  ASSERT_EQ(::mkdir(target.c_str(), 0700), 0);
  ASSERT_THAT(WriteFileAtomically(target + "/inner", "keep"), IsOk());
  EXPECT_FALSE(WriteFileAtomically(target, "replacement").ok());
  EXPECT_EQ(*ReadFileBytes(target + "/inner"), "keep");
  // No temporary file is left behind beside the target.
  int entries = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') ++entries;
    }
    ::closedir(d);
  }
  EXPECT_EQ(entries, 1);
}

TEST(FileIoTest, WriteIntoMissingDirectoryFails) {
  EXPECT_THAT(WriteFileAtomically(MakeTempDir() + "/no/such/dir/f", "x"),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST(FileIoTest, ReadRejectsFilesOverTheLimit) {
  const std::string path = MakeTempDir() + "/big";
  ASSERT_THAT(WriteFileAtomically(path, std::string(100, 'x')), IsOk());
  EXPECT_THAT(ReadFileBytes(path, 99), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(ReadFileBytes(path, 100), IsOk());
}

TEST(FileIoTest, ReadMissingFileIsNotFound) {
  EXPECT_THAT(ReadFileBytes(MakeTempDir() + "/absent"), StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace crushkit::tools
