#include "tools/common/ceph_write_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"

#include "tests/testing/paths.h"
#include "tests/testing/temp_dir.h"
#include "tools/common/file_io.h"

namespace crushkit::tools {
namespace {

using ::crush_testing::ReadFileOrEmpty;
using ::crush_testing::TempDir;

int EntriesIn(const std::string& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(ProbeOutputFileTest, ReportsOpenErrnoAndLeavesNothingBehind) {
  const TempDir tmp("probe");
  EXPECT_EQ(ProbeOutputFile(tmp.File("absent")), 0);
  EXPECT_FALSE(std::filesystem::exists(tmp.File("absent")));
  EXPECT_EQ(ProbeOutputFile(tmp.File("no/such/dir/f")), ENOENT);
  EXPECT_EQ(ProbeOutputFile(tmp.path()), EISDIR);
  std::string log;
  ASSERT_EQ(CephWriteFile(tmp.File("file"), "keep", &log), 0);
  EXPECT_EQ(ProbeOutputFile(tmp.File("file") + "/x"), ENOTDIR);
  // An existing file is opened, not truncated.
  EXPECT_EQ(ProbeOutputFile(tmp.File("file")), 0);
  EXPECT_EQ(ReadFileOrEmpty(tmp.File("file")), "keep");
  EXPECT_EQ(EntriesIn(tmp.path()), 1);
}

TEST(CephWriteFileTest, WritesWithBufferlistMode) {
  const TempDir tmp("ceph_write_file");
  const mode_t mask = ::umask(022);
  std::string log;
  EXPECT_EQ(CephWriteFile(tmp.File("out"), std::string("a\0b", 3), &log), 0);
  ::umask(mask);
  EXPECT_EQ(log, "");
  EXPECT_EQ(ReadFileOrEmpty(tmp.File("out")), std::string("a\0b", 3));

  struct stat st {};

  ASSERT_EQ(::stat(tmp.File("out").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

// The texts are bufferlist::write_file's, as crushtool and osdmaptool 16.2
// print them (tests/golden/osdmaptool_write_errors/).
TEST(CephWriteFileTest, OpenFailuresPrintBufferlistsLine) {
  const TempDir tmp("ceph_write_file");
  std::string log;
  const std::string missing = tmp.File("no/such/dir/f");
  EXPECT_EQ(CephWriteFile(missing, "x", &log), ENOENT);
  EXPECT_EQ(log, "bufferlist::write_file(" + missing +
                     "): failed to open file: (2) No such file or directory\n");
  EXPECT_EQ(CephWriteFile(tmp.path(), "x", &log), EISDIR);
  EXPECT_EQ(log, "bufferlist::write_file(" + tmp.path() +
                     "): failed to open file: (21) Is a directory\n");
  EXPECT_EQ(EntriesIn(tmp.path()), 0);
}

TEST(CephWriteFileTest, WriteFailuresPrintWriteFdLine) {
  if (ProbeOutputFile("/dev/full") != 0) GTEST_SKIP() << "no writable /dev/full";
  std::string log;
  EXPECT_EQ(CephWriteFile("/dev/full", "x", &log), ENOSPC);
  EXPECT_EQ(log, "bufferlist::write_fd(/dev/full): write_fd error: (28) No space left on device\n");
}

}  // namespace
}  // namespace crushkit::tools
