#include "crush/util/text_format.h"

#include "gtest/gtest.h"

namespace crushkit::util {
namespace {

// std::ostream << float prints at most 6 significant digits, %g style.
TEST(TextFormatTest, FloatMatchesOstreamDefaults) {
  EXPECT_EQ(FormatCephFloat(0.002F), "0.002");
  EXPECT_EQ(FormatCephFloat(2.5F), "2.5");
  EXPECT_EQ(FormatCephFloat(3.0F), "3");
  EXPECT_EQ(FormatCephFloat(1234567.0F), "1.23457e+06");
  EXPECT_EQ(FormatCephFloat(0.0001F), "0.0001");
  EXPECT_EQ(FormatCephFloat(0.00001F), "1e-05");
  EXPECT_EQ(FormatCephFloat(-0.5F), "-0.5");
  EXPECT_EQ(FormatCephFloat(2.92969F), "2.92969");
}

TEST(TextFormatTest, DoubleMatchesOstreamDefaults) {
  EXPECT_EQ(FormatCephDouble(25.19921), "25.1992");
  EXPECT_EQ(FormatCephDouble(1), "1");
  EXPECT_EQ(FormatCephDouble(0.5), "0.5");
  EXPECT_EQ(FormatCephDouble(1234567.0), "1.23457e+06");
}

// json_stream_escaper: only quote, backslash, tab and newline get short
// escapes; '/' and bytes >= 0x80 pass through (Pacific's osdmaptool
// --tree=json prints a bucket "a/b\x08\r" as "a/b\u0008\u000d").
TEST(TextFormatTest, JsonEscapeMatchesJsonStreamEscaper) {
  EXPECT_EQ(CephJsonEscape("a\tb\n\\\x01"), "a\\tb\\n\\\\\\u0001");
  EXPECT_EQ(CephJsonEscape("say \"hi\""), "say \\\"hi\\\"");
  EXPECT_EQ(CephJsonEscape("a/b\b\f\r\x7f"), "a/b\\u0008\\u000c\\u000d\\u007f");
  EXPECT_EQ(CephJsonEscape("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(CephJsonEscape(""), "");
}

}  // namespace
}  // namespace crushkit::util
