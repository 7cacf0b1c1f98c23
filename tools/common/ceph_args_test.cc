#include "tools/common/ceph_args.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crushkit::tools {
namespace {

using ::testing::ElementsAre;

TEST(DashesToUnderscoresTest, KeepsPrefixAndValue) {
  EXPECT_EQ(DashesToUnderscores("--num-rep"), "--num_rep");
  EXPECT_EQ(DashesToUnderscores("--num-rep=-1"), "--num_rep=-1");
  EXPECT_EQ(DashesToUnderscores("-i"), "-i");
  EXPECT_EQ(DashesToUnderscores("-"), "-");
  EXPECT_EQ(DashesToUnderscores(""), "");
}

TEST(ClassifyArgValueTest, MatchesCephArgValueType) {
  // Cases checked against Pacific crushtool's messages (see options_test).
  EXPECT_TRUE(ClassifyArgValue("12").is_numeric);
  EXPECT_TRUE(ClassifyArgValue("-12").is_numeric);
  EXPECT_TRUE(ClassifyArgValue("1.5").is_numeric);
  EXPECT_TRUE(ClassifyArgValue("").is_numeric);
  EXPECT_FALSE(ClassifyArgValue("1.2.3").is_numeric);
  EXPECT_FALSE(ClassifyArgValue("0x10").is_numeric);
  EXPECT_FALSE(ClassifyArgValue("+3").is_numeric);
  EXPECT_TRUE(ClassifyArgValue("-").is_option);
  EXPECT_TRUE(ClassifyArgValue("--x").is_option);
  EXPECT_TRUE(ClassifyArgValue("-abc").is_option);
  EXPECT_FALSE(ClassifyArgValue("abc").is_option);
}

TEST(StrictStrtolTest, MessagesAndRange) {
  std::string err;
  EXPECT_EQ(StrictStrtol("010", &err), 10);
  EXPECT_EQ(err, "");
  EXPECT_EQ(StrictStrtol("-2147483648", &err), -2147483647 - 1);
  EXPECT_EQ(err, "");
  StrictStrtol("2147483648", &err);
  EXPECT_EQ(err, "The option value '2147483648' seems to be invalid");
  StrictStrtol("1.5", &err);
  EXPECT_EQ(err, "Expected option value to be integer, got '1.5'");
  StrictStrtol("", &err);
  EXPECT_EQ(err, "Expected option value to be integer, got ''");
  EXPECT_EQ(StrictStrtoll("4294967297", &err), 4294967297LL);
  StrictStrtoll("99999999999999999999", &err);
  EXPECT_EQ(err, "The option value '99999999999999999999' seems to be invalid");
}

TEST(ArgListTest, WithArgFormsAndErasure) {
  ArgList args({"--num-rep=3", "--x", "5", "--rule", "junk", "--max_x"});
  std::string v, msg;
  EXPECT_EQ(args.WithArg({"--num_rep"}, &v, &msg), ArgMatch::kValue);
  EXPECT_EQ(v, "3");
  EXPECT_EQ(args.WithArg({"--xx"}, &v, &msg), ArgMatch::kNoMatch);
  EXPECT_EQ(args.WithArg({"--x"}, &v, &msg), ArgMatch::kValue);
  EXPECT_EQ(v, "5");
  int r = 0;
  std::string err;
  EXPECT_TRUE(args.WithInt({"--rule"}, &r, &err));
  EXPECT_EQ(r, 1);  // Ceph stores EXIT_FAILURE for a non-numeric value
  EXPECT_EQ(err, "The option value 'junk' is invalid");
  err.clear();
  EXPECT_TRUE(args.WithInt({"--max-x"}, &r, &err));
  EXPECT_EQ(err, "Option --max_x requires an argument.\n");
  EXPECT_TRUE(args.AtEnd());
  EXPECT_TRUE(args.args().empty());
}

TEST(ArgListTest, FlagsMatchExactlyAndUnmatchedStay) {
  ArgList args({"--show-mappings=1", "--show_mappings", "-t"});
  EXPECT_FALSE(args.Flag({"--show-mappings"}));
  args.Next();
  EXPECT_TRUE(args.Flag({"--show-mappings"}));
  EXPECT_TRUE(args.Flag({"-t", "--test"}));
  EXPECT_THAT(args.args(), ElementsAre("--show-mappings=1"));
  EXPECT_EQ(FormatArgVector(args.args()), "[--show-mappings=1]");
}

}  // namespace
}  // namespace crushkit::tools
