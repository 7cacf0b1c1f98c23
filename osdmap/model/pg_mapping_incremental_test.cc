#include "osdmap/model/pg_mapping_incremental.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "osdmap/model/pg_table.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::osdmap {
namespace {

// 4 racks x 4 hosts x 4 OSDs; some OSDs out or half in (rejections and
// retries); a replicated, an EC and a rack-level pool.
ClusterState BaseState() {
  ClusterState s;
  crush_testing::ClusterSpec spec;
  spec.hosts = 16;
  spec.osds_per_host = 4;
  spec.racks = 4;
  s.crush = crush_testing::MakeClusterModel(spec);
  s.osds.assign(64, OsdInfo{kOsdExists | kOsdUp, 0x10000, kDefaultPrimaryAffinity});
  s.osds[5].weight = 0;
  s.osds[6].weight = 0;
  s.osds[7].weight = 0;
  s.osds[20].weight = 0x6000;
  s.osds[33].state = kOsdExists;  // down
  Pool rep;
  rep.id = 1;
  rep.name = "rep";
  rep.crush_rule = crush_testing::kReplicatedRule;
  rep.pg_num = rep.pgp_num = 2048;
  s.pools[1] = rep;
  Pool ec = rep;
  ec.id = 2;
  ec.name = "ec";
  ec.type = PoolType::kErasure;
  ec.size = 5;
  ec.crush_rule = crush_testing::kEcRule;
  ec.pg_num = ec.pgp_num = 512;
  s.pools[2] = ec;
  Pool racks = rep;
  racks.id = 3;
  racks.name = "racks";
  racks.crush_rule = crush_testing::kRackRule;
  racks.pg_num = racks.pgp_num = 512;
  s.pools[3] = racks;
  return s;
}

crush::Bucket& BucketById(ClusterState& s, crush::ItemId id) {
  return s.crush.buckets[static_cast<std::size_t>(crush::BucketSlot(id))];
}

// Host h is bucket -(1 + 4 racks + 1 + h); rack r is -(2 + r).
crush::ItemId Host(int h) { return -(6 + h); }

crush::ItemId Rack(int r) { return -(2 + r); }

// Sets the CRUSH weight of `item` in `bucket` (no propagation upwards).
void SetItemWeight(ClusterState& s, crush::ItemId bucket, crush::ItemId item, crush::Weight w) {
  crush::Bucket& b = BucketById(s, bucket);
  for (std::size_t i = 0; i < b.items.size(); ++i) {
    if (b.items[i] == item) b.item_weights[i] = w;
  }
  crush_testing::FinishBucket(b);
}

struct Outcome {
  std::uint64_t crush_mapped = 0;
  std::uint64_t crush_reused = 0;
};

// Maps base -> changed paired (incremental) and checks both tables against
// separate full mappings, with the verify mode on.
Outcome MapBothWays(const ClusterState& base, ClusterState changed, const std::string& what) {
  auto before = MappingSession::Create(base);
  auto after = MappingSession::Create(std::move(changed));
  EXPECT_TRUE(before.ok() && after.ok()) << what;
  if (!before.ok() || !after.ok()) return {};
  MapAllOptions opt;
  opt.threads = 2;
  opt.verify_incremental = true;
  const PgTablePair pair = MapAllPgsPaired(**before, **after, opt);
  EXPECT_EQ(pair.verify_mismatches, 0u) << what << ": " << pair.first_mismatch;
  const PgTable full = MapAllPgs(**after, opt);
  EXPECT_EQ(full.pools.size(), pair.after.pools.size()) << what;
  for (std::size_t i = 0; i < full.pools.size() && i < pair.after.pools.size(); ++i) {
    EXPECT_EQ(full.pools[i].up, pair.after.pools[i].up) << what;
    EXPECT_EQ(full.pools[i].acting, pair.after.pools[i].acting) << what;
    EXPECT_EQ(full.pools[i].up_primary, pair.after.pools[i].up_primary) << what;
    EXPECT_EQ(full.pools[i].acting_primary, pair.after.pools[i].acting_primary) << what;
  }
  return {pair.crush_mapped, pair.crush_reused};
}

TEST(IncrementalMappingTest, OsdStateAndUpmapChangesNeedNoCrush) {
  const ClusterState base = BaseState();
  ClusterState s = base;
  s.osds[12].state = kOsdExists;  // down
  s.osds[40].state = 0;           // no longer exists
  s.osds[3].primary_affinity = 0x4000;
  s.pg_upmap_items[PgId{1, 17}] = {{0, 63}};
  s.pg_upmap[PgId{2, 3}] = {1, 2, 3, 4, 9};
  s.pg_temp[PgId{3, 4}] = {9, 10, 11};
  const Outcome o = MapBothWays(base, s, "states and upmaps");
  EXPECT_EQ(o.crush_mapped, 0u);
  EXPECT_EQ(o.crush_reused, 3072u);
}

TEST(IncrementalMappingTest, ReweightsRemapOnlyDescentsThroughTheirHosts) {
  const ClusterState base = BaseState();
  ClusterState s = base;
  s.osds[9].weight = 0;         // out
  s.osds[20].weight = 0x10000;  // back in
  s.osds[50].weight = 0x3000;
  const Outcome o = MapBothWays(base, s, "reweights");
  EXPECT_GT(o.crush_mapped, 0u);
  EXPECT_GT(o.crush_reused, 1000u);
}

TEST(IncrementalMappingTest, CrushEditsAtEveryLevel) {
  const ClusterState base = BaseState();
  const std::vector<std::pair<std::string, std::function<void(ClusterState&)>>> edits = {
      {"osd weight in its host", [](ClusterState& s) { SetItemWeight(s, Host(3), 13, 0x8000); }},
      {"host weight in its rack",
       [](ClusterState& s) { SetItemWeight(s, Rack(1), Host(5), 0x20000); }},
      {"reweight propagated to the root",
       [](ClusterState& s) {
         SetItemWeight(s, Host(9), 37, 0x18000);
         SetItemWeight(s, Rack(2), Host(9), 0x48000);
         SetItemWeight(s, -1, Rack(2), 0x108000);
       }},
      {"osd moved between hosts",
       [](ClusterState& s) {
         crush::Bucket& from = BucketById(s, Host(2));
         from.items.pop_back();  // osd.11
         from.item_weights.pop_back();
         crush_testing::FinishBucket(from);
         crush::Bucket& to = BucketById(s, Host(12));
         to.items.push_back(11);
         to.item_weights.push_back(0x10000);
         crush_testing::FinishBucket(to);
       }},
      {"host algorithm",
       [](ClusterState& s) {
         BucketById(s, Host(7)).alg = crush::BucketAlg::kList;
         crush_testing::FinishBucket(BucketById(s, Host(7)));
       }},
      {"weight set of one host",
       [](ClusterState& s) {
         crush::ChooseArg arg;
         arg.weight_set = {{0x10000, 0x4000, 0x10000, 0x10000}};
         s.crush.choose_args[crush::kCompatChooseArgs][Host(4)] = arg;
       }},
      {"host emptied",
       [](ClusterState& s) {
         crush::Bucket& b = BucketById(s, Host(14));
         b.items.clear();
         b.item_weights.clear();
         crush_testing::FinishBucket(b);
       }},
      {"tunables", [](ClusterState& s) { s.crush.tunables.choose_total_tries = 3; }},
      {"rule", [](ClusterState& s) { s.crush.rules[crush_testing::kEcRule].steps[0].arg1 = 2; }},
      {"pool size and pgp_num",
       [](ClusterState& s) {
         s.pools[1].size = 2;
         s.pools[3].pgp_num = 256;
       }},
  };
  for (const auto& [what, edit] : edits) {
    ClusterState s = base;
    edit(s);
    const Outcome o = MapBothWays(base, s, what);
    EXPECT_GT(o.crush_mapped, 0u) << what;
  }
}

TEST(IncrementalMappingTest, RandomEditMixes) {
  const ClusterState base = BaseState();
  std::mt19937 rng(40);
  for (int round = 0; round < 12; ++round) {
    ClusterState s = base;
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < n; ++k) {
      const int osd = static_cast<int>(rng() % 64);
      switch (rng() % 4) {
        case 0:
          s.osds[static_cast<std::size_t>(osd)].weight =
              static_cast<crush::Weight>(rng() % 0x10001);
          break;
        case 1:
          SetItemWeight(s, Host(osd / 4), osd, static_cast<crush::Weight>(rng() % 0x30000));
          break;
        case 2:
          s.osds[static_cast<std::size_t>(osd)].state ^= kOsdUp;
          break;
        default:
          SetItemWeight(s, Rack(osd / 16), Host(osd / 4),
                        static_cast<crush::Weight>(rng() % 0x80000));
          break;
      }
    }
    MapBothWays(base, s, "round " + std::to_string(round));
  }
}

}  // namespace
}  // namespace crushkit::osdmap
