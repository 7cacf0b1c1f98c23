#include "tools/crushtool/options.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crushkit::tools::crushtool {
namespace {

using ::testing::HasSubstr;

ParseOutcome Parse(std::vector<std::string> args,
                   crush::CephRelease release = crush::CephRelease::kPacific) {
  return ParseCrushtoolArgs(std::move(args), "crushtool", release);
}

// Expected texts below were captured from Pacific 16.2.15 crushtool.
TEST(ParseCrushtoolArgsTest, NoArgumentsAndHelp) {
  ParseOutcome p = Parse({});
  EXPECT_TRUE(p.exit_now);
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.err, "crushtool: -h or --help for usage\n");
  p = Parse({"-i", "x", "--help"});
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_THAT(p.out, HasSubstr("usage: crushtool ..."));
}

// Captured from Reef 18.2.7 and Tentacle 20.2.4 crushtool: --ruleset is gone,
// --min-rep/--max-rep are new (Pacific 16.2.15 knows neither of the latter).
TEST(ParseCrushtoolArgsTest, QuincyAndLaterSwapRulesetForMinMaxRep) {
  for (crush::CephRelease r : {crush::CephRelease::kReef, crush::CephRelease::kTentacle}) {
    ParseOutcome p =
        Parse({"-i", "m", "--test", "--min-rep", "2", "--max_rep=4", "--show-statistics"}, r);
    ASSERT_FALSE(p.exit_now) << p.err;
    EXPECT_EQ(p.options.tester.min_rep, 2);
    EXPECT_EQ(p.options.tester.max_rep, 4);
    EXPECT_FALSE(p.options.tester.rule_sizes_default);
    p = Parse({"-i", "m", "--test", "--ruleset", "1", "--num-rep", "2", "--show-statistics"}, r);
    EXPECT_TRUE(p.exit_now);
    EXPECT_EQ(p.exit_code, 1);
    EXPECT_EQ(p.err, "unrecognized arguments: [--ruleset,1]\n");
    p = Parse({"--help"}, r);
    EXPECT_THAT(p.out, HasSubstr("      [--min-rule r] [--max-rule r] [--rule r]\n"
                                 "      [--min-rep n] [--max-rep n] [--num-rep n]\n"));
  }
  ParseOutcome p = Parse({"-i", "m", "--test", "--min-rep", "2", "--show-statistics"});
  EXPECT_TRUE(p.exit_now);
  EXPECT_EQ(p.err, "unrecognized arguments: [--min-rep,2]\n");
  EXPECT_TRUE(Parse({"-i", "m", "--test", "--num-rep", "2"}).options.tester.rule_sizes_default);
  EXPECT_THAT(Parse({"--help"}).out, HasSubstr("[--rule r] [--ruleset rs]\n      [--num-rep n]\n"));
}

TEST(ParseCrushtoolArgsTest, TestOptionsAndSpellings) {
  ParseOutcome p = Parse({"-i", "m", "--test", "--num_rep=3", "--x", "7", "--rule=2",
                          "--show-mappings", "--pool-id", "4294967297", "--weight", "3", "0.5"});
  ASSERT_FALSE(p.exit_now) << p.err;
  const TestOptions& t = p.options.tester;
  EXPECT_EQ(t.min_rep, 3);
  EXPECT_EQ(t.max_rep, 3);
  EXPECT_EQ(t.min_x, 7);
  EXPECT_EQ(t.max_x, 7);
  EXPECT_EQ(t.min_rule, 2);
  EXPECT_EQ(t.pool_id, 4294967297LL);
  EXPECT_TRUE(t.output_mappings);
  EXPECT_EQ(t.device_weight.at(3), 0x8000u);
  EXPECT_EQ(p.err, "");
}

TEST(ParseCrushtoolArgsTest, WarningsAndUnrecognized) {
  ParseOutcome p = Parse({"-i", "m", "--test", "--num_rep", "3", "--show_mappings=1"});
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.err,
            "WARNING: no output selected; use --output-csv or --show-X\n"
            "unrecognized arguments: [--show_mappings=1]\n");
  p = Parse({"-i", "m"});
  EXPECT_EQ(p.err, "no action specified; -h for help\n");
  p = Parse({"-i", "m", "--test", "--show-statistics", "--", "--x", "1"});
  EXPECT_EQ(p.err, "unrecognized arguments: [--x,1]\n");
}

TEST(ParseCrushtoolArgsTest, ValueErrors) {
  ParseOutcome p = Parse({"-i", "m", "--test", "--num-rep", "abc"});
  EXPECT_EQ(p.err, "The option value 'abc' is invalid\n");
  p = Parse({"-i", "m", "--test", "--num-rep"});
  EXPECT_EQ(p.err, "Option --num-rep requires an argument.\n\n");
  p = Parse({"-i", "m", "-i"});
  EXPECT_EQ(p.err, "Option -i requires an argument.\n");
  p = Parse({"-i", "m", "--test", "--weight", "0"});
  EXPECT_EQ(p.err, "expecting additional argument to --weight\n");
  // An unchecked option's error surfaces at the next checking option.
  p = Parse({"-i", "m", "--set-choose-total-tries", "abc", "--x", "1"});
  EXPECT_EQ(p.err, "The option value 'abc' is invalid\n");
  // ... and is silent otherwise, with the value Ceph stores (1).
  p = Parse({"-i", "m", "--set-choose-total-tries", "abc"});
  EXPECT_FALSE(p.exit_now);
  EXPECT_EQ(p.options.choose_total_tries, 1);
}

TEST(ParseCrushtoolArgsTest, DisplayFlagsAreSupported) {
  ParseOutcome p = Parse({"-i", "m", "--tree", "--dump", "-f", "xml", "--show-location", "3",
                          "--bucket-tree", "--bucket-name", "b", "--check", "7"});
  ASSERT_FALSE(p.exit_now);
  EXPECT_TRUE(p.options.tree && p.options.dump && p.options.bucket_tree && p.options.check);
  EXPECT_EQ(p.options.dump_format, "xml");
  EXPECT_EQ(p.options.full_location, 3);
  EXPECT_EQ(p.options.bucket_name, "b");
  EXPECT_EQ(p.options.max_id, 7);
}

TEST(DeviceWeightFromFloatTest, ClampsLikeX86) {
  EXPECT_EQ(DeviceWeightFromFloat(1.0F), 0x10000u);
  EXPECT_EQ(DeviceWeightFromFloat(0.5F), 0x8000u);
  EXPECT_EQ(DeviceWeightFromFloat(7.0F), 0x10000u);
  EXPECT_EQ(DeviceWeightFromFloat(-1.0F), 0u);
  // (int)(1e10f * 65536) is INT_MIN on x86-64, hence 0 after clamping.
  EXPECT_EQ(DeviceWeightFromFloat(1e10F), 0u);
  EXPECT_EQ(DeviceWeightFromFloat(__builtin_inff()), 0u);
}

}  // namespace
}  // namespace crushkit::tools::crushtool
