#include "osdmap/model/pg_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_table_replay.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::osdmap {
namespace {

std::unique_ptr<MappingSession> MakeSession() {
  ClusterState s;
  crush_testing::ClusterSpec spec;
  spec.hosts = 8;
  spec.osds_per_host = 3;
  s.crush = crush_testing::MakeClusterModel(spec);
  s.osds.assign(24, OsdInfo{kOsdExists | kOsdUp, 0x10000, kDefaultPrimaryAffinity});
  s.osds[5].weight = 0;          // out
  s.osds[7].state = kOsdExists;  // down
  Pool rep;
  rep.id = 1;
  rep.name = "rep";
  rep.crush_rule = crush_testing::kReplicatedRule;
  rep.pg_num = 5000;  // not a multiple of the chunk size
  rep.pgp_num = 4096;
  s.pools[1] = rep;
  Pool ec = rep;
  ec.id = 3;
  ec.type = PoolType::kErasure;
  ec.size = 5;
  ec.crush_rule = crush_testing::kEcRule;
  ec.pg_num = ec.pgp_num = 300;
  s.pools[3] = ec;
  s.pg_upmap[PgId{3, 7}] = {0, 3, 6, 9, 12, 15};  // longer than the pool size
  s.pg_temp[PgId{1, 2}] = {1, 2, 3};
  auto session = MappingSession::Create(std::move(s));
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(*session) : nullptr;
}

TEST(PgTableTest, EqualsMappingEachPgForAnyThreadCount) {
  auto session = MakeSession();
  ASSERT_NE(session, nullptr);
  for (int threads : {1, 2, 5}) {
    MapAllOptions opt;
    opt.threads = threads;
    const PgTable t = MapAllPgs(*session, opt);
    ASSERT_EQ(t.pools.size(), 2u);
    EXPECT_EQ(t.total_pgs(), 5300u);
    EXPECT_EQ(t.Find(3)->width, 6);
    for (const auto& [id, pool] : session->state().pools) {
      const PoolPgTable* pt = t.Find(id);
      ASSERT_NE(pt, nullptr);
      PgMapping m;
      for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
        session->mapper().MapPg(pool, ps, &m);
        ASSERT_EQ(m.up.ToVector(), std::vector<std::int32_t>(pt->Up(ps).begin(), pt->Up(ps).end()))
            << id << "." << ps << " threads " << threads;
        ASSERT_EQ(m.acting.ToVector(),
                  std::vector<std::int32_t>(pt->Acting(ps).begin(), pt->Acting(ps).end()));
        ASSERT_EQ(m.up_primary, pt->up_primary[ps]);
        ASSERT_EQ(m.acting_primary, pt->acting_primary[ps]);
      }
    }
  }
}

TEST(PgTableTest, UpOnlyAndProgressReachesTheTotal) {
  auto session = MakeSession();
  ASSERT_NE(session, nullptr);
  std::uint64_t last = 0, calls = 0;
  MapAllOptions opt;
  opt.acting = false;
  opt.threads = 2;
  opt.progress = [&](std::uint64_t done, std::uint64_t total) {
    EXPECT_EQ(total, 5300u);
    last = std::max(last, done);
    ++calls;
  };
  const PgTable t = MapAllPgs(*session, opt);
  EXPECT_TRUE(t.pools[0].acting.empty());
  EXPECT_EQ(last, 5300u);
  EXPECT_GE(calls, 3u);
  // The upmapped EC PG keeps all six targets; the pg_temp PG's up is CRUSH's.
  EXPECT_EQ(std::vector<std::int32_t>(t.Find(3)->Up(7).begin(), t.Find(3)->Up(7).end()),
            (std::vector<std::int32_t>{0, 3, 6, 9, 12, 15}));
}

// One line per PG of `t`'s row `row` (PG `ps`): up, primaries and acting.
std::string RowText(const PoolPgTable& t, std::uint32_t row, std::uint32_t ps) {
  std::string s = std::to_string(t.pool_id) + "." + std::to_string(ps) + " [";
  for (const std::int32_t o : t.Up(row)) s += std::to_string(o) + ",";
  s += "] " + std::to_string(t.up_primary[row]);
  if (!t.acting.empty()) {
    s += " [";
    for (const std::int32_t o : t.Acting(row)) s += std::to_string(o) + ",";
    s += "] " + std::to_string(t.acting_primary[row]);
  }
  return s + "\n";
}

TEST(PgTableTest, InOrderStreamEqualsTheTableForAnyThreadCount) {
  auto session = MakeSession();
  ASSERT_NE(session, nullptr);
  for (const bool acting : {true, false}) {
    MapAllOptions opt;
    opt.acting = acting;
    const PgTable table = MapAllPgs(*session, opt);
    std::string want;
    for (const PoolPgTable& t : table.pools) {
      for (std::uint32_t ps = 0; ps < t.pg_num; ++ps) want += RowText(t, ps, ps);
    }
    for (int threads : {1, 2, 5}) {
      opt.threads = threads;
      std::uint64_t last = 0;
      opt.progress = [&](std::uint64_t done, std::uint64_t total) {
        EXPECT_EQ(total, 5300u);
        last = std::max(last, done);
      };
      std::string got;
      std::atomic<int> chunks{0};
      MapAllPgsInOrder(
          *session, opt,
          [&](const PoolPgTable& chunk, std::uint32_t first_ps, std::string* out) {
            EXPECT_TRUE(out->empty());
            EXPECT_EQ(chunk.width, table.Find(chunk.pool_id)->width);
            for (std::uint32_t row = 0; row < chunk.pg_num; ++row) {
              *out += RowText(chunk, row, first_ps + row);
            }
            ++chunks;
          },
          [&](const std::string& out) { got += out; });
      EXPECT_EQ(got, want) << "threads " << threads << " acting " << acting;
      EXPECT_GE(chunks.load(), 3);
      EXPECT_EQ(last, 5300u);
    }
  }
}

TEST(PgTableTest, RawUpmapSetsEqualMappingEachPgForAnyThreadCount) {
  auto session = MakeSession();
  ASSERT_NE(session, nullptr);
  ClusterState s = session->state();
  auto built = crush::CrushMap::Build(s.crush);
  ASSERT_TRUE(built.ok()) << built.status();
  CrushPlacement placement(*built, s.ceph_release);
  PgMapper mapper(s, placement);
  // pg_upmap_items that apply: each moves a member of the PG's CRUSH set
  // to an OSD outside it (not osd.5, which is out).
  OsdList raw;
  OsdList raw_upmap;
  for (const PgId pg : {PgId{1, 11}, PgId{3, 9}}) {
    mapper.PgToRawUpmap(pg, &raw, &raw_upmap);
    ASSERT_GE(raw.size(), 2);
    std::vector<std::int32_t> outside;
    for (std::int32_t o = 23; outside.size() < 2; --o) {
      if (o != 5 && std::find(raw.span().begin(), raw.span().end(), o) == raw.span().end()) {
        outside.push_back(o);
      }
    }
    s.pg_upmap_items[pg] = {{raw[0], outside[0]}};
    if (pg.pool == 3) s.pg_upmap_items[pg].emplace_back(raw[1], outside[1]);
  }
  // The pools in the order asked for, not in id order; a pool left out is
  // not mapped.
  const std::vector<std::int64_t> pools = {3, 1};
  for (int threads : {1, 2, 5}) {
    const PgTable t = MapRawUpmapSets(s, *built, pools, threads);
    ASSERT_EQ(t.pools.size(), 2u);
    EXPECT_EQ(t.pools[0].pool_id, 3);
    EXPECT_EQ(t.pools[1].pool_id, 1);
    EXPECT_TRUE(t.pools[1].up.empty());
    int upmapped = 0;
    for (const PoolPgTable& pt : t.pools) {
      for (std::uint32_t ps = 0; ps < pt.pg_num; ++ps) {
        mapper.PgToRawUpmap(PgId{pt.pool_id, ps}, &raw, &raw_upmap);
        ASSERT_EQ(raw_upmap.ToVector(),
                  std::vector<std::int32_t>(pt.RawUpmap(ps).begin(), pt.RawUpmap(ps).end()))
            << pt.pool_id << "." << ps << " threads " << threads;
        if (!(raw == raw_upmap)) ++upmapped;
      }
    }
    // 3.7's pg_upmap (six OSDs in a size-5 pool) and both pg_upmap_items.
    EXPECT_EQ(upmapped, 3) << threads;
    EXPECT_EQ(t.pools[0].RawUpmap(7).size(), 6u);
  }
  EXPECT_EQ(MapRawUpmapSets(s, *built, std::vector<std::int64_t>{1}, 2).pools.size(), 1u);
}

}  // namespace
}  // namespace crushkit::osdmap

namespace crushkit::osdmap {
namespace {

std::vector<std::int32_t> Vec(std::span<const std::int32_t> s) { return {s.begin(), s.end()}; }

void ExpectSameTables(const PgTable& x, const PgTable& y) {
  ASSERT_EQ(x.pools.size(), y.pools.size());
  for (std::size_t i = 0; i < x.pools.size(); ++i) {
    const PoolPgTable& a = x.pools[i];
    const PoolPgTable& b = y.pools[i];
    ASSERT_EQ(a.pool_id, b.pool_id);
    ASSERT_EQ(a.pg_num, b.pg_num);
    ASSERT_EQ(a.acting_len.empty(), b.acting_len.empty());  // MapAllOptions::acting
    for (std::uint32_t ps = 0; ps < a.pg_num; ++ps) {
      ASSERT_EQ(Vec(a.Up(ps)), Vec(b.Up(ps))) << a.pool_id << "." << ps;
      if (!a.acting_len.empty()) {
        ASSERT_EQ(Vec(a.Acting(ps)), Vec(b.Acting(ps))) << a.pool_id << "." << ps;
      }
      ASSERT_EQ(a.up_primary[ps], b.up_primary[ps]);
    }
  }
}

TEST(PgTableTest, PairedMappingEqualsTwoSeparateMappings) {
  auto before = MakeSession();
  ASSERT_NE(before, nullptr);
  ClusterState s = before->state();
  // Reweight one host's OSDs in CRUSH, mark one OSD out, grow one pool and
  // drop another: shared, partly shared and unshared buckets, and PGs that
  // exist on one side only.
  for (crush::Bucket& b : s.crush.buckets) {
    for (std::size_t i = 0; i < b.items.size(); ++i) {
      if (b.items[i] == 4) b.item_weights[i] = 0x8000;
    }
  }
  crush_testing::FinishBucket(s.crush.buckets[2]);
  s.osds[9].weight = 0;
  s.pools[1].pg_num = 6000;
  s.pools.erase(3);
  auto after = MappingSession::Create(std::move(s));
  ASSERT_TRUE(after.ok()) << after.status();
  for (int threads : {1, 3}) {
    MapAllOptions opt;
    opt.threads = threads;
    const PgTablePair paired = MapAllPgsPaired(*before, **after, opt);
    ExpectSameTables(paired.before, MapAllPgs(*before, opt));
    ExpectSameTables(paired.after, MapAllPgs(**after, opt));
  }
}

}  // namespace
}  // namespace crushkit::osdmap

namespace crushkit::osdmap {
namespace {

// Sets `item`'s weight in the bucket holding it and carries the change up
// to the root, as Ceph's adjust_item_weight does.
void SetCrushWeight(crush::MapModel& m, crush::ItemId item, crush::Weight w) {
  for (crush::Bucket& b : m.buckets) {
    for (std::size_t i = 0; i < b.items.size(); ++i) {
      if (b.items[i] != item) continue;
      b.item_weights[i] = w;
      crush_testing::FinishBucket(b);
      SetCrushWeight(m, b.id, b.weight);
      return;
    }
  }
}

// Appends `item` at weight `w` to bucket `id` (and up to the root).
void AddCrushItem(crush::MapModel& m, crush::ItemId id, crush::ItemId item, crush::Weight w) {
  crush::Bucket& b = m.buckets[static_cast<std::size_t>(crush::BucketSlot(id))];
  b.items.push_back(item);
  b.item_weights.push_back(w);
  crush_testing::FinishBucket(b);
  SetCrushWeight(m, b.id, b.weight);
}

// The after states of the test below, each from the recorded state.
std::vector<ClusterState> ChangedStates(const ClusterState& before) {
  std::vector<ClusterState> out;
  ClusterState s = before;  // one OSD reweighted down in CRUSH (a winner changes)
  SetCrushWeight(s.crush, 4, 0x4000);
  out.push_back(s);
  s = before;  // up
  SetCrushWeight(s.crush, 10, 0x30000);
  out.push_back(s);
  s = before;  // a new OSD in host0, an OSD marked out, pool 1 grows
  AddCrushItem(s.crush, s.crush.buckets[1].id, 24, 0x10000);
  s.crush.max_devices = 25;
  s.osds.push_back(OsdInfo{kOsdExists | kOsdUp, 0x10000, kDefaultPrimaryAffinity});
  s.osds[9].weight = 0;
  s.pools[1].pg_num = 6000;
  out.push_back(s);
  s = before;  // an OSD removed from its host, the EC pool dropped
  crush::Bucket& host = s.crush.buckets[3];
  host.items.erase(host.items.begin());
  host.item_weights.erase(host.item_weights.begin());
  crush_testing::FinishBucket(host);
  SetCrushWeight(s.crush, host.id, host.weight);
  s.pools.erase(3);
  out.push_back(s);
  out.push_back(before);  // nothing changed
  return out;
}

TEST(PgTableReplayTest, OneRecordingMapsManyStatesAsTheirFullMappings) {
  std::shared_ptr<const MappingSession> before = MakeSession();
  ASSERT_NE(before, nullptr);
  MapAllOptions opt;
  opt.threads = 2;
  const std::shared_ptr<const RecordedMapping> rec = RecordedMapping::Record(before, opt);
  ExpectSameTables(rec->table(), MapAllPgs(*before, opt));
  EXPECT_GT(rec->choices(), 5300u * 3);
  EXPECT_GT(rec->bytes(), rec->choices() * 8);
  EXPECT_TRUE(rec->Records(before->state()));
  std::uint64_t replayed = 0, reused = 0;
  for (ClusterState& s : ChangedStates(before->state())) {
    const bool same = rec->Records(s);
    auto after = MappingSession::Create(std::move(s));
    ASSERT_TRUE(after.ok()) << after.status();
    for (int threads : {1, 3}) {
      MapAllOptions o = opt;
      o.threads = threads;
      o.verify_incremental = true;
      ReplayStats stats;
      const PgTable through = MapAllPgsReplayed(*rec, **after, o, &stats);
      o.verify_incremental = false;
      ExpectSameTables(through, MapAllPgs(**after, o));
      EXPECT_EQ(stats.verify_mismatches, 0u) << stats.first_mismatch;
      replayed += stats.crush_replayed;
      reused += stats.crush_reused;
      // The paired mapping through the recording: before's table is the
      // recorded one, after's the same as above.
      o.recorded = rec;
      const PgTablePair paired = MapAllPgsPaired(*before, **after, o);
      EXPECT_EQ(paired.recorded, rec);
      ExpectSameTables(paired.before, rec->table());
      ExpectSameTables(paired.after, through);
      if (same) {
        EXPECT_EQ(stats.crush_reused, through.total_pgs());
      }
    }
  }
  EXPECT_GT(replayed, 10000u);
  EXPECT_GT(reused, 10000u);
}

// A host of 3 new OSDs (24..26) appended to the root, as `crushkit plan`
// of an added rack or host makes it: max_devices and max_osd grow and the
// root's only change is an appended item (a partially shared bucket).
ClusterState WithNewHost(const ClusterState& before, crush::Weight osd_weight) {
  ClusterState s = before;
  crush::Bucket host = s.crush.buckets[1];
  host.id = -static_cast<crush::ItemId>(s.crush.buckets.size()) - 1;
  host.items = {24, 25, 26};
  host.item_weights.assign(3, osd_weight);
  crush_testing::FinishBucket(host);
  s.crush.buckets.push_back(host);
  s.crush.item_names[host.id] = "newhost";
  s.crush.max_devices = 27;
  for (int i = 0; i < 3; ++i) {
    s.osds.push_back(OsdInfo{kOsdExists | kOsdUp, 0x10000, kDefaultPrimaryAffinity});
  }
  AddCrushItem(s.crush, s.crush.buckets[0].id, host.id, host.weight);
  return s;
}

// The paired mapping takes before's CRUSH result for a PG whose draws in the
// root all keep their winner with the new host there
// (ChoiceMemo::partial_choices_hold), and maps the others: the same table
// as mapping the after state on its own, without any memo.
TEST(PgTableTest, PairedMappingReusesPgsTheAddedHostDoesNotWin) {
  auto before = MakeSession();
  ASSERT_NE(before, nullptr);
  ASSERT_EQ(before->state().crush.buckets[0].items.size(), 8u);  // the root holds the hosts
  for (const crush::Weight w : {crush::Weight{0x10000}, crush::Weight{0x1000}}) {
    auto after = MappingSession::Create(WithNewHost(before->state(), w));
    ASSERT_TRUE(after.ok()) << after.status();
    for (int threads : {1, 3}) {
      MapAllOptions opt;
      opt.threads = threads;
      opt.verify_incremental = true;
      const PgTablePair paired = MapAllPgsPaired(*before, **after, opt);
      EXPECT_EQ(paired.verify_mismatches, 0u) << paired.first_mismatch;
      opt.verify_incremental = false;
      ExpectSameTables(paired.after, MapAllPgs(**after, opt));
      ExpectSameTables(paired.before, MapAllPgs(*before, opt));
      // Most PGs keep their result; a host of 1/9 of the weight takes ~1/3
      // of the PGs' sets (~1/30 at 1/16 of the weight).
      EXPECT_GT(paired.crush_reused, 5300u / 2) << w;
      EXPECT_GT(paired.crush_mapped, 5300u / 100) << w;
    }
  }
}

// The replay's counterpart: a recorded PG whose choices in the changed
// root all keep their winner with the new host there
// (crush::RecordedChoicesHold) takes its recorded CRUSH result.
TEST(PgTableReplayTest, ReplayReusesPgsTheAddedHostDoesNotWin) {
  std::shared_ptr<const MappingSession> before = MakeSession();
  ASSERT_NE(before, nullptr);
  MapAllOptions opt;
  opt.threads = 2;
  const std::shared_ptr<const RecordedMapping> rec = RecordedMapping::Record(before, opt);
  for (const crush::Weight w : {crush::Weight{0x10000}, crush::Weight{0x1000}}) {
    auto after = MappingSession::Create(WithNewHost(before->state(), w));
    ASSERT_TRUE(after.ok()) << after.status();
    MapAllOptions o = opt;
    o.verify_incremental = true;
    ReplayStats stats;
    const PgTable through = MapAllPgsReplayed(*rec, **after, o, &stats);
    EXPECT_EQ(stats.verify_mismatches, 0u) << stats.first_mismatch;
    o.verify_incremental = false;
    ExpectSameTables(through, MapAllPgs(**after, o));
    EXPECT_GT(stats.crush_reused, 5300u / 2) << w;
    EXPECT_GT(stats.crush_replayed, 5300u / 100) << w;
  }
}

// `earlier_held`: the PGs that did not hold on a lighter new host are
// replayed on a heavier one without deciding again, the same table; the
// others still decide (and mostly hold); a mismatched shape is ignored.
TEST(PgTableReplayTest, PgsThatDidNotHoldEarlierOnTheWayAreReplayed) {
  std::shared_ptr<const MappingSession> before = MakeSession();
  ASSERT_NE(before, nullptr);
  MapAllOptions opt;
  opt.threads = 2;
  const std::shared_ptr<const RecordedMapping> rec = RecordedMapping::Record(before, opt);
  auto light = MappingSession::Create(WithNewHost(before->state(), crush::Weight{0x1000}));
  auto heavy = MappingSession::Create(WithNewHost(before->state(), crush::Weight{0x10000}));
  ASSERT_TRUE(light.ok() && heavy.ok());
  std::vector<std::vector<std::uint8_t>> held_light, held_heavy, held_free;
  MapAllPgsReplayed(*rec, **light, opt, nullptr, nullptr, &held_light);
  ReplayStats free_stats, stats;
  MapAllPgsReplayed(*rec, **heavy, opt, &free_stats, nullptr, &held_free);
  MapAllOptions o = opt;
  o.verify_incremental = true;
  const PgTable through =
      MapAllPgsReplayed(*rec, **heavy, o, &stats, nullptr, &held_heavy, &held_light);
  EXPECT_EQ(stats.verify_mismatches, 0u) << stats.first_mismatch;
  o.verify_incremental = false;
  ExpectSameTables(through, MapAllPgs(**heavy, o));
  std::uint64_t lost = 0, kept_after_loss = 0;
  for (std::size_t k = 0; k < held_light.size(); ++k) {
    for (std::size_t ps = 0; ps < held_light[k].size(); ++ps) {
      lost += held_light[k][ps] == 0 ? 1 : 0;
      EXPECT_TRUE(held_light[k][ps] != 0 || held_heavy[k][ps] == 0) << k << "." << ps;
      kept_after_loss += held_light[k][ps] == 0 && held_free[k][ps] != 0 ? 1 : 0;
    }
  }
  EXPECT_GT(lost, 5300u / 100);
  EXPECT_EQ(stats.crush_reused, free_stats.crush_reused - kept_after_loss);
  EXPECT_GT(stats.crush_reused, 5300u / 2);
  // No PG held earlier: every recorded PG replayed undecided, the same
  // table; a shape of other pools is ignored.
  std::vector<std::vector<std::uint8_t>> none = held_light;
  for (auto& pool : none) std::fill(pool.begin(), pool.end(), 0);
  ReplayStats all_replayed, ignored;
  ExpectSameTables(MapAllPgsReplayed(*rec, **heavy, opt, &all_replayed, nullptr, nullptr, &none),
                   MapAllPgs(**heavy, o));
  EXPECT_EQ(all_replayed.crush_reused, 0u);
  std::vector<std::vector<std::uint8_t>> other(1, std::vector<std::uint8_t>(7, 0));
  MapAllPgsReplayed(*rec, **heavy, opt, &ignored, nullptr, nullptr, &other);
  EXPECT_EQ(ignored.crush_reused, free_stats.crush_reused);
}

// KeptPgs: the PGs whose recorded result holds with the new host at full
// weight keep it on the way there (the host's OSDs lighter), so a replay
// that takes them undecided equals the full mapping; a state past the
// target, or another recording, is not covered.
TEST(PgTableReplayTest, KeptPgsOfTheTargetServeTheStatesOnTheWay) {
  std::shared_ptr<const MappingSession> before = MakeSession();
  ASSERT_NE(before, nullptr);
  MapAllOptions opt;
  opt.threads = 2;
  const std::shared_ptr<const RecordedMapping> rec = RecordedMapping::Record(before, opt);
  auto target = MappingSession::Create(WithNewHost(before->state(), 0x10000));
  ASSERT_TRUE(target.ok()) << target.status();
  const std::shared_ptr<const KeptPgs> kept =
      KeptPgs::Find(rec, std::shared_ptr<const MappingSession>(*std::move(target)), opt);
  EXPECT_GT(kept->count(), 5300u / 2);
  EXPECT_LT(kept->count(), 5300u - 5300u / 100);
  for (const crush::Weight w :
       {crush::Weight{0}, crush::Weight{0x400}, crush::Weight{0x8000}, crush::Weight{0x10000}}) {
    auto step = MappingSession::Create(WithNewHost(before->state(), w));
    ASSERT_TRUE(step.ok()) << step.status();
    EXPECT_TRUE(kept->Covers(*rec, (*step)->state())) << w;
    MapAllOptions o = opt;
    o.verify_incremental = true;
    ReplayStats stats;
    const PgTable through = MapAllPgsReplayed(*rec, **step, o, &stats, kept.get());
    EXPECT_EQ(stats.verify_mismatches, 0u) << stats.first_mismatch;
    EXPECT_GE(stats.crush_reused, kept->count()) << w;
    o.verify_incremental = false;
    ExpectSameTables(through, MapAllPgs(**step, o));
  }
  auto past = MappingSession::Create(WithNewHost(before->state(), 0x40000));
  ASSERT_TRUE(past.ok()) << past.status();
  EXPECT_FALSE(kept->Covers(*rec, (*past)->state()));
  const ClusterState half = WithNewHost(before->state(), 0x8000);
  EXPECT_FALSE(kept->Covers(*RecordedMapping::Record(before, opt), half));
}

// With the target's table the kept PGs copy their up rows from it: the
// same tables as mapping the state in full, also for a kept PG whose
// upmaps on the way differ from the target's (it is mapped, not copied)
// and when acting sets are asked for (the rows hold none: nothing copied).
TEST(PgTableReplayTest, KeptPgsCopyTheTargetsRowsWhereTheUpmapsAgree) {
  std::shared_ptr<const MappingSession> before = MakeSession();
  ASSERT_NE(before, nullptr);
  MapAllOptions opt;
  opt.threads = 2;
  opt.acting = false;
  const std::shared_ptr<const RecordedMapping> rec = RecordedMapping::Record(before, opt);
  auto target = MappingSession::Create(WithNewHost(before->state(), 0x10000));
  ASSERT_TRUE(target.ok()) << target.status();
  auto rows = std::make_shared<const PgTable>(MapAllPgs(**target, opt));
  const std::shared_ptr<const KeptPgs> kept =
      KeptPgs::Find(rec, std::shared_ptr<const MappingSession>(*std::move(target)), opt, rows);
  ASSERT_NE(kept->RowsForPool(1), nullptr);
  const std::vector<std::uint8_t>& kept1 = *kept->ForPool(1);
  const auto ps =
      static_cast<std::uint32_t>(std::find(kept1.begin(), kept1.end(), 1) - kept1.begin());
  ASSERT_LT(ps, kept1.size());
  const std::span<const std::int32_t> up = rows->Find(1)->Up(ps);
  std::int32_t to = 0;
  while (to == 5 || to == 7 || std::find(up.begin(), up.end(), to) != up.end()) ++to;
  ClusterState half = WithNewHost(before->state(), 0x8000);
  half.pg_upmap_items[PgId{1, ps}] = {{up[0], to}};
  auto step = MappingSession::Create(std::move(half));
  ASSERT_TRUE(step.ok()) << step.status();
  ASSERT_TRUE(kept->Covers(*rec, (*step)->state()));
  for (const bool acting : {false, true}) {
    MapAllOptions o = opt;
    o.acting = acting;
    o.verify_incremental = true;
    ReplayStats stats;
    const PgTable through = MapAllPgsReplayed(*rec, **step, o, &stats, kept.get());
    EXPECT_EQ(stats.verify_mismatches, 0u) << stats.first_mismatch;
    o.verify_incremental = false;
    ExpectSameTables(through, MapAllPgs(**step, o));
    const std::span<const std::int32_t> moved = through.Find(1)->Up(ps);
    EXPECT_NE(std::find(moved.begin(), moved.end(), to), moved.end()) << acting;
  }
}

// The paired mapping that records (a staged plan follows) keeps which PGs
// held their recorded result on the after state: the KeptPgs made from it
// are Find()'s, PG for PG; without MapAllOptions::record nothing is kept.
TEST(PgTableReplayTest, PairedMappingKeepsTheDecisionsKeptPgsFindMakes) {
  std::shared_ptr<const MappingSession> before = MakeSession();
  ASSERT_NE(before, nullptr);
  auto made = MappingSession::Create(WithNewHost(before->state(), 0x10000));
  ASSERT_TRUE(made.ok()) << made.status();
  const std::shared_ptr<const MappingSession> target(*std::move(made));
  MapAllOptions opt;
  opt.threads = 2;
  EXPECT_TRUE(MapAllPgsPaired(*before, *target, opt).held.empty());
  opt.record = true;
  const PgTablePair pair = MapAllPgsPaired(*before, *target, opt);
  ASSERT_NE(pair.recorded, nullptr);
  ASSERT_EQ(pair.held.size(), 2u);  // pools 1 and 3
  const std::shared_ptr<const KeptPgs> found = KeptPgs::Find(pair.recorded, target, opt);
  const std::shared_ptr<const KeptPgs> held =
      KeptPgs::FromHeld(pair.recorded, target, pair.held, nullptr);
  ASSERT_NE(held, nullptr);
  EXPECT_GT(found->count(), 5300u / 2);
  EXPECT_EQ(held->count(), found->count());
  for (const std::int64_t pool : {1, 3}) {
    ASSERT_NE(held->ForPool(pool), nullptr);
    EXPECT_EQ(*held->ForPool(pool), *found->ForPool(pool)) << pool;
  }
  EXPECT_EQ(KeptPgs::FromHeld(pair.recorded, target, {pair.held[0]}, nullptr), nullptr);
}

TEST(PgTableReplayTest, RecordedAndRecordOptionsServeThePairedMapping) {
  std::shared_ptr<const MappingSession> before = MakeSession();
  ASSERT_NE(before, nullptr);
  ClusterState s = before->state();
  SetCrushWeight(s.crush, 4, 0x4000);
  auto after = MappingSession::Create(std::move(s));
  ASSERT_TRUE(after.ok()) << after.status();
  MapAllOptions opt;
  opt.threads = 2;
  const PgTablePair plain = MapAllPgsPaired(*before, **after, opt);
  EXPECT_EQ(plain.recorded, nullptr);
  opt.record = true;
  const PgTablePair recorded = MapAllPgsPaired(*before, **after, opt);
  ASSERT_NE(recorded.recorded, nullptr);
  ExpectSameTables(recorded.before, plain.before);
  ExpectSameTables(recorded.after, plain.after);
  opt.record = false;
  opt.recorded = recorded.recorded;
  const PgTablePair through = MapAllPgsPaired(*before, **after, opt);
  EXPECT_EQ(through.recorded, recorded.recorded);
  ExpectSameTables(through.after, plain.after);
  // A recording of another state, or with other acting sets, is ignored.
  const PgTablePair swapped = MapAllPgsPaired(**after, *before, opt);
  EXPECT_EQ(swapped.recorded, nullptr);
  ExpectSameTables(swapped.after, plain.before);
  opt.acting = !opt.acting;
  EXPECT_EQ(MapAllPgsPaired(*before, **after, opt).recorded, nullptr);
}

}  // namespace
}  // namespace crushkit::osdmap
