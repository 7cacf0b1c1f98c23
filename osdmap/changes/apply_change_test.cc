// ApplyChange on a small hand-built state: each operation's effect on the
// osdmap and the crush model, the re-encoded crush bytes, and the apply-time
// diagnostics (line:col of the offending word, nothing half-applied).
#include "osdmap/changes/apply_change.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/codec.h"
#include "crush/edit/edit.h"
#include "crush/map.h"
#include "crush/model.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using ::crush_testing::IsOk;
using ::crush_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr crush::Weight kOne = 0x10000;

// default (root) > rack0 > host0 (osd.0, osd.1), host1 (osd.2, osd.3)
//               > rack1 > host2 (osd.4, osd.5), host3 (osd.6, osd.7)
// Rules 0 replicated_rule, 1 ec_rule, 2 rack_rule. Pools 1 "rbd"
// (replicated, size 3) and 2 "ecpool" (erasure 2+1). All OSDs up and in.
ClusterState SmallState() {
  crush_testing::ClusterSpec spec;
  spec.hosts = 4;
  spec.osds_per_host = 2;
  spec.racks = 2;
  ClusterState st;
  st.epoch = 10;
  st.crush = crush_testing::MakeClusterModel(spec);
  st.osds.assign(8, OsdInfo{kOsdExists | kOsdUp, kOne, kDefaultPrimaryAffinity});
  Pool rbd;
  rbd.id = 1;
  rbd.name = "rbd";
  rbd.pg_num = rbd.pgp_num = 64;
  st.pools[1] = rbd;
  Pool ec;
  ec.id = 2;
  ec.name = "ecpool";
  ec.type = PoolType::kErasure;
  ec.crush_rule = 1;
  ec.pg_num = ec.pgp_num = 32;
  ec.ec_k = 2;
  ec.ec_m = 1;
  ec.min_size = 2;
  st.pools[2] = ec;
  st.osd_usage[5] = OsdUsage{1000, 10, std::nullopt};
  return st;
}

absl::StatusOr<ClusterState> Apply(const ClusterState& before, const std::string& text) {
  auto change = ParseChange(text, "ops.txt");
  if (!change.ok()) return change.status();
  return ApplyChange(before, *change);
}

ClusterState ApplyOk(const std::string& text, const ClusterState& before = SmallState()) {
  auto after = Apply(before, text);
  EXPECT_THAT(after, IsOk()) << text;
  if (!after.ok()) return before;
  // The edited model encodes without loss.
  auto decoded = crush::DecodeCrushMap(EncodeCrush(*after));
  EXPECT_THAT(decoded, IsOk());
  if (decoded.ok()) {
    EXPECT_TRUE(*decoded == after->crush) << "the encoding does not decode to the model";
  }
  return *after;
}

std::string ApplyErrors(const std::string& text, const ClusterState& before = SmallState()) {
  auto after = Apply(before, text);
  EXPECT_THAT(after, StatusIs(absl::StatusCode::kInvalidArgument)) << text;
  return after.ok() ? "" : std::string(after.status().message());
}

crush::ItemId Id(const ClusterState& st, const std::string& name) {
  auto id = crush::FindItem(st.crush, name);
  EXPECT_THAT(id, IsOk()) << name;
  return id.ok() ? *id : 0;
}

// Items of the bucket `name` and their weights.
std::vector<crush::ItemId> Items(const ClusterState& st, const std::string& name) {
  const crush::Bucket* b = st.crush.FindBucket(Id(st, name));
  return b == nullptr ? std::vector<crush::ItemId>{} : b->items;
}

crush::Weight WeightIn(const ClusterState& st, const std::string& bucket, crush::ItemId item) {
  const crush::Bucket* b = st.crush.FindBucket(Id(st, bucket));
  if (b == nullptr) return 0xdeadbeef;
  for (std::size_t i = 0; i < b->items.size(); ++i) {
    if (b->items[i] == item) return b->item_weights[i];
  }
  return 0xdeadbeef;
}

TEST(ApplyChangeTest, EmptyChangeReturnsTheStateUnchanged) {
  const ClusterState before = SmallState();
  EXPECT_TRUE(ApplyOk("# nothing\n") == before);
}

TEST(ApplyChangeTest, OsdStates) {
  const ClusterState before = SmallState();
  const ClusterState st = ApplyOk(
      "osd out 1 osd.4\nosd in 1\nosd reweight 2 0.5\nosd in 2\nosd down 3\n"
      "osd down 6\nosd up 6\nosd reweight 7 0.123457\n");
  EXPECT_EQ(st.epoch, before.epoch + 1);
  EXPECT_EQ(st.osds[1].weight, kOne);
  EXPECT_EQ(st.osds[4].weight, 0u);
  EXPECT_EQ(st.osds[2].weight, 0x8000u);  // "osd in" leaves a partial reweight
  EXPECT_FALSE(st.IsUp(3));
  EXPECT_TRUE(st.Exists(3));
  EXPECT_TRUE(st.IsUp(6));
  EXPECT_EQ(st.osds[7].weight, 8090u);  // (int)(65536.0 * 0.123457)
  EXPECT_EQ(EncodeCrush(st), EncodeCrush(before));
}

TEST(ApplyChangeTest, UnknownOsdReportsTheWordAndAppliesNothing) {
  EXPECT_EQ(ApplyErrors("osd out 1\nosd out 2 osd.42\n"),
            "ops.txt:2:11: error: osd.42 does not exist\n"
            "osd out 2 osd.42\n"
            "          ^~~~~~\n");
}

TEST(ApplyChangeTest, EveryFailingOpIsReportedAndLaterOpsStillChecked) {
  const std::string errors = ApplyErrors(
      "osd reweight 9 0.5\nosd crush reweight osd.77 1\nosd out 1\n"
      "osd pool set rdb size 2\ndrain hots0\n");
  EXPECT_THAT(errors, HasSubstr("ops.txt:1:14: error: osd.9 does not exist\n"));
  EXPECT_THAT(errors, HasSubstr("ops.txt:2:20: error: unknown item 'osd.77' in the crush map; "
                                "did you mean 'osd.7'?\n"));
  EXPECT_THAT(errors, HasSubstr("ops.txt:4:14: error: unknown pool 'rdb'; did you mean 'rbd'?\n"));
  EXPECT_THAT(errors, HasSubstr("ops.txt:5:7: error: unknown item 'hots0' in the crush map; "
                                "did you mean 'host0'?\n"));
}

TEST(ApplyChangeTest, UpmapsAndPrimaryAffinity) {
  ClusterState before = SmallState();
  before.pg_upmap[PgId{1, 5}] = {0, 2, 4};
  const ClusterState st = ApplyOk(
      "osd pg-upmap-items 1.3f 0 4 1 1 2 6\n"  // "1 1" is dropped
      "osd pg-upmap-items 2.1 0 4 0 4\n"       // so is a repeated pair
      "osd pg-upmap 2.7 0 2 2\n"               // the repeated 2 is dropped
      "osd rm-pg-upmap 1.5\nosd rm-pg-upmap-items 1.6\n"
      "osd primary-affinity osd.3 0.5\n",
      before);
  EXPECT_THAT(st.pg_upmap_items.at(PgId{1, 0x3f}), ElementsAre(std::pair{0, 4}, std::pair{2, 6}));
  EXPECT_THAT(st.pg_upmap_items.at(PgId{2, 1}), ElementsAre(std::pair{0, 4}));
  EXPECT_THAT(st.pg_upmap.at(PgId{2, 7}), ElementsAre(0, 2));
  EXPECT_EQ(st.pg_upmap.count(PgId{1, 5}), 0u);
  EXPECT_EQ(st.osds[3].primary_affinity, 0x8000u);
  EXPECT_EQ(EncodeCrush(st), EncodeCrush(before));

  EXPECT_THAT(ApplyErrors("osd pg-upmap-items 1.40 0 4\n"),
              HasSubstr("ops.txt:1:20: error: pg 1.40 does not exist (pool 'rbd' has pg_num 64)"));
  EXPECT_THAT(ApplyErrors("osd pg-upmap-items 7.0 0 4\n"),
              HasSubstr("error: pg 7.0: pool 7 does not exist"));
  EXPECT_THAT(ApplyErrors("osd pg-upmap-items 1.0 0 4 1 5 2 6 3 7\n"),
              HasSubstr("4 pairs for pg 1.0; pool 'rbd' has size 3"));
  EXPECT_THAT(ApplyErrors("osd pg-upmap-items 1.0 0 0\n"),
              HasSubstr("no valid FROM TO pair for pg 1.0"));
  EXPECT_THAT(ApplyErrors("osd pg-upmap-items 1.0 0 9\n"),
              HasSubstr("ops.txt:1:26: error: osd.9 does not exist"));
  EXPECT_THAT(ApplyErrors("osd pg-upmap 1.0 1\n"),
              HasSubstr("1 OSDs for pg 1.0; pool 'rbd' needs 2..3"));
}

// pg_upmap_primaries (Reef and later): a new primary from the PG's acting
// set; the mapping moves the primary only, no data.
TEST(ApplyChangeTest, PgUpmapPrimary) {
  const ClusterState before = SmallState();
  auto map = crush::CrushMap::Build(before.crush);
  ASSERT_THAT(map, IsOk());
  CrushPlacement placement(*map, before.ceph_release);
  PgMapper mapper(before, placement);
  PgMapping m;
  mapper.MapPg(before.pools.at(1), 0, &m);
  ASSERT_EQ(m.acting.size(), 3u);
  const std::int32_t primary = m.acting_primary;
  const std::int32_t other = m.acting.span()[1];
  std::int32_t outside = 0;
  while (std::find(m.acting.span().begin(), m.acting.span().end(), outside) !=
         m.acting.span().end()) {
    ++outside;
  }
  const ClusterState st = ApplyOk("osd pg-upmap-primary 1.0 " + std::to_string(other) + "\n");
  EXPECT_EQ(st.pg_upmap_primaries.at(PgId{1, 0}), other);
  PgMapper after_mapper(st, placement);
  PgMapping after;
  after_mapper.MapPg(st.pools.at(1), 0, &after);
  EXPECT_EQ(after.acting_primary, other);
  const ClusterState removed = ApplyOk("osd rm-pg-upmap-primary 1.0\n", st);
  EXPECT_TRUE(removed.pg_upmap_primaries.empty());

  EXPECT_THAT(ApplyErrors("osd pg-upmap-primary 1.0 " + std::to_string(primary) + "\n"),
              HasSubstr("osd." + std::to_string(primary) + " is already primary for pg 1.0"));
  EXPECT_THAT(ApplyErrors("osd pg-upmap-primary 1.0 " + std::to_string(outside) + "\n"),
              HasSubstr("osd." + std::to_string(outside) + " is not in the acting set of pg 1.0"));
  EXPECT_THAT(ApplyErrors("osd pg-upmap-primary 2.0 0\n"),
              HasSubstr("pg-upmap-primary is only supported for replicated pools (pool 'ecpool' "
                        "is erasure-coded)"));
  EXPECT_THAT(ApplyErrors("osd pg-upmap-primary 1.40 0\n"),
              HasSubstr("pg 1.40 does not exist (pool 'rbd' has pg_num 64)"));
  EXPECT_THAT(ApplyErrors("osd pg-upmap-primary 1.0\n"), HasSubstr("OSD"));
  ClusterState pacific = SmallState();
  pacific.ceph_release = crush::CephRelease::kPacific;
  EXPECT_THAT(ApplyErrors("osd pg-upmap-primary 1.0 " + std::to_string(other) + "\n", pacific),
              HasSubstr("pg-upmap-primary needs Reef (18.2) or later; this state maps as pacific"));
}

TEST(ApplyChangeTest, Purge) {
  EXPECT_THAT(ApplyErrors("osd purge 5\n"),
              HasSubstr("ops.txt:1:11: error: osd.5 is up; Ceph purges only down OSDs (add "
                        "'osd down 5' first)"));
  const ClusterState before = SmallState();
  const ClusterState st = ApplyOk("osd down 5\nosd purge osd.5 --yes-i-really-mean-it\n");
  EXPECT_FALSE(st.Exists(5));
  EXPECT_EQ(st.osds[5].state, 0u);
  EXPECT_EQ(st.max_osd(), 8);
  EXPECT_EQ(st.osd_usage.count(5), 0u);
  EXPECT_THAT(crush::FindItem(st.crush, "osd.5"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(Items(st, "host2"), ElementsAre(4));
  EXPECT_EQ(st.crush.FindBucket(Id(st, "host2"))->weight, kOne);
  EXPECT_NE(EncodeCrush(st), EncodeCrush(before));
  EXPECT_THAT(ApplyErrors("osd down 5\nosd purge 5\nosd out 5\n"),
              HasSubstr("ops.txt:3:9: error: osd.5 does not exist"));
}

TEST(ApplyChangeTest, PoolSet) {
  ClusterState st = ApplyOk(
      "osd pool set rbd size 2\nosd pool set 2 pg_num 128\n"
      "osd pool set ecpool pgp_num 100\nosd pool set rbd min_size 2\n");
  EXPECT_EQ(st.pools[1].size, 2u);
  EXPECT_EQ(st.pools[1].min_size, 2u);
  EXPECT_EQ(st.pools[2].pg_num, 128u);
  EXPECT_EQ(st.pools[2].pgp_num, 100u);
  st = ApplyOk("osd pool set rbd size 4\n");
  EXPECT_EQ(st.pools[1].min_size, 2u);  // size - size/2, Pacific's default
  st = ApplyOk("osd pool set rbd crush_rule rack_rule\n");
  EXPECT_EQ(st.pools[1].crush_rule, 2);
  st = ApplyOk("osd pool set rbd crush_rule 2\n");
  EXPECT_EQ(st.pools[1].crush_rule, 2);

  EXPECT_THAT(ApplyErrors("osd pool set ecpool size 4\n"),
              HasSubstr("ops.txt:1:21: error: cannot change the size of erasure-coded pool "
                        "'ecpool'"));
  EXPECT_THAT(ApplyErrors("osd pool set rbd pgp_num 65\n"),
              HasSubstr("ops.txt:1:26: error: pgp_num 65 is above pg_num 64"));
  EXPECT_THAT(ApplyErrors("osd pool set rbd min_size 4\n"),
              HasSubstr("min_size 4 is out of range; expected 1..3"));
  EXPECT_THAT(ApplyErrors("osd pool set ecpool min_size 1\n"),
              HasSubstr("min_size 1 is out of range; expected 2..3"));
  EXPECT_THAT(ApplyErrors("osd pool set rbd crush_rule ec_rule\n"),
              HasSubstr("ops.txt:1:29: error: rule 1 is not of the pool's type (replicated)"));
  EXPECT_THAT(ApplyErrors("osd pool set rbd crush_rule 7\n"),
              HasSubstr("crush rule 7 does not exist"));
  EXPECT_THAT(ApplyErrors("osd pool set rbd crush_rule fast\n"),
              HasSubstr("unknown crush rule 'fast'"));
}

TEST(ApplyChangeTest, CrushReweightAndDrain) {
  ClusterState st = ApplyOk("osd crush reweight osd.3 2.5\n");
  EXPECT_EQ(WeightIn(st, "host1", 3), 0x28000u);
  EXPECT_EQ(st.crush.FindBucket(Id(st, "host1"))->weight, 0x38000u);
  EXPECT_EQ(WeightIn(st, "rack0", Id(st, "host1")), 0x38000u);

  st = ApplyOk("osd crush reweight-subtree rack1 0.5\n");
  for (const int osd : {4, 5}) EXPECT_EQ(WeightIn(st, "host2", osd), 0x8000u);
  for (const int osd : {6, 7}) EXPECT_EQ(WeightIn(st, "host3", osd), 0x8000u);
  EXPECT_EQ(WeightIn(st, "host0", 0), kOne);
  EXPECT_EQ(WeightIn(st, "default", Id(st, "rack1")), 0x20000u);

  st = ApplyOk("drain host0\ndrain osd.7\n");
  EXPECT_EQ(WeightIn(st, "host0", 0), 0u);
  EXPECT_EQ(WeightIn(st, "host0", 1), 0u);
  EXPECT_EQ(WeightIn(st, "host3", 7), 0u);
  EXPECT_EQ(WeightIn(st, "host3", 6), kOne);
  EXPECT_EQ(WeightIn(st, "rack0", Id(st, "host0")), 0u);

  EXPECT_THAT(ApplyErrors("osd crush reweight host0 1\n"),
              HasSubstr("ops.txt:1:20: error: 'host0' is a bucket, not a device"));
  EXPECT_THAT(ApplyErrors("osd crush reweight-subtree osd.1 1\n"),
              HasSubstr("ops.txt:1:28: error: 'osd.1' is a device, not a bucket"));
}

TEST(ApplyChangeTest, AddBucketAndMove) {
  ClusterState st = ApplyOk(
      "osd crush add-bucket host9 host rack=rack1\n"
      "osd crush move host0 rack=rack1\n"
      "osd crush move osd.2 host=host9\n");
  EXPECT_THAT(Items(st, "rack1"),
              ElementsAre(Id(st, "host2"), Id(st, "host3"), Id(st, "host9"), Id(st, "host0")));
  EXPECT_THAT(Items(st, "rack0"), ElementsAre(Id(st, "host1")));
  EXPECT_THAT(Items(st, "host9"), ElementsAre(2));
  EXPECT_EQ(WeightIn(st, "host9", 2), kOne);  // a moved device keeps its weight
  EXPECT_THAT(Items(st, "host1"), ElementsAre(3));

  EXPECT_THAT(ApplyErrors("osd crush add-bucket host0 host\n"),
              HasSubstr("ops.txt:1:22: error: item 'host0' already exists in the crush map"));
  EXPECT_THAT(ApplyErrors("osd crush add-bucket h9 hots\n"),
              HasSubstr("ops.txt:1:25: error: unknown type 'hots'; the crush map's types are "
                        "osd, host, rack, root"));
  EXPECT_THAT(ApplyErrors("osd crush add-bucket d9 osd\n"),
              HasSubstr("ops.txt:1:25: error: 'osd' is the device type"));
  EXPECT_THAT(ApplyErrors("osd crush add-bucket h9 host rack=host0\n"),
              HasSubstr("ops.txt:1:35: error: bucket 'host0' is a host, not a rack"));
  EXPECT_THAT(ApplyErrors("osd crush add-bucket r9 rack host=host0\n"),
              HasSubstr("ops.txt:1:30: error: location type 'host' is not above 'rack'"));
  EXPECT_THAT(ApplyErrors("osd crush add-bucket h9 host osd=osd.1\n"),
              HasSubstr("ops.txt:1:30: error: 'osd' is the device type; nothing can be placed "
                        "under a device"));
  EXPECT_THAT(ApplyErrors("osd crush add-bucket h9 host rack=osd.1\n"),
              HasSubstr("ops.txt:1:35: error: 'osd.1' is a device, not a bucket"));
  EXPECT_THAT(ApplyErrors("osd crush move rack0 root=rack0\n"),
              HasSubstr("bucket 'rack0' is a rack, not a root"));
}

TEST(ApplyChangeTest, CrushAddCreatesTheOsdAndSetMovesIt) {
  ClusterState st = ApplyOk("osd crush add osd.8 1.5 host=host3\n");
  EXPECT_EQ(st.max_osd(), 9);
  EXPECT_TRUE(st.IsUp(8));
  EXPECT_TRUE(st.IsIn(8));
  EXPECT_THAT(Items(st, "host3"), ElementsAre(6, 7, 8));
  EXPECT_EQ(WeightIn(st, "host3", 8), 0x18000u);
  EXPECT_GE(st.crush.max_devices, 9);

  // Adding an OSD already at the location only reweights it (check_item_loc).
  st = ApplyOk("osd crush add osd.6 2 host=host3\n");
  EXPECT_THAT(Items(st, "host3"), ElementsAre(6, 7));
  EXPECT_EQ(WeightIn(st, "host3", 6), 0x20000u);

  // Adding an OSD elsewhere links it a second time (insert_item), as Ceph.
  st = ApplyOk("osd crush add osd.0 1 host=host2\n");
  EXPECT_THAT(Items(st, "host0"), ElementsAre(0, 1));
  EXPECT_THAT(Items(st, "host2"), ElementsAre(4, 5, 0));
  // Moving a device where it already is changes nothing.
  EXPECT_TRUE(ApplyOk("osd crush move osd.0 host=host0\n").crush == SmallState().crush);

  st = ApplyOk("osd crush set osd.2 3 host=host3\n");
  EXPECT_THAT(Items(st, "host1"), ElementsAre(3));
  EXPECT_THAT(Items(st, "host3"), ElementsAre(6, 7, 2));
  EXPECT_EQ(WeightIn(st, "host3", 2), 0x30000u);

  EXPECT_THAT(ApplyErrors("osd crush set osd.12 1 host=host3\n"),
              HasSubstr("ops.txt:1:15: error: osd.12 does not exist"));
  // Missing location buckets are created (the top one unlinked, as Ceph).
  st = ApplyOk("osd crush add osd.9 1 host=nohost rack=norack\n");
  EXPECT_EQ(st.max_osd(), 10);
  EXPECT_FALSE(st.Exists(8));
  EXPECT_TRUE(st.IsIn(9));
  EXPECT_THAT(Items(st, "nohost"), ElementsAre(9));
  EXPECT_THAT(Items(st, "norack"), ElementsAre(Id(st, "nohost")));
}

TEST(ApplyChangeTest, RemoveAndUnlink) {
  ClusterState st = ApplyOk("osd crush rm osd.0\nosd crush unlink osd.1\n");
  EXPECT_THAT(crush::FindItem(st.crush, "osd.0"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_TRUE(Items(st, "host0").empty());
  EXPECT_TRUE(st.Exists(0));  // crush rm leaves the osdmap alone
  st = ApplyOk("osd crush rm osd.0\nosd crush rm osd.1\nosd crush remove host0\n");
  EXPECT_THAT(crush::FindItem(st.crush, "host0"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(Items(st, "rack0"), ElementsAre(Id(st, "host1")));

  EXPECT_THAT(ApplyErrors("osd crush rm host0\n"),
              HasSubstr("ops.txt:1:14: error: cannot remove 'host0': "));
}

TEST(ApplyChangeTest, DeviceClassesAndClassRule) {
  ClusterState st = ApplyOk(
      "osd crush set-device-class ssd osd.0 osd.2 4 6\n"
      "osd crush rule create-replicated fast default host ssd\n"
      "osd crush rule create-replicated by_osd default osd\n"
      "osd pool set rbd crush_rule fast\n");
  ASSERT_EQ(st.crush.max_rules(), 5);
  EXPECT_EQ(st.crush.rule_names.at(3), "fast");
  const crush::Rule& fast = st.crush.rules[3];
  EXPECT_EQ(fast.ruleset, 3);
  EXPECT_EQ(fast.type, crush::RuleType::kReplicated);
  EXPECT_EQ(fast.min_size, 1);
  EXPECT_EQ(fast.max_size, 10);
  ASSERT_EQ(fast.steps.size(), 3u);
  EXPECT_EQ(fast.steps[0].op, crush::RuleOp::kTake);
  EXPECT_EQ(fast.steps[0].arg1, Id(st, "default~ssd"));
  EXPECT_EQ(fast.steps[1], (crush::RuleStep{crush::RuleOp::kChooseleafFirstn, 0, 1}));
  EXPECT_EQ(fast.steps[2].op, crush::RuleOp::kEmit);
  EXPECT_EQ(st.crush.rules[4].steps[1], (crush::RuleStep{crush::RuleOp::kChooseFirstn, 0, 0}));
  EXPECT_EQ(st.crush.rules[4].steps[0].arg1, -1);
  EXPECT_EQ(st.pools[1].crush_rule, 3);

  EXPECT_THAT(ApplyErrors("osd crush rule create-replicated rack_rule default host\n"),
              HasSubstr("ops.txt:1:34: error: rule 'rack_rule' already exists"));
  EXPECT_THAT(ApplyErrors("osd crush rule create-replicated f default host nvme\n"),
              HasSubstr("ops.txt:1:49: error: device class nvme does not exist"));
  // Every bucket of a tree holding a class gets a shadow (device_class_clone
  // records them all), so any bucket can root a class rule.
  st = ApplyOk(
      "osd crush set-device-class ssd osd.0\n"
      "osd crush rule create-replicated f rack1 host ssd\n");
  EXPECT_EQ(st.crush.rules[3].steps[0].arg1, Id(st, "rack1~ssd"));
  EXPECT_THAT(ApplyErrors("osd crush set-device-class ssd 1\nosd crush set-device-class hdd 1\n"),
              HasSubstr("ops.txt:2:32: error: cannot set the class of osd.1: "));
}

TEST(ApplyChangeTest, Tunables) {
  ClusterState st =
      ApplyOk("osd crush tunables hammer\nosd crush set-tunable choose_total_tries 100\n");
  EXPECT_EQ(st.crush.tunables.chooseleaf_stable, 0);
  EXPECT_EQ(st.crush.tunables.choose_total_tries, 100u);
  st = ApplyOk("osd crush tunables legacy\nosd crush set-tunable straw_calc_version 1\n");
  EXPECT_EQ(st.crush.tunables.choose_local_tries, 2u);
  EXPECT_EQ(st.crush.tunables.straw_calc_version, 1);
}

TEST(ApplyChangeTest, AddHostReusesTheLowestFreeIds) {
  const ClusterState st = ApplyOk(
      "osd down 2\nosd purge 2\n"
      "add-host node9 osds=3 weight=2 class=hdd rack=rack1 root=default\n");
  EXPECT_THAT(Items(st, "rack1"), ElementsAre(Id(st, "host2"), Id(st, "host3"), Id(st, "node9")));
  EXPECT_THAT(Items(st, "node9"), ElementsAre(2, 8, 9));
  EXPECT_EQ(st.max_osd(), 10);
  for (const int osd : {2, 8, 9}) {
    EXPECT_TRUE(st.IsUp(osd) && st.IsIn(osd)) << osd;
    EXPECT_EQ(WeightIn(st, "node9", osd), 0x20000u);
    EXPECT_EQ(st.crush.class_names.at(st.crush.class_map.at(osd)), "hdd");
    EXPECT_EQ(st.crush.item_names.at(osd), "osd." + std::to_string(osd));
  }
  EXPECT_EQ(WeightIn(st, "default", Id(st, "rack1")), 0xa0000u);  // 2 + 2 + 3 x 2

  EXPECT_THAT(ApplyErrors("add-host h9 osds=1 weight=1 host=osd.3\n"),
              HasSubstr("ops.txt:1:29: error: location type 'host' is not above 'host'"));
  EXPECT_THAT(ApplyErrors("add-host h9 osds=1 weight=1 rack=osd.3\n"),
              HasSubstr("ops.txt:1:34: error: 'osd.3' is a device, not a bucket"));
  EXPECT_THAT(ApplyErrors("add-host host1 osds=1 weight=1\n"),
              HasSubstr("ops.txt:1:10: error: item 'host1' already exists"));
}

}  // namespace
}  // namespace crushkit::osdmap
