// `crushkit osdmaptool MAP --clobber ...` without a create option against
// what osdmaptool 16.2 did for the same command lines, committed in
// tests/golden/osdmaptool_clobber/ (cases.txt, expected/; see its README):
// exit code, stdout, stderr and every file written, byte for byte, whether
// MAP exists or not. No oracle needed. Also the cases where osdmaptool
// aborts, which crushkit answers with an error.
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

#include "tests/testing/paths.h"
#include "tests/testing/temp_dir.h"
#include "tools/osdmaptool/golden_cases.h"

namespace crushkit::tools::osdmaptool {
namespace {

using ::crush_testing::SourceDir;

std::string GoldenDir() { return SourceDir() + "/tests/golden/osdmaptool_clobber"; }

// Runs in a scratch directory holding the inputs, as regenerate.py does
// (the expected outputs name files relative to it).
class ClobberGoldenTest : public golden::ScratchDirTest {
 protected:
  ClobberGoldenTest() : ScratchDirTest("osdmaptool_clobber_test") {}

  // Empties the directory and puts the inputs (and x.om if asked) back.
  void FreshInputs(bool map_exists) {
    Clear();
    for (const char* f : {"empty.crush", "three.crush"})
      std::filesystem::copy_file(GoldenDir() + "/" + f, dir_.File(f));
    if (map_exists) {
      std::filesystem::copy_file(SourceDir() + "/tests/golden/osdmap_binary/pacific-nopool.osdmap",
                                 dir_.File("x.om"));
    }
  }
};

TEST_F(ClobberGoldenTest, EveryCaseAsOsdmaptool) {
  const std::vector<golden::Case> cases = golden::ReadCases(GoldenDir());
  ASSERT_GE(cases.size(), 40u);
  for (golden::Case c : cases) {
    SCOPED_TRACE(c.name);
    for (std::string& a : c.args) {
      if (a == "MAP") a = "x.om";
    }
    FreshInputs(!c.extra.empty() && c.extra[0] == "exists");
    const std::map<std::string, std::string> before = golden::RegularFilesIn(dir_.path());
    const golden::ToolRun got = golden::RunOsdmaptool(c.args);
    golden::ExpectSameAsGolden(GoldenDir(), c, got, before, dir_.path());
  }
}

// osdmaptool 16.2 aborts (uncaught buffer::malformed_input /
// end_of_buffer, rc 134) on a crush map it cannot decode; crushkit says
// why and writes nothing.
TEST_F(ClobberGoldenTest, UndecodableCrushMapIsAnErrorNotACrash) {
  for (const std::string& content : {std::string("garbage\n"), std::string()}) {
    FreshInputs(false);
    std::FILE* f = std::fopen("bad.crush", "wb");
    std::fwrite(content.data(), 1, content.size(), f);
    std::fclose(f);
    const golden::ToolRun got =
        golden::RunOsdmaptool({"x.om", "--clobber", "--import-crush", "bad.crush"});
    EXPECT_EQ(got.rc, 1);
    EXPECT_TRUE(got.out.empty()) << got.out;
    EXPECT_TRUE(absl::StrContains(
        got.err, "osdmaptool: error decoding crush map from bad.crush: not a crush map"))
        << got.err;
    EXPECT_FALSE(std::filesystem::exists("x.om"));
  }
}

// osdmaptool 16.2 aborts on std::stoi/std::stof of a malformed
// --adjust-crush-weight entry.
TEST_F(ClobberGoldenTest, MalformedCrushWeightIsAnErrorNotACrash) {
  FreshInputs(false);
  golden::ToolRun got =
      golden::RunOsdmaptool({"x.om", "--clobber", "--adjust-crush-weight", "0:abc", "--save"});
  EXPECT_EQ(got.rc, 1);
  EXPECT_EQ(got.err, "osdmaptool: osdmap file 'x.om'\nosdmaptool: invalid weight 'abc'\n");
  got = golden::RunOsdmaptool({"x.om", "--clobber", "--adjust-crush-weight", "abc:1", "--save"});
  EXPECT_EQ(got.rc, 1);
  EXPECT_EQ(got.err, "osdmaptool: osdmap file 'x.om'\nosdmaptool: invalid osd id 'abc'\n");
  EXPECT_FALSE(std::filesystem::exists("x.om"));
}

}  // namespace
}  // namespace crushkit::tools::osdmaptool
