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

// createsimple 6 with pool 1 (48 PGs), every OSD up and in but osd.2.
ClusterState SixOsdsOneOut(crush::CephRelease release) {
  CreateOsdMapOptions o;
  o.num_osd = 6;
  o.pg_bits = 3;
  o.pgp_bits = 3;
  o.with_default_pool = true;
  auto state = ImportDecodedOsdMap(CreateOsdMap(o));
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
  CreateOsdMapOptions o;
  o.num_osd = 6;
  o.pg_bits = 3;
  o.pgp_bits = 3;
  o.with_default_pool = true;
  auto map = CreateOsdMap(o);
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

}  // namespace
}  // namespace crushkit::osdmap
