// The PG pipeline against hand reasoning from OSDMap.cc, with a fake raw
// CRUSH step (the real one is covered by the osdmaptool differential tests).
#include "osdmap/model/pg_mapping.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/hash.h"
#include "tests/testing/osdmap_state.h"

namespace crushkit::osdmap {
namespace {

using ::testing::ElementsAre;
constexpr std::int32_t kNone = crush::kItemNone;

// Returns `result` for every x, and records the last call.
class FakePlacement : public RawPlacement {
 public:
  int FindRule(int ruleset, int type, int size) const override {
    last_find = {ruleset, type, size};
    return ruleset == 0 ? 0 : -1;
  }

  int DoRule(int, std::uint32_t x, std::span<const crush::Weight> w, std::int64_t pool,
             std::span<std::int32_t> out) override {
    last_x = x;
    last_pool = pool;
    weights.assign(w.begin(), w.end());
    int n = 0;
    for (auto o : result) {
      if (n == static_cast<int>(out.size())) break;
      out[static_cast<std::size_t>(n++)] = o;
    }
    return n;
  }

  std::vector<std::int32_t> result = {0, 1, 2};
  mutable std::vector<int> last_find;
  std::uint32_t last_x = 0;
  std::int64_t last_pool = 0;
  std::vector<crush::Weight> weights;
};

ClusterState MakeState(PoolType type) { return crush_testing::MakeOnePoolState(8, type); }

std::vector<std::int32_t> V(const OsdList& l) { return l.ToVector(); }

// Maps one PG of `s` through a FakePlacement whose raw set is {0, 1, 2}.
PgMapping MapOne(const ClusterState& s, const PgId& pg) {
  FakePlacement f;
  PgMapper m(s, f);
  PgMapping r;
  m.PgToUpActing(pg, &r);
  return r;
}

TEST(PgMappingTest, PassesPpsPoolAndReweightsToCrush) {
  ClusterState s = MakeState(PoolType::kReplicated);
  s.osds[3].weight = 0x8000;
  FakePlacement f;
  PgMapper m(s, f);
  PgMapping r;
  m.PgToUpActing({1, 5}, &r);
  EXPECT_EQ(f.last_x, crush::Hash32_2(5, 1));
  EXPECT_EQ(f.last_pool, 1);
  EXPECT_THAT(f.last_find, ElementsAre(0, 1, 3));
  ASSERT_EQ(f.weights.size(), 8u);
  EXPECT_EQ(f.weights[3], 0x8000u);
  EXPECT_THAT(V(r.acting), ElementsAre(0, 1, 2));
  EXPECT_EQ(r.acting_primary, 0);
}

TEST(PgMappingTest, PpsUsesPgpNumAndLegacyAddsPoolId) {
  Pool p;
  p.id = 7;
  p.pg_num = 16;
  p.pgp_num = 4;
  // pgp_num 4 (mask 3): ps 13 folds to 1.
  EXPECT_EQ(PgMapper::RawPgToPps(p, 13), crush::Hash32_2(1, 7));
  p.flags = 0;
  EXPECT_EQ(PgMapper::RawPgToPps(p, 13), 1u + 7u);
}

TEST(PgMappingTest, SeedBeyondPgNumIsMappedWithFoldedOverrides) {
  // Pacific's pg_to_up_acting_osds() folds (raw_pg_to_pg = true); verified
  // against osdmaptool --test-map-pg in osdmaptool_test.cc.
  ClusterState s = MakeState(PoolType::kReplicated);
  s.pg_upmap_items[{1, 0}] = {{1, 7}};
  FakePlacement f;
  PgMapper m(s, f);
  PgMapping r;
  m.PgToUpActing({1, 16}, &r);
  EXPECT_EQ(f.last_x, crush::Hash32_2(0, 1));  // pgp_num 16 folds 16 to 0
  EXPECT_THAT(V(r.raw), ElementsAre(0, 1, 2));
  EXPECT_THAT(V(r.up), ElementsAre(0, 7, 2));
  EXPECT_THAT(V(r.acting), ElementsAre(0, 7, 2));
  m.PgToUpActing({2, 0}, &r);  // no such pool
  EXPECT_TRUE(r.raw.empty());
  EXPECT_TRUE(r.acting.empty());
  EXPECT_EQ(r.raw_primary, -1);
  EXPECT_EQ(r.acting_primary, -1);
}

TEST(PgMappingTest, NonexistentOsdsShiftForReplicatedAndHoleForErasure) {
  for (PoolType t : {PoolType::kReplicated, PoolType::kErasure}) {
    ClusterState s = MakeState(t);
    s.osds[0].state = 0;
    const PgMapping r = MapOne(s, {1, 0});
    if (t == PoolType::kReplicated) {
      EXPECT_THAT(V(r.raw), ElementsAre(1, 2));
      EXPECT_THAT(V(r.acting), ElementsAre(1, 2));
    } else {
      EXPECT_THAT(V(r.raw), ElementsAre(kNone, 1, 2));
      EXPECT_THAT(V(r.acting), ElementsAre(kNone, 1, 2));
    }
    EXPECT_EQ(r.raw_primary, 1);
    EXPECT_EQ(r.acting_primary, 1);
  }
}

TEST(PgMappingTest, DownOsdsShiftForReplicatedAndHoleForErasure) {
  for (PoolType t : {PoolType::kReplicated, PoolType::kErasure}) {
    ClusterState s = MakeState(t);
    s.osds[1].state = kOsdExists;  // down
    const PgMapping r = MapOne(s, {1, 0});
    EXPECT_THAT(V(r.raw), ElementsAre(0, 1, 2));  // raw keeps down OSDs
    if (t == PoolType::kReplicated) {
      EXPECT_THAT(V(r.up), ElementsAre(0, 2));
    } else {
      EXPECT_THAT(V(r.up), ElementsAre(0, kNone, 2));
    }
  }
}

// A mapper over a state that does not change (StateUse::kFixed) reads OSD
// existence and up/down from its own snapshot: the same answers.
TEST(PgMappingTest, FixedStateMapsAsTheLiveState) {
  for (PoolType t : {PoolType::kReplicated, PoolType::kErasure}) {
    ClusterState s = MakeState(t);
    s.osds[0].state = 0;           // does not exist
    s.osds[1].state = kOsdExists;  // down
    s.osds[4].state = kOsdExists;  // down
    s.pg_temp[{1, 1}] = {5, 4, 6};
    for (const std::vector<std::int32_t>& raw :
         {std::vector<std::int32_t>{0, 1, 2}, {7, 4, 3}, {2, 1, 40}}) {
      FakePlacement f;
      f.result = raw;
      PgMapper live(s, f);
      PgMapper fixed(s, f, StateUse::kFixed);
      for (std::uint32_t ps = 0; ps < 3; ++ps) {
        PgMapping a, b;
        live.PgToUpActing({1, ps}, &a);
        fixed.PgToUpActing({1, ps}, &b);
        EXPECT_EQ(V(a.raw), V(b.raw));
        EXPECT_EQ(V(a.up), V(b.up));
        EXPECT_EQ(V(a.acting), V(b.acting));
        EXPECT_EQ(a.up_primary, b.up_primary);
        EXPECT_EQ(a.acting_primary, b.acting_primary);
      }
    }
    // What both say for {0, 1, 2}: osd.0 gone, osd.1 down.
    FakePlacement f;
    PgMapper fixed(s, f, StateUse::kFixed);
    PgMapping r;
    fixed.PgToUpActing({1, 0}, &r);
    if (t == PoolType::kReplicated) {
      EXPECT_THAT(V(r.up), ElementsAre(2));
    } else {
      EXPECT_THAT(V(r.up), ElementsAre(kNone, kNone, 2));
    }
  }
}

TEST(PgMappingTest, PgUpmapReplacesUnlessATargetIsOut) {
  ClusterState s = MakeState(PoolType::kReplicated);
  s.pools[1].pg_num = 12;  // mask 15: ps 13 folds to 5
  s.pg_upmap[{1, 5}] = {5, 6, 7};
  PgMapping r = MapOne(s, {1, 5});
  EXPECT_THAT(V(r.up), ElementsAre(5, 6, 7));
  EXPECT_THAT(V(r.raw), ElementsAre(0, 1, 2));  // raw is before upmap
  s.osds[6].weight = 0;                         // out: the explicit mapping is ignored entirely
  r = MapOne(s, {1, 5});
  EXPECT_THAT(V(r.up), ElementsAre(0, 1, 2));
  // _apply_upmap returns on the rejected pg_upmap: the PG's pg_upmap_items
  // are not applied either (diff_differential seed 7 case 215).
  s.pg_upmap_items[{1, 5}] = {{1, 3}};
  r = MapOne(s, {1, 5});
  EXPECT_THAT(V(r.up), ElementsAre(0, 1, 2));
}

TEST(PgMappingTest, UpmapIsKeyedByTheFoldedPg) {
  ClusterState s = MakeState(PoolType::kReplicated);
  s.pools[1].pg_num = 12;
  s.pg_upmap_items[{1, 5}] = {{1, 7}};
  FakePlacement f;
  PgMapper m(s, f);
  PgMapping r;
  // Raw pg 1.d (13) is not a valid seed for pg_to_up_acting; osdmaptool
  // folds first (raw_pg_to_pg): 13 & 7 = 5.
  EXPECT_EQ(s.pools[1].FoldPs(13), 5u);
  m.PgToUpActing({1, s.pools[1].FoldPs(13)}, &r);
  EXPECT_THAT(V(r.up), ElementsAre(0, 7, 2));
}

TEST(PgMappingTest, UpmapItemsRules) {
  ClusterState s = MakeState(PoolType::kReplicated);
  FakePlacement f;
  // In-order application; a pair whose target is already present is
  // skipped, so a swap is impossible (OSDMap.cc's comment).
  s.pg_upmap_items[{1, 0}] = {{1, 2}, {2, 1}};
  s.pg_upmap_items[{1, 1}] = {{1, 5}, {5, 6}};  // chained: 1->5 then 5->6
  s.pg_upmap_items[{1, 2}] = {{1, 4}};          // target out: skipped
  s.pg_upmap_items[{1, 3}] = {{9, 4}};          // source absent: nothing
  s.osds[4].weight = 0;
  PgMapper m(s, f);
  PgMapping r;
  m.PgToUpActing({1, 0}, &r);
  EXPECT_THAT(V(r.up), ElementsAre(0, 1, 2));
  m.PgToUpActing({1, 1}, &r);
  EXPECT_THAT(V(r.up), ElementsAre(0, 6, 2));
  m.PgToUpActing({1, 2}, &r);
  EXPECT_THAT(V(r.up), ElementsAre(0, 1, 2));
  m.PgToUpActing({1, 3}, &r);
  EXPECT_THAT(V(r.up), ElementsAre(0, 1, 2));
}

TEST(PgMappingTest, UpmapTargetThatIsDownIsDroppedFromUp) {
  ClusterState s = MakeState(PoolType::kErasure);
  s.osds[5].state = kOsdExists;  // down but in
  s.pg_upmap_items[{1, 0}] = {{1, 5}};
  const PgMapping r = MapOne(s, {1, 0});
  EXPECT_THAT(V(r.up), ElementsAre(0, kNone, 2));
  EXPECT_EQ(r.up_primary, 0);
}

TEST(PgMappingTest, UpmapPrimarySwapsToFront) {
  ClusterState s = MakeState(PoolType::kReplicated);
  s.pg_upmap_primaries[{1, 0}] = 2;
  const PgMapping r = MapOne(s, {1, 0});
  EXPECT_THAT(V(r.up), ElementsAre(2, 1, 0));
  EXPECT_EQ(r.up_primary, 2);
}

TEST(PgMappingTest, PrimaryAffinityZeroMovesPrimary) {
  for (PoolType t : {PoolType::kReplicated, PoolType::kErasure}) {
    ClusterState s = MakeState(t);
    // Affinity 0: (hash >> 16) >= 0 always, so osd.0 is always rejected.
    s.osds[0].primary_affinity = 0;
    const PgMapping r = MapOne(s, {1, 3});
    EXPECT_EQ(r.up_primary, 1);
    EXPECT_EQ(r.acting_primary, 1);
    if (t == PoolType::kReplicated) {
      EXPECT_THAT(V(r.up), ElementsAre(1, 0, 2));  // moved to the front
    } else {
      EXPECT_THAT(V(r.up), ElementsAre(0, 1, 2));  // EC keeps positions
    }
  }
}

TEST(PgMappingTest, PrimaryAffinityAllRejectedFallsBackToFirst) {
  ClusterState s = MakeState(PoolType::kReplicated);
  for (auto& o : s.osds) o.primary_affinity = 0;
  const PgMapping r = MapOne(s, {1, 3});
  EXPECT_EQ(r.up_primary, 0);
  EXPECT_THAT(V(r.up), ElementsAre(0, 1, 2));
}

TEST(PgMappingTest, PrimaryAffinityFractionUsesHashOfPpsAndOsd) {
  ClusterState s = MakeState(PoolType::kReplicated);
  s.osds[0].primary_affinity = 0x8000;
  FakePlacement f;
  PgMapper m(s, f);
  PgMapping r;
  int moved = 0;
  for (std::uint32_t ps = 0; ps < 16; ++ps) {
    m.PgToUpActing({1, ps}, &r);
    const std::uint32_t pps = PgMapper::RawPgToPps(s.pools[1], ps);
    const bool rejected = (crush::Hash32_2(pps, 0) >> 16) >= 0x8000;
    EXPECT_EQ(r.up_primary, rejected ? 1 : 0) << ps;
    moved += rejected;
  }
  EXPECT_GT(moved, 0);
  EXPECT_LT(moved, 16);
}

TEST(PgMappingTest, PgTempAndPrimaryTemp) {
  for (PoolType t : {PoolType::kReplicated, PoolType::kErasure}) {
    ClusterState s = MakeState(t);
    s.osds[4].state = kOsdExists;  // down
    s.pg_temp[{1, 0}] = {5, 4, 6};
    s.pg_temp[{1, 1}] = {4, 6};
    s.primary_temp[{1, 1}] = 7;
    s.primary_temp[{1, 2}] = 2;  // primary_temp without pg_temp
    FakePlacement f;
    PgMapper m(s, f);
    PgMapping r;
    m.PgToUpActing({1, 0}, &r);
    EXPECT_THAT(V(r.up), ElementsAre(0, 1, 2));
    EXPECT_EQ(r.up_primary, 0);
    if (t == PoolType::kReplicated) {
      EXPECT_THAT(V(r.acting), ElementsAre(5, 6));
    } else {
      EXPECT_THAT(V(r.acting), ElementsAre(5, kNone, 6));
    }
    EXPECT_EQ(r.acting_primary, 5);
    m.PgToUpActing({1, 1}, &r);
    EXPECT_EQ(r.acting_primary, 7);
    m.PgToUpActing({1, 2}, &r);
    EXPECT_THAT(V(r.acting), ElementsAre(0, 1, 2));
    EXPECT_EQ(r.acting_primary, 2);
    EXPECT_EQ(r.up_primary, 0);
  }
}

TEST(PgMappingTest, ObjectToRawPgUsesPoolHashAndNamespace) {
  ClusterState s = MakeState(PoolType::kReplicated);
  FakePlacement f;
  PgMapper m(s, f);
  PgId pg;
  ASSERT_TRUE(m.ObjectToRawPg(1, "foo", "", &pg));
  EXPECT_EQ(pg.ps, 0x7fc1f406u);  // rjenkins("foo"), shared vectors
  ASSERT_TRUE(m.ObjectToRawPg(1, "foo", "ns", &pg));
  EXPECT_NE(pg.ps, 0x7fc1f406u);
  s.pools[1].object_hash = 1;
  ASSERT_TRUE(m.ObjectToRawPg(1, "foo", "", &pg));
  EXPECT_EQ(pg.ps, 0x0024db2au);  // linux("foo")
  EXPECT_FALSE(m.ObjectToRawPg(9, "foo", "", &pg));
}

TEST(PgMappingTest, FormatOsdList) {
  const std::vector<std::int32_t> v = {1, kNone, 3};
  EXPECT_EQ(FormatOsdList(v), "[1,2147483647,3]");
  EXPECT_EQ(FormatOsdList({}), "[]");
}

}  // namespace
}  // namespace crushkit::osdmap
