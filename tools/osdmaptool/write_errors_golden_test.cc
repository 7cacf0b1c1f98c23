// `crushkit osdmaptool` writing to paths it cannot write (a missing
// directory, a directory, a path under a file, /sys/x, /dev/full, a file
// named "-") against what osdmaptool 16.2 did, committed in
// tests/golden/osdmaptool_write_errors/ (see its README): exit code, stdout,
// stderr and every file written, byte for byte, for --upmap,
// --upmap-cleanup, --export-crush and the map write. No oracle needed.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/run_shell.h"
#include "tests/testing/temp_dir.h"
#include "tools/common/file_io.h"
#include "tools/osdmaptool/golden_cases.h"

namespace crushkit::tools::osdmaptool {
namespace {

using ::crush_testing::RunShell;
using ::crush_testing::SourceDir;

std::string WriteErrorsGoldenDir() { return SourceDir() + "/tests/golden/osdmaptool_write_errors"; }

// Runs in a scratch directory holding the inputs, as regenerate.py does.
class WriteErrorsGoldenTest : public golden::ScratchDirTest {
 protected:
  WriteErrorsGoldenTest() : ScratchDirTest("osdmaptool_write_errors_test") {}

  void FreshInputs() {
    Clear();
    std::filesystem::copy_file(SourceDir() + "/tests/golden/osdmap_binary/pacific-upmap.osdmap",
                               dir_.File("om"));
    std::filesystem::copy_file(SourceDir() + "/tests/golden/osdmaptool_clobber/empty.crush",
                               dir_.File("empty.crush"));
    std::filesystem::create_directory(dir_.File("adir"));
  }
};

// The goldens were made where /sys/x fails with EACCES and /dev/full is
// the full device; cases naming them are skipped elsewhere.
bool MachineLikeTheGoldens(const golden::Case& c) {
  for (const std::string& a : c.args) {
    if (a == "/sys/x" && ProbeOutputFile(a) != EACCES) return false;
    if (a == "/dev/full" && !std::filesystem::is_character_file(a)) return false;
  }
  return true;
}

TEST_F(WriteErrorsGoldenTest, EveryCaseAsOsdmaptool) {
  const std::vector<golden::Case> cases = golden::ReadCases(WriteErrorsGoldenDir());
  ASSERT_GE(cases.size(), 25u);
  std::vector<std::string> skipped;
  for (const golden::Case& c : cases) {
    SCOPED_TRACE(c.name);
    if (!MachineLikeTheGoldens(c)) {
      skipped.push_back(c.name);
      continue;
    }
    FreshInputs();
    const std::map<std::string, std::string> before = golden::RegularFilesIn(dir_.path());
    const golden::ToolRun got = golden::RunOsdmaptool(c.args);
    golden::ExpectSameAsGolden(WriteErrorsGoldenDir(), c, got, before, dir_.path());
    // Nothing else is left behind (no temporary file of the atomic write).
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_.path()))
      names.push_back(e.path().filename().string());
    for (const std::string& n : names) EXPECT_NE(n.rfind(".crushkit", 0), 0u) << n;
  }
  if (!skipped.empty())
    GTEST_SKIP() << "not like the goldens' machine: " << absl::StrJoin(skipped, " ");
}

// The committed goldens against the osdmaptool installed here (they go stale
// if it changes): the same cases, run as regenerate.py runs them.
TEST_F(WriteErrorsGoldenTest, GoldensAreWhatOsdmaptoolDoes) {
  CRUSH_TEST_NEEDS_ORACLE("osdmaptool");
  const crush_testing::TempDir capture("osdmaptool_write_errors_capture");
  ASSERT_TRUE(capture.ok());
  for (const golden::Case& c : golden::ReadCases(WriteErrorsGoldenDir())) {
    SCOPED_TRACE(c.name);
    if (!MachineLikeTheGoldens(c)) continue;
    FreshInputs();
    const std::map<std::string, std::string> before = golden::RegularFilesIn(dir_.path());
    golden::ToolRun got;
    RunShell("CEPH_ARGS=--crash_dir=" + capture.path() + " TZ=UTC timeout 20 osdmaptool " +
                 absl::StrJoin(c.args, " ") + " >" + capture.File("out") + " 2>" +
                 capture.File("err"),
             &got.rc);
    got.out = crush_testing::ReadFileOrEmpty(capture.File("out"));
    got.err = crush_testing::ReadFileOrEmpty(capture.File("err"));
    golden::ExpectSameAsGolden(WriteErrorsGoldenDir(), c, got, before, dir_.path());
  }
}

}  // namespace
}  // namespace crushkit::tools::osdmaptool
