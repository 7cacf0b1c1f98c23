// `crushkit osdmaptool` on Ceph's binary osdmap against Ceph's osdmaptool
// 16.2 on the same file: standard output, exit code and, for --save, the
// bytes written. The map (balancer upmaps, a marked-out OSD, a three-host
// crush map) is made by the oracle at test time; skipped when it is not
// installed (failed under CRUSHKIT_REQUIRE_ORACLE).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/run_shell.h"
#include "tests/testing/temp_dir.h"
#include "tools/osdmaptool/osdmaptool.h"

namespace crushkit::tools::osdmaptool {
namespace {

using ::crush_testing::ReadAll;
using ::crush_testing::RunShell;

class BinaryOsdmapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CRUSH_TEST_NEEDS_ORACLE("osdmaptool");
    CRUSH_TEST_NEEDS_ORACLE("crushtool");
    env_ = "CEPH_ARGS=--crash_dir=" + dir_.path() + " timeout 60 ";
    const std::string om = dir_.path() + "/base.om";
    const std::string cm = dir_.path() + "/cm";
    const std::string tool = crush_testing::OraclePath("osdmaptool");
    RunShell(env_ + crush_testing::OraclePath("crushtool") +
             " --build --num_osds 9 host straw2 3 root straw2 0 -o " + cm + " >/dev/null 2>&1");
    RunShell(env_ + tool + " --createsimple 9 --with-default-pool --pg-bits 4 " + om +
             " --clobber >/dev/null 2>&1");
    RunShell(env_ + tool + " " + om + " --import-crush " + cm + " >/dev/null 2>&1");
    RunShell(env_ + tool + " " + om + " --mark-up-in --mark-out 7 --upmap " + om +
             ".up --upmap-deviation 1 --save" + " >/dev/null 2>&1");
    base_ = crush_testing::ReadFileOrEmpty(om);
    ASSERT_FALSE(base_.empty());
    crush_ = cm;
  }

  // Writes the base map to `name` and returns its path.
  std::string Fresh(const std::string& name) {
    const std::string path = dir_.path() + "/" + name;
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(base_.data(), 1, base_.size(), f);
    std::fclose(f);
    return path;
  }

  void ExpectSame(const std::string& flags) {
    const std::string theirs = Fresh("theirs.om");
    const std::string ours = Fresh("ours.om");
    int want_rc = 0;
    const std::string want =
        // Through PATH so that it prints "osdmaptool:" as argv[0], as the front does.
        RunShell(
            "PATH=/usr/bin:$PATH " + env_ + "osdmaptool " + theirs + " " + flags + " 2>/dev/null",
            &want_rc);
    std::vector<std::string> args = {ours};
    for (absl::string_view a : absl::StrSplit(flags, ' ', absl::SkipEmpty())) args.emplace_back(a);
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    const int rc = RunOsdmaptoolCommand(args, out, err);
    std::string got = ReadAll(out);
    std::fclose(out);
    std::fclose(err);
    // osdmaptool names the file it wrote.
    const std::string written = "writing epoch";
    if (got.find(written) != std::string::npos) got.replace(got.find(ours), ours.size(), theirs);
    EXPECT_EQ(rc, want_rc) << flags;
    EXPECT_EQ(got, want) << flags;
    EXPECT_TRUE(crush_testing::ReadFileOrEmpty(ours) == crush_testing::ReadFileOrEmpty(theirs))
        << flags << ": the maps written differ";
  }

  crush_testing::TempDir dir_{"binary_osdmap_test"};
  std::string env_;
  std::string base_;
  std::string crush_;
};

TEST_F(BinaryOsdmapTest, MappingMatchesOracle) {
  ExpectSame("--test-map-pgs-dump");
  ExpectSame("--test-map-pgs-dump-all --mark-out 2");
  ExpectSame("--test-map-pgs --pool 1");
  ExpectSame("--test-map-object rbd_data.42 --pool 1");
  ExpectSame("--test-map-pg 1.1f");
}

TEST_F(BinaryOsdmapTest, TreeMatchesOracle) {
  ExpectSame("--tree");
  ExpectSame("--tree json");
  ExpectSame("--tree json-pretty");
  ExpectSame("--tree=json-pretty --mark-out 1");
  ExpectSame("--mark-out 4 --adjust-crush-weight 3:0.5 --tree");
}

TEST_F(BinaryOsdmapTest, SavesMatchOracleByteForByte) {
  ExpectSame("--upmap-cleanup " + dir_.path() + "/cleanup.txt --mark-out 1 --save");
  ExpectSame("--adjust-crush-weight 0:2.5,4:0.5 --save");
  ExpectSame("--import-crush " + crush_);
  ExpectSame("--clear-temp --mark-up-in --import-crush " + crush_);
}

TEST_F(BinaryOsdmapTest, PrintMatchesOracle) {
  ExpectSame("--print");
  ExpectSame("--dump plain");
  ExpectSame("--mark-out 3 --print");
  ExpectSame("--upmap-cleanup - --print");
  ExpectSame("--dump json");
  ExpectSame("--dump json-pretty");
  ExpectSame("--dump foo --mark-out 3");
  ExpectSame("--clean-temps");
  ExpectSame("--clean-temps --clear-temp --print");
  ExpectSame("--clear-temp --print --tree");
  ExpectSame("--adjust-crush-weight 2:0.5 --save --print");
  ExpectSame("--import-crush " + crush_ + " --print");
}

}  // namespace
}  // namespace crushkit::tools::osdmaptool
