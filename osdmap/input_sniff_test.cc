#include "osdmap/input_sniff.h"

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <string>

#include "osdmap/proto/state.pb.h"

namespace crushkit::osdmap {
namespace {

std::string ProtobufJsonError(const std::string& text) {
  proto::ClusterState msg;
  auto st = google::protobuf::util::JsonStringToMessage(text, &msg);
  EXPECT_FALSE(st.ok());
  return std::string(st.message());
}

TEST(InputSniffTest, JsonErrorsGetLineAndColumn) {
  const std::string text = "{\n  \"epoch\": 1,\n  \"max_osd\": 3 4\n}\n";
  const std::string located = LocateJsonError(text, ProtobufJsonError(text));
  EXPECT_EQ(located.rfind("3:16: Expected , or } after key:value pair", 0), 0u) << located;
}

TEST(InputSniffTest, JsonErrorExcerptNeverCarriesRawBytes) {
  const std::string text = std::string("{\"epoch\": \x01\x02\xff", 14);
  const std::string located = LocateJsonError(text, ProtobufJsonError(text));
  for (char c : located) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << located;
}

TEST(InputSniffTest, CephOsdMapWrapperIsRecognised) {
  std::string b = {8, 7, 0, 0, 0, 0, 9, 1};
  b += std::string(40, '\0');
  const auto len = static_cast<char>(b.size() - 6);
  b[2] = len;
  EXPECT_TRUE(LooksLikeCephOsdMap(b));
  EXPECT_EQ(DescribeBinary(b), "Ceph's binary osdmap (`ceph osd getmap`)");
  b[2] = static_cast<char>(len + 1);  // the wrapper must span the rest exactly
  EXPECT_FALSE(LooksLikeCephOsdMap(b));
}

TEST(InputSniffTest, TextIsNotBinaryAndOtherBytesAreShownInHex) {
  EXPECT_EQ(DescribeBinary("{\"a\": 1}\n\tb\r\n"), "");
  EXPECT_EQ(DescribeBinary(std::string("\x7f"
                                       "ELF\x02\x01",
                                       6)),
            "binary data (starts 7f 45 4c 46 02 01)");
}

TEST(InputSniffTest, CephOsdDumpJsonIsRecognisedByItsKeys) {
  EXPECT_TRUE(LooksLikeCephOsdDumpJson(
      R"({"epoch": 5, "fsid": "x", "max_osd": 3, "pools": [], "osds": []})"));
  EXPECT_FALSE(LooksLikeCephOsdDumpJson(R"({"epoch": 5, "pools": []})"));
}

}  // namespace
}  // namespace crushkit::osdmap
