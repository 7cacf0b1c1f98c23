#include "osdmap/import.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "osdmap/state_codec.h"
#include "tests/testing/paths.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using ::testing::HasSubstr;

std::string Crush() {
  return crush_testing::ReadFileOrEmpty(crush_testing::CompatDir() +
                                        "/examples/classes-4host.crushmap");
}

// A trimmed `ceph osd dump -f json` with the shapes Ceph prints (pgids as
// strings, primary_temp as a flat alternating array, unknown fields).
constexpr char kDump[] = R"json({
  "epoch": 42, "fsid": "x", "flags_set": [], "max_osd": 8,
  "pools": [{"pool": 3, "pool_name": "ec", "flags": 1, "type": 3, "size": 6,
             "min_size": 5, "crush_rule": 2, "object_hash": 2, "pg_num": 32,
             "pg_placement_num": 16, "erasure_code_profile": "p42",
             "options": {}, "application_metadata": {"rbd": {}}}],
  "osds": [{"osd": 0, "up": 1, "in": 1, "weight": 1, "primary_affinity": 0.5,
            "state": ["exists", "up"], "public_addrs": {"addrvec": []}},
           {"osd": 5, "up": 0, "in": 1, "weight": 0.25, "primary_affinity": 1,
            "state": ["exists"]}],
  "pg_upmap": [{"pgid": "3.1", "osds": [1, 2, 3]}],
  "pg_upmap_items": [{"pgid": "3.a", "mappings": [{"from": 1, "to": 4}]}],
  "pg_upmap_primaries": [{"pgid": "3.b", "primary_osd": 4}],
  "pg_temp": [{"pgid": "3.1f", "osds": [0, 2147483647]}],
  "primary_temp": ["3.2", 5, "3.4", 0],
  "erasure_code_profiles": {"p42": {"k": "4", "m": "2", "plugin": "jerasure"}}
})json";

TEST(ImportTest, ImportsEverythingCephPrints) {
  auto st = ImportCephOsdDump(kDump, Crush());
  ASSERT_THAT(st.status(), crush_testing::IsOk());
  EXPECT_EQ(st->epoch, 42u);
  EXPECT_EQ(st->max_osd(), 8);
  EXPECT_TRUE(st->IsUp(0));
  EXPECT_TRUE(st->Exists(5));
  EXPECT_FALSE(st->IsUp(5));
  EXPECT_FALSE(st->Exists(1));
  EXPECT_EQ(st->osds[0].primary_affinity, 0x8000u);
  EXPECT_EQ(st->osds[5].weight, 0x4000u);
  const Pool* p = st->FindPool(3);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->type, PoolType::kErasure);
  EXPECT_EQ(p->pg_num, 32u);
  EXPECT_EQ(p->pgp_num, 16u);
  EXPECT_EQ(p->ec_k, 4u);
  EXPECT_EQ(p->ec_m, 2u);
  EXPECT_EQ(st->pg_upmap.at({3, 1}), (std::vector<std::int32_t>{1, 2, 3}));
  EXPECT_EQ(st->pg_upmap_items.at({3, 10}).size(), 1u);
  EXPECT_EQ(st->pg_upmap_primaries.at({3, 11}), 4);
  EXPECT_EQ(st->pg_temp.at({3, 0x1f})[1], 0x7fffffff);
  EXPECT_EQ(st->primary_temp.at({3, 2}), 5);
  EXPECT_EQ(st->primary_temp.at({3, 4}), 0);
  EXPECT_FALSE(st->crush.buckets.empty());
}

TEST(ImportTest, StateRoundTripsThroughBinaryAndJson) {
  auto st = ImportCephOsdDump(kDump, Crush());
  ASSERT_THAT(st.status(), crush_testing::IsOk());
  st->pg_stats[{3, 1}] = PgStat{10, 4096, 7};
  for (StateFormat f : {StateFormat::kBinary, StateFormat::kJson}) {
    auto bytes = SerializeState(*st, f);
    ASSERT_THAT(bytes.status(), crush_testing::IsOk());
    auto back = ParseState(*bytes);
    ASSERT_THAT(back.status(), crush_testing::IsOk());
    EXPECT_TRUE(*back == *st);
  }
}

TEST(ImportTest, MissingRequiredFieldsAreNamed) {
  std::string dump = kDump;
  dump.replace(dump.find("\"pg_placement_num\": 16,"), 23, "");
  EXPECT_THAT(ImportCephOsdDump(dump, Crush()).status(),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("pools[0].pg_placement_num")));
  EXPECT_THAT(ImportCephOsdDump(R"({"epoch": 1})", Crush()).status(),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("max_osd")));
  EXPECT_THAT(ImportCephOsdDump(R"({"epoch": 1, "max_osd": 2, "osds": [{"osd": 0, "up": 1}]})",
                                Crush())
                  .status(),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("osds[0].weight")));
}

TEST(ImportTest, BadInputsAreClearErrors) {
  EXPECT_THAT(ImportCephOsdDump("{not json", Crush()).status(),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("JSON")));
  std::string dump = kDump;
  dump.replace(dump.find("\"3.a\""), 5, "\"3.zz\"");
  EXPECT_THAT(ImportCephOsdDump(dump, Crush()).status(),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("pg_upmap_items[0].pgid")));
  auto bad_crush = ImportCephOsdDump(kDump, "garbage");
  EXPECT_FALSE(bad_crush.ok());
  EXPECT_THAT(std::string(bad_crush.status().message()), HasSubstr("crush map"));
  std::string big = kDump;
  big.replace(big.find("\"size\": 6"), 9, "\"size\": 99");
  EXPECT_THAT(ImportCephOsdDump(big, Crush()).status(),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("size 99")));
  std::string odd = kDump;
  odd.replace(odd.find("\"3.4\", 0"), 8, "\"3.4\"");
  EXPECT_THAT(ImportCephOsdDump(odd, Crush()).status(),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("primary_temp")));
  EXPECT_THAT(ParseState("\x01\x02garbage").status(),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ImportTest, PgDumpBothShapes) {
  auto st = ImportCephOsdDump(kDump, Crush());
  ASSERT_THAT(st.status(), crush_testing::IsOk());
  ASSERT_THAT(ImportCephPgDump(R"({"pg_ready": true, "pg_stats": [{"pgid": "3.1",
      "stat_sum": {"num_objects": 5, "num_bytes": 100, "num_omap_bytes": 3}}]})", &*st),
              crush_testing::IsOk());
  EXPECT_EQ(st->pg_stats.at({3, 1}).num_objects, 5u);
  ASSERT_THAT(ImportCephPgDump(R"({"pg_map": {"pg_stats": [{"pgid": "3.2",
      "stat_sum": {"num_objects": 6, "num_bytes": 1}}]}})", &*st),
              crush_testing::IsOk());
  EXPECT_EQ(st->pg_stats.at({3, 2}).num_objects, 6u);
  EXPECT_THAT(ImportCephPgDump(R"({"pg_stats": [{"pgid": "3.2"}]})", &*st),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("pg_stats[0].stat_sum")));
}

TEST(ImportTest, WeightFromFloat) {
  EXPECT_EQ(WeightFromFloat(1.0), 0x10000u);
  EXPECT_EQ(WeightFromFloat(0), 0u);
  EXPECT_EQ(WeightFromFloat(-3), 0u);
  EXPECT_EQ(WeightFromFloat(0.123459), 8091u);  // 8091/65536 = 0.1234588...
  for (std::uint32_t w = 0; w <= 0x10000; w += 7) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g", static_cast<double>(static_cast<float>(w) / 65536.0f));
    ASSERT_EQ(WeightFromFloat(std::strtod(buf, nullptr)), w) << buf;
  }
}

}  // namespace
}  // namespace crushkit::osdmap
