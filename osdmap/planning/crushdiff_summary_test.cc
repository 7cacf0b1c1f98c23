#include "osdmap/planning/crushdiff_summary.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/types.h"
#include "tests/testing/osdmap_state.h"

namespace crushkit::osdmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::int32_t kNoItem = crush::kItemNone;

// A one-pool table whose acting sets are `sets` (PG i = sets[i]).
PgTable Table(std::int64_t pool, const std::vector<std::vector<std::int32_t>>& sets) {
  PoolPgTable t;
  t.pool_id = pool;
  t.pg_num = static_cast<std::uint32_t>(sets.size());
  t.width = 4;
  for (const auto& s : sets) {
    for (int i = 0; i < t.width; ++i) {
      t.acting.push_back(i < static_cast<int>(s.size()) ? s[static_cast<std::size_t>(i)] : kNoItem);
    }
    t.acting_len.push_back(static_cast<std::uint8_t>(s.size()));
  }
  PgTable out;
  out.pools.push_back(std::move(t));
  return out;
}

ClusterState OnePool(std::uint32_t size, std::uint32_t pg_num, const std::string& profile = "",
                     std::uint32_t k = 0, std::uint32_t m = 0) {
  ClusterState st;
  Pool p;
  p.id = 1;
  p.size = size;
  p.pg_num = p.pgp_num = pg_num;
  p.erasure_code_profile = profile;
  p.type = profile.empty() ? PoolType::kReplicated : PoolType::kErasure;
  p.ec_k = k;
  p.ec_m = m;
  st.pools[1] = p;
  for (std::uint32_t ps = 0; ps < pg_num; ++ps) {
    st.pg_stats[PgId{1, ps}] = PgStat{10 * (ps + 1), 1000 * (ps + 1), 1};
  }
  return st;
}

TEST(CrushdiffHumanBytesTest, DividesWhileAbove1024) {
  EXPECT_EQ(CrushdiffHumanBytes(0), "0.00");
  EXPECT_EQ(CrushdiffHumanBytes(1024), "1024.00");
  EXPECT_EQ(CrushdiffHumanBytes(1025), "1.00Ki");
  EXPECT_EQ(CrushdiffHumanBytes(1023.9), "1023.00");  // int() truncates first
  EXPECT_EQ(CrushdiffHumanBytes(3.0 * 1024 * 1024 * 1024), "3.00Gi");
  // Ti is the last suffix: 2048 Ti stays in Ti.
  EXPECT_EQ(CrushdiffHumanBytes(2048.0 * 1024 * 1024 * 1024 * 1024), "2048.00Ti");
}

TEST(FormatCrushdiffTest, CrushdiffManPageFigures) {
  CrushdiffSummary s;
  s.pgs_affected = 79;
  s.pgs_total = 416;
  s.objects_affected = 281;
  s.objects_total = 1392;
  s.pg_shards_to_move = 80;
  s.pg_shards_total = 1248;
  s.object_shards_to_move = 281;
  s.object_shards_total = 4176;
  s.bytes_to_move = 730.52 * 1024 * 1024;
  s.bytes_total = 10.55 * 1024 * 1024 * 1024;
  EXPECT_EQ(FormatCrushdiff(s),
            "79/416 (18.99%) pgs affected\n"
            "281/1392 (20.19%) objects affected\n"
            "80/1248 (6.41%) pg shards to move\n"
            "281/4176 (6.73%) pg object shards to move\n"
            "730.52Mi/10.55Gi (6.76%) bytes to move\n");
}

TEST(FormatCrushdiffTest, ZeroTotalsGiveZeroPercent) {
  EXPECT_EQ(FormatCrushdiff(CrushdiffSummary{}),
            "0/0 (0.00%) pgs affected\n"
            "0/0 (0.00%) objects affected\n"
            "0/0 (0.00%) pg shards to move\n"
            "0/0 (0.00%) pg object shards to move\n"
            "0.00/0.00 (0.00%) bytes to move\n");
}

TEST(SummarizeCrushdiffTest, ReplicatedOrderOnlyIsNotCountedButStillWarns) {
  const ClusterState st = OnePool(3, 4);
  // PG 0 unchanged; PG 1 reordered (not counted); PG 2 one OSD replaced;
  // PG 3 reordered and short of the pool size (warns, not counted).
  const PgTable before = Table(1, {{0, 1, 2}, {0, 1, 2}, {0, 1, 2}, {4, 5}});
  const PgTable after = Table(1, {{0, 1, 2}, {2, 1, 0}, {0, 1, 3}, {5, 4}});
  absl::StatusOr<CrushdiffSummary> s = SummarizeCrushdiff(st, before, after);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->pgs_affected, 1u);
  EXPECT_EQ(s->pgs_total, 4u);
  EXPECT_EQ(s->objects_affected, 30u);
  EXPECT_EQ(s->objects_total, 100u);
  EXPECT_EQ(s->pg_shards_to_move, 1u);
  EXPECT_EQ(s->pg_shards_total, 11u);  // len(before) summed: 3 + 3 + 3 + 2
  EXPECT_EQ(s->object_shards_to_move, 30u);
  EXPECT_EQ(s->object_shards_total, 300u);  // objects x size
  EXPECT_DOUBLE_EQ(s->bytes_to_move, 3001);
  EXPECT_DOUBLE_EQ(s->bytes_total, 3.0 * (1001 + 2001 + 3001 + 4001));
  EXPECT_THAT(s->warnings, ElementsAre("WARNING: 1.3 will be undersized ([5, 4])"));
}

TEST(SummarizeCrushdiffTest, ErasureComparesPositionsAndSplitsBytesByK) {
  const ClusterState st = OnePool(3, 2, "k2m1", 2, 1);
  // PG 0: a hole filled and a swap (three positions differ); PG 1: the
  // same OSDs reordered, which EC counts.
  const PgTable before = Table(1, {{0, kNoItem, 2}, {3, 4, 5}});
  const PgTable after = Table(1, {{2, 1, 0}, {5, 4, 3}});
  absl::StatusOr<CrushdiffSummary> s = SummarizeCrushdiff(st, before, after);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->pgs_affected, 2u);
  EXPECT_EQ(s->pg_shards_to_move, 5u);
  EXPECT_EQ(s->pg_shards_total, 6u);
  EXPECT_EQ(s->object_shards_to_move, 3u * 10 + 2u * 20);
  EXPECT_DOUBLE_EQ(s->bytes_to_move, 3 * (1001 / 2.0) + 2 * (2001 / 2.0));
  EXPECT_DOUBLE_EQ(s->bytes_total, 1001 * 3 / 2.0 + 2001 * 3 / 2.0);
  EXPECT_TRUE(s->warnings.empty());
}

TEST(SummarizeCrushdiffTest, EmptyBeforeSetsAreSkipped) {
  ClusterState st = OnePool(2, 2);
  st.pg_stats.erase(PgId{1, 0});  // not needed: PG 0 maps nowhere before
  const PgTable before = Table(1, {{}, {1, 2}});
  const PgTable after = Table(1, {{1, 2}, {1}});
  absl::StatusOr<CrushdiffSummary> s = SummarizeCrushdiff(st, before, after);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->pgs_total, 1u);
  EXPECT_EQ(s->pgs_affected, 1u);
  EXPECT_EQ(s->pg_shards_to_move, 1u);
  EXPECT_THAT(s->warnings, ElementsAre("WARNING: 1.1 will be undersized ([1])"));
}

TEST(SummarizeCrushdiffTest, MissingStatsOrProfileAreErrors) {
  ClusterState st = OnePool(2, 2);
  st.pg_stats.erase(PgId{1, 1});
  const PgTable t = Table(1, {{1, 2}, {1, 2}});
  absl::StatusOr<CrushdiffSummary> s = SummarizeCrushdiff(st, t, t);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("no PG stats for 1.1"));

  const ClusterState ec = OnePool(3, 2, "lost", 0, 0);
  s = SummarizeCrushdiff(ec, t, t);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("profile 'lost' has no k"));

  const PgTable shorter = Table(1, {{1, 2}});
  s = SummarizeCrushdiff(OnePool(2, 2), t, shorter);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("PG 1.1 is not in the after state"));
}

// End to end through CRUSH mapping: every set pinned with pg_upmap, so the
// expected figures follow from the sets written here.
TEST(CompareCrushdiffTest, ActingSetsAndProfileNamesDecide) {
  using crush_testing::kEcPool;
  using crush_testing::kRepPool;
  ClusterState before = crush_testing::MakeTestState({});
  before.pg_upmap = {{PgId{kRepPool, 0}, {0, 1, 2}},
                     {PgId{kRepPool, 1}, {3, 4, 5}},
                     {PgId{kEcPool, 0}, {0, 1, 2}},
                     {PgId{kEcPool, 1}, {3, 4, 5}}};
  // pg_temp holds rep PG 0 where it is: its acting set does not change.
  before.pg_temp[PgId{kRepPool, 0}] = {0, 1, 2};
  for (std::int64_t pool : {kRepPool, kEcPool}) {
    for (std::uint32_t ps = 0; ps < 2; ++ps) before.pg_stats[PgId{pool, ps}] = PgStat{100, 4096, 0};
  }
  ClusterState after = before;
  after.pg_upmap[PgId{kRepPool, 0}] = {0, 1, 3};  // up changes, acting does not
  after.pg_upmap[PgId{kRepPool, 1}] = {3, 4, 0};  // one copy moves
  after.pg_upmap[PgId{kEcPool, 0}] = {2, 1, 0};   // positions 0 and 2
  after.pg_upmap[PgId{kEcPool, 1}] = {3, 5, 4};   // positions 1 and 2

  // The test state's EC pool names no profile: crushdiff sizes it as a
  // replicated pool, and its reorderings are order-only changes.
  MapAllOptions options;
  options.threads = 2;
  absl::StatusOr<CrushdiffSummary> s = CompareCrushdiff(before, after, options);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(FormatCrushdiff(*s),
            "1/4 (25.00%) pgs affected\n"
            "100/400 (25.00%) objects affected\n"
            "1/12 (8.33%) pg shards to move\n"
            "100/1200 (8.33%) pg object shards to move\n"
            "4.00Ki/48.00Ki (8.33%) bytes to move\n");

  before.pools[kEcPool].erasure_code_profile = "k2m1";
  after.pools[kEcPool].erasure_code_profile = "k2m1";
  s = CompareCrushdiff(before, after, options);
  ASSERT_TRUE(s.ok()) << s.status();
  // EC: k + m = 3 object shards per object, 4096 * 3 / 2 bytes per PG,
  // 2048 bytes per moved shard.
  EXPECT_EQ(FormatCrushdiff(*s),
            "3/4 (75.00%) pgs affected\n"
            "300/400 (75.00%) objects affected\n"
            "5/12 (41.67%) pg shards to move\n"
            "500/1200 (41.67%) pg object shards to move\n"
            "12.00Ki/36.00Ki (33.33%) bytes to move\n");
  EXPECT_TRUE(s->warnings.empty());
}

}  // namespace
}  // namespace crushkit::osdmap
