// osdmap_health.h on maps built with osdmap_create.h: the checks and
// messages osdmaptool 16.2 --health prints for the same states (compared
// against Ceph on random states by run_binary_osdmap_differential.py).
#include "osdmap/formats/osdmap_health.h"

#include <bit>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "osdmap/formats/osdmap_create.h"

namespace crushkit::osdmap {
namespace {

using ::testing::ElementsAre;

constexpr std::uint32_t kExistsUp = 3;

// Four OSDs on two hosts of one rack (from a ceph.conf), all up and in,
// sortbitwise set: no check fires except those a test provokes.
OsdMapBinary TwoHosts() {
  CreateOsdMapOptions o;
  o.from_conf = true;
  o.locations = {{0, "a", "r", "", "", ""},
                 {1, "a", "r", "", "", ""},
                 {2, "b", "r", "", "", ""},
                 {3, "b", "r", "", "", ""}};
  o.with_default_pool = true;
  o.pg_bits = 4;  // 64 PGs: a power of two
  o.pgp_bits = 4;
  auto m = CreateOsdMap(o);
  EXPECT_TRUE(m.ok()) << m.status();
  for (auto& s : m->osd_state) s = kExistsUp;
  for (auto& w : m->osd_weight) w = 0x10000;
  m->flags |= 1u << 15;
  return *m;
}

std::vector<std::string> Codes(const HealthChecks& checks) {
  std::vector<std::string> codes;
  for (const auto& [code, c] : checks) codes.push_back(code);
  return codes;
}

TEST(OsdMapHealthTest, HealthyMapHasNoChecks) {
  auto checks = CheckHealth(TwoHosts());
  ASSERT_TRUE(checks.ok()) << checks.status();
  EXPECT_TRUE(checks->empty()) << ::testing::PrintToString(Codes(*checks));
}

TEST(OsdMapHealthTest, AHostWithEveryOsdDownIsReportedWithItsLocation) {
  OsdMapBinary m = TwoHosts();
  m.osd_state[2] = 1;  // exists, down
  m.osd_state[3] = 1;
  auto checks = CheckHealth(m);
  ASSERT_TRUE(checks.ok()) << checks.status();
  EXPECT_THAT(Codes(*checks), ElementsAre("OSD_DOWN", "OSD_HOST_DOWN"));
  const HealthCheck& host = checks->at("OSD_HOST_DOWN");
  EXPECT_EQ(host.summary, "1 host (2 osds) down");
  EXPECT_EQ(host.count, 1);
  EXPECT_THAT(host.detail, ElementsAre("host b (root=default,rack=r) (2 osds) is down"));
  const HealthCheck& down = checks->at("OSD_DOWN");
  EXPECT_EQ(down.summary, "2 osds down");
  EXPECT_THAT(down.detail, ElementsAre("osd.2 (root=default,rack=r,host=b) is down",
                                       "osd.3 (root=default,rack=r,host=b) is down"));
}

TEST(OsdMapHealthTest, OneDownOsdOfAHostIsNotAHostDown) {
  OsdMapBinary m = TwoHosts();
  m.osd_state[0] = 1;
  auto checks = CheckHealth(m);
  ASSERT_TRUE(checks.ok());
  EXPECT_THAT(Codes(*checks), ElementsAre("OSD_DOWN"));
}

TEST(OsdMapHealthTest, OutOrNewOsdsAreNotDown) {
  OsdMapBinary m = TwoHosts();
  m.osd_state[0] = 1;
  m.osd_weight[0] = 0;             // out
  m.osd_state[1] = 1 | (1u << 3);  // new
  auto checks = CheckHealth(m);
  ASSERT_TRUE(checks.ok());
  EXPECT_TRUE(checks->empty());
}

TEST(OsdMapHealthTest, OsdsInCrushButNotInTheMapAreOrphans) {
  OsdMapBinary m = TwoHosts();
  m.osd_state[1] = 0;
  auto checks = CheckHealth(m);
  ASSERT_TRUE(checks.ok());
  ASSERT_THAT(Codes(*checks), ElementsAre("OSD_ORPHAN"));
  EXPECT_EQ(checks->at("OSD_ORPHAN").summary,
            "1 osds exist in the crush map but not in the osdmap");
  EXPECT_THAT(checks->at("OSD_ORPHAN").detail,
              ElementsAre("osd.1 exists in crush map but not in osdmap"));
}

TEST(OsdMapHealthTest, FullRatiosOutOfOrderAreRaisedInCephsOrder) {
  OsdMapBinary m = TwoHosts();
  auto bits = [](float f) { return std::bit_cast<std::uint32_t>(f); };
  m.nearfull_ratio_bits = bits(0.9f);
  m.backfillfull_ratio_bits = bits(0.85f);
  m.full_ratio_bits = bits(0.99f);
  auto checks = CheckHealth(m);
  ASSERT_TRUE(checks.ok());
  const HealthCheck& c = checks->at("OSD_OUT_OF_ORDER_FULL");
  EXPECT_EQ(c.severity, "HEALTH_ERR");
  EXPECT_THAT(c.detail,
              ElementsAre("backfillfull_ratio (0.85) < nearfull_ratio (0.9), increased",
                          "osd_failsafe_full_ratio (0.97) < full_ratio (0.99), increased"));
}

TEST(OsdMapHealthTest, FlagsAndPoolStates) {
  OsdMapBinary m = TwoHosts();
  m.flags |= (1u << 7) | (1u << 11);         // noout, noscrub
  m.flags &= ~(1u << 15);                    // no sortbitwise
  m.osd_state[1] |= 1u << 4;                 // full
  m.osd_state[2] |= (1u << 8) | (1u << 11);  // noup, noout
  m.pools.at(1).size = 1;
  m.pools.at(1).pg_num_target = 100;
  m.pools.at(1).flags |= 1u << 11;  // nearfull
  auto checks = CheckHealth(m);
  ASSERT_TRUE(checks.ok());
  EXPECT_THAT(Codes(*checks),
              ElementsAre("OSDMAP_FLAGS", "OSD_FLAGS", "OSD_FULL", "OSD_NO_SORTBITWISE",
                          "POOL_NEARFULL", "POOL_NO_REDUNDANCY", "POOL_PG_NUM_NOT_POWER_OF_TWO"));
  EXPECT_EQ(checks->at("OSDMAP_FLAGS").summary, "noout,noscrub flag(s) set");
  EXPECT_EQ(checks->at("OSDMAP_FLAGS").count, 13);  // Ceph counts the string's length
  EXPECT_THAT(checks->at("OSD_FLAGS").detail, ElementsAre("osd.2 has flags noout,noup"));
  EXPECT_THAT(checks->at("OSD_FULL").detail, ElementsAre("osd.1 is full"));
  EXPECT_THAT(checks->at("POOL_NEARFULL").detail, ElementsAre("pool 'rbd' is nearfull"));
  EXPECT_THAT(checks->at("POOL_PG_NUM_NOT_POWER_OF_TWO").detail,
              ElementsAre("pool 'rbd' pg_num 100 is not a power of two"));
}

TEST(OsdMapHealthTest, LegacyTunablesWarn) {
  OsdMapBinary m = TwoHosts();
  m.crush.tunables = crush::Tunables{};  // argonaut: legacy everything
  for (auto& b : m.crush.buckets) {
    if (b.alg == crush::BucketAlg::kStraw2) b.alg = crush::BucketAlg::kStraw;  // no hammer buckets
  }
  auto checks = CheckHealth(m);
  ASSERT_TRUE(checks.ok());
  EXPECT_EQ(checks->at("OLD_CRUSH_TUNABLES").summary,
            "crush map has legacy tunables (require argonaut, min is hammer)");
  EXPECT_EQ(checks->count("OLD_CRUSH_STRAW_CALC_VERSION"), 1u);
}

TEST(OsdMapHealthTest, AnUnknownCacheModeIsAnErrorNotACrash) {
  OsdMapBinary m = TwoHosts();
  m.pools.at(1).cache_mode = 42;
  EXPECT_FALSE(CheckHealth(m).ok());
}

HealthChecks CheckAs(const OsdMapBinary& m, crush::CephRelease release) {
  HealthConfig config;
  config.release = release;
  auto checks = CheckHealth(m, config);
  EXPECT_TRUE(checks.ok()) << checks.status();
  return checks.ok() ? *checks : HealthChecks();
}

// Host b down with one of its two OSDs never booted: 16.2/18.2 list both
// as down; 20.2 still counts the host down with both, but leaves the new
// OSD out of OSD_DOWN (as osdmaptool 20.2 prints it).
TEST(OsdMapHealthTest, TentacleDoesNotListANewOsdAsDown) {
  OsdMapBinary m = TwoHosts();
  m.osd_state[2] = 1;
  m.osd_state[3] = 1 | (1u << 3);  // new
  for (crush::CephRelease r : {crush::CephRelease::kPacific, crush::CephRelease::kReef}) {
    HealthChecks c = CheckAs(m, r);
    EXPECT_EQ(c["OSD_DOWN"].summary, "2 osds down");
    EXPECT_EQ(c["OSD_HOST_DOWN"].summary, "1 host (2 osds) down");
  }
  HealthChecks c = CheckAs(m, crush::CephRelease::kTentacle);
  EXPECT_EQ(c["OSD_DOWN"].summary, "1 osds down");
  EXPECT_THAT(c["OSD_DOWN"].detail, ElementsAre("osd.2 (root=default,rack=r,host=b) is down"));
  EXPECT_EQ(c["OSD_HOST_DOWN"].summary, "1 host (2 osds) down");
}

// Stretch mode over TwoHosts()'s hosts, host b weighing `b_weight` (16.16)
// in its rack and host a 2.0.
OsdMapBinary StretchHosts(crush::Weight b_weight) {
  OsdMapBinary m = TwoHosts();
  for (const auto& [type, name] : m.crush.type_names) {
    if (name == "host") m.stretch_mode_bucket = type;
  }
  m.stretch_mode_enabled = 1;
  m.stretch_bucket_count = 2;
  crush::ItemId host_b = 0;
  for (const auto& [id, name] : m.crush.item_names) {
    if (name == "b") host_b = id;
  }
  for (crush::Bucket& bucket : m.crush.buckets) {
    for (std::size_t i = 0; i < bucket.items.size(); ++i) {
      if (bucket.items[i] == host_b && i < bucket.item_weights.size()) {
        bucket.item_weights[i] = b_weight;
      }
    }
  }
  return m;
}

TEST(OsdMapHealthTest, StretchWeightImbalanceByRelease) {
  // Any difference for 16.2/18.2; more than 10% of the lighter site for 20.2.
  HealthChecks c = CheckAs(StretchHosts(0x1e000), crush::CephRelease::kReef);  // 1.875
  EXPECT_EQ(c.count("UNEVEN_WEIGHTS_STRETCH_MODE"), 1u);
  c = CheckAs(StretchHosts(0x1e000), crush::CephRelease::kTentacle);
  EXPECT_EQ(c.count("UNEVEN_WEIGHTS_STRETCH_MODE"), 0u);
  EXPECT_EQ(c.count("STRETCH_MODE_BUCKET_WEIGHT_IMBALANCE"), 0u);
  c = CheckAs(StretchHosts(0x1c000), crush::CephRelease::kTentacle);  // 1.75: 14% lighter
  ASSERT_EQ(c.count("STRETCH_MODE_BUCKET_WEIGHT_IMBALANCE"), 1u);
  EXPECT_EQ(c["STRETCH_MODE_BUCKET_WEIGHT_IMBALANCE"].summary,
            "Stretch mode buckets differ in weight by more than 10%");
  c = CheckAs(StretchHosts(0x24000), crush::CephRelease::kTentacle);  // 2.25: 12.5% heavier
  EXPECT_EQ(c.count("STRETCH_MODE_BUCKET_WEIGHT_IMBALANCE"), 1u);
  c = CheckAs(StretchHosts(0x20000), crush::CephRelease::kPacific);
  EXPECT_EQ(c.count("UNEVEN_WEIGHTS_STRETCH_MODE"), 0u);
}

}  // namespace
}  // namespace crushkit::osdmap
