#include "osdmap/formats/report_import.h"

#include <google/protobuf/util/json_util.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include <google/protobuf/struct.pb.h>

#include "crush/ceph_release.h"
#include "osdmap/formats/cluster_check.h"
#include "osdmap/formats/crush_dump_json.h"
#include "osdmap/formats/import.h"
#include "osdmap/formats/osdmap_binary_state.h"
#include "osdmap/formats/state_codec.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_table.h"
#include "tests/testing/paths.h"

namespace crushkit::osdmap {
namespace {

using crush_testing::ReadFileOrEmpty;
using crush_testing::SourceDir;
using ::testing::HasSubstr;

// The real captures in tests/data (each README says how it was made).
constexpr const char* kCaptures[] = {"loopback-pacific", "loopback-pacific-backfill",
                                     "loopback-pacific-weightset", "loopback-tentacle"};

std::string CaptureFile(const std::string& capture, const std::string& name) {
  return ReadFileOrEmpty(SourceDir() + "/tests/data/" + capture + "/" + name);
}

// Every PG's up/acting (and primaries) as one comparable string per pool.
std::vector<std::string> Mapping(const ClusterState& state) {
  absl::StatusOr<std::unique_ptr<MappingSession>> session = MappingSession::Create(state);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return {};
  const PgTable table = MapAllPgs(**session);
  std::vector<std::string> out;
  for (const PoolPgTable& pool : table.pools) {
    std::string s = std::to_string(pool.pool_id) + ":";
    for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
      for (std::int32_t o : pool.Up(ps)) s += std::to_string(o) + ",";
      s += "p" + std::to_string(pool.up_primary[ps]) + "/";
      for (std::int32_t o : pool.Acting(ps)) s += std::to_string(o) + ",";
      s += "p" + std::to_string(pool.acting_primary[ps]) + " ";
    }
    out.push_back(s);
  }
  return out;
}

// A JSON document edited through protobuf's Struct (numbers become doubles,
// exact for every value these captures hold).
google::protobuf::Struct ParseStruct(const std::string& json) {
  google::protobuf::Struct s;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &s).ok());
  return s;
}

std::string ToJson(const google::protobuf::Struct& s) {
  std::string out;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(s, &out).ok());
  return out;
}

TEST(ReportImportTest, SameMappingAsOsdDumpWithCrushDumpAndAsBinaryOsdMap) {
  for (const char* capture : kCaptures) {
    SCOPED_TRACE(capture);
    const std::string report = CaptureFile(capture, "report.json");
    ASSERT_FALSE(report.empty());
    absl::StatusOr<ImportedReport> imported = ImportCephReport(report, std::nullopt);
    ASSERT_TRUE(imported.ok()) << imported.status();

    const std::string dump = CaptureFile(capture, "osd-dump.json");
    absl::StatusOr<crush::MapModel> crush_model =
        ReadCrushDumpJson(CaptureFile(capture, "crush-dump.json"));
    ASSERT_TRUE(crush_model.ok()) << crush_model.status();
    absl::StatusOr<ClusterState> from_dumps =
        ImportCephOsdDump(dump, crush::EncodeCrushMapAs(*crush_model, ReleaseOfOsdDump(dump)));
    ASSERT_TRUE(from_dumps.ok()) << from_dumps.status();
    absl::StatusOr<ClusterState> from_binary =
        ImportCephBinaryOsdMap(CaptureFile(capture, "osdmap.bin"));
    ASSERT_TRUE(from_binary.ok()) << from_binary.status();

    const std::vector<std::string> mapping = Mapping(imported->state);
    ASSERT_FALSE(mapping.empty());
    EXPECT_EQ(mapping, Mapping(*from_dumps));
    EXPECT_EQ(mapping, Mapping(*from_binary));
    EXPECT_EQ(imported->state.ceph_release, from_dumps->ceph_release);
    EXPECT_EQ(imported->state.epoch, from_binary->epoch);
    EXPECT_EQ(imported->state.pg_temp, from_binary->pg_temp);
    EXPECT_EQ(imported->state.pg_upmap_items, from_binary->pg_upmap_items);

    // The report's pool figures are `ceph df`'s STORED and OBJECTS.
    ClusterState with_df = *from_dumps;
    ASSERT_TRUE(ImportCephDf(CaptureFile(capture, "df.json"), &with_df).ok());
    EXPECT_EQ(imported->state.pool_usage, with_df.pool_usage);
    EXPECT_TRUE(imported->state.osd_usage.empty());  // a report has none
  }
}

TEST(ReportImportTest, SelfCheckAgreesOnEveryRealCapture) {
  for (const char* capture : kCaptures) {
    SCOPED_TRACE(capture);
    absl::StatusOr<ImportedReport> imported =
        ImportCephReport(CaptureFile(capture, "report.json"), std::nullopt);
    ASSERT_TRUE(imported.ok()) << imported.status();
    ASSERT_TRUE(imported->pg_counts.has_value());
    EXPECT_FALSE(imported->pg_counts->up_counts_every_up_slot);
    absl::StatusOr<std::map<PgId, ReportedPg>> pgs =
        ReadPgDumpPlacement(CaptureFile(capture, "pg-dump.json"));
    ASSERT_TRUE(pgs.ok()) << pgs.status();
    absl::StatusOr<MappingCheck> check =
        CheckMappingAgainstCluster(imported->state, &*imported->pg_counts, &*pgs);
    ASSERT_TRUE(check.ok()) << check.status();
    EXPECT_TRUE(check->agrees) << FormatMappingCheck(*check)[0] << "\n"
                               << (check->examples.empty() ? "" : check->examples[0]);
    EXPECT_EQ(check->pgs, imported->pg_counts->num_pg);
    EXPECT_EQ(check->sources.size(), 2u);
    EXPECT_THAT(
        FormatMappingCheck(*check)[0],
        HasSubstr("mapping agrees with the cluster: " + std::to_string(check->pgs) + " PGs"));
  }
}

TEST(ReportImportTest, TheVerdictRoundTripsThroughTheStateFile) {
  absl::StatusOr<ImportedReport> imported =
      ImportCephReport(CaptureFile("loopback-pacific", "report.json"), std::nullopt);
  ASSERT_TRUE(imported.ok()) << imported.status();
  ClusterState state = imported->state;
  state.mapping_check = MappingCheck{.pgs = 1234,
                                     .sources = {"a", "b"},
                                     .agrees = false,
                                     .differing_pgs = 3,
                                     .differing_osds = 2,
                                     .examples = {"pg 2.1: x"}};
  for (StateFormat format : {StateFormat::kBinary, StateFormat::kJson}) {
    absl::StatusOr<std::string> bytes = SerializeState(state, format);
    ASSERT_TRUE(bytes.ok());
    absl::StatusOr<ClusterState> back = ParseState(*bytes);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->mapping_check, state.mapping_check);
  }
  // A state without a check stays without one.
  absl::StatusOr<std::string> bytes = SerializeState(imported->state, StateFormat::kBinary);
  ASSERT_TRUE(bytes.ok());
  EXPECT_FALSE(ParseState(*bytes)->mapping_check.has_value());
}

TEST(ReportImportTest, BackfillCaptureActingComesFromPgTemp) {
  absl::StatusOr<ImportedReport> imported =
      ImportCephReport(CaptureFile("loopback-pacific-backfill", "report.json"), std::nullopt);
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_FALSE(imported->state.pg_temp.empty());
  // Without the pg_temp the acting sets (and the report's counts) differ.
  ClusterState no_temp = imported->state;
  no_temp.pg_temp.clear();
  no_temp.primary_temp.clear();
  absl::StatusOr<MappingCheck> check =
      CheckMappingAgainstCluster(no_temp, &*imported->pg_counts, nullptr);
  ASSERT_TRUE(check.ok());
  EXPECT_FALSE(check->agrees);
}

TEST(ReportImportTest, SelfCheckCatchesACrushMapAlteredAfterTheDump) {
  // Host h1 (osd.1's, bucket -3 and its shadow -7) halved in the report's
  // crush map, as if the map had been edited after the cluster reported its
  // PGs (`ceph osd crush reweight` on a one-OSD host).
  google::protobuf::Struct report = ParseStruct(CaptureFile("loopback-pacific", "report.json"));
  auto* buckets = (*report.mutable_fields())["crushmap"]
                      .mutable_struct_value()
                      ->mutable_fields()
                      ->at("buckets")
                      .mutable_list_value();
  int edited = 0;
  for (auto& bucket : *buckets->mutable_values()) {
    auto* items = bucket.mutable_struct_value()->mutable_fields()->at("items").mutable_list_value();
    for (auto& item : *items->mutable_values()) {
      auto& fields = *item.mutable_struct_value()->mutable_fields();
      const double id = fields.at("id").number_value();
      if (id == -3 || id == -7) {
        fields["weight"].set_number_value(0x8000);
        ++edited;
      }
    }
  }
  ASSERT_GT(edited, 0);
  absl::StatusOr<ImportedReport> imported = ImportCephReport(ToJson(report), std::nullopt);
  ASSERT_TRUE(imported.ok()) << imported.status();
  absl::StatusOr<std::map<PgId, ReportedPg>> pgs =
      ReadPgDumpPlacement(CaptureFile("loopback-pacific", "pg-dump.json"));
  ASSERT_TRUE(pgs.ok());

  absl::StatusOr<MappingCheck> check =
      CheckMappingAgainstCluster(imported->state, &*imported->pg_counts, &*pgs, 3);
  ASSERT_TRUE(check.ok());
  EXPECT_FALSE(check->agrees);
  EXPECT_GT(check->differing_pgs, 0u);
  EXPECT_GT(check->differing_osds, 0u);
  EXPECT_EQ(check->examples.size(), 3u);
  EXPECT_THAT(check->examples[0], HasSubstr("crushkit up ["));
  const std::vector<std::string> lines = FormatMappingCheck(*check);
  EXPECT_THAT(lines[0], HasSubstr("DIFFERENTLY from the cluster"));
  EXPECT_THAT(lines[0], HasSubstr(std::to_string(check->differing_pgs) + " of 49 PGs differ"));

  // The per-OSD counts alone catch it too (a report without a pg dump).
  check = CheckMappingAgainstCluster(imported->state, &*imported->pg_counts, nullptr);
  ASSERT_TRUE(check.ok());
  EXPECT_FALSE(check->agrees);
  EXPECT_EQ(check->differing_pgs, 0u);
  EXPECT_THAT(check->examples[0], HasSubstr("osd."));
}

TEST(ReportImportTest, MimicNumUpPgCountsEveryUpSlot) {
  // Mimic printed num_up_pg (every up slot) where Nautilus+ print
  // num_up_not_acting_pg; on a clean cluster up == acting.
  google::protobuf::Struct report = ParseStruct(CaptureFile("loopback-pacific", "report.json"));
  auto* counts = (*report.mutable_fields())["num_pg_by_osd"].mutable_list_value();
  for (auto& entry : *counts->mutable_values()) {
    auto& fields = *entry.mutable_struct_value()->mutable_fields();
    fields["num_up_pg"].set_number_value(fields.at("num_acting_pg").number_value());
    fields.erase("num_up_not_acting_pg");
  }
  absl::StatusOr<ImportedReport> imported = ImportCephReport(ToJson(report), std::nullopt);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_TRUE(imported->pg_counts->up_counts_every_up_slot);
  absl::StatusOr<MappingCheck> check =
      CheckMappingAgainstCluster(imported->state, &*imported->pg_counts, nullptr);
  ASSERT_TRUE(check.ok());
  EXPECT_TRUE(check->agrees) << (check->examples.empty() ? "" : check->examples[0]);
}

TEST(ReportImportTest, PerPoolStoreStatsGiveStoredAsCephDf) {
  // Nautilus+ BlueStore: every OSD reports per-pool figures, and STORED is
  // data_stored / raw_used_rate (rbd is 3x: 3 MiB raw -> 1 MiB).
  google::protobuf::Struct report = ParseStruct(CaptureFile("loopback-pacific", "report.json"));
  auto& top = *report.mutable_fields();
  auto& osd_sum = *top["osd_sum"].mutable_struct_value()->mutable_fields();
  osd_sum["num_per_pool_osds"].set_number_value(osd_sum.at("num_osds").number_value());
  for (auto& p : *top["pool_stats"].mutable_list_value()->mutable_values()) {
    auto& fields = *p.mutable_struct_value()->mutable_fields();
    if (fields.at("poolid").number_value() != 2) continue;
    (*fields["store_stats"].mutable_struct_value()->mutable_fields())["data_stored"]
        .set_number_value(3 << 20);
  }
  absl::StatusOr<ImportedReport> imported = ImportCephReport(ToJson(report), std::nullopt);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->state.pool_usage.at(2).stored_bytes, 1u << 20);
  EXPECT_EQ(imported->state.pool_usage.at(2).objects, 144u);
}

TEST(ReportImportTest, BadInputIsRefusedWithItsPath) {
  EXPECT_THAT(ImportCephReport(CaptureFile("loopback-pacific", "osd-dump.json"), std::nullopt)
                  .status()
                  .message(),
              HasSubstr("--report wants 'ceph report'"));
  google::protobuf::Struct report = ParseStruct(CaptureFile("loopback-pacific", "report.json"));
  auto& top = *report.mutable_fields();
  top["num_pg_by_osd"]
      .mutable_list_value()
      ->mutable_values(0)
      ->mutable_struct_value()
      ->mutable_fields()
      ->erase("num_up_not_acting_pg");
  EXPECT_THAT(ImportCephReport(ToJson(report), std::nullopt).status().message(),
              HasSubstr("num_pg_by_osd[0].num_up_not_acting_pg: missing"));
  report = ParseStruct(CaptureFile("loopback-pacific", "report.json"));
  (*report.mutable_fields())["osdmap"].mutable_struct_value()->mutable_fields()->erase("max_osd");
  EXPECT_THAT(ImportCephReport(ToJson(report), std::nullopt).status().message(),
              HasSubstr("osdmap.max_osd: missing"));
  EXPECT_THAT(ReadPgDumpPlacement("{\"pg_stats\": [{\"pgid\": \"2.zz\"}]}").status().message(),
              HasSubstr("pg_stats[0].pgid: invalid pgid"));
}

}  // namespace
}  // namespace crushkit::osdmap
