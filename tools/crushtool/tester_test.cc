#include "tools/crushtool/tester.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crushkit::tools::crushtool {
namespace {

// std::ostream << float prints at most 6 significant digits, %g style.
TEST(FormatFloatTest, MatchesOstreamDefaults) {
  EXPECT_EQ(FormatFloat(0.002F), "0.002");
  EXPECT_EQ(FormatFloat(2.5F), "2.5");
  EXPECT_EQ(FormatFloat(3.0F), "3");
  EXPECT_EQ(FormatFloat(1234567.0F), "1.23457e+06");
  EXPECT_EQ(FormatFloat(0.0001F), "0.0001");
  EXPECT_EQ(FormatFloat(0.00001F), "1e-05");
  EXPECT_EQ(FormatFloat(-0.5F), "-0.5");
  EXPECT_EQ(FormatFloat(2.92969F), "2.92969");
}

}  // namespace
}  // namespace crushkit::tools::crushtool
