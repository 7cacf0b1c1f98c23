#include "tools/common/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace crushkit::tools {
namespace {

using ::crush_testing::IsOk;
using ::crush_testing::StatusIs;

using ::crush_testing::TempDir;

TEST(FileIoTest, WriteThenReadRoundTrips) {
  const TempDir tmp("file_io");
  const std::string path = tmp.File("out.bin");
  ASSERT_THAT(WriteFileAtomically(path, std::string("a\0b", 3)), IsOk());
  absl::StatusOr<std::string> got = ReadFileBytes(path);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(*got, std::string("a\0b", 3));
}

TEST(FileIoTest, FailedRenameLeavesTargetAndDirectoryClean) {
  // Renaming a file over a non-empty directory fails even for root, so this
  // exercises the failure path on any machine.
  const TempDir tmp("file_io");
  const std::string& dir = tmp.path();
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
  const TempDir tmp("file_io");
  EXPECT_THAT(WriteFileAtomically(tmp.File("no/such/dir/f"), "x"),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST(FileIoTest, ReadRejectsFilesOverTheLimit) {
  const TempDir tmp("file_io");
  const std::string path = tmp.File("big");
  ASSERT_THAT(WriteFileAtomically(path, std::string(100, 'x')), IsOk());
  EXPECT_THAT(ReadFileBytes(path, 99), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(ReadFileBytes(path, 100), IsOk());
}

TEST(FileIoTest, DeviceIsWrittenInPlaceNotReplaced) {
  // Renaming a temporary file over /dev/null would replace the device node
  // (as root); it must be written like any other device.
  ASSERT_EQ(ReplaceFileAtomically("/dev/null", "discarded", 0644), 0);

  struct stat st {};

  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_THAT(WriteFileAtomically("/dev/null", "discarded"), IsOk());
}

TEST(FileIoTest, DirectoryTargetIsEisdir) {
  const TempDir tmp("file_io");
  EXPECT_EQ(ReplaceFileAtomically(tmp.path(), "x", 0644), EISDIR);
}

TEST(FileIoTest, ReplaceUsesTheGivenModeLessUmask) {
  const TempDir tmp("file_io");
  const std::string path = tmp.File("m");
  const mode_t old_mask = ::umask(022);
  ASSERT_EQ(ReplaceFileAtomically(path, "x", 0666), 0);
  ::umask(old_mask);

  struct stat st {};

  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(FileIoTest, ReadFdFullyAppendsAndStopsAtTheLimit) {
  const TempDir tmp("file_io");
  const std::string path = tmp.File("r");
  ASSERT_EQ(ReplaceFileAtomically(path, std::string(70000, 'y'), 0644), 0);
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  std::string data = "head";
  EXPECT_EQ(ReadFdFully(fd, 70004, &data), 0);
  ::close(fd);
  EXPECT_EQ(data, "head" + std::string(70000, 'y'));
  const int fd2 = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd2, 0);
  std::string small = "head";
  EXPECT_EQ(ReadFdFully(fd2, 70003, &small), EFBIG);
  ::close(fd2);
}

TEST(FileIoTest, ReadMissingFileIsNotFound) {
  const TempDir tmp("file_io");
  EXPECT_THAT(ReadFileBytes(tmp.File("absent")), StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace crushkit::tools
