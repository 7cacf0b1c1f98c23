// CrushPlacement: the osdmap pipeline's real CRUSH step.
#include "osdmap/model/crush_placement.h"

#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

#include "crush/choice_memo.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_mapping.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::osdmap {
namespace {

TEST(CrushPlacementTest, EqualsTheMapperAndHonoursASmallerWorkBudget) {
  const crush::MapModel model = crush_testing::MakeClusterModel({});
  auto map = crush::CrushMap::Build(model);
  ASSERT_TRUE(map.ok()) << map.status();
  const std::vector<crush::Weight> weights(16, 0x10000);
  crush::Workspace ws(*map, 3);
  CrushPlacement placement(*map, crush::kDefaultCephRelease);
  for (std::uint32_t x = 0; x < 100; ++x) {
    std::array<std::int32_t, 3> direct{};
    std::array<std::int32_t, 3> via{};
    const int n = crush::DoRule(*map, crush_testing::kReplicatedRule, x, weights, ws, direct);
    ASSERT_EQ(n, 3);
    ASSERT_EQ(placement.DoRule(crush_testing::kReplicatedRule, x, weights, /*pool=*/1, via), n);
    EXPECT_EQ(via, direct) << "x " << x;
  }
  // A budget of one bucket item lets the first draw finish and stops every
  // later one: the 4-host, 4-OSD-per-host map cannot place three replicas.
  placement.set_work_budget(1);
  std::array<std::int32_t, 3> out{};
  EXPECT_LT(placement.DoRule(crush_testing::kReplicatedRule, 7, weights, 1, out), 3);
}

// A replicated and an EC pool on 12 hosts in 3 racks; `slow_host` (if >= 0)
// has its OSDs at half CRUSH weight, and OSD 5 is half out.
ClusterState PairState(int slow_host) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 12;
  spec.osds_per_host = 4;
  spec.racks = 3;
  spec.osd_weights.assign(48, crush::kWeightOne);
  if (slow_host >= 0) {
    for (int i = 0; i < 4; ++i) spec.osd_weights[static_cast<std::size_t>(slow_host * 4 + i)] /= 2;
  }
  ClusterState cs;
  cs.crush = crush_testing::MakeClusterModel(spec);
  cs.osds.assign(48, OsdInfo{kOsdExists | kOsdUp, crush::kWeightOne, 0x10000});
  cs.osds[5].weight = 0x8000;
  Pool rep;
  rep.id = 1;
  rep.pg_num = rep.pgp_num = 512;
  cs.pools[1] = rep;
  Pool ec;
  ec.id = 2;
  ec.type = PoolType::kErasure;
  ec.size = 5;
  ec.min_size = 4;
  ec.crush_rule = crush_testing::kEcRule;
  ec.pg_num = ec.pgp_num = 256;
  ec.ec_k = 3;
  ec.ec_m = 2;
  cs.pools[2] = ec;
  return cs;
}

// The paired all-PG mapping crushkit diff does: each PG mapped on the
// before state (recording) and then on the after state (replaying) equals
// the two states mapped on their own, and the memo is really used.
TEST(CrushPlacementTest, PairedMappingWithAChoiceMemoEqualsPlainMapping) {
  auto before = MappingSession::Create(PairState(-1));
  auto after = MappingSession::Create(PairState(7));
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_TRUE(after.ok()) << after.status();
  crush::ChoiceMemo memo((*before)->crush_map(), (*after)->crush_map());
  EXPECT_EQ(memo.shared_slots(), 16 - 3);  // all but the root, rack1 and host7
  auto wb = (*before)->NewWorker();
  auto wa = (*after)->NewWorker();
  wb->placement().RecordChoicesInto(&memo);
  wa->placement().ReplayChoicesFrom(&memo);
  std::uint64_t hits = 0;
  for (const std::int64_t pool_id : {std::int64_t{1}, std::int64_t{2}}) {
    const Pool& pb = (*before)->state().pools.at(pool_id);
    const Pool& pa = (*after)->state().pools.at(pool_id);
    for (std::uint32_t ps = 0; ps < pb.pg_num; ++ps) {
      PgMapping paired_b, paired_a, plain_b, plain_a;
      wb->mapper().MapPg(pb, ps, &paired_b);
      wa->mapper().MapPg(pa, ps, &paired_a);
      hits += wa->placement().memo_hits();
      (*before)->mapper().MapPg(pb, ps, &plain_b);
      (*after)->mapper().MapPg(pa, ps, &plain_a);
      ASSERT_EQ(paired_b.raw, plain_b.raw) << "pool " << pool_id << " ps " << ps;
      ASSERT_EQ(paired_a.raw, plain_a.raw) << "pool " << pool_id << " ps " << ps;
      ASSERT_EQ(paired_a.acting, plain_a.acting);
    }
  }
  EXPECT_GT(hits, 768u * 3);  // most rack and host draws of the after state
}

// Pacific's OSDMap resolves a pool's crush_rule through find_rule() (type
// and size must fit the rule); Quincy dropped it and takes the id as it is
// (Ceph 16.2 vs 20.2 osdmaptool on the same map map such pools differently).
TEST(FindCrushRuleTest, PacificMatchesTypeAndSizeQuincyAndLaterTakeTheId) {
  crush::MapModel m;
  m.rules.resize(2);
  m.rule_exists = {true, true};
  m.rules[0] = crush::Rule{.ruleset = 0,
                           .type = crush::RuleType::kReplicated,
                           .min_size = 1,
                           .max_size = 3,
                           .steps = {}};
  m.rules[1] = crush::Rule{
      .ruleset = 1, .type = crush::RuleType::kErasure, .min_size = 3, .max_size = 6, .steps = {}};
  constexpr int kReplicated = 1, kErasure = 3;
  EXPECT_EQ(FindCrushRule(m, 0, kReplicated, 3, crush::CephRelease::kPacific), 0);
  EXPECT_EQ(FindCrushRule(m, 0, kReplicated, 4, crush::CephRelease::kPacific),
            -1);  // size 4 > max_size
  EXPECT_EQ(FindCrushRule(m, 1, kReplicated, 4, crush::CephRelease::kPacific), -1);  // wrong type
  EXPECT_EQ(FindCrushRule(m, 1, kErasure, 4, crush::CephRelease::kPacific), 1);
  for (crush::CephRelease r : {crush::CephRelease::kReef, crush::CephRelease::kTentacle}) {
    EXPECT_EQ(FindCrushRule(m, 0, kReplicated, 4, r), 0);
    EXPECT_EQ(FindCrushRule(m, 1, kReplicated, 9, r), 1);
    EXPECT_EQ(FindCrushRule(m, 2, kReplicated, 3, r), -1);  // no such rule
    EXPECT_EQ(FindCrushRule(m, -1, kReplicated, 3, r), -1);
  }
}

}  // namespace
}  // namespace crushkit::osdmap
