// Every input class on which Ceph 16.2's crushtool crashes, hangs or is
// undefined (issue #6, the differential suites' skipped cases, and
// tools/crushtool/README.md "Well-defined answers where Ceph crashes or is
// undefined"), run end to end through crushkit's crushtool front, asserting
// crushkit's documented answer: exit status and message. What Ceph does is
// noted per case (observed on 16.2.15; the fast ones are re-checked against
// the installed oracle by CephStillMisbehaves below).
//
// Classes pinned elsewhere, not repeated here:
//   - a rule whose result holds bucket ids, an unnamed rule, --num-rep
//     3000000, --batches 0: tools/crushtool/crushtool_test.cc
//     (CrushtoolDefinedAnswersTest);
//   - `-i` larger than 1 GiB: limits_tools_test.cc InputSizeLimitTest (the front
//     reads through tools::ReadFileBytes);
//   - compiler inputs Ceph mis-parses (weight 1e30 stored as 0, device
//     4294967297 becoming device 1, nan/inf/negative weights): the golden
//     diagnostics tests/golden/diagnostics/{weight_overflow,
//     device_id_too_large,weight_nan,weight_inf,weight_negative}; the two
//     issue examples are repeated here through `crushtool -c`.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "compiler/compile.h"
#include "compiler/source_file.h"
#include "crush/builder.h"
#include "crush/codec.h"
#include "crush/model.h"
#include "tests/testing/crush_text.h"
#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/temp_dir.h"
#include "tools/crushtool/crushtool.h"
#include "tools/crushtool/front_test_util.h"

namespace crushkit::tools::crushtool {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using test_util::Result;
using test_util::RunOurs;

// Ceph's exit status under `timeout 20` (124 = hang, >= 128 = signal).
int RunCephStatus(const std::string& dir, const std::string& args) {
  const std::string cmd = "cd " + dir + " && CEPH_ARGS=--crash_dir=" + dir +
                          " timeout 20 /usr/bin/crushtool " + args + " >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// Three hosts of two devices, one replicated rule (chooseleaf over hosts)
// and one rule that can never be satisfied for 4 replicas (4 distinct hosts
// of 3) with a huge set_choose_tries.
std::string Map() {
  return crush_testing::HostsAndRootText({{1, 1}, {1, 1}, {1, 1}}) +
         crush_testing::ChooseleafHostsRuleText("replicated", 0) + R"(rule unsatisfiable {
	id 1
	type replicated
	min_size 1
	max_size 10
	step set_choose_tries 2000000000
	step take default
	step chooseleaf firstn 4 type host
	step emit
}
)";
}

class CephCrashCasesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(tmp_.ok());
    dir_ = tmp_.path();
    auto m = compiler::Compile(compiler::SourceFile("m.txt", Map()));
    ASSERT_TRUE(m.ok()) << m.status();
    model_ = *m;
    good_ = Write("good.bin", crush::EncodeCrushMap(model_));
  }

  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    return path;
  }

  // `crushtool -i FILE --test` on a 6-input range, the mapping dump.
  Result Test(const std::string& file, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"-i", file,      "--test", "--show-mappings", "--min-x",
                                     "0",  "--max-x", "5",      "--num-rep",       "3"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunOurs(args);
  }

  crush_testing::TempDir tmp_{"ceph_crash_cases"};
  std::string dir_, good_;
  crush::MapModel model_;
};

// Ceph: a truncated map can free a buffer twice or read past its end
// (issue #6); crushkit: every prefix is refused by the decoder.
TEST_F(CephCrashCasesTest, TruncatedFileIsUnableToDecode) {
  const std::string bytes = crush::EncodeCrushMap(model_);
  for (std::size_t len :
       {std::size_t{0}, std::size_t{3}, std::size_t{17}, bytes.size() / 2, bytes.size() - 1}) {
    // The last prefixes only lose optional trailing sections when len is
    // near the end; Pacific's decoder (and crushkit's, ignore_trailing_bytes)
    // accept those, so only strict truncations inside required data count.
    const std::string f = Write("trunc.bin", bytes.substr(0, len));
    const Result r = Test(f);
    if (r.rc == 0) {
      EXPECT_GT(len, bytes.size() / 2) << "a prefix of " << len << " bytes decoded";
      continue;
    }
    EXPECT_EQ(r.rc, 1) << len;
    EXPECT_EQ(r.err, "crushtool: unable to decode " + f + "\n") << len;
    EXPECT_EQ(r.out, "") << len;
  }
}

// Ceph: max_buckets = -1 makes the decoder allocate/loop on a negative count
// (issue #6); crushkit: refused before anything is allocated.
TEST_F(CephCrashCasesTest, NegativeMaxBucketsIsUnableToDecode) {
  std::string bytes = crush::EncodeCrushMap(model_);
  for (int i = 4; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = '\xff';  // max_buckets
  const std::string f = Write("neg.bin", bytes);
  const Result r = Test(f);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "crushtool: unable to decode " + f + "\n");
}

// Ceph: a tree bucket of 200 items stores num_nodes (512) in a u8 and its
// descent reads out of bounds (issue #6); crushkit: the decoder checks
// num_nodes against the size.
TEST_F(CephCrashCasesTest, TreeBucketOf200ItemsIsUnableToDecode) {
  crush::MapModel m;
  std::vector<crush::ItemId> items;
  for (int i = 0; i < 200; ++i) items.push_back(i);
  const std::vector<crush::Weight> weights(items.size(), crush::kWeightOne);
  auto b = crush::MakeBucket(crush::BucketAlg::kTree, crush::kHashRjenkins1, 1, items, weights, 1);
  ASSERT_TRUE(b.ok()) << b.status();
  b->id = -1;
  m.buckets.push_back(*b);
  m.max_devices = 200;
  m.rules = model_.rules;
  m.rule_exists = model_.rule_exists;
  for (auto& rule : m.rules) rule.steps[rule.steps.size() == 3 ? 0 : 1].arg1 = -1;
  const std::string f = Write("tree200.bin", crush::EncodeCrushMap(m));
  const Result r = Test(f);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "crushtool: unable to decode " + f + "\n");
}

// Ceph: a cycle in the hierarchy makes --test descend forever (a hang);
// crushkit: CrushMap::Build refuses the map, naming the bucket.
TEST_F(CephCrashCasesTest, CycleIsRefusedBeforeMapping) {
  crush::MapModel m = model_;
  crush::Bucket* h0 = m.FindBucket(-2);
  ASSERT_NE(h0, nullptr);
  h0->items[1] = -1;  // h0 now holds the root that holds h0
  const std::string f = Write("cycle.bin", crush::EncodeCrushMap(m));
  const Result r = Test(f);
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, ::testing::AnyOf(
                         ::testing::AllOf(StartsWith("crushkit crushtool: cannot test the map: "),
                                          HasSubstr("cycle")),
                         StartsWith("crushtool: unable to decode ")));
  EXPECT_EQ(r.out, "");
}

// Ceph: an item naming a bucket id that does not exist is dereferenced as a
// null bucket (segfault, issue #6); crushkit: refused before mapping.
TEST_F(CephCrashCasesTest, DanglingBucketIdIsRefused) {
  crush::MapModel m = model_;
  m.FindBucket(-1)->items[2] = -40;
  const std::string f = Write("dangling.bin", crush::EncodeCrushMap(m));
  const Result r = Test(f);
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, ::testing::AnyOf(StartsWith("crushkit crushtool: cannot test the map: "),
                                      StartsWith("crushtool: unable to decode ")));
  EXPECT_EQ(r.out, "");
}

// Ceph: an unsatisfiable rule with set_choose_tries 2e9 runs for hours per
// input. crushkit: after 64 failed tries the mapper proves that no try can
// succeed (crush/mapper_hopeless.cc) and stops with Ceph's own result: the
// three hosts there are, no warning (tests/cli/run_hopeless_rules.py checks
// the bytes against crushtool).
TEST_F(CephCrashCasesTest, HugeTriesOnAnUnsatisfiableRuleFinish) {
  const Result r = RunOurs(
      {"-i", good_, "--test", "--show-mappings", "--x", "1", "--num-rep", "4", "--rule", "1"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("CRUSH rule 1 x 1 ["));
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), ','), 2) << r.out;  // 3 OSDs
  EXPECT_EQ(r.err, "");
}

// Ceph: `--weight D W` converts W * 65536 with (int): for 1e10, inf or nan
// that is INT_MIN on x86-64, clamped to 0. crushkit: 0, explicitly — the same
// mappings as `--weight D 0`.
TEST_F(CephCrashCasesTest, OutOfRangeWeightOverrideIsZero) {
  const Result zero = Test(good_, {"--weight", "0", "0"});
  ASSERT_EQ(zero.rc, 0) << zero.err;
  for (const char* w : {"1e10", "inf", "nan", "-1e10"}) {
    const Result r = Test(good_, {"--weight", "0", w});
    EXPECT_EQ(r.rc, 0) << w;
    EXPECT_EQ(r.out, zero.out) << w;
  }
}

// Ceph: --show-choose-tries allocates and prints choose_total_tries
// counters (up to 2^31 of them: gigabytes; 4294967295 itself is stored as 0
// by both). crushkit: capped at 65,536 rows.
TEST_F(CephCrashCasesTest, ChooseTriesHistogramIsCapped) {
  const Result r =
      RunOurs({"-i", good_, "--set-choose-total-tries", "100000", "-o", dir_ + "/tries.bin"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const Result t = RunOurs({"-i", dir_ + "/tries.bin", "--test", "--show-choose-tries", "--min-x",
                            "0", "--max-x", "3", "--num-rep", "3", "--rule", "0"});
  EXPECT_EQ(t.rc, 0) << t.err;
  int rows = 0;
  for (char c : t.out) rows += c == '\n';
  EXPECT_EQ(rows, 65536);
}

// Ceph's compiler stores `weight 1e30` as 0 and turns `device 4294967297`
// into device 1 (issue #6); crushkit: located errors, exit 1.
TEST_F(CephCrashCasesTest, CompilerNumbersAreStrict) {
  const std::string weight =
      Write("w.txt", Map().replace(Map().find("weight 1.000"), 12, "weight 1e30"));
  Result r = RunOurs({"-c", weight, "-o", dir_ + "/w.bin"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, StartsWith(weight + ":14:"));
  std::string dev_text = Map();
  dev_text.replace(0, 8, "device 4294967297");
  const std::string dev = Write("d.txt", dev_text);
  r = RunOurs({"-c", dev, "-o", dir_ + "/d.bin"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, StartsWith(dev + ":1:"));
  EXPECT_EQ(::access((dir_ + "/w.bin").c_str(), F_OK), -1) << "no output on failure";
  EXPECT_EQ(::access((dir_ + "/d.bin").c_str(), F_OK), -1) << "no output on failure";
}

// The oracle still misbehaves on the cheap-to-run classes above (skipped
// without Ceph, and for the classes that hang).
TEST_F(CephCrashCasesTest, CephStillMisbehaves) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  crush::MapModel m = model_;
  m.FindBucket(-1)->items[2] = -40;
  const std::string dangling = Write("dangling.bin", crush::EncodeCrushMap(m));
  EXPECT_GE(RunCephStatus(dir_, "-i " + dangling + " --test --min-x 0 --max-x 5 --num-rep 3"), 124);
}

}  // namespace
}  // namespace crushkit::tools::crushtool
