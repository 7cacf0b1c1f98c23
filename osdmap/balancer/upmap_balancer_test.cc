// The upmap balancer on small hand-built clusters: it lowers the deviation,
// keeps every rule (failure domains, device classes, EC positions), never
// targets a down OSD, keeps valid upmaps it does not need to touch, drops
// pairs before adding new ones, and is deterministic. The monitor's cleanup
// (CheckPgUpmaps) must find nothing to cancel afterwards.
#include "osdmap/balancer/upmap_balancer.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/map.h"
#include "osdmap/balancer/upmap_balancer_report.h"
#include "osdmap/changes/apply_change.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/changes/upmap_cleanup.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/osdmap_state.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using ::crush_testing::IsOk;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int kPerHost = 2;  // OSD o is in host o / kPerHost

// 8 hosts of 2 OSDs with uneven CRUSH weights; pool 1 replicated size 3
// (host domain, 256 PGs) and pool 2 EC 4+2 (indep, host domain, 128 PGs).
ClusterState UnevenState() {
  crush_testing::ClusterSpec spec;
  spec.hosts = 8;
  spec.osds_per_host = kPerHost;
  for (int o = 0; o < spec.hosts * kPerHost; ++o) {
    spec.osd_weights.push_back(static_cast<crush::Weight>(0x10000 * (1 + o % 3)));
  }
  ClusterState s = crush_testing::MakeOnePoolState(16, PoolType::kReplicated,
                                                   crush_testing::MakeClusterModel(spec));
  s.pools[1].pg_num = s.pools[1].pgp_num = 256;
  Pool ec;
  ec.id = 2;
  ec.name = "ec";
  ec.type = PoolType::kErasure;
  ec.size = 6;
  ec.min_size = 5;
  ec.ec_k = 4;
  ec.ec_m = 2;
  ec.crush_rule = crush_testing::kEcRule;
  ec.pg_num = ec.pgp_num = 128;
  s.pools[2] = ec;
  return s;
}

BalanceResult Balance(const ClusterState& s, BalancerOptions o) {
  auto r = BalanceUpmaps(s, o);
  EXPECT_THAT(r, IsOk());
  return r.ok() ? std::move(*r) : BalanceResult{};
}

// Every PG's upmapped raw set and up set of `pool` in `s`.
struct Sets {
  std::vector<std::vector<std::int32_t>> raw, upmapped;
};

Sets MapPool(const ClusterState& s, std::int64_t pool) {
  auto map = crush::CrushMap::Build(s.crush);
  EXPECT_THAT(map, IsOk());
  CrushPlacement placement(*map, s.ceph_release);
  PgMapper mapper(s, placement);
  Sets out;
  for (std::uint32_t ps = 0; ps < s.pools.at(pool).pg_num; ++ps) {
    OsdList raw, up;
    mapper.PgToRawUpmap(PgId{pool, ps}, &raw, &up);
    out.raw.push_back(raw.ToVector());
    out.upmapped.push_back(up.ToVector());
  }
  return out;
}

void ExpectOneOsdPerHost(const ClusterState& s, std::int64_t pool) {
  const Sets sets = MapPool(s, pool);
  for (std::size_t ps = 0; ps < sets.upmapped.size(); ++ps) {
    std::set<int> hosts;
    for (std::int32_t o : sets.upmapped[ps]) {
      ASSERT_NE(o, crush::kItemNone);
      EXPECT_TRUE(hosts.insert(o / kPerHost).second) << "pg " << pool << "." << ps;
    }
  }
}

void ExpectNoMismatch(const BalanceResult& r) {
  for (const PoolBalance& p : r.pools) EXPECT_EQ(p.mismatches, 0) << p.name;
}

void ExpectCleanupKeepsAll(const ClusterState& s) {
  auto c = CheckPgUpmaps(s);
  ASSERT_THAT(c, IsOk());
  EXPECT_FALSE(c->changed()) << FormatUpmapCleanupCommands(*c);
}

TEST(UpmapBalancerTest, ReplicatedPoolDeviationDropsAndHostsStayDistinct) {
  const ClusterState s = UnevenState();
  BalancerOptions o;
  o.pools = {1};
  o.max_changes = 200;
  o.max_deviation = 1;
  const BalanceResult r = Balance(s, o);
  ASSERT_EQ(r.pools.size(), 1u);
  const PoolBalance& p = r.pools[0];
  EXPECT_GT(p.before.max_deviation, 1);
  EXPECT_LT(p.after.max_deviation, p.before.max_deviation);
  EXPECT_LT(p.after.stddev, p.before.stddev);
  EXPECT_LE(p.after.max_deviation, 1.0 + 1e-9) << p.stop_reason;
  EXPECT_GT(r.moves, 0);
  EXPECT_LE(r.moves, o.max_changes);
  EXPECT_EQ(p.changes, r.moves);
  ExpectOneOsdPerHost(r.state, 1);
  ExpectCleanupKeepsAll(r.state);
  ExpectNoMismatch(r);
  // Only pool 1 was touched.
  for (const UpmapChange& c : r.changes) EXPECT_EQ(c.pg.pool, 1);
}

TEST(UpmapBalancerTest, EcPoolKeepsShardPositionsAndDomains) {
  const ClusterState s = UnevenState();
  BalancerOptions o;
  o.pools = {2};
  o.max_changes = 200;
  o.max_deviation = 1;
  const BalanceResult r = Balance(s, o);
  EXPECT_GT(r.moves, 0);
  EXPECT_LT(r.pools[0].after.max_deviation, r.pools[0].before.max_deviation);
  ExpectOneOsdPerHost(r.state, 2);
  ExpectCleanupKeepsAll(r.state);
  ExpectNoMismatch(r);
  // Each changed shard stays at its position: the upmapped set differs from
  // CRUSH's exactly where a pair says so.
  const Sets sets = MapPool(r.state, 2);
  for (const UpmapChange& c : r.changes) {
    const auto& raw = sets.raw[c.pg.ps];
    const auto& up = sets.upmapped[c.pg.ps];
    ASSERT_EQ(raw.size(), 6u);
    ASSERT_EQ(up.size(), 6u);
    int differing = 0;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == up[i]) continue;
      ++differing;
      bool paired = false;
      for (const auto& [from, to] : c.new_items) paired |= from == raw[i] && to == up[i];
      EXPECT_TRUE(paired) << FormatPgId(c.pg) << " position " << i;
    }
    EXPECT_EQ(differing, static_cast<int>(c.new_items.size()));
  }
}

TEST(UpmapBalancerTest, DeviceClassRuleStaysInClass) {
  ClusterState s = UnevenState();
  auto change = ParseChange(
      "osd crush set-device-class ssd 0 3 5 6 9 10 12 15\n"
      "osd crush set-device-class hdd 1 2 4 7 8 11 13 14\n"
      "osd crush rule create-replicated fast default host ssd\n"
      "osd pool set p crush_rule fast\n",
      "ops.txt");
  ASSERT_THAT(change, IsOk());
  auto applied = ApplyChange(s, *change);
  ASSERT_THAT(applied, IsOk());
  s = *applied;
  const std::set<std::int32_t> ssd = {0, 3, 5, 6, 9, 10, 12, 15};
  BalancerOptions o;
  o.pools = {1};
  o.max_changes = 100;
  o.max_deviation = 1;
  const BalanceResult r = Balance(s, o);
  EXPECT_GT(r.moves, 0);
  EXPECT_LT(r.pools[0].after.max_deviation, r.pools[0].before.max_deviation);
  for (const auto& set : MapPool(r.state, 1).upmapped) {
    for (std::int32_t osd : set) EXPECT_TRUE(ssd.contains(osd)) << "osd." << osd;
  }
  ExpectOneOsdPerHost(r.state, 1);
  ExpectCleanupKeepsAll(r.state);
  ExpectNoMismatch(r);
}

TEST(UpmapBalancerTest, RackRuleKeepsOneReplicaPerRack) {
  // 4 racks of 3 hosts of 2 OSDs, uneven weights; rule 2 = chooseleaf rack.
  crush_testing::ClusterSpec spec;
  spec.hosts = 12;
  spec.osds_per_host = 2;
  spec.racks = 4;
  for (int o = 0; o < 24; ++o) {
    spec.osd_weights.push_back(static_cast<crush::Weight>(0x10000 * (1 + o % 4)));
  }
  ClusterState s = crush_testing::MakeOnePoolState(
      24, PoolType::kReplicated, crush_testing::MakeClusterModel(spec), crush_testing::kRackRule);
  s.pools[1].pg_num = s.pools[1].pgp_num = 256;
  BalancerOptions o;
  o.max_changes = 200;
  o.max_deviation = 1;
  const BalanceResult r = Balance(s, o);
  EXPECT_GT(r.moves, 0);
  EXPECT_LT(r.pools[0].after.stddev, r.pools[0].before.stddev);
  for (const auto& set : MapPool(r.state, 1).upmapped) {
    std::set<int> racks;
    for (std::int32_t osd : set) EXPECT_TRUE(racks.insert(osd / 6).second);  // 6 OSDs a rack
  }
  ExpectCleanupKeepsAll(r.state);
  ExpectNoMismatch(r);
}

TEST(UpmapBalancerTest, MergingPgsAreLeftAlone) {
  ClusterState s = UnevenState();
  s.pools[1].pg_num_pending = 240;  // 240..255 merge into 112..127
  BalancerOptions o;
  o.pools = {1};
  o.max_changes = 200;
  o.max_deviation = 1;
  const BalanceResult r = Balance(s, o);
  EXPECT_GT(r.moves, 0);
  for (const UpmapChange& c : r.changes) EXPECT_FALSE(s.pools[1].IsPendingMerge(c.pg.ps));
  ExpectCleanupKeepsAll(r.state);
  ExpectNoMismatch(r);
}

TEST(UpmapBalancerTest, DownOsdIsNeverTargeted) {
  ClusterState s = UnevenState();
  s.osds[5].state &= ~kOsdUp;  // down but in: a big target, nothing counted
  BalancerOptions o;
  o.max_changes = 300;
  o.max_deviation = 1;
  const BalanceResult r = Balance(s, o);
  EXPECT_GT(r.moves, 0);
  for (const UpmapChange& c : r.changes) {
    for (const auto& [from, to] : c.new_items) EXPECT_NE(to, 5) << FormatPgId(c.pg);
  }
  ExpectCleanupKeepsAll(r.state);
  ExpectNoMismatch(r);
}

TEST(UpmapBalancerTest, ValidUpmapIsKeptWhenNothingNeedsIt) {
  ClusterState s = UnevenState();
  const Sets sets = MapPool(s, 1);
  // A valid pair on 1.0: its first OSD to an OSD on an unused host.
  const auto& raw = sets.raw[0];
  std::int32_t to = -1;
  for (std::int32_t o = 0; o < 16 && to < 0; ++o) {
    bool free = true;
    for (std::int32_t r : raw) free &= r / kPerHost != o / kPerHost;
    if (free) to = o;
  }
  ASSERT_GE(to, 0);
  s.pg_upmap_items[PgId{1, 0}] = {{raw[0], to}};
  BalancerOptions o;
  o.max_changes = 50;
  o.max_deviation = 1000;  // already within: nothing to do
  const BalanceResult r = Balance(s, o);
  EXPECT_EQ(r.moves, 0);
  EXPECT_THAT(r.changes, IsEmpty());
  EXPECT_FALSE(r.cleanup.changed());
  EXPECT_EQ(r.state.pg_upmap_items, s.pg_upmap_items);
  EXPECT_EQ(r.pools[0].stop_reason, "balanced");
  EXPECT_EQ(FormatBalanceCommands(r), "");
}

TEST(UpmapBalancerTest, PairsOntoAnOverfullOsdAreDroppedFirst) {
  // Pile PGs onto osd.0 with pairs, then balance: the pairs go.
  ClusterState s = UnevenState();
  const Sets sets = MapPool(s, 1);
  int added = 0;
  for (std::uint32_t ps = 0; ps < sets.raw.size() && added < 24; ++ps) {
    const auto& raw = sets.raw[ps];
    bool host0 = false;
    for (std::int32_t r : raw) host0 |= r / kPerHost == 0;
    if (host0) continue;
    s.pg_upmap_items[PgId{1, ps}] = {{raw[0], 0}};
    ++added;
  }
  ASSERT_EQ(added, 24);
  BalancerOptions o;
  o.pools = {1};
  o.max_changes = 20;
  o.max_deviation = 1;
  const BalanceResult r = Balance(s, o);
  EXPECT_EQ(r.pools[0].before.max_osd, 0);
  int dropped = 0;
  for (const UpmapChange& c : r.changes) dropped += !c.old_items.empty() && c.new_items.empty();
  EXPECT_GE(dropped, 10);
  EXPECT_LT(r.state.pg_upmap_items.size(), s.pg_upmap_items.size());
  ExpectCleanupKeepsAll(r.state);
  ExpectNoMismatch(r);
}

TEST(UpmapBalancerTest, DeterministicAndSeeded) {
  const ClusterState s = UnevenState();
  BalancerOptions o;
  o.max_changes = 60;
  o.max_deviation = 1;
  const BalanceResult a = Balance(s, o);
  const BalanceResult b = Balance(s, o);
  EXPECT_EQ(a.state.pg_upmap_items, b.state.pg_upmap_items);
  EXPECT_EQ(FormatBalanceCommands(a), FormatBalanceCommands(b));
  o.seed = 42;
  const BalanceResult c = Balance(s, o);
  const BalanceResult d = Balance(s, o);
  EXPECT_EQ(c.state.pg_upmap_items, d.state.pg_upmap_items);
  EXPECT_LT(c.overall_after.stddev, c.overall_before.stddev);
  ExpectCleanupKeepsAll(c.state);
  ExpectNoMismatch(c);
}

TEST(UpmapBalancerTest, BudgetIsSharedAcrossPools) {
  const ClusterState s = UnevenState();
  BalancerOptions o;
  o.max_changes = 10;
  o.max_deviation = 1;
  const BalanceResult r = Balance(s, o);
  EXPECT_EQ(r.moves, 10);
  ASSERT_EQ(r.pools.size(), 2u);
  EXPECT_GT(r.pools[0].changes, 0);
  EXPECT_GT(r.pools[1].changes, 0);
  EXPECT_EQ(r.pools[0].stop_reason, "max changes");
  const std::string commands = FormatBalanceCommands(r);
  EXPECT_THAT(commands, HasSubstr("ceph osd pg-upmap-items "));
  EXPECT_THAT(FormatBalanceSummary(r, 10, 1), HasSubstr("overall"));
  auto json = BalanceReportJson(r);
  ASSERT_THAT(json, IsOk());
  EXPECT_THAT(*json, HasSubstr("\"stop_reason\": \"max changes\""));
}

TEST(UpmapBalancerTest, SameResultForAnyThreadCount) {
  ClusterState s = UnevenState();
  BalancerOptions o;
  o.max_changes = 40;
  o.max_deviation = 1;
  o.threads = 1;
  // Start from upmaps already made, so the parallel first pass maps PGs
  // through pg_upmap_items too.
  s = Balance(s, o).state;
  ASSERT_FALSE(s.pg_upmap_items.empty());
  o.max_changes = 80;
  const BalanceResult one = Balance(s, o);
  EXPECT_GT(one.moves, 0);
  for (int threads : {2, 3, 8}) {
    o.threads = threads;
    const BalanceResult many = Balance(s, o);
    EXPECT_EQ(many.state.pg_upmap_items, one.state.pg_upmap_items) << threads;
    EXPECT_EQ(FormatBalanceCommands(many), FormatBalanceCommands(one)) << threads;
    EXPECT_EQ(many.overall_before, one.overall_before) << threads;
    EXPECT_EQ(many.overall_after, one.overall_after) << threads;
    ASSERT_EQ(many.pools.size(), one.pools.size());
    for (std::size_t i = 0; i < one.pools.size(); ++i) {
      EXPECT_EQ(many.pools[i].before, one.pools[i].before) << threads;
      EXPECT_EQ(many.pools[i].after, one.pools[i].after) << threads;
      EXPECT_EQ(many.pools[i].changes, one.pools[i].changes) << threads;
    }
  }
}

// Uneven PG sizes: pool 1's every 4th PG ten times bigger, pool 2's sizes
// spread over 1x-5x.
ClusterState WithPgSizes(ClusterState s) {
  for (std::uint32_t ps = 0; ps < 256; ++ps) {
    s.pg_stats[PgId{1, ps}] = PgStat{10, ps % 4 == 0 ? 10ull << 30 : 1ull << 30, 0};
  }
  for (std::uint32_t ps = 0; ps < 128; ++ps) {
    s.pg_stats[PgId{2, ps}] = PgStat{10, (4 + ps % 5 * 4) * (1ull << 30), 0};
  }
  return s;
}

// The PG count deviation of every balanced pool stays within the window.
void ExpectPgDeviationWithin(const BalanceResult& r, double d) {
  for (const PoolBytesBalance& p : r.bytes.pools) {
    EXPECT_LE(p.pg_deviation_after, d + 1e-9) << p.name;
  }
}

TEST(UpmapBalancerTest, ByBytesNeedsPgSizes) {
  BalancerOptions o;
  o.by = BalanceBy::kBytes;
  EXPECT_EQ(BalanceUpmaps(UnevenState(), o).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(UpmapBalancerTest, ByBytesEvensFillKeepingPgCounts) {
  const ClusterState s = WithPgSizes(UnevenState());
  BalancerOptions o;
  o.by = BalanceBy::kBytes;
  o.max_changes = 2000;
  o.max_deviation = 5;
  o.max_spread = 2;
  const BalanceResult r = Balance(s, o);
  ASSERT_EQ(r.bytes.classes.size(), 1u);
  const ClassBalance& c = r.bytes.classes[0];
  EXPECT_FALSE(r.bytes.capacity_from_osd_df);
  EXPECT_EQ(c.after.osds, 16);
  EXPECT_GT(c.before.spread(), 5) << "the test needs an uneven start";
  EXPECT_LT(c.after.spread(), c.before.spread() / 2) << c.stop_reason << ": " << c.detail;
  EXPECT_LT(c.after.fullest_pct, c.before.fullest_pct);
  EXPECT_GT(c.moves, 0);
  ASSERT_EQ(r.bytes.pools.size(), 2u);
  for (const PoolBytesBalance& p : r.bytes.pools) {
    // The fullest OSD came down, so every pool has more room.
    EXPECT_GT(p.max_avail_after, p.max_avail_before) << p.name;
  }
  ExpectPgDeviationWithin(r, 5);
  ExpectOneOsdPerHost(r.state, 1);
  ExpectOneOsdPerHost(r.state, 2);
  ExpectCleanupKeepsAll(r.state);
  ExpectNoMismatch(r);
  // The same again: deterministic.
  const BalanceResult again = Balance(s, o);
  EXPECT_EQ(again.state.pg_upmap_items, r.state.pg_upmap_items);
}

TEST(UpmapBalancerTest, ByBytesFromOsdDfAndItsReport) {
  ClusterState s = WithPgSizes(UnevenState());
  // 10 TiB of disk per unit of CRUSH weight; osd.0 carries 2 TiB of
  // something else (it is the fullest).
  for (int o = 0; o < s.max_osd(); ++o) {
    OsdUsage u;
    u.kb = (10ull << 30) * static_cast<std::uint64_t>(1 + o % 3);
    u.kb_used = (o == 0 ? 2ull << 30 : 0) + (1ull << 20);
    u.kb_avail = u.kb - u.kb_used;
    s.osd_usage[o] = u;
  }
  BalancerOptions o;
  o.by = BalanceBy::kBytes;
  o.max_changes = 500;
  o.max_deviation = 5;
  o.max_spread = 1;
  const BalanceResult r = Balance(s, o);
  EXPECT_TRUE(r.bytes.capacity_from_osd_df);
  ASSERT_EQ(r.bytes.classes.size(), 1u);
  const ClassBalance& c = r.bytes.classes[0];
  EXPECT_EQ(c.before.fullest_osd, 0);
  EXPECT_NEAR(c.before.fullest_pct, 20.0, 0.01);
  EXPECT_LT(c.after.fullest_pct, c.before.fullest_pct);
  EXPECT_GT(r.bytes.pools[0].max_avail_after, r.bytes.pools[0].max_avail_before);
  ExpectPgDeviationWithin(r, 5);
  ExpectCleanupKeepsAll(r.state);
  const std::string summary = FormatBalanceSummary(r, o.max_changes, o.max_deviation);
  EXPECT_THAT(summary, HasSubstr("balance by bytes"));
  EXPECT_THAT(summary, HasSubstr("fill: %USE from `ceph osd df`"));
  EXPECT_THAT(summary, HasSubstr("MAX AVAIL"));
  auto json = BalanceReportJson(r);
  ASSERT_THAT(json, IsOk());
  EXPECT_THAT(*json, HasSubstr("\"capacity_from_osd_df\": true"));
  EXPECT_THAT(*json, HasSubstr("\"max_avail_after\""));
}

TEST(UpmapBalancerTest, ByBytesSingleLargePgIsTheReason) {
  // One PG of pool 1 holds nearly everything: wherever its three shards
  // sit, those OSDs are the fullest, and moving one only moves the peak.
  ClusterState s = UnevenState();
  for (std::uint32_t ps = 0; ps < 256; ++ps) {
    s.pg_stats[PgId{1, ps}] = PgStat{1, ps == 7 ? 1ull << 40 : 1ull << 20, 0};
  }
  BalancerOptions o;
  o.by = BalanceBy::kBytes;
  o.pools = {1};
  o.max_changes = 200;
  const BalanceResult r = Balance(s, o);
  ASSERT_EQ(r.bytes.classes.size(), 1u);
  EXPECT_EQ(r.bytes.classes[0].stop_reason, "a single large PG") << r.bytes.classes[0].detail;
  EXPECT_THAT(r.bytes.classes[0].detail, HasSubstr("overshoot"));
  ExpectNoMismatch(r);
}

TEST(UpmapBalancerTest, ByBytesRuleConstraintIsTheReason) {
  // Three hosts, size 3, host failure domain: every PG has a shard on each
  // host, so extra use on one host's OSDs cannot leave it.
  crush_testing::ClusterSpec spec;
  spec.hosts = 3;
  spec.osds_per_host = 2;
  ClusterState s = crush_testing::MakeOnePoolState(6, PoolType::kReplicated,
                                                   crush_testing::MakeClusterModel(spec));
  s.pools[1].pg_num = s.pools[1].pgp_num = 64;
  for (std::uint32_t ps = 0; ps < 64; ++ps) s.pg_stats[PgId{1, ps}] = PgStat{1, 1ull << 30, 0};
  for (int o = 0; o < 6; ++o) {
    OsdUsage u;
    u.kb = 1ull << 30;
    u.kb_used = (o < 2 ? 300ull << 20 : 100ull << 20);
    u.kb_avail = u.kb - u.kb_used;
    s.osd_usage[o] = u;
  }
  BalancerOptions o;
  o.by = BalanceBy::kBytes;
  o.max_changes = 100;
  const BalanceResult r = Balance(s, o);
  ASSERT_EQ(r.bytes.classes.size(), 1u);
  EXPECT_EQ(r.bytes.classes[0].stop_reason, "rule constraint") << r.bytes.classes[0].detail;
  EXPECT_GT(r.bytes.classes[0].after.spread(), 15);
  ExpectCleanupKeepsAll(r.state);
}

TEST(UpmapBalancerTest, ByBytesPgCountWindowIsTheReason) {
  // Equal PGs (a swap gains nothing), counts already even, and osd.0 holds
  // extra data: only moves that leave it short of PGs would help.
  ClusterState s = UnevenState();
  for (std::uint32_t ps = 0; ps < 256; ++ps) s.pg_stats[PgId{1, ps}] = PgStat{1, 1ull << 30, 0};
  for (int o = 0; o < s.max_osd(); ++o) {
    OsdUsage u;
    u.kb = 1ull << 30;
    u.kb_used = o == 0 ? 500ull << 20 : 0;
    u.kb_avail = u.kb - u.kb_used;
    s.osd_usage[o] = u;
  }
  BalancerOptions o;
  o.by = BalanceBy::kBytes;
  o.pools = {1};
  o.max_changes = 1000;
  o.max_deviation = 1;
  const BalanceResult r = Balance(s, o);
  ASSERT_EQ(r.bytes.classes.size(), 1u);
  const ClassBalance& c = r.bytes.classes[0];
  EXPECT_EQ(c.stop_reason, "too few PGs") << c.detail;
  EXPECT_THAT(c.detail, HasSubstr("--deviation 1"));
  ExpectPgDeviationWithin(r, 1);
}

TEST(UpmapBalancerTest, UnknownPool) {
  BalancerOptions o;
  o.pools = {7};
  EXPECT_EQ(BalanceUpmaps(UnevenState(), o).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace crushkit::osdmap
