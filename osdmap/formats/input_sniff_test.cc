#include "osdmap/formats/input_sniff.h"

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"

#include "osdmap/formats/state_codec.h"
#include "osdmap/proto/state.pb.h"
#include "tests/testing/paths.h"
#include "tests/testing/sample_cluster.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::ReadFileOrEmpty;
using crush_testing::SourceDir;
using ::testing::HasSubstr;
using ::testing::Not;

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
  EXPECT_EQ(DescribeBinary(b), "Ceph's binary osdmap ('ceph osd getmap')");
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

// Ceph 16.2.15's own output (tests/data/loopback-pacific/README.md).
std::string Pacific(const std::string& name) {
  const std::string bytes = ReadFileOrEmpty(SourceDir() + "/tests/data/loopback-pacific/" + name);
  EXPECT_FALSE(bytes.empty()) << name;
  return bytes;
}

std::string Sample(const std::string& name) {
  const std::string bytes = ReadFileOrEmpty(crush_testing::SampleClusterDir() + "/" + name);
  EXPECT_FALSE(bytes.empty()) << name;
  return bytes;
}

TEST(InputSniffTest, RecognisesWhatPacificPrints) {
  EXPECT_EQ(SniffInput(Pacific("osd-dump.json")), InputKind::kCephOsdDumpJson);
  EXPECT_EQ(SniffInput(Pacific("crush-dump.json")), InputKind::kCephCrushDumpJson);
  EXPECT_EQ(SniffInput(Pacific("pg-dump.json")), InputKind::kCephPgDumpJson);
  EXPECT_EQ(SniffInput(Pacific("osd-df.json")), InputKind::kCephOsdDfJson);
  EXPECT_EQ(SniffInput(Pacific("df.json")), InputKind::kCephDfJson);
  EXPECT_EQ(SniffInput(Pacific("report.json")), InputKind::kCephReportJson);
  EXPECT_EQ(SniffInput(Pacific("osd-tree.json")), InputKind::kCephOsdTreeJson);
  EXPECT_EQ(SniffInput(Pacific("osdmap.bin")), InputKind::kCephBinaryOsdMap);
  EXPECT_EQ(SniffInput(Pacific("crushmap.bin")), InputKind::kCephBinaryCrushMap);
}

TEST(InputSniffTest, RecognisesTheSampleClusterAndItsStateFiles) {
  EXPECT_EQ(SniffInput(Sample("crush.txt")), InputKind::kCrushTextMap);
  EXPECT_EQ(SniffInput(Sample("add-rack.ops")), InputKind::kChangeFile);
  EXPECT_EQ(SniffInput(Sample("pg-dump.json")), InputKind::kCephPgDumpJson);
  auto state = crush_testing::LoadSampleCluster();
  ASSERT_THAT(state.status(), crush_testing::IsOk());
  auto binary = SerializeState(*state, StateFormat::kBinary);
  auto json = SerializeState(*state, StateFormat::kJson);
  ASSERT_TRUE(binary.ok() && json.ok());
  EXPECT_EQ(SniffInput(*binary), InputKind::kStateBinary);
  EXPECT_EQ(SniffInput(*json), InputKind::kStateJson);
}

// Pacific's `pg dump pgs` and `pgs_brief` both print {"pg_ready", "pg_stats"};
// only the former's entries have stat_sum. Luminous printed a bare array.
TEST(InputSniffTest, PgDumpFormsAreToldApartByTheirEntries) {
  EXPECT_EQ(SniffInput(R"({"pg_ready":true,"pg_stats":[{"pgid":"1.0","stat_sum":)"
                       R"({"num_bytes":5,"num_objects":1}}]})"),
            InputKind::kCephPgDumpPgsJson);
  const std::string brief =
      R"({"pg_ready":true,"pg_stats":[{"pgid":"1.0","state":"active+clean","up":[0,1],)"
      R"("acting":[0,1],"up_primary":0,"acting_primary":0}]})";
  EXPECT_EQ(SniffInput(brief), InputKind::kCephPgDumpBriefJson);
  EXPECT_EQ(SniffInput(R"([{"pgid":"1.0","state":"active+clean","up":[0]}])"),
            InputKind::kCephPgDumpBriefJson);
  // A stat_sum deeper in a later entry does not make it `pgs`.
  EXPECT_EQ(SniffInput(R"({"pg_stats":[{"pgid":"1.0"},{"pgid":"1.1","stat_sum":{}}]})"),
            InputKind::kCephPgDumpBriefJson);
}

TEST(InputSniffTest, OsdDfTreeAndDfDetailAreTheirPlainForms) {
  EXPECT_EQ(SniffInput(R"({"nodes":[{"id":-1,"name":"default","type":"root","kb":10,)"
                       R"("children":[0]},{"id":0,"kb":10,"kb_used":1}],"stray":[],)"
                       R"("summary":{"total_kb":10}})"),
            InputKind::kCephOsdDfJson);
  EXPECT_EQ(SniffInput(R"({"stats":{"total_bytes":1},"stats_by_class":{},"pools":[{"name":)"
                       R"("rbd","id":1,"stats":{"stored":1,"objects":1,"stored_raw":3}}]})"),
            InputKind::kCephDfJson);
}

TEST(InputSniffTest, KeysAreOnlyTakenFromTheTopLevelOutsideStrings) {
  EXPECT_EQ(SniffInput(R"({"a\"b": {"pg_map": {}}, "c": "\"pg_map\": 1"})"), InputKind::kOtherJson);
  EXPECT_EQ(SniffInput(R"({"x": [{"nodes": 1}]})"), InputKind::kOtherJson);
}

TEST(InputSniffTest, OtherInputSaysWhatItStartsWith) {
  EXPECT_EQ(SniffInput(""), InputKind::kEmpty);
  EXPECT_EQ(SniffInput(" \n\t\r\n"), InputKind::kEmpty);
  EXPECT_EQ(DescribeInput(InputKind::kOtherJson, R"({"alpha": 1, "beta": {"gamma": 2}})"),
            "JSON that is none of Ceph's dumps crushkit knows (top-level keys: \"alpha\", "
            "\"beta\")");
  EXPECT_EQ(SniffInput("hello world\n"), InputKind::kOtherText);
  EXPECT_EQ(DescribeInput(InputKind::kOtherText, "# note\nhello world\n"),
            "text crushkit does not recognise (starts 'hello')");
  EXPECT_EQ(SniffInput(std::string("\x7f"
                                   "ELF\x02\x01",
                                   6)),
            InputKind::kOtherBinary);
}

// A state whose epoch is 7 starts 08 07 like Ceph's osdmap wrapper.
TEST(InputSniffTest, StateWithEpochSevenIsNotAnOsdMap) {
  auto state = crush_testing::LoadSampleCluster();
  ASSERT_THAT(state.status(), crush_testing::IsOk());
  state->epoch = 7;
  auto binary = SerializeState(*state, StateFormat::kBinary);
  ASSERT_TRUE(binary.ok());
  ASSERT_EQ(binary->substr(0, 2), std::string("\x08\x07", 2));
  EXPECT_EQ(SniffInput(*binary), InputKind::kStateBinary);
}

TEST(InputSniffTest, WrongDumpNamesTheExpectedOneAndItsCommand) {
  EXPECT_THAT(CheckInputKind(InputRole::kImportPgStats, Pacific("osd-df.json")),
              crush_testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  "--pg-stats wants 'ceph pg dump -f json' (or 'ceph pg dump pgs -f json'); "
                  "this is 'ceph osd df -f json'"));
  EXPECT_THAT(CheckInputKind(InputRole::kImportPgStats,
                             R"({"pg_ready":true,"pg_stats":[{"pgid":"1.0","up":[0]}]})"),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("this is 'ceph pg dump pgs_brief -f json', which "
                                                "has no byte or object counts")));
  EXPECT_THAT(CheckInputKind(InputRole::kCrushMap, Pacific("osdmap.bin")),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("'osdmaptool FILE --export-crush crush.bin'")));
  EXPECT_THAT(CheckInputKind(InputRole::kChangeFile, Pacific("osdmap.bin")),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("is it the state argument?")));
  EXPECT_THAT(CheckInputKind(InputRole::kCrushBinary, Sample("crush.txt")),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("compile it with 'crushkit compile'")));
}

// Each role takes its kinds and passes on what its parser should judge.
TEST(InputSniffTest, RolesTakeTheirOwnKinds) {
  using crush_testing::IsOk;
  EXPECT_THAT(CheckInputKind(InputRole::kImportOsdMap, Pacific("osd-dump.json")), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kImportOsdMap, Pacific("osdmap.bin")), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kImportOsdMap, R"({"epoch": 1})"), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kImportPgStats, Pacific("pg-dump.json")), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kImportOsdDf, Pacific("osd-df.json")), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kImportDf, Pacific("df.json")), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kState, Pacific("osdmap.bin")), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kCrushMap, Pacific("crushmap.bin")), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kCrushMap, Sample("crush.txt")), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kCrushMap, "hots node1 {\n"), IsOk());  // a typo
  EXPECT_THAT(CheckInputKind(InputRole::kCrushText, Sample("crush.txt")), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kCrushBinary, Pacific("crushmap.bin")), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kChangeFile, Sample("add-rack.ops")), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kChangeFile, "osd ot 3\n"), IsOk());
  EXPECT_THAT(CheckInputKind(InputRole::kChangeFile, "# only a comment\n"), IsOk());
  // The usage importers take no unknown JSON: it would import nothing.
  EXPECT_THAT(CheckInputKind(InputRole::kImportPgStats, "{}"), Not(IsOk()));
  EXPECT_THAT(CheckInputKind(InputRole::kImportOsdDf, R"({"osds": []})"), Not(IsOk()));
}

bool Printable(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

// Issue 34: no message echoes a file, nor raw bytes.
TEST(InputSniffTest, RefusalsQuoteLittleAndNothingRaw) {
  std::mt19937 rng(34);
  std::string random(1 << 20, '\0');
  for (char& c : random) c = static_cast<char>(rng());
  const std::string huge_key = "{\"" + std::string(1 << 20, 'k') + "\x01\": 1, \"b\": 2}";
  const std::string huge_word = std::string(1 << 20, 'w') + "\n";
  const std::string nested = std::string(1 << 20, '[') + std::string(1 << 20, ']');
  for (const std::string* input :
       std::vector<const std::string*>{&random, &huge_key, &huge_word, &nested}) {
    for (InputRole role :
         {InputRole::kImportOsdMap, InputRole::kImportPgStats, InputRole::kImportOsdDf,
          InputRole::kImportDf, InputRole::kImportReport, InputRole::kState, InputRole::kCrushMap,
          InputRole::kCrushText, InputRole::kCrushBinary, InputRole::kChangeFile}) {
      const absl::Status s = CheckInputKind(role, *input);
      if (s.ok()) continue;
      const std::string m(s.message());
      EXPECT_LT(m.size(), 400u) << m.substr(0, 400);
      EXPECT_TRUE(Printable(m)) << m.substr(0, 400);
    }
  }
  EXPECT_EQ(SniffInput(nested), InputKind::kOtherJson);
}

TEST(InputSniffTest, JsonErrorMessagesAreBounded) {
  // A parse error quoting a huge key stays short.
  const std::string text = "{\"" + std::string(100000, 'x') + "\": 1}";
  proto::ClusterState msg;
  google::protobuf::util::JsonParseOptions opts;
  auto st = google::protobuf::util::JsonStringToMessage(text, &msg, opts);
  ASSERT_FALSE(st.ok());
  const std::string located = LocateJsonError(text, std::string(st.message()));
  EXPECT_LT(located.size(), 400u);
  EXPECT_TRUE(Printable(located)) << located.substr(0, 400);
}

}  // namespace
}  // namespace crushkit::osdmap
