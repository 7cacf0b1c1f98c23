// Hand-computed movement reports. Every PG's set is pinned with pg_upmap
// (which replaces the CRUSH result whole), so the expected counters follow
// from the sets written here, not from CRUSH.
#include "osdmap/planning/movement.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "crush/codec.h"
#include "osdmap/planning/movement_internal.h"
#include "osdmap/planning/movement_report.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/osdmap_state.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::int64_t kRep = crush_testing::kRepPool;
constexpr std::int64_t kEc = crush_testing::kEcPool;

// 6 hosts of one OSD each (osd.i in host i), both pools of 2 PGs.
ClusterState MakeState() { return crush_testing::MakeTestState({.ec_min_size = 3}); }

void Pin(ClusterState& s, std::int64_t pool, std::uint32_t ps, std::vector<std::int32_t> osds) {
  s.pg_upmap[PgId{pool, ps}] = std::move(osds);
}

const MovementCounters& PoolOf(const Movement& m, std::int64_t id) {
  for (const MovementCounters& c : m.pools) {
    if (c.pool_id == id) return c;
  }
  ADD_FAILURE() << "no pool " << id;
  return m.totals;
}

const OsdMovement* OsdOf(const Movement& m, std::int32_t osd) {
  for (const OsdMovement& o : m.osds) {
    if (o.osd == osd) return &o;
  }
  return nullptr;
}

Movement Diff(ClusterState before, ClusterState after) {
  MovementOptions opt;
  opt.threads = 2;
  absl::StatusOr<Movement> m = DiffStates(std::move(before), std::move(after), opt);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : Movement{};
}

ClusterState PinnedBefore() {
  ClusterState s = MakeState();
  Pin(s, kRep, 0, {0, 1, 2});
  Pin(s, kRep, 1, {3, 4, 5});
  Pin(s, kEc, 0, {0, 1, 2});
  Pin(s, kEc, 1, {3, 4, 5});
  s.pg_stats[PgId{kRep, 0}] = PgStat{10, 1000, 24};
  s.pg_stats[PgId{kRep, 1}] = PgStat{20, 2000, 0};
  s.pg_stats[PgId{kEc, 0}] = PgStat{30, 3000, 0};
  s.pg_stats[PgId{kEc, 1}] = PgStat{40, 4000, 0};
  return s;
}

TEST(MovementTest, ReplicatedComparesSetsAndCountsNewHolders) {
  ClusterState before = PinnedBefore();
  ClusterState after = before;
  Pin(after, kRep, 0, {0, 1, 3});  // 2 -> 3
  Pin(after, kRep, 1, {5, 4, 3});  // the same set reordered: not remapped
  const Movement m = Diff(before, after);
  const MovementCounters& c = PoolOf(m, kRep);
  EXPECT_EQ(c.pgs, 2u);
  EXPECT_EQ(c.pgs_remapped, 1u);
  EXPECT_EQ(c.shards_moved, 1u);
  EXPECT_EQ(c.objects_to_move, 10u);
  EXPECT_EQ(c.bytes_to_move, 1024u);  // num_bytes + num_omap_bytes
  EXPECT_EQ(c.shards_total, 6u);
  EXPECT_EQ(c.bytes_total, 3u * 1024 + 3u * 2000);
  EXPECT_EQ(m.bytes_source, BytesSource::kPgStats);
  ASSERT_NE(OsdOf(m, 3), nullptr);
  EXPECT_EQ(OsdOf(m, 3)->pgs_in, 1u);
  EXPECT_EQ(OsdOf(m, 3)->bytes_in, 1024u);
  EXPECT_EQ(OsdOf(m, 2)->pgs_out, 1u);
  EXPECT_EQ(OsdOf(m, 2)->bytes_out, 1024u);
  EXPECT_EQ(OsdOf(m, 5)->pgs_in + OsdOf(m, 5)->pgs_out, 0u);
}

TEST(MovementTest, ErasureComparesPositionsAndMovesShardsOfBytesOverK) {
  ClusterState before = PinnedBefore();
  ClusterState after = before;
  Pin(after, kEc, 0, {1, 0, 2});  // positions 0 and 1 swap: two shards move
  const Movement m = Diff(before, after);
  const MovementCounters& c = PoolOf(m, kEc);
  EXPECT_EQ(c.pgs_remapped, 1u);
  EXPECT_EQ(c.shards_moved, 2u);
  EXPECT_EQ(c.objects_to_move, 60u);
  EXPECT_EQ(c.bytes_to_move, 2u * 1500);  // 3000 / k=2 per shard
  EXPECT_EQ(OsdOf(m, 0)->pgs_in, 1u);
  EXPECT_EQ(OsdOf(m, 0)->pgs_out, 1u);
  EXPECT_EQ(PoolOf(m, kRep).pgs_remapped, 0u);
}

TEST(MovementTest, DownOsdLeavesAnErasureHoleThatIsDegradedNotMoved) {
  ClusterState before = PinnedBefore();
  ClusterState after = before;
  after.osds[1].state = kOsdExists;  // down
  const Movement m = Diff(before, after);
  const MovementCounters& ec = PoolOf(m, kEc);
  EXPECT_EQ(ec.pgs_remapped, 1u);
  EXPECT_EQ(ec.shards_moved, 0u);
  EXPECT_EQ(ec.pgs_degraded_after, 1u);
  EXPECT_EQ(ec.pgs_inactive_after, 1u);  // min_size 3
  const MovementCounters& rep = PoolOf(m, kRep);
  EXPECT_EQ(rep.pgs_remapped, 1u);  // [0,1,2] -> [0,2]
  EXPECT_EQ(rep.shards_moved, 0u);
  EXPECT_EQ(rep.pgs_degraded_after, 1u);
  EXPECT_EQ(rep.pgs_inactive_after, 0u);
  EXPECT_EQ(m.risks.pgs_degraded_after, 2u);
  EXPECT_EQ(m.risks.pgs_inactive_after, 1u);
}

TEST(MovementTest, HostMatrixPairsLeavingAndArrivingOsds) {
  ClusterState before = PinnedBefore();
  ClusterState after = before;
  Pin(after, kRep, 0, {0, 4, 5});  // 1 -> 4 and 2 -> 5, paired in ascending order
  MovementOptions opt;
  opt.domain_types = {"host"};
  absl::StatusOr<Movement> m = DiffStates(before, after, opt);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->domains.size(), 1u);
  const DomainMatrix& d = m->domains[0];
  EXPECT_EQ(d.type, "host");
  ASSERT_EQ(d.cells.size(), 2u);
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const DomainCell& c : d.cells) {
    pairs.emplace_back(c.from, c.to);
    EXPECT_EQ(c.shards, 1u);
    EXPECT_EQ(c.bytes, 1024u);
  }
  EXPECT_THAT(pairs, ::testing::UnorderedElementsAre(
                         std::pair<std::string, std::string>{"host1", "host4"},
                         std::pair<std::string, std::string>{"host2", "host5"}));
}

TEST(MovementTest, SplitChildrenStartOnTheirParentAndShareItsBytes) {
  ClusterState before = MakeState();
  before.pg_stats[PgId{kRep, 0}] = PgStat{10, 1000, 0};
  before.pg_stats[PgId{kRep, 1}] = PgStat{10, 1000, 0};
  ClusterState after = before;
  after.pools[kRep].pg_num = 4;  // pgp_num stays 2: children map as parents
  const Movement m = Diff(before, after);
  const MovementCounters& c = PoolOf(m, kRep);
  EXPECT_EQ(c.pgs, 4u);
  EXPECT_EQ(c.pg_num_before, 2u);
  EXPECT_EQ(c.pg_num_after, 4u);
  EXPECT_EQ(c.pgs_remapped, 0u);
  EXPECT_EQ(c.bytes_total, 3u * 2000);  // each child carries half its parent
}

TEST(MovementTest, WithoutStatsBytesAreUnknownAndPoolTotalsAreSpreadEvenly) {
  ClusterState before = MakeState();
  ClusterState after = before;
  after.osds[0].weight = 0;  // out
  Movement m = Diff(before, after);
  EXPECT_EQ(m.bytes_source, BytesSource::kUnknown);
  EXPECT_EQ(m.totals.bytes_to_move, 0u);
  EXPECT_GT(m.totals.shards_moved, 0u);
  EXPECT_THAT(m.risks.notes, ::testing::Contains(HasSubstr("bytes are unknown")));

  before.pool_usage[kRep] = PoolUsage{4000, 40};
  after.pool_usage = before.pool_usage;
  m = Diff(before, after);
  EXPECT_EQ(m.bytes_source, BytesSource::kPoolTotals);
  EXPECT_EQ(PoolOf(m, kRep).bytes_total, 3u * 4000);
  EXPECT_EQ(PoolOf(m, kRep).bytes_to_move, PoolOf(m, kRep).shards_moved * 2000u);
}

TEST(MovementTest, MinimumIsTheGrowthOfExpectedShares) {
  // osd.0 out: its 1/6 of the pool's data must go elsewhere, no less.
  ClusterState before = MakeState();
  before.pg_stats[PgId{kRep, 0}] = PgStat{1, 600, 0};
  before.pg_stats[PgId{kRep, 1}] = PgStat{1, 600, 0};
  ClusterState after = before;
  after.osds[0].weight = 0;
  const Movement m = Diff(before, after);
  const MovementCounters& c = PoolOf(m, kRep);
  EXPECT_NEAR(c.minimum_to_move, 3600.0 / 6, 1e-6);
  ASSERT_GT(c.bytes_to_move, 0u);
  EXPECT_NEAR(c.amplification, static_cast<double>(c.bytes_to_move) / (3600.0 / 6), 1e-9);
}

TEST(MovementTest, FillUsesOsdDfCapacityAndFlagsNearfull) {
  ClusterState before = PinnedBefore();
  for (int o = 0; o < 6; ++o)
    before.osd_usage[o] = OsdUsage{100, 84, std::nullopt};  // 84% used, in KiB
  ClusterState after = before;
  Pin(after, kRep, 1, {3, 4, 0});  // osd.0 receives 2000 bytes, osd.5 gives them up
  const Movement m = Diff(before, after);
  const OsdMovement* o0 = OsdOf(m, 0);
  ASSERT_NE(o0, nullptr);
  EXPECT_TRUE(o0->capacity_from_osd_df);
  EXPECT_EQ(o0->capacity_bytes, 102400u);
  EXPECT_EQ(o0->used_after, 86016u + 2000u);
  EXPECT_NEAR(o0->fill_after, (86016.0 + 2000) / 102400, 1e-12);  // past 0.85
  ASSERT_EQ(m.risks.osds.size(), 1u);
  EXPECT_EQ(m.risks.osds[0].osd, 0);
  EXPECT_EQ(m.risks.osds[0].level, "nearfull");
}

TEST(MovementTest, RefusesStatesOfDifferentClusters) {
  ClusterState a = MakeState();
  ClusterState b = a;
  a.fsid = "a";
  b.fsid = "b";
  EXPECT_THAT(CheckComparable(a, b), crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                                             HasSubstr("different clusters")));
  b.fsid = "a";
  b.pools.erase(kEc);
  EXPECT_THAT(DiffStates(a, b).status(), crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                                                 HasSubstr("only before: 2")));
}

TEST(MovementTest, ListsEveryExistingOsdWithItsHostAndTheBucketAboveIt) {
  ClusterState before = MakeState();
  for (std::uint32_t ps = 0; ps < 2; ++ps) {
    Pin(before, kRep, ps, {0, 1, 2});
    Pin(before, kEc, ps, {0, 1, 2});
  }
  before.osds.push_back(OsdInfo{});  // osd.6: below max_osd, does not exist
  const Movement m = Diff(before, before);
  ASSERT_EQ(m.osds.size(), 6u);  // osd.3..5 hold no PG but exist
  ASSERT_NE(OsdOf(m, 4), nullptr);
  EXPECT_EQ(OsdOf(m, 4)->pgs_before + OsdOf(m, 4)->pgs_after, 0u);
  EXPECT_EQ(OsdOf(m, 4)->host, "host4");
  EXPECT_EQ(OsdOf(m, 4)->domain, "default");  // hosts sit in the root here
  EXPECT_EQ(OsdOf(m, 6), nullptr);

  const ClusterState racks = crush_testing::MakeRackState({});
  const Movement r = Diff(racks, racks);
  ASSERT_NE(OsdOf(r, 11), nullptr);
  EXPECT_EQ(OsdOf(r, 11)->host, "host5");
  EXPECT_EQ(OsdOf(r, 11)->domain, "rack2");
}

TEST(MovementTest, JsonHasTheDocumentedTopLevelAndCounters) {
  ClusterState before = PinnedBefore();
  ClusterState after = before;
  Pin(after, kRep, 0, {0, 1, 3});
  const Movement m = Diff(before, after);
  PlanReport report;
  report.movement = m;
  absl::StatusOr<std::string> json = ReportToJson(report);
  ASSERT_TRUE(json.ok()) << json.status();
  for (const char* key :
       {"\"pools\"", "\"totals\"", "\"osds\"", "\"domains\"", "\"risks\"", "\"pool_id\"",
        "\"pgs_remapped\"", "\"shards_moved\"", "\"objects_to_move\"", "\"bytes_to_move\""}) {
    EXPECT_THAT(*json, HasSubstr(key));
  }
  EXPECT_THAT(*json, HasSubstr("\"bytes_to_move\": \"1024\""));
  EXPECT_THAT(ReportSummary(report), HasSubstr("rep"));
}

TEST(MovementTest, SummarySaysWhatAFillPast100PercentMeans) {
  PlanReport report;
  report.movement.risks.nearfull_ratio = 0.85F;
  report.movement.risks.backfillfull_ratio = 0.90F;
  report.movement.risks.osds = {
      OsdRisk{.osd = 3, .fill_before = 0.5, .fill_after = 5.08, .level = "full"},
      OsdRisk{.osd = 4, .fill_before = 0.5, .fill_after = 0.87, .level = "nearfull"}};
  const std::string summary = ReportSummary(report);
  EXPECT_THAT(summary, HasSubstr("2 OSDs projected past nearfull (0.85): osd.3 50%->508% full;"));
  EXPECT_THAT(summary, HasSubstr("1 OSD past 100%: the data meant for it does not fit"));
  EXPECT_THAT(summary, HasSubstr("backfillfull (90%)"));
  report.movement.risks.osds.resize(1);
  report.movement.risks.osds[0].fill_after = 0.95;
  EXPECT_THAT(ReportSummary(report), Not(HasSubstr("past 100%")));
}

// The failure-domain matrix as two threads fill it, against a map of the
// same shards: dense (30 hosts) and, past 510 domains, a map (600 hosts).
TEST(MovementTest, DomainMatrixSumsEveryShardWhateverItsStorage) {
  for (const int hosts : {30, 600}) {
    const ClusterState s = crush_testing::MakeTestState({.hosts = hosts});
    std::optional<internal::DomainIndex> index = internal::DomainIndex::Make(s, s, "host");
    ASSERT_TRUE(index.has_value());
    internal::DomainIndex one = *index, two = *index;
    std::map<std::pair<std::string, std::string>, std::pair<std::uint32_t, std::uint64_t>> want;
    const auto name = [&](std::int32_t o) {
      if (o == crush::kItemNone) return std::string("(new)");
      return o < hosts ? "host" + std::to_string(o) : std::string("(none)");
    };
    for (int i = 0; i < 5000; ++i) {
      // OSD ids past the map (hosts + 3) have no host.
      const std::int32_t from = i % 7 == 0 ? crush::kItemNone : (i * 37) % (hosts + 3);
      const std::int32_t to = (i * 11 + 5) % (hosts + 3);
      const std::uint64_t bytes = 100 + static_cast<std::uint64_t>(i % 13);
      (i % 2 == 0 ? one : two).Add(from, to, bytes);
      auto& [shards, sum] = want[{name(from), name(to)}];
      ++shards;
      sum += bytes;
    }
    one.Merge(two);
    const DomainMatrix m = one.Finish();
    EXPECT_EQ(m.type, "host");
    EXPECT_EQ(m.names.size(), static_cast<std::size_t>(hosts));
    ASSERT_EQ(m.cells.size(), want.size()) << hosts << " hosts";
    for (std::size_t i = 0; i < m.cells.size(); ++i) {
      const DomainCell& c = m.cells[i];
      const auto it = want.find({c.from, c.to});
      ASSERT_NE(it, want.end()) << c.from << " -> " << c.to;
      EXPECT_EQ(c.shards, it->second.first) << c.from << " -> " << c.to;
      EXPECT_EQ(c.bytes, it->second.second) << c.from << " -> " << c.to;
      if (i > 0) {
        EXPECT_GE(m.cells[i - 1].bytes, c.bytes);  // largest first
      }
    }
  }
}

// PG sizes asked in order, out of order and for PGs without stats.
TEST(MovementTest, PgSizeCursorAgreesWithTheLookup) {
  ClusterState s = MakeState();
  for (std::uint32_t ps = 0; ps < 40; ++ps) {
    if (ps % 3 != 1) s.pg_stats[PgId{kRep, ps}] = PgStat{ps, 1000 + ps, ps % 2};
  }
  s.pg_stats[PgId{kEc, 0}] = PgStat{7, 7, 7};
  const internal::PgSizer sizer(s);
  const Pool& pool = s.pools.at(kRep);
  internal::PgSizer::Cursor cursor(sizer, pool);
  for (const std::uint32_t ps : {0u, 1u, 2u, 3u, 4u, 9u, 10u, 5u, 6u, 38u, 39u, 40u, 41u, 0u}) {
    const internal::PgSize want = sizer.Size(pool, ps);
    const internal::PgSize got = cursor.Size(ps);
    EXPECT_EQ(got.objects, want.objects) << ps;
    EXPECT_EQ(got.bytes, want.bytes) << ps;
  }
  EXPECT_EQ(cursor.Size(2).bytes, 1002u + 0u);
  EXPECT_EQ(cursor.Size(3).bytes, 1003u + 1u);
  EXPECT_EQ(cursor.Size(4).bytes, 0u);  // 4 % 3 == 1: no stats
}

}  // namespace
}  // namespace crushkit::osdmap
