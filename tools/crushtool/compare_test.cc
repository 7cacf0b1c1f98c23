// `crushtool --reclassify` and `--compare` through the front, pinned to the
// outputs Ceph 16.2 gives in its own cram test (reclassify.t) on the legacy
// sample maps of the compat corpus, plus crushkit's defined answer where
// Ceph crashes.
#include "tools/crushtool/compare.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

#include "tests/testing/paths.h"
#include "tests/testing/temp_dir.h"
#include "tools/crushtool/front_test_util.h"

namespace crushkit::tools::crushtool {
namespace {

using test_util::Result;
using test_util::RunOurs;

std::string Sample(const std::string& name) {
  return crush_testing::CompatDir() + "/ceph-cli-tests/pacific/crushtool/crush-classes/" + name;
}

class CompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (crush_testing::ReadFileOrEmpty(Sample("e")).empty()) {
      GTEST_SKIP() << "compat corpus not found at " << crush_testing::CompatDir();
    }
  }

  crush_testing::TempDir tmp_{"compare_test"};
};

TEST_F(CompareTest, ReclassifiedRootsKeepEveryMapping) {
  const std::string out = tmp_.File("foo");
  const Result r = RunOurs(
      {"-i", Sample("flax"), "--reclassify", "--reclassify-root", "default", "hdd", "-o", out});
  EXPECT_EQ(r.rc, 0) << r;
  EXPECT_EQ(r.out.substr(0, 64),
            "classify_root default (-1) as hdd\n  renumbering bucket -1 -> -5\n")
      << r;
  EXPECT_EQ(RunOurs({"-i", Sample("flax"), "--compare", out}),
            (Result{0,
                    "rule 0 had 0/10240 mismatched mappings (0)\n"
                    "maps appear equivalent\n",
                    ""}));
}

TEST_F(CompareTest, MovedMappingsAreCountedPerRule) {
  const std::string out = tmp_.File("foo");
  const Result r = RunOurs({"-i", Sample("e"), "--reclassify", "--reclassify-bucket",
                            "ceph-osd-ssd-%", "ssd", "default", "--reclassify-bucket", "ssd-root",
                            "ssd", "default", "--reclassify-root", "default", "hdd", "-o", out});
  ASSERT_EQ(r.rc, 0) << r;
  EXPECT_EQ(RunOurs({"-i", Sample("e"), "--compare", out}),
            (Result{1,
                    "rule 0 had 6540/10240 mismatched mappings (0.638672)\n"
                    "rule 1 had 8417/10240 mismatched mappings (0.821973)\n",
                    "warning: maps are NOT equivalent\n"}));
}

TEST_F(CompareTest, TakeOfTheRootsClassFailsTheReclassify) {
  EXPECT_EQ(RunOurs({"-i", Sample("gabe"), "--reclassify", "--reclassify-root", "default", "hdd",
                     "-o", tmp_.File("foo")}),
            (Result{1,
                    "classify_root default (-1) as hdd\n"
                    "  rule 3 includes take on root default class 0\n",
                    "failed to reclassify map\n"}));
}

TEST_F(CompareTest, UnreadableMapsAreReportedAsCephDoes) {
  EXPECT_EQ(RunOurs({"-i", Sample("a"), "--compare", tmp_.File("nosuch")}),
            (Result{1, "",
                    "crushtool: error reading '" + tmp_.File("nosuch") + "': can't open " +
                        tmp_.File("nosuch") + ": (2) No such file or directory\n"}));
  EXPECT_EQ(RunOurs({"-i", Sample("a"), "--compare", Sample("../straw2.txt")}),
            (Result{1, "", "crushtool: unable to decode " + Sample("../straw2.txt") + "\n"}));
}

TEST_F(CompareTest, RuleMissingFromTheOtherMapCountsAsEmptyResults) {
  // Ceph dereferences the empty rule slot and dies of SIGSEGV.
  const std::string out = tmp_.File("removed");
  ASSERT_EQ(RunOurs({"-i", Sample("c"), "--remove-rule", ".rgw.buckets", "-o", out}).rc, 0);
  const Result r = RunOurs({"-i", Sample("c"), "--compare", out, "--num-rep", "2"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out,
            "rule 0 had 0/1024 mismatched mappings (0)\n"
            "rule 1 had 1024/1024 mismatched mappings (1)\n"
            "rule 2 had 0/1024 mismatched mappings (0)\n");
  EXPECT_NE(r.err.find("warning: maps are NOT equivalent\n"), std::string::npos);
  EXPECT_NE(r.err.find("the compared map lacks a rule"), std::string::npos);
}

}  // namespace
}  // namespace crushkit::tools::crushtool
