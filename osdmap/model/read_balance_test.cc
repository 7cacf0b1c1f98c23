// read_balance.h and the Reef/Tentacle printers' use of it, against what
// osdmaptool 18.2 printed for the same map (`osdmaptool --createsimple 6
// --with-default-pool --pg-bits 3 om`, then `osdmaptool om --mark-up-in
// --mark-out 2 --dump json-pretty` / `--print`).
#include "osdmap/model/read_balance.h"

#include <cerrno>
#include <string>

#include "gtest/gtest.h"

#include "osdmap/formats/osdmap_binary_state.h"
#include "osdmap/formats/osdmap_create.h"
#include "osdmap/formats/osdmap_print.h"

namespace crushkit::osdmap {
namespace {

// osdmaptool --createsimple 6 --with-default-pool --pg-bits 3: pool 1 with
// 48 PGs.
absl::StatusOr<OsdMapBinary> CreateSixOsds() {
  CreateOsdMapOptions o;
  o.num_osd = 6;
  o.pg_bits = 3;
  o.pgp_bits = 3;
  o.with_default_pool = true;
  return CreateOsdMap(o);
}

// createsimple 6 with pool 1 (48 PGs), every OSD up and in but osd.2.
ClusterState SixOsdsOneOut(crush::CephRelease release) {
  auto state = ImportDecodedOsdMap(CreateSixOsds());
  EXPECT_TRUE(state.ok()) << state.status();
  for (OsdInfo& osd : state->osds) {
    osd.state |= kOsdExists | kOsdUp;
    osd.weight = 0x10000;
  }
  state->osds[2].weight = 0;
  state->ceph_release = release;
  return *state;
}

TEST(ReadBalanceTest, ScoresAreReefs) {
  auto score = CalcReadBalanceScore(SixOsdsOneOut(crush::CephRelease::kReef), 1);
  ASSERT_TRUE(score.ok()) << score.status();
  EXPECT_EQ(score->rc, 0);
  const ReadBalanceInfo& rbi = score->info;
  // The float values osdmaptool 18.2 dumped (1.7599999904632568 ...).
  EXPECT_EQ(rbi.acting_adj_score, 1.76f);
  EXPECT_EQ(rbi.adjusted_score, 1.76f);
  EXPECT_EQ(rbi.optimal_score, 0.83f);  // 5 OSDs hold PGs, 6 may be primary
  EXPECT_EQ(rbi.acting_raw_score, 1.46f);
  EXPECT_EQ(rbi.raw_score, 1.46f);
  EXPECT_EQ(rbi.pa_weighted, 1.0f);
  EXPECT_EQ(rbi.pa_avg, 1.0f);
  EXPECT_EQ(rbi.pa_weighted_avg, 1.0f);
  EXPECT_EQ(rbi.err_msg, "");
}

TEST(ReadBalanceTest, NoPgMappedIsEinvalWithoutMessage) {
  ClusterState s = SixOsdsOneOut(crush::CephRelease::kReef);
  for (OsdInfo& osd : s.osds) osd.state &= ~kOsdUp;
  auto score = CalcReadBalanceScore(s, 1);
  ASSERT_TRUE(score.ok()) << score.status();
  EXPECT_EQ(score->rc, -EINVAL);
  EXPECT_EQ(score->info.err_msg, "");
}

TEST(ReadBalanceTest, MissingPoolIsEnoent) {
  auto score = CalcReadBalanceScore(SixOsdsOneOut(crush::CephRelease::kReef), 7);
  ASSERT_TRUE(score.ok()) << score.status();
  EXPECT_EQ(score->rc, -ENOENT);
  EXPECT_EQ(score->info.err_msg, "pool 7 not found");
}

TEST(ReadBalanceTest, PrintShowsTheScoreOnlyFromReef) {
  const ClusterState s = SixOsdsOneOut(crush::CephRelease::kReef);
  auto map = CreateSixOsds();
  ASSERT_TRUE(map.ok()) << map.status();
  auto reef = PrintReleaseFor(s, crush::CephRelease::kReef);
  ASSERT_TRUE(reef.ok()) << reef.status();
  auto text = FormatOsdMapPlain(*map, *reef);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find(" application rbd read_balance_score 1.76\n"), std::string::npos) << *text;
  auto pacific = PrintReleaseFor(s, crush::CephRelease::kPacific);
  ASSERT_TRUE(pacific.ok()) << pacific.status();
  EXPECT_TRUE(pacific->read_balance.empty());
  text = FormatOsdMapPlain(*map, *pacific);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->find("read_balance_score"), std::string::npos) << *text;
}

// osdmaptool 18.2 on a map with pg_upmap_primaries (Ceph's own re-encode of
// it checked in tests/osdmap_differential: same lines, min_compat_client
// reef); 16.2 never decodes them, so prints neither.
TEST(ReadBalanceTest, UpmapPrimariesPrintFromReef) {
  CreateOsdMapOptions o;
  o.num_osd = 3;
  o.with_default_pool = true;
  auto map = CreateOsdMap(o);
  ASSERT_TRUE(map.ok()) << map.status();
  map->pg_upmap_primaries[PgId{1, 0x1f}] = 2;
  PrintRelease reef;
  reef.release = crush::CephRelease::kReef;
  auto text = FormatOsdMapPlain(*map, reef);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("\npg_upmap_primary 1.1f 2\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("\nmin_compat_client reef\n"), std::string::npos) << *text;
  text = FormatOsdMapPlain(*map, PrintRelease{});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->find("pg_upmap_primary"), std::string::npos) << *text;
  EXPECT_NE(text->find("\nmin_compat_client jewel\n"), std::string::npos) << *text;
}

// Tentacle's size-aware score (a pool with read_ratio). createsimple maps
// every PG to one OSD (one host), so with size 1 each OSD's load is its PG
// count x 100 and the average 48 x 100 / 6 = 800; osdmaptool 20.2 maps the
// 48 PGs 6, 12, 6, 8, 4, 12 on osd.0-5, so the busiest is osd.1 (the first
// of the two with 12): 1200 / 800 = 1.5.
ClusterState SizeAware(std::int64_t read_ratio) {
  ClusterState s = SixOsdsOneOut(crush::CephRelease::kTentacle);
  s.osds[2].weight = 0x10000;
  s.pools.at(1).size = 1;
  s.pools.at(1).read_ratio = read_ratio;
  return s;
}

TEST(ReadBalanceTest, SizeAwareScoreIsTheBusiestLoadOverTheAverage) {
  auto score = CalcReadBalanceScore(SizeAware(70), 1);
  ASSERT_TRUE(score.ok()) << score.status();
  EXPECT_EQ(score->rc, 0);
  const ReadBalanceInfo& rbi = score->info;
  EXPECT_EQ(rbi.score_type, ReadBalanceScoreType::kSizeOptimal);
  EXPECT_EQ(rbi.acting_adj_score, 1.5f);
  EXPECT_EQ(rbi.adjusted_score, 1.5f);
  EXPECT_EQ(rbi.average_osd_load, 800u);
  EXPECT_EQ(rbi.most_loaded.osd, 1);
  EXPECT_EQ(rbi.most_loaded.load, 1200);
  EXPECT_EQ(rbi.most_loaded.pgs, 12);
  EXPECT_EQ(rbi.most_loaded.primaries, 12);
  EXPECT_EQ(rbi.most_loaded_acting.osd, 1);
  EXPECT_EQ(rbi.err_msg, "");
  // Reef has no size-aware score: the fair one, whatever read_ratio says.
  ClusterState reef = SizeAware(70);
  reef.ceph_release = crush::CephRelease::kReef;
  score = CalcReadBalanceScore(reef, 1);
  ASSERT_TRUE(score.ok()) << score.status();
  EXPECT_EQ(score->info.score_type, ReadBalanceScoreType::kFair);
}

TEST(ReadBalanceTest, SizeAwareScoreChecksReadRatioAndWarnsOfPrimaryAffinity) {
  auto score = CalcReadBalanceScore(SizeAware(0), 1);
  ASSERT_TRUE(score.ok()) << score.status();
  EXPECT_EQ(score->rc, -EINVAL);
  EXPECT_EQ(score->info.err_msg,
            "ERROR: pool 1 has invalid read_ratio 0 - Can't calculate size-optimal read "
            "balancer score");
  ClusterState s = SizeAware(100);
  s.osds[3].primary_affinity = 0x8000;
  score = CalcReadBalanceScore(s, 1);
  ASSERT_TRUE(score.ok()) << score.status();
  EXPECT_EQ(score->rc, 0);  // primary affinity is ignored, with a warning
  EXPECT_EQ(score->info.acting_adj_score, 1.5f);
  EXPECT_EQ(score->info.err_msg,
            "Warning: pool 1 has primary_affinity set to non-default value on some OSDs, this is "
            "ignored by the size-optimal read balancer");
  // print_pools: the score, then " Warning: " and the message on a line of
  // its own (which says "Warning: " again, as " ERROR: ERROR: " for errors).
  auto map = CreateSixOsds();
  ASSERT_TRUE(map.ok()) << map.status();
  auto tentacle = PrintReleaseFor(s, crush::CephRelease::kTentacle);
  ASSERT_TRUE(tentacle.ok()) << tentacle.status();
  auto text = FormatOsdMapPlain(*map, *tentacle);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find(" read_balance_score 1.50\n Warning: Warning: pool 1 has primary_affinity "
                       "set to non-default value on some OSDs, this is ignored by the size-optimal "
                       "read balancer\n"),
            std::string::npos)
      << *text;
}

// 20.2.4 counts the PG copies of OSD ids 0..n-1 (n = OSDs holding PGs): with
// osd.2 out, osd.5's PGs are not counted and the score is refused.
TEST(ReadBalanceTest, SizeAwareScoreCountsCopiesOfTheFirstIdsAsTentacleDoes) {
  ClusterState s = SizeAware(50);
  s.osds[2].weight = 0;
  auto score = CalcReadBalanceScore(s, 1);
  ASSERT_TRUE(score.ok()) << score.status();
  EXPECT_EQ(score->rc, -EINVAL);
  EXPECT_TRUE(score->info.err_msg.starts_with("ERROR: pool 1 has "));
  EXPECT_TRUE(score->info.err_msg.ends_with(
      " PG OSD legs, expected 48 - Can't calculate size-optimal read balancer score"))
      << score->info.err_msg;
  EXPECT_NE(score->info.err_msg,
            "ERROR: pool 1 has 48 PG OSD legs, expected 48 - Can't "
            "calculate size-optimal read balancer score");
}

}  // namespace
}  // namespace crushkit::osdmap
