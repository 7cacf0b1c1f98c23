#include "osdmap/model/pg_id.h"

#include "gtest/gtest.h"

namespace crushkit::osdmap {
namespace {

TEST(PgMaskTest, MatchesCalcPgMasks) {
  // (1 << cbits(n - 1)) - 1
  EXPECT_EQ(PgMask(0), 0u);
  EXPECT_EQ(PgMask(1), 0u);
  EXPECT_EQ(PgMask(2), 1u);
  EXPECT_EQ(PgMask(3), 3u);
  EXPECT_EQ(PgMask(64), 63u);
  EXPECT_EQ(PgMask(65), 127u);
  EXPECT_EQ(PgMask(768), 1023u);
  EXPECT_EQ(PgMask(0x80000000u), 0x7fffffffu);
  EXPECT_EQ(PgMask(0xffffffffu), 0xffffffffu);
}

TEST(StableModTest, FoldsIntoRangeAndOnlySplitsOnGrowth) {
  // 768 PGs, mask 1023: values with (x & 1023) < 768 keep them, others use
  // the half mask 511.
  EXPECT_EQ(StableMod(5, 768, 1023), 5u);
  EXPECT_EQ(StableMod(767, 768, 1023), 767u);
  EXPECT_EQ(StableMod(768, 768, 1023), 768u & 511u);
  EXPECT_EQ(StableMod(1023, 768, 1023), 511u);
  EXPECT_EQ(StableMod(1024 + 3, 768, 1023), 3u);
  for (std::uint32_t x = 0; x < 5000; ++x) {
    for (std::uint32_t b : {1u, 3u, 12u, 64u, 100u, 768u}) {
      const std::uint32_t r = StableMod(x, b, PgMask(b));
      ASSERT_LT(r, b) << x << " " << b;
      // Growing b by one only moves values into the new bucket.
      const std::uint32_t r2 = StableMod(x, b + 1, PgMask(b + 1));
      ASSERT_TRUE(r2 == r || r2 == b) << x << " " << b;
    }
  }
}

TEST(PgIdTest, ParseAndFormat) {
  auto pg = ParsePgId("1.7f");
  ASSERT_TRUE(pg.has_value());
  EXPECT_EQ(pg->pool, 1);
  EXPECT_EQ(pg->ps, 0x7fu);
  EXPECT_EQ(FormatPgId(*pg), "1.7f");
  EXPECT_EQ(FormatPgId({12, 0}), "12.0");
  EXPECT_FALSE(ParsePgId("1"));
  EXPECT_FALSE(ParsePgId(".1"));
  EXPECT_FALSE(ParsePgId("1."));
  EXPECT_FALSE(ParsePgId("1.g"));
  EXPECT_FALSE(ParsePgId("1.1 "));
  EXPECT_FALSE(ParsePgId("-1.1"));
  EXPECT_FALSE(ParsePgId("1.100000000"));
}

}  // namespace
}  // namespace crushkit::osdmap
