#include "crush/text_format.h"

#include "gtest/gtest.h"

namespace crushkit::crush {
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

}  // namespace
}  // namespace crushkit::crush
