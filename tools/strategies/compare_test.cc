#include "tools/strategies/compare.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/codec.h"
#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace crushkit::strategies {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::HasSubstr;

std::shared_ptr<const crush::MapModel> Share(crush::MapModel m) {
  return std::make_shared<const crush::MapModel>(std::move(m));
}

std::map<std::string, StrategyReport> ByName(const ComparisonReport& r) {
  std::map<std::string, StrategyReport> m;
  for (const auto& row : r.rows) m[row.strategy] = row;
  return m;
}

// Every strategy (one replica, 100000 keys) compared on 10 equal devices
// before and after `change`, by name; empty (after a test failure) if the
// change or the comparison fails.
std::map<std::string, StrategyReport> CompareOnTenDevices(
    const std::function<absl::Status(crush::MapModel&)>& change) {
  crush::MapModel m = *MakeFlatModel(10);
  const Topology before = *TopologyFromModel(Share(m), 0);
  const absl::Status changed = change(m);
  EXPECT_THAT(changed, IsOk());
  if (!changed.ok()) return {};
  const Topology after = *TopologyFromModel(Share(m), 0);
  CompareOptions o;
  o.keys = 100000;
  o.strategy.replicas = 1;
  auto report = CompareStrategies(before, after, o);
  EXPECT_THAT(report, IsOk());
  if (!report.ok()) return {};
  return ByName(*report);
}

// The textbook experiment: 10 -> 11 equal nodes, one replica, 200k keys.
// Expected moved fractions: mod-N 1 - 1/11 = 90.9% (a key stays only if
// h mod 10 == h mod 11), every consistent scheme about 1/11 = 9.1%.
TEST(CompareTest, TextbookTenToElevenNodes) {
  const crush::MapModel m10 = *MakeFlatModel(10);
  crush::MapModel m11 = m10;
  ASSERT_THAT(AddDevices(m11, 0, 1, crush::kWeightOne), IsOk());
  const Topology before = *TopologyFromModel(Share(m10), 0);
  const Topology after = *TopologyFromModel(Share(m11), 0);
  CompareOptions o;
  o.keys = 200000;
  o.strategy.replicas = 1;
  auto report = CompareStrategies(before, after, o);
  ASSERT_THAT(report, IsOk());
  ASSERT_EQ(report->rows.size(), 7u);
  auto rows = ByName(*report);
  const double ideal = 1.0 / 11;
  for (const auto& [name, row] : rows) {
    EXPECT_NEAR(row.min_moved_fraction, ideal, 1e-12) << name;
    EXPECT_EQ(row.domain_violations, 0) << name;
    EXPECT_EQ(row.short_keys, 0) << name;
    EXPECT_GT(row.memory_bytes, 0u) << name;
    EXPECT_GT(row.lookup_ns, 0) << name;
  }
  // Binomial noise on 200k keys is 0.07%; the ring's new node owns 1/11 of
  // the circle +- 1/sqrt(256) relative (0.6% absolute), hence its wider band.
  EXPECT_NEAR(rows["mod-n"].moved_fraction, 10.0 / 11, 0.005);
  EXPECT_NEAR(rows["jump"].moved_fraction, ideal, 0.003);
  EXPECT_NEAR(rows["rendezvous"].moved_fraction, ideal, 0.003);
  EXPECT_NEAR(rows["straw2"].moved_fraction, ideal, 0.003);
  EXPECT_NEAR(rows["partitions"].moved_fraction, ideal, 0.006);
  EXPECT_NEAR(rows["ring"].moved_fraction, ideal, 0.025);
  // Maglev rebuilds its table; it moves a little more than the minimum.
  EXPECT_GT(rows["maglev"].moved_fraction, ideal - 0.003);
  EXPECT_LT(rows["maglev"].moved_fraction, ideal + 0.05);
  // Balance on 10 equal nodes: HRW, jump and straw2 are within sampling noise
  // (20k keys per node, sd 0.7%); maglev's table and partitions are exact up
  // to key sampling too.
  for (const char* name : {"jump", "rendezvous", "straw2", "maglev", "partitions", "mod-n"}) {
    EXPECT_LT(rows[name].max_over_mean, 1.04) << name;
    EXPECT_LT(rows[name].stddev, 0.02) << name;
  }
  EXPECT_LT(rows["ring"].max_over_mean, 1.25);
}

TEST(CompareTest, NoChangeMovesNothing) {
  const Topology t = *TopologyFromModel(Share(*MakeFlatModel(5)), 0);
  CompareOptions o;
  o.keys = 1000;
  auto report = CompareStrategies(t, t, o);
  ASSERT_THAT(report, IsOk());
  for (const auto& row : report->rows) {
    EXPECT_EQ(row.moved_fraction, 0) << row.strategy;
    EXPECT_EQ(row.min_moved_fraction, 0) << row.strategy;
  }
}

// A map whose rack sizes make the greedy directory trade balance for
// separation: the rebuild for an unchanged cluster must still be a no-op.
TEST(CompareTest, NoChangeOnTheBigCorpusMap) {
  const std::string bytes = crush_testing::ReadFileOrEmpty(
      crush_testing::CompatDir() + "/ceph-cli-tests/pacific/crushtool/test-map-big-1.crushmap");
  ASSERT_FALSE(bytes.empty());
  auto model = crush::DecodeCrushMap(bytes);
  ASSERT_THAT(model, IsOk());
  auto t = TopologyFromModel(Share(*model), 0);
  ASSERT_THAT(t, IsOk());
  CompareOptions o;
  o.keys = 5000;
  o.only = {"partitions", "straw2", "jump"};
  auto report = CompareStrategies(*t, *t, o);
  ASSERT_THAT(report, IsOk());
  for (const auto& row : report->rows) EXPECT_EQ(row.moved_fraction, 0) << row.strategy;
}

TEST(CompareTest, RemovalMovesTheRemovedShareAtLeast) {
  auto rows = CompareOnTenDevices([](crush::MapModel& m) { return RemoveDevice(m, 3); });
  ASSERT_FALSE(rows.empty());
  EXPECT_NEAR(rows["straw2"].min_moved_fraction, 0.1, 1e-12);
  EXPECT_NEAR(rows["rendezvous"].moved_fraction, 0.1, 0.004);
  EXPECT_NEAR(rows["straw2"].moved_fraction, 0.1, 0.004);
  // Jump: bucket 3's keys now reach osd.9 (moved), and the last bucket's keys
  // are spread over buckets 0..8, staying only if they land on bucket 3
  // (which osd.9 now owns): 1/10 + 1/10 * 8/9 = 0.1889.
  EXPECT_NEAR(rows["jump"].moved_fraction, 0.1 + 0.1 * 8 / 9, 0.004);
}

TEST(CompareTest, ReweightShowsWhoIgnoresWeights) {
  // osd.3: 1.0 -> 2.5 of 10 nodes. Its ideal share becomes 2.5/11.5; mod-N
  // and jump ignore weights, so they move nothing and leave every other node
  // at 0.1 / (1/11.5) = 1.15 of its ideal load.
  auto rows = CompareOnTenDevices(
      [](crush::MapModel& m) { return ReweightDevice(m, 3, crush::kWeightOne * 5 / 2); });
  ASSERT_FALSE(rows.empty());
  const double min_moved = 2.5 / 11.5 - 0.1;
  EXPECT_NEAR(rows["rendezvous"].min_moved_fraction, min_moved, 1e-9);
  for (const char* name : {"mod-n", "jump"}) {
    EXPECT_EQ(rows[name].moved_fraction, 0) << name;
    EXPECT_NEAR(rows[name].max_over_mean, 1.15, 0.02) << name;
    EXPECT_LT(rows[name].max_over_mean_before, 1.04) << name;
  }
  for (const char* name : {"rendezvous", "straw2", "partitions"}) {
    EXPECT_NEAR(rows[name].moved_fraction, min_moved, 0.006) << name;
    EXPECT_LT(rows[name].max_over_mean, 1.04) << name;
  }
}

TEST(CompareTest, RejectsBadOptions) {
  const Topology t = *TopologyFromModel(Share(*MakeFlatModel(5)), 0);
  CompareOptions o;
  o.keys = 0;
  EXPECT_THAT(CompareStrategies(t, t, o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--keys")));
  o.keys = 10;
  o.strategy.replicas = 17;
  EXPECT_THAT(CompareStrategies(t, t, o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--replicas")));
  o.strategy.replicas = 3;
  o.only = {"consistent"};
  EXPECT_THAT(CompareStrategies(t, t, o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'consistent'")));
}

TEST(CompareTest, JsonNamesEveryField) {
  const Topology t = *TopologyFromModel(Share(*MakeFlatModel(4)), 0);
  CompareOptions o;
  o.keys = 100;
  o.only = {"jump", "straw2"};
  auto report = CompareStrategies(t, t, o);
  ASSERT_THAT(report, IsOk());
  const std::string json = FormatJson(*report);
  EXPECT_THAT(json, HasSubstr("{\"strategy\": \"jump\", \"moved_fraction\": 0, "
                              "\"min_moved_fraction\": 0, \"max_over_mean\": "));
  for (const char* field : {"\"stddev\": ", "\"domain_violations\": 0",
                            "\"lookup_ns\": ", "\"memory_bytes\": ", "\"strategies\": [",
                            "\"max_over_mean_before\": ", "\"domain_violations_before\": 0"}) {
    EXPECT_THAT(json, HasSubstr(field));
  }
  EXPECT_THAT(FormatTable(*report), HasSubstr("straw2"));
}

// Compiles samples/3rack-weighted.crush with the oracle crushtool and
// decodes it with crushkit's codec.
absl::StatusOr<crush::MapModel> LoadRackSample() {
  const crush_testing::TempDir dir("strategies_test");
  if (!dir.ok()) return absl::InternalError("mkdtemp failed");
  const std::string out = dir.File("m");
  const std::string cmd = "CEPH_ARGS=--crash_dir=" + dir.path() +
                          " timeout 60 /usr/bin/crushtool -c " + crush_testing::SourceDir() +
                          "/samples/3rack-weighted.crush -o " + out + " >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return absl::UnavailableError("crushtool -c failed");
  return crush::DecodeCrushMap(crush_testing::ReadFileOrEmpty(out));
}

// The acceptance test of `crushkit strategies` on a weighted 3-rack map with
// a rack-separating rule and 3 replicas: CRUSH and the domain-aware
// partition directory never put two replicas in one rack; the five
// domain-oblivious strategies do, for a large share of keys.
TEST(CompareTest, RackSampleShowsWhoBreaksFailureDomains) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  auto model = LoadRackSample();
  ASSERT_THAT(model, IsOk());
  auto t = TopologyFromModel(Share(*model), 0);
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->domain_type, "rack");
  EXPECT_EQ(t->domain_names.size(), 3u);
  ASSERT_EQ(t->nodes.size(), 10u);
  CompareOptions o;
  o.keys = 30000;
  o.strategy.replicas = 3;
  auto report = CompareStrategies(*t, *t, o);
  ASSERT_THAT(report, IsOk());
  auto rows = ByName(*report);
  EXPECT_EQ(rows["straw2"].domain_violations, 0);
  EXPECT_EQ(rows["partitions"].domain_violations, 0);
  // With 3 replicas over racks of weight 4, 6, 8 a domain-oblivious choice of
  // 3 distinct devices lands in 3 different racks well under half the time.
  for (const char* name : {"mod-n", "ring", "jump", "rendezvous", "maglev"}) {
    EXPECT_GT(rows[name].domain_violations, o.keys / 3) << name;
  }
  // Every rack must hold exactly a third: the ideal shares are capped, and
  // CRUSH gets within a few percent of them per device.
  EXPECT_LT(rows["straw2"].max_over_mean, 1.15);
  EXPECT_LT(rows["partitions"].max_over_mean, 1.05);
}

}  // namespace
}  // namespace crushkit::strategies
