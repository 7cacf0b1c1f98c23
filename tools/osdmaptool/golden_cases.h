// Test helper for the osdmaptool golden sets (tests/golden/osdmaptool_clobber/,
// tests/golden/osdmaptool_write_errors/): what osdmaptool 16.2 did for the
// command lines of a cases.txt, committed as expected/NAME.txt (exit code,
// stdout, stderr) and expected/NAME.FILE (each file the run created or
// changed), compared with `crushkit osdmaptool` run in-process. No oracle.
// Not thread-safe: runs change nothing global but the files of the current
// directory.
#ifndef CRUSHKIT_TOOLS_OSDMAPTOOL_GOLDEN_CASES_H_
#define CRUSHKIT_TOOLS_OSDMAPTOOL_GOLDEN_CASES_H_

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"

#include "tests/testing/temp_dir.h"

namespace crushkit::tools::osdmaptool::golden {

struct ToolRun {
  int rc = -1;
  std::string out;
  std::string err;
};

struct Case {
  std::string name;
  std::vector<std::string> args;
  std::vector<std::string> extra;  // the fields after the arguments
};

// DIR/cases.txt: "NAME<TAB>space-separated arguments[<TAB>field...]" per
// line; lines starting with '#' are comments.
std::vector<Case> ReadCases(const std::string& golden_dir);

// Parses expected/NAME.txt: "rc N\nstdout LEN\n" LEN bytes "stderr LEN\n"
// LEN bytes. False if malformed.
bool ParseExpected(const std::string& text, ToolRun* run);

// Name -> contents of the regular files directly in `dir`.
std::map<std::string, std::string> RegularFilesIn(const std::string& dir);

// `crushkit osdmaptool ARGS`, in-process, with stdout and stderr captured.
ToolRun RunOsdmaptool(const std::vector<std::string>& args);

// Expects `got` and the files of `dir` (against `before`, taken before the
// run) to be what expected/NAME.txt and expected/NAME.FILE in `golden_dir`
// say, byte for byte.
void ExpectSameAsGolden(const std::string& golden_dir, const Case& c, const ToolRun& got,
                        const std::map<std::string, std::string>& before, const std::string& dir);

// A fixture whose tests run in a scratch directory, as regenerate.py runs
// osdmaptool (the expected outputs name files relative to it). Clear()
// empties it for the next case's inputs.
class ScratchDirTest : public ::testing::Test {
 protected:
  explicit ScratchDirTest(const char* name) : dir_(name) {}

  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    old_cwd_ = std::filesystem::current_path();
    std::filesystem::current_path(dir_.path());
  }

  void TearDown() override { std::filesystem::current_path(old_cwd_); }

  void Clear() {
    for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
      std::filesystem::remove_all(e.path());
    }
  }

  crush_testing::TempDir dir_;
  std::filesystem::path old_cwd_;
};

}  // namespace crushkit::tools::osdmaptool::golden

#endif  // CRUSHKIT_TOOLS_OSDMAPTOOL_GOLDEN_CASES_H_
