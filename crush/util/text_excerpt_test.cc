#include "crush/util/text_excerpt.h"

#include <algorithm>
#include <string>

#include "gtest/gtest.h"

namespace crushkit::util {
namespace {

bool NoRawControlBytes(const std::string& s) {
  return std::none_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t' && c != '\n') || u == 0x7f;
  });
}

std::size_t LongestLine(const std::string& s) {
  std::size_t longest = 0;
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    longest = std::max(longest, end - start);
    start = end + 1;
  }
  return longest;
}

// Short lines print as the classic caret diagnostic always did (the golden
// diagnostics in tests/golden/diagnostics depend on it).
TEST(TextExcerptTest, ShortLinesAreTheClassicCaret) {
  EXPECT_EQ(CaretLines("\titem host9 weight 1.000", 6, 5),
            "\titem host9 weight 1.000\n\t     ^~~~~\n");
  EXPECT_EQ(CaretLines("abc", 1, 10), "abc\n ^~\n");  // clipped to the line
  EXPECT_EQ(CaretLines("abc", 3, 1), "abc\n   ^\n");  // just past the end
  EXPECT_EQ(CaretLines("abc", 5, 2), "abc\n     ^\n");
  EXPECT_EQ(CaretLines("", 0, 1), "\n^\n");
}

TEST(TextExcerptTest, LongLinesShowAWindowAroundTheColumn) {
  std::string line(1 << 20, 'x');
  line.replace(500000, 5, "HERE!");
  const std::string out = CaretLines(line, 500000, 5);
  EXPECT_LE(LongestLine(out), kMaxQuotedBytes + 6);
  const std::size_t nl = out.find('\n');
  const std::size_t caret = out.find('^', nl) - nl - 1;
  EXPECT_EQ(out.substr(caret, 5), "HERE!") << out;
  EXPECT_EQ(out.substr(0, 3), "...");
  EXPECT_EQ(out.substr(nl - 3, 3), "...");
  EXPECT_EQ(out.substr(nl + 1 + caret, 5), "^~~~~");
  // At the start of a long line: no leading "...", the caret at column 0.
  EXPECT_EQ(CaretLines(line, 0, 1).substr(0, 5), "xxxxx");
  EXPECT_EQ(CaretLines(line, 0, 1).find("\n^\n") != std::string::npos, true);
}

TEST(TextExcerptTest, ControlBytesAreEscapedAndTheCaretFollows) {
  const std::string line = std::string(
      "a\x01"
      "b\xff"
      "c",
      5);
  EXPECT_EQ(CaretLines(line, 4, 1), "a\\x01b\\xffc\n          ^\n");
  EXPECT_EQ(CaretLines(line, 1, 1), "a\\x01b\\xffc\n ^~~~\n");
  // Printable UTF-8 stays, one column per character.
  EXPECT_EQ(CaretLines("h\xc3\xa9llo", 3, 1), "h\xc3\xa9llo\n  ^\n");
  std::string random;
  for (int i = 0; i < 4096; ++i) random += static_cast<char>((i * 7919) & 0xff);
  const std::string out = CaretLines(random, 2000, 3);
  EXPECT_TRUE(NoRawControlBytes(out));
  EXPECT_LE(LongestLine(out), kMaxQuotedBytes + 6);
}

TEST(TextExcerptTest, TerminalExcerptCutsAndEscapes) {
  EXPECT_EQ(TerminalExcerpt("abc"), "abc");
  EXPECT_EQ(TerminalExcerpt(std::string("a\nb\0", 4)), "a\\x0ab\\x00");
  EXPECT_EQ(TerminalExcerpt(std::string(200, 'z')), std::string(kMaxQuotedBytes, 'z') + "...");
}

TEST(TextExcerptTest, BoundMessageShortensLongQuotesOnly) {
  const std::string plain = "unknown bucket 'host9' in bucket 'rack1'; did you mean 'host1'?";
  EXPECT_EQ(BoundMessage(plain), plain);
  EXPECT_EQ(BoundMessage("Ceph's rule 'r' isn't 'x'"), "Ceph's rule 'r' isn't 'x'");
  const std::string word(100000, 'w');
  EXPECT_EQ(BoundMessage("bad OSD id '" + word + "'; expected N or osd.N"),
            "bad OSD id '" + std::string(kMaxQuotedBytes, 'w') + "...'; expected N or osd.N");
  EXPECT_EQ(BoundMessage(std::string("bad '\x1b[2J'", 10)), "bad '\\x1b[2J'");
  EXPECT_LE(BoundMessage(std::string(100000, 'm')).size(), kMaxMessageBytes + 3);
}

}  // namespace
}  // namespace crushkit::util
