// hit_set_params.h: HitSet::Params as Ceph 16.2 decodes and prints them. The
// expected values come from osdmaptool 16.2's `--print`/`--dump json` of
// tests/golden/osdmap_binary/pacific-hitset-edges.osdmap.
#include "osdmap/formats/hit_set_params.h"

#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "osdmap/formats/osdmap_print.h"

namespace crushkit::osdmap {
namespace {

using ::testing::ElementsAre;

std::string Le(std::uint64_t v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
  return s;
}

// A bloom body: ENCODE_START(v, compat, len), fpp_micro, target_size, seed.
binary::HitSetParams Bloom(std::uint32_t fpp, std::uint64_t target, std::uint64_t seed,
                           std::uint8_t compat = 1, const std::string& extra = "") {
  binary::HitSetParams h;
  h.type = 3;
  const std::string body = Le(fpp, 4) + Le(target, 8) + Le(seed, 8) + extra;
  h.impl = std::string(1, static_cast<char>(compat + 1)) + static_cast<char>(compat) +
           Le(body.size(), 4) + body;
  return h;
}

TEST(HitSetParamsTest, BloomPrintsAsOperatorShiftLeft) {
  auto view = ParseHitSetParams(Bloom(123457, (1ull << 63) + 5, ~0ull));
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->type, HitSetType::kBloom);
  EXPECT_EQ(FormatHitSetParams(*view),
            "bloom{false_positive_probability: 0.123457, target_size: 9223372036854775813, "
            "seed: 18446744073709551615}");
  EXPECT_DOUBLE_EQ(HitSetFpp(*view), 0.123457);
  // A longer body from a newer encoder: its extra bytes are skipped.
  auto longer = ParseHitSetParams(Bloom(500000, 7, 8, 1, "\xde\xad\xbe\xef"));
  ASSERT_TRUE(longer.ok()) << longer.status();
  EXPECT_EQ(FormatHitSetParams(*longer),
            "bloom{false_positive_probability: 0.5, target_size: 7, seed: 8}");
}

TEST(HitSetParamsTest, OtherTypesHaveNoBody) {
  binary::HitSetParams h;
  h.type = 1;
  h.impl = "xyz";  // skipped by Ceph's DECODE_FINISH
  auto hash = ParseHitSetParams(h);
  ASSERT_TRUE(hash.ok());
  EXPECT_EQ(FormatHitSetParams(*hash), "explicit_hash{}");
  h.type = 2;
  EXPECT_EQ(FormatHitSetParams(*ParseHitSetParams(h)), "explicit_object{}");
  EXPECT_STREQ(HitSetTypeName(HitSetType::kNone), "none");
}

TEST(HitSetParamsTest, WhatCephCannotDecodeIsAnError) {
  binary::HitSetParams unknown;
  unknown.type = 4;
  EXPECT_EQ(ParseHitSetParams(unknown).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseHitSetParams(Bloom(1, 2, 3, 2)).status().code(), absl::StatusCode::kUnimplemented);
  const binary::HitSetParams whole = Bloom(1, 2, 3);
  for (std::size_t cut = 0; cut < whole.impl.size(); ++cut) {
    binary::HitSetParams h = whole;
    h.impl.resize(cut);
    EXPECT_EQ(ParseHitSetParams(h).status().code(), absl::StatusCode::kDataLoss) << cut;
  }
  // A frame shorter than the three fields, the rest in the outer struct.
  binary::HitSetParams short_frame = whole;
  short_frame.impl[2] = 12;
  EXPECT_EQ(ParseHitSetParams(short_frame).status().code(), absl::StatusCode::kDataLoss);
}

TEST(HitSetParamsTest, GradeTableAsCalcGradeTable) {
  binary::BinaryPool p;
  p.hit_set_count = 5;
  p.hit_set_grade_decay_rate = 20;
  EXPECT_THAT(*HitSetGradeTable(p), ElementsAre(800000, 640000, 512000, 409600, 327680));
  p.hit_set_count = 3;
  p.hit_set_grade_decay_rate = 33;
  EXPECT_THAT(*HitSetGradeTable(p), ElementsAre(669999, 448899, 300762));
  // Above 100 the products are negative; Ceph's conversion wraps them.
  p.hit_set_count = 4;
  p.hit_set_grade_decay_rate = 150;
  EXPECT_THAT(*HitSetGradeTable(p),
              ElementsAre(4294467296u, 2147733648u, 3221100472u, 2684417060u));
  p.hit_set_count = 0;
  EXPECT_TRUE(HitSetGradeTable(p)->empty());
  p.hit_set_count = 0xffffffffu;
  EXPECT_EQ(HitSetGradeTable(p).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(HitSetParamsTest, SnapIdsAndIntervalsPrintInHex) {
  EXPECT_EQ(FormatSnapId(0x4d), "4d");
  EXPECT_EQ(FormatSnapId(~0ull - 1), "head");
  EXPECT_EQ(FormatSnapId(~0ull), "snapdir");
  // Sorted by start, the first of a duplicate start kept (denc's map).
  EXPECT_EQ(FormatIntervals({{20, 12}, {10, 2}, {10, 5}, {~0ull - 1, 1}}), "[a~2,14~c,head~1]");
}

}  // namespace
}  // namespace crushkit::osdmap
