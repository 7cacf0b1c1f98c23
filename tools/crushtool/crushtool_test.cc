// End-to-end tests of RunCrushtoolCommand against Ceph's crushtool, which is
// run at test time (skipped if /usr/bin/crushtool is missing, failed under
// CRUSHKIT_REQUIRE_ORACLE) on maps from
// the shared compat corpus.
#include "tools/crushtool/crushtool.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "tests/testing/crush_text.h"
#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/temp_dir.h"
#include "tools/crushtool/front_test_util.h"

namespace crushkit::tools::crushtool {
namespace {

using test_util::Result;
using test_util::RunOurs;

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q.push_back(c);
    }
  }
  return q + "'";
}

Result RunCeph(const std::vector<std::string>& args) {
  const crush_testing::TempDir tmp("crushtool_test");
  const std::string& d = tmp.path();
  std::string cmd =
      "cd " + d + " && CEPH_ARGS=--crash_dir=" + d + " PATH=/usr/bin:$PATH timeout 60 crushtool";
  for (const std::string& a : args) cmd += " " + Quote(a);
  cmd += " >" + d + "/out 2>" + d + "/err";
  const int status = std::system(cmd.c_str());
  Result r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  r.out = crush_testing::ReadFileOrEmpty(d + "/out");
  r.err = crush_testing::ReadFileOrEmpty(d + "/err");
  return r;
}

std::string PacificFile(const std::string& name) {
  return crush_testing::CompatDir() + "/ceph-cli-tests/pacific/crushtool/" + name;
}

class CrushtoolVsCephTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CRUSH_TEST_NEEDS_ORACLE("crushtool");
    if (crush_testing::ReadFileOrEmpty(PacificFile("test-map-a.crushmap")).empty()) {
      GTEST_SKIP() << "compat corpus not found at " << crush_testing::CompatDir();
    }
  }

  void ExpectSame(const std::vector<std::string>& args) { EXPECT_EQ(RunOurs(args), RunCeph(args)); }
};

TEST_F(CrushtoolVsCephTest, ParsingErrors) {
  const std::string m = PacificFile("test-map-a.crushmap");
  ExpectSame({});
  ExpectSame({"-i", m});
  ExpectSame({"-i", m, "--test", "--num-rep", "x"});
  ExpectSame({"-i", m, "--test", "--num-rep", "1.5"});
  ExpectSame({"-i", m, "--test", "--num-rep", "-x"});
  ExpectSame({"-i", m, "--test", "--num-rep", "99999999999"});
  ExpectSame({"-i", m, "--test", "--num-rep"});
  ExpectSame({"-i", m, "--test", "--show-statistics", "--bogus", "1"});
  ExpectSame({"-i", m, "-i"});
  ExpectSame({"-i", "/nonexistent/map", "--test"});
  ExpectSame({"-i", "/etc/hosts", "--test", "--show-mappings"});
  ExpectSame({"--help"});
  ExpectSame({"--help-output"});
}

TEST_F(CrushtoolVsCephTest, TestOutputs) {
  const std::string m = PacificFile("test-map-a.crushmap");
  ExpectSame(
      {"-i", m, "--test", "--show-mappings", "--num-rep", "3", "--min-x", "0", "--max-x", "50"});
  ExpectSame({"-i", m, "--test", "--show-statistics", "--show-utilization", "--rule", "1",
              "--num-rep", "2", "--max-x", "99"});
  ExpectSame({"-i", m, "--test", "--show-utilization-all", "--rule", "0", "--x", "5"});
  ExpectSame({"-i", m, "--test", "--show-bad-mappings", "--show-choose-tries", "--weight", "3", "0",
              "--weight", "7", "0.25", "--pool-id", "7", "--min-x", "0", "--max-x", "200"});
  ExpectSame({"-i", m, "--test", "--show-statistics", "--min-rule", "1", "--max-rule", "9",
              "--ruleset", "2", "--batches", "3", "--num-rep", "4"});
  ExpectSame({"-i", PacificFile("test-map-indep.crushmap"), "--test", "--show-mappings",
              "--show-statistics", "--min-x", "1", "--max-x", "40", "--num-rep", "6"});
  ExpectSame({"--test", "--show-choose-tries"});
}

TEST_F(CrushtoolVsCephTest, TunableEditsWriteCephBytes) {
  const std::string m = PacificFile("test-map-a.crushmap");
  const crush_testing::TempDir tmp("crushtool_test_out");
  ASSERT_TRUE(tmp.ok());
  const std::string& d = tmp.path();
  for (const std::vector<std::string>& edit : std::vector<std::vector<std::string>>{
           {"--set-choose-total-tries", "50"},
           {"--set-chooseleaf-vary-r", "300"},
           {"--set-chooseleaf-stable", "1", "--set-straw-calc-version", "1"},
           {"--set-choose-local-tries", "0", "--set-allowed-bucket-algs", "54"},
           {"--set-choose-total-tries", "-1"}}) {
    std::vector<std::string> ours = {"-i", m, "-o", d + "/ours"};
    std::vector<std::string> theirs = {"-i", m, "-o", d + "/theirs"};
    ours.insert(ours.end(), edit.begin(), edit.end());
    theirs.insert(theirs.end(), edit.begin(), edit.end());
    const Result a = RunOurs(ours);
    const Result b = RunCeph(theirs);
    EXPECT_EQ(a, b);
    EXPECT_EQ(crush_testing::ReadFileOrEmpty(d + "/ours"),
              crush_testing::ReadFileOrEmpty(d + "/theirs"))
        << edit[0];
    std::remove((d + "/ours").c_str());
    std::remove((d + "/theirs").c_str());
  }
  ExpectSame({"-i", m, "--set-choose-total-tries", "50"});
}

// A two-host map whose rule 0 emits host buckets, whose rule 1 has no name
// and whose rule 2 is ordinary; compiled with Ceph's crushtool at test time.
std::string QuirkMap() {
  return crush_testing::HostsAndRootText({{1, 1}, {1, 1}}) + R"(rule hosts {
	id 0
	type replicated
	min_size 1
	max_size 10
	step take default
	step choose firstn 0 type host
	step emit
}
)" + crush_testing::ChooseleafHostsRuleText("", 1) +
         crush_testing::ChooseleafHostsRuleText("leaf", 2);
}

class CrushtoolDefinedAnswersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CRUSH_TEST_NEEDS_ORACLE("crushtool");
    ASSERT_TRUE(tmp_.ok());
    dir_ = tmp_.path();
    std::FILE* f = std::fopen((dir_ + "/m.txt").c_str(), "w");
    std::fputs(QuirkMap().c_str(), f);
    std::fclose(f);
    map_ = dir_ + "/m.bin";
    ASSERT_EQ(RunCeph({"-c", dir_ + "/m.txt", "-o", map_}).rc, 0);
  }

  crush_testing::TempDir tmp_{"crushtool_quirks"};
  std::string dir_, map_;
};

// Ceph corrupts its heap and aborts (rc 134); crushkit prints the bucket ids,
// counts only devices, and says why its counters differ from Ceph's.
TEST_F(CrushtoolDefinedAnswersTest, RuleEmittingBuckets) {
  EXPECT_GE(RunCeph({"-i", map_, "--test", "--show-mappings", "--show-utilization", "--rule", "0",
                     "--x", "1", "--num-rep", "2"})
                .rc,
            128);
  const Result r = RunOurs({"-i", map_, "--test", "--show-mappings", "--show-utilization", "--rule",
                            "0", "--x", "1", "--num-rep", "2"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out,
            "rule 0 (hosts), x = 1..1, numrep = 2..2\n"
            "CRUSH rule 0 x 1 [-2,-3]\n"
            "rule 0 (hosts) num_rep 2 result size == 2:\t1/1\n");
  EXPECT_THAT(r.err,
              ::testing::StartsWith("crushkit crushtool: warning: results held 2 bucket id(s);"));
}

// Ceph throws std::logic_error from std::string(nullptr); crushkit prints "".
TEST_F(CrushtoolDefinedAnswersTest, UnnamedRule) {
  EXPECT_GE(RunCeph({"-i", map_, "--test", "--show-statistics", "--rule", "1", "--x", "1",
                     "--num-rep", "1"})
                .rc,
            128);
  const Result r = RunOurs(
      {"-i", map_, "--test", "--show-statistics", "--rule", "1", "--x", "1", "--num-rep", "1"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out,
            "rule 1 (), x = 1..1, numrep = 1..1\n"
            "rule 1 () num_rep 1 result size == 1:\t1/1\n");
}

// Ceph overflows its stack; crushkit maps up to kMaxNumRep and refuses more.
TEST_F(CrushtoolDefinedAnswersTest, HugeNumRep) {
  EXPECT_GE(RunCeph({"-i", map_, "--test", "--show-statistics", "--rule", "1", "--x", "1",
                     "--num-rep", "3000000"})
                .rc,
            128);
  const Result r = RunOurs({"-i", map_, "--test", "--show-statistics", "--rule", "0", "--x", "1",
                            "--num-rep", "3000000"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "crushkit crushtool: num_rep 3000000 exceeds the supported maximum 65536\n");
}

TEST_F(CrushtoolDefinedAnswersTest, BatchesZeroAndNegativeMatchCeph) {
  for (const char* b : {"0", "-2", "2", "5"}) {
    const std::vector<std::string> ok = {"-i",
                                         map_,
                                         "--test",
                                         "--show-statistics",
                                         "--show-mappings",
                                         "--rule",
                                         "2",
                                         "--min-x",
                                         "1",
                                         "--max-x",
                                         "3",
                                         "--num-rep",
                                         "1",
                                         "--batches",
                                         b};
    EXPECT_EQ(RunOurs(ok), RunCeph(ok)) << "--batches " << b;
  }
}

TEST_F(CrushtoolDefinedAnswersTest, OutputReplacesInputAtomically) {
  const std::string copy = dir_ + "/copy.bin";
  std::system(("cp " + map_ + " " + copy).c_str());
  const Result r = RunOurs({"-i", copy, "--set-choose-total-tries", "19", "-o", copy});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(crush_testing::ReadFileOrEmpty(copy), crush_testing::ReadFileOrEmpty(map_));
  const Result bad =
      RunOurs({"-i", map_, "--set-choose-total-tries", "19", "-o", dir_ + "/no/such/dir/out"});
  EXPECT_EQ(bad, RunCeph({"-i", map_, "--set-choose-total-tries", "19", "-o",
                          dir_ + "/no/such/dir/out"}));
}

}  // namespace
}  // namespace crushkit::tools::crushtool
