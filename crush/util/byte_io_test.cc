#include "crush/util/byte_io.h"

#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace crushkit::util {
namespace {

TEST(ByteIoTest, WritesAndReadsLittleEndian) {
  ByteWriter w;
  w.U8(1);
  w.U16(0x0203);
  w.U32(0x04050607);
  w.U64(0x08090a0b0c0d0e0fULL);
  w.S32(-2);
  w.S64(-3);
  w.String("ab");
  const std::string bytes = w.Take();
  EXPECT_EQ(bytes.substr(0, 7), std::string("\x01\x03\x02\x07\x06\x05\x04", 7));
  ByteReader r(bytes);
  std::uint8_t u8 = 0;
  std::uint16_t u16 = 0;
  std::uint32_t u32 = 0;
  std::uint64_t u64 = 0;
  std::int32_t s32 = 0;
  std::int64_t s64 = 0;
  std::string s;
  ASSERT_TRUE(r.U8("a", &u8).ok());
  ASSERT_TRUE(r.U16("b", &u16).ok());
  ASSERT_TRUE(r.U32("c", &u32).ok());
  ASSERT_TRUE(r.U64("d", &u64).ok());
  ASSERT_TRUE(r.S32("e", &s32).ok());
  ASSERT_TRUE(r.S64("f", &s64).ok());
  ASSERT_TRUE(r.String("g", &s).ok());
  EXPECT_EQ(u8, 1);
  EXPECT_EQ(u16, 0x0203);
  EXPECT_EQ(u32, 0x04050607u);
  EXPECT_EQ(u64, 0x08090a0b0c0d0e0fULL);
  EXPECT_EQ(s32, -2);
  EXPECT_EQ(s64, -3);
  EXPECT_EQ(s, "ab");
  EXPECT_TRUE(r.at_end());
}

TEST(ByteIoTest, TruncationNamesTheAbsoluteOffsetAndLeavesThePosition) {
  ByteReader r(std::string_view("\x01\x02\x03", 3), 100);
  std::uint16_t v = 0;
  ASSERT_TRUE(r.U16("first", &v).ok());
  std::uint32_t u = 7;
  const absl::Status s = r.U32("second", &u);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "truncated at offset 102: expected second");
  EXPECT_EQ(u, 7u);
  EXPECT_EQ(r.offset(), 102u);
  EXPECT_EQ(r.remaining(), 1u);
}

TEST(ByteIoTest, CountsBeyondTheInputAreRefusedBeforeAllocation) {
  ByteWriter w;
  w.Count(0xffffffffu);
  w.U32(0);
  const std::string bytes = w.Take();
  ByteReader r(bytes);
  std::uint32_t n = 0;
  const absl::Status s = r.Count("items", 4, &n);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "count 4294967295 of items at offset 0 exceeds the 4 bytes that remain");
  EXPECT_TRUE(ByteReader(bytes).Fits(1, 4, 4));
  EXPECT_FALSE(ByteReader(bytes).Fits(0xffffffffu, 0xffffffffu));
}

TEST(ByteIoTest, StructFramesKeepTheUnreadTail) {
  ByteWriter w;
  w.Struct(StructFrame{.v = 3, .compat = 1, .tail = "xyz"}, [](ByteWriter& b) { b.U32(9); });
  const std::string bytes = w.Take();
  EXPECT_EQ(bytes.size(), 6u + 4u + 3u);
  ByteReader r(bytes);
  StructFrame frame;
  std::uint32_t body = 0;
  ASSERT_TRUE(r.Struct("thing", 2, &frame, [&](ByteReader& b, std::uint8_t) {
                 return b.U32("body", &body);
               }).ok());
  EXPECT_EQ(body, 9u);
  EXPECT_EQ(frame, (StructFrame{.v = 3, .compat = 1, .tail = "xyz"}));
  EXPECT_TRUE(r.at_end());
  ByteReader newer(bytes);
  EXPECT_EQ(
      newer.Struct("thing", 0, &frame, [](ByteReader&, std::uint8_t) { return absl::OkStatus(); })
          .code(),
      absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace crushkit::util
