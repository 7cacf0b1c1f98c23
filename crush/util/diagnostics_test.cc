#include "crush/util/diagnostics.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace crushkit::util {
namespace {

TEST(EditDistanceTest, CountsEditsAndAdjacentTranspositions) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("host0", "host0"), 0u);
  EXPECT_EQ(EditDistance("host0", ""), 5u);
  EXPECT_EQ(EditDistance("host9", "host1"), 1u);
  EXPECT_EQ(EditDistance("hots0", "host0"), 1u);  // one transposition
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("ca", "abc"), 3u);  // OSA, not Damerau (2)
  EXPECT_EQ(EditDistance("hots0", "host0", {.transpositions = false}), 2u);
}

TEST(ClosestNameTest, FindsTyposWithinAThirdOfTheWord) {
  EXPECT_EQ(ClosestName("host9", {"host1", "rack1", "default"}), "host1");
  EXPECT_EQ(ClosestName("defualt", {"host1", "default"}), "default");
  EXPECT_EQ(ClosestName("hots0", {"host0", "rack0"}), "host0");
  EXPECT_EQ(ClosestName("hots", {"host"}, {.transpositions = false}), "");
  EXPECT_EQ(ClosestName("zzzzzzzz", {"host1", "default"}), "");
  EXPECT_EQ(ClosestName("ab", {"xy"}), "");
  EXPECT_EQ(ClosestName("x", {}), "");
}

TEST(ClosestNameTest, TiesGoToTheSmallestNameInAnyOrder) {
  EXPECT_EQ(ClosestName("host", {"hosu", "hosa"}), "hosa");
  EXPECT_EQ(ClosestName("host", {"hosa", "hosu"}), "hosa");
}

TEST(DidYouMeanTest, SuffixOrNothing) {
  EXPECT_EQ(DidYouMean("reweigth", {"reweight", "move"}), "; did you mean 'reweight'?");
  EXPECT_EQ(DidYouMean("qqq", {"reweight"}), "");
}

TEST(RenderCaretDiagnosticTest, HeaderSourceAndCaret) {
  EXPECT_EQ(RenderCaretDiagnostic({.file = "a.crush",
                                   .line = 2,
                                   .column = 7,
                                   .severity = "error",
                                   .message = "unknown bucket 'host9'",
                                   .source = "\titem host9 weight 1.000",
                                   .length = 5}),
            "a.crush:2:7: error: unknown bucket 'host9'\n"
            "\titem host9 weight 1.000\n"
            "\t     ^~~~~\n");
}

TEST(RenderCaretDiagnosticTest, NoSourceLineAndColumnZero) {
  EXPECT_EQ(RenderCaretDiagnostic({.file = "ops.txt",
                                   .line = 9,
                                   .column = 0,
                                   .severity = "error",
                                   .message = "m",
                                   .source = std::nullopt,
                                   .length = 1}),
            "ops.txt:9:0: error: m\n");
  EXPECT_EQ(RenderCaretDiagnostic({.file = "f",
                                   .line = 1,
                                   .column = 0,
                                   .severity = "note",
                                   .message = "m",
                                   .source = "ab",
                                   .length = 1}),
            "f:1:0: note: m\nab\n^\n");
}

TEST(MoreErrorsNoteTest, Wording) {
  EXPECT_EQ(MoreErrorsNote("x.crush", 5), "x.crush: note: 5 more errors not shown\n");
}

}  // namespace
}  // namespace crushkit::util
