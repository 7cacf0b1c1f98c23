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

bool IsSymlink(const std::string& path) {
  struct stat st {};

  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

std::string ReadAll(const std::string& path) {
  absl::StatusOr<std::string> got = ReadFileBytes(path);
  return got.ok() ? *got : "<" + std::string(got.status().message()) + ">";
}

TEST(FileIoTest, SymlinkSurvivesAndItsTargetIsReplaced) {
  const TempDir tmp("file_io");
  ASSERT_THAT(WriteFileAtomically(tmp.File("target.bin"), "old"), IsOk());
  ASSERT_EQ(::symlink("target.bin", tmp.File("link.bin").c_str()), 0);
  ASSERT_THAT(WriteFileAtomically(tmp.File("link.bin"), "new"), IsOk());
  EXPECT_TRUE(IsSymlink(tmp.File("link.bin")));
  EXPECT_EQ(ReadAll(tmp.File("target.bin")), "new");
}

TEST(FileIoTest, SymlinkChainAcrossDirectoriesIsFollowedToTheEnd) {
  // a -> sub/b (relative) -> ../c -> <abs>/sub/target: relative links
  // resolve against their own directory, not the working directory.
  const TempDir tmp("file_io");
  ASSERT_EQ(::mkdir(tmp.File("sub").c_str(), 0700), 0);
  ASSERT_EQ(::symlink("sub/b", tmp.File("a").c_str()), 0);
  ASSERT_EQ(::symlink("../c", tmp.File("sub/b").c_str()), 0);
  ASSERT_EQ(::symlink(tmp.File("sub/target").c_str(), tmp.File("c").c_str()), 0);
  ASSERT_THAT(WriteFileAtomically(tmp.File("sub/target"), "old"), IsOk());
  ASSERT_THAT(WriteFileAtomically(tmp.File("a"), "new"), IsOk());
  EXPECT_TRUE(IsSymlink(tmp.File("a")));
  EXPECT_TRUE(IsSymlink(tmp.File("sub/b")));
  EXPECT_TRUE(IsSymlink(tmp.File("c")));
  EXPECT_EQ(ReadAll(tmp.File("sub/target")), "new");
}

TEST(FileIoTest, DanglingSymlinkCreatesItsTarget) {
  const TempDir tmp("file_io");
  ASSERT_EQ(::symlink("made.bin", tmp.File("link.bin").c_str()), 0);
  ASSERT_THAT(WriteFileAtomically(tmp.File("link.bin"), "x"), IsOk());
  EXPECT_TRUE(IsSymlink(tmp.File("link.bin")));
  EXPECT_EQ(ReadAll(tmp.File("made.bin")), "x");
}

TEST(FileIoTest, SymlinkLoopAndLinkToDirectoryFail) {
  const TempDir tmp("file_io");
  ASSERT_EQ(::symlink("l2", tmp.File("l1").c_str()), 0);
  ASSERT_EQ(::symlink("l1", tmp.File("l2").c_str()), 0);
  EXPECT_EQ(ReplaceFileAtomically(tmp.File("l1"), "x", 0644), ELOOP);
  ASSERT_EQ(::symlink(".", tmp.File("dirlink").c_str()), 0);
  EXPECT_EQ(ReplaceFileAtomically(tmp.File("dirlink"), "x", 0644), EISDIR);
  EXPECT_TRUE(IsSymlink(tmp.File("l1")));
  EXPECT_TRUE(IsSymlink(tmp.File("dirlink")));
}

TEST(FileIoTest, StdoutStyleLinkIsWrittenThroughNotReplaced) {
  // A scratch copy of /dev/stdout (-> /proc/self/fd/N) whose fd N is a
  // regular file, as with `-o /dev/stdout > out.bin`: the link survives
  // and the data lands in the file behind the descriptor.
  const TempDir tmp("file_io");
  ASSERT_THAT(WriteFileAtomically(tmp.File("out.bin"), "previous contents"), IsOk());
  const int fd = ::open(tmp.File("out.bin").c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const std::string proc_link = "/proc/self/fd/" + std::to_string(fd);
  ASSERT_EQ(::symlink(proc_link.c_str(), tmp.File("stdout").c_str()), 0);
  EXPECT_THAT(WriteFileAtomically(tmp.File("stdout"), "map"), IsOk());
  ::close(fd);
  EXPECT_TRUE(IsSymlink(tmp.File("stdout")));
  EXPECT_EQ(ReadAll(tmp.File("out.bin")), "map");
}

TEST(FileIoTest, FifoIsWrittenInPlace) {
  const TempDir tmp("file_io");
  const std::string fifo = tmp.File("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Holding the read end open (O_RDWR never blocks on a FIFO) lets the
  // writer's open return at once.
  const int rd = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(rd, 0);
  ASSERT_EQ(ReplaceFileAtomically(fifo, "through", 0644), 0);
  char buf[16] = {};
  EXPECT_EQ(::read(rd, buf, sizeof(buf)), 7);
  ::close(rd);
  EXPECT_EQ(std::string(buf), "through");

  struct stat st {};

  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(FileIoTest, ReplacedFileKeepsItsMode) {
  const TempDir tmp("file_io");
  const std::string path = tmp.File("kept");
  ASSERT_EQ(ReplaceFileAtomically(path, "x", 0666), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  ASSERT_EQ(ReplaceFileAtomically(path, "y", 0666), 0);

  struct stat st {};

  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(FileIoTest, ProbeFollowsSymlinks) {
  const TempDir tmp("file_io");
  ASSERT_EQ(::symlink("no/such/dir/f", tmp.File("bad").c_str()), 0);
  EXPECT_EQ(ProbeOutputFile(tmp.File("bad")), ENOENT);
  ASSERT_EQ(::symlink("fresh", tmp.File("good").c_str()), 0);
  EXPECT_EQ(ProbeOutputFile(tmp.File("good")), 0);
  EXPECT_TRUE(IsSymlink(tmp.File("good")));
  EXPECT_NE(::access(tmp.File("fresh").c_str(), F_OK), 0);  // the probe leaves nothing
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
