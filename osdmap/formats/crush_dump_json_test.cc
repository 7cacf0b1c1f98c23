#include "osdmap/formats/crush_dump_json.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/ceph_release.h"
#include "crush/codec.h"
#include "tests/testing/paths.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::ReadFileOrEmpty;
using crush_testing::SourceDir;
using ::testing::HasSubstr;

std::string DataFile(const std::string& name) {
  return ReadFileOrEmpty(SourceDir() + "/tests/data/" + name);
}

// Ceph's own dump of a map it compiled reads back to Ceph's bytes.
void ExpectSameBytes(const std::string& json_file, const std::string& bin_file,
                     crush::CephRelease release) {
  const std::string json = DataFile(json_file);
  const std::string bin = DataFile(bin_file);
  ASSERT_FALSE(json.empty()) << json_file;
  ASSERT_FALSE(bin.empty()) << bin_file;
  absl::StatusOr<crush::MapModel> model = ReadCrushDumpJson(json);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(crush::EncodeCrushMapAs(*model, release) == bin) << json_file;
  absl::StatusOr<crush::MapModel> decoded = crush::DecodeCrushMap(bin);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  crush::PrepareForEncode(*decoded, release);
  crush::PrepareForEncode(*model, release);
  EXPECT_EQ(decoded->choose_args, model->choose_args);
  EXPECT_EQ(decoded->class_buckets, model->class_buckets);
  EXPECT_EQ(decoded->item_names, model->item_names);
}

TEST(CrushDumpJsonTest, PacificChooseArgsShadowTreesAndOpcodeSteps) {
  // Weight sets with 1/65536 and weights above 256 (300.123, 257.1), ids,
  // a device hole ("device2"), class shadow trees, and the steps Pacific
  // prints as opcode/arg1/arg2 (set_chooseleaf_vary_r, ...).
  ExpectSameBytes("crush-dump/pacific-choose-args.json", "crush-dump/pacific-choose-args.bin",
                  crush::CephRelease::kPacific);
}

TEST(CrushDumpJsonTest, TentacleMsrRulesTunablesAndEveryAlgorithm) {
  // An msr_indep rule with choosemsr and set_msr_* steps, msr tunables, no
  // min/max_size, list/tree/uniform/straw2 buckets, an unnamed device 4 and
  // a named "device6" (highest id), a compat weight set.
  ExpectSameBytes("crush-dump/tentacle-msr.json", "crush-dump/tentacle-msr.bin",
                  crush::CephRelease::kTentacle);
}

TEST(CrushDumpJsonTest, LoopbackPacificClusterDumpAndReport) {
  // A real cluster's `ceph osd crush dump` and `ceph report`, against the
  // `ceph osd getcrushmap` taken with them.
  ExpectSameBytes("loopback-pacific/crush-dump.json", "loopback-pacific/crushmap.bin",
                  crush::CephRelease::kPacific);
  ExpectSameBytes("loopback-pacific/report.json", "loopback-pacific/crushmap.bin",
                  crush::CephRelease::kPacific);
}

TEST(CrushDumpJsonTest, WeightSetFloatsReadBackExactlyBelow256) {
  // Every 16.16 weight below 2^24, as dump_choose_args computes the float
  // and as the JSON parser reads it back (the float's exact double value,
  // which 17 significant digits reproduce), and a sample through "%lf"
  // (the 6 decimals older releases printed) and "%.17g".
  for (std::uint32_t w = 0; w < (1u << 24); ++w) {
    const double printed = static_cast<float>(w) / static_cast<float>(0x10000);
    ASSERT_EQ(WeightFromDumpedFloat(printed), w);
  }
  char buf[64];
  for (std::uint32_t w = 0; w < (1u << 24); w += 997) {
    const float f = static_cast<float>(w) / static_cast<float>(0x10000);
    std::snprintf(buf, sizeof(buf), "%lf", static_cast<double>(f));
    ASSERT_EQ(WeightFromDumpedFloat(std::strtod(buf, nullptr)), w) << buf;
    std::snprintf(buf, sizeof(buf), "%.17g", static_cast<double>(f));
    ASSERT_EQ(WeightFromDumpedFloat(std::strtod(buf, nullptr)), w) << buf;
  }
  // From 2^24 on the float's own value comes back.
  const std::uint32_t big = (1u << 24) + 1;
  EXPECT_EQ(WeightFromDumpedFloat(static_cast<float>(big) / 65536.0f),
            static_cast<std::uint32_t>(static_cast<float>(big)));
  EXPECT_EQ(WeightFromDumpedFloat(static_cast<float>(0xffffffffu) / 65536.0f), 0xffffffffu);
  EXPECT_EQ(WeightFromDumpedFloat(-1.0), std::nullopt);
  EXPECT_EQ(WeightFromDumpedFloat(70000.0), std::nullopt);
  EXPECT_EQ(WeightFromDumpedFloat(std::nan("")), std::nullopt);
}

constexpr const char* kSmallDump = R"({
  "devices": [{"id": 0, "name": "osd.0"}, {"id": 1, "name": "osd.1"}],
  "types": [{"type_id": 0, "name": "osd"}, {"type_id": 1, "name": "host"}],
  "buckets": [{"id": -1, "name": "h", "type_id": 1, "weight": %W%, "alg": "straw2",
               "hash": "rjenkins1",
               "items": [{"id": 0, "weight": %W0%}, {"id": 1, "weight": 65536}]}],
  "rules": [{"rule_id": 0, "rule_name": "r", "type": 1,
             "steps": [{"op": "take", "item": -1}, {"op": "chooseleaf_firstn", "num": 0,
                        "type": "%T%"}, {"op": "emit"}]}],
  "tunables": {"choose_local_tries": 0, "choose_local_fallback_tries": 0,
               "choose_total_tries": 50, "chooseleaf_descend_once": 1, "chooseleaf_vary_r": 1,
               "chooseleaf_stable": 1, "straw_calc_version": 1, "allowed_bucket_algs": 54},
  "choose_args": {"-1": [{"bucket_id": -1, "weight_set": [[%WS%, 1]]}]}
})";

std::string SmallDump(const std::string& w, const std::string& w0, const std::string& type,
                      const std::string& ws) {
  std::string s = kSmallDump;
  for (auto [key, value] :
       {std::pair<std::string, std::string>{"%W%", w}, {"%W0%", w0}, {"%T%", type}, {"%WS%", ws}}) {
    s.replace(s.find(key), key.size(), value);
  }
  return s;
}

TEST(CrushDumpJsonTest, AmbiguousWeightSetWeightPrefersTheItemWeight) {
  // 300.0000153 (0x012c0001) prints as the float 300.0; the item weighs
  // exactly that, so it is the weight Ceph stored.
  const std::uint32_t item = 0x012c0001;
  const double printed = static_cast<float>(item) / 65536.0f;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", printed);
  absl::StatusOr<crush::MapModel> m =
      ReadCrushDumpJson(SmallDump(std::to_string(item + 65536), std::to_string(item), "host", buf));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->choose_args.at(-1).at(-1).weight_set[0][0], item);
  EXPECT_EQ(m->buckets[0].weight, item + 65536);
  EXPECT_EQ(m->rules[0].max_size, 100);  // Quincy+ dump: no sizes
}

TEST(CrushDumpJsonTest, ErrorsNameTheJsonPath) {
  const std::string ok = SmallDump("131072", "65536", "host", "1");
  ASSERT_TRUE(ReadCrushDumpJson(ok).ok());
  auto expect_error = [](const std::string& json, const std::string& what) {
    absl::StatusOr<crush::MapModel> m = ReadCrushDumpJson(json);
    ASSERT_FALSE(m.ok()) << what;
    EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(m.status().message()), HasSubstr(what));
  };
  std::string missing = ok;
  missing.replace(missing.rfind("\"weight\": 65536}"), 16, "\"wait\": 65536}");
  expect_error(missing, "buckets[0].items[1].weight: missing");
  expect_error(SmallDump("131072", "65536", "rak", "1"),
               "rules[0].steps[1].type: unknown type 'rak'");
  expect_error(SmallDump("131072", "-1e10", "host", "1"), "buckets[0].items[0].weight");
  expect_error(SmallDump("131072", "65536", "host", "-2"),
               "choose_args[\"-1\"][0].weight_set[0][0]: -2 is not a weight");
  expect_error(SmallDump("131072", "65536", "host", "\"x\""),
               "choose_args[\"-1\"][0].weight_set[0][0]: expected a number");
  expect_error(ok.substr(0, ok.size() / 2), "not a crush dump");
  expect_error("[]", "expected a JSON object");
  expect_error("{\"osdmap\": {}}", "no devices, types, buckets");
  std::string hash = ok;
  hash.replace(hash.find("rjenkins1"), 9, "unknown");
  expect_error(hash, "buckets[0].hash: 'unknown': only rjenkins1");
  std::string dangling = ok;
  dangling.replace(dangling.find("{\"id\": 1, \"weight\""), 8, "{\"id\": 7");
  expect_error(dangling, "buckets[0].items[1].id: device 7 is not in devices");
}

TEST(CrushDumpJsonTest, RecognisesDumpsAndReports) {
  EXPECT_TRUE(LooksLikeCrushDumpJson(SmallDump("1", "1", "host", "1")));
  EXPECT_TRUE(LooksLikeCrushDumpJson(DataFile("loopback-pacific/report.json")));
  EXPECT_FALSE(LooksLikeCrushDumpJson(DataFile("loopback-pacific/osd-dump.json")));
  EXPECT_FALSE(LooksLikeCrushDumpJson("# begin crush map\ntunable x 1\n"));
}

}  // namespace
}  // namespace crushkit::osdmap
