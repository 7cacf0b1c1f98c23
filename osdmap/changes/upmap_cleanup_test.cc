// OSDMap::check_pg_upmaps / clean_pg_upmaps rules on hand-built states (the
// osdmaptool differential covers random ones): each cancel reason, pair
// trimming, what is left alone, the state edit and the command text.
#include "osdmap/changes/upmap_cleanup.h"

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/map.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping.h"
#include "osdmap/model/upmap_verify.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/osdmap_state.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using ::crush_testing::IsOk;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

constexpr int kPerHost = 2;  // OSD o lives in host o / 2 (bucket -2 - o / 2)

ClusterState MakeState(const crush::MapModel& model, PoolType type = PoolType::kReplicated,
                       int crush_rule = 0) {
  return crush_testing::MakeOnePoolState(static_cast<std::size_t>(model.max_devices), type, model,
                                         crush_rule);
}

crush::MapModel FourHosts() {
  crush_testing::ClusterSpec spec;
  spec.hosts = 4;
  spec.osds_per_host = kPerHost;
  return crush_testing::MakeClusterModel(spec);
}

// pg_to_raw_osds() and pg_to_raw_upmap() of `pg` in `state`.
std::vector<std::int32_t> Raw(const ClusterState& state, const PgId& pg, bool upmapped = false) {
  auto map = crush::CrushMap::Build(state.crush);
  EXPECT_THAT(map, IsOk());
  CrushPlacement placement(*map, state.ceph_release);
  PgMapper mapper(state, placement);
  OsdList raw;
  OsdList up;
  mapper.PgToRawUpmap(pg, &raw, &up);
  return upmapped ? up.ToVector() : raw.ToVector();
}

int Host(std::int32_t osd) { return osd / kPerHost; }

// An OSD on a host `raw` does not use.
std::int32_t FreeHostOsd(const std::vector<std::int32_t>& raw) {
  for (std::int32_t o = 0; o < 4 * kPerHost; ++o) {
    if (std::none_of(raw.begin(), raw.end(), [&](std::int32_t r) { return Host(r) == Host(o); })) {
      return o;
    }
  }
  return -1;
}

const PgId kPg{1, 0};

class UpmapCleanupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state_ = MakeState(FourHosts());
    raw_ = Raw(state_, kPg);
    ASSERT_EQ(raw_.size(), 3u);
    free_ = FreeHostOsd(raw_);
    ASSERT_GE(free_, 0);
  }

  UpmapCleanup Check() {
    auto c = CheckPgUpmaps(state_);
    EXPECT_THAT(c, IsOk());
    return c.ok() ? *c : UpmapCleanup{};
  }

  ClusterState state_;
  std::vector<std::int32_t> raw_;
  std::int32_t free_ = -1;
};

TEST_F(UpmapCleanupTest, ValidItemsAreKept) {
  state_.pg_upmap_items[kPg] = {{raw_[0], free_}};
  const UpmapCleanup c = Check();
  EXPECT_FALSE(c.changed());
  EXPECT_EQ(c.entries_changed(), 0);
  EXPECT_EQ(FormatUpmapCleanupCommands(c), "");
}

// pg_upmap_primaries (issue 39): Reef's cleanup leaves them; Tentacle's
// keeps a primary that is in the raw set and not already its first OSD,
// drops the others, and drops a cancelled PG's with its other entries.
TEST_F(UpmapCleanupTest, ReefLeavesUpmapPrimaries) {
  state_.ceph_release = crush::CephRelease::kReef;
  state_.pg_upmap_primaries[kPg] = raw_[0];  // redundant
  state_.pg_upmap_primaries[PgId{1, 1}] = free_;
  EXPECT_FALSE(Check().changed());
}

TEST_F(UpmapCleanupTest, TentacleKeepsAValidPrimary) {
  state_.ceph_release = crush::CephRelease::kTentacle;
  state_.pg_upmap_primaries[kPg] = raw_[1];
  EXPECT_FALSE(Check().changed());
}

TEST_F(UpmapCleanupTest, TentacleDropsRedundantAndForeignPrimaries) {
  state_.ceph_release = crush::CephRelease::kTentacle;
  state_.pg_upmap_primaries[kPg] = raw_[0];
  const std::vector<std::int32_t> raw1 = Raw(state_, PgId{1, 1});
  state_.pg_upmap_primaries[PgId{1, 1}] = FreeHostOsd(raw1);
  const UpmapCleanup c = Check();
  EXPECT_THAT(c.removed_pg_upmap_primaries, ElementsAre(kPg, PgId{1, 1}));
  EXPECT_THAT(c.cancelled, IsEmpty());
  EXPECT_EQ(c.entries_changed(), 2);
  EXPECT_EQ(FormatUpmapCleanupCommands(c),
            "ceph osd rm-pg-upmap-primary 1.0\nceph osd rm-pg-upmap-primary 1.1\n");
  ApplyUpmapCleanup(c, state_);
  EXPECT_THAT(state_.pg_upmap_primaries, IsEmpty());
}

TEST_F(UpmapCleanupTest, TentacleDropsACancelledPgsPrimary) {
  state_.ceph_release = crush::CephRelease::kTentacle;
  state_.pg_upmap_items[kPg] = {{raw_[0] ^ 1, free_}};  // a stale source: cancelled
  state_.pg_upmap_primaries[kPg] = raw_[1];
  const UpmapCleanup c = Check();
  EXPECT_THAT(c.removed_pg_upmap_items, ElementsAre(kPg));
  EXPECT_THAT(c.removed_pg_upmap_primaries, ElementsAre(kPg));
}

TEST_F(UpmapCleanupTest, FailureDomainViolationCancels) {
  // raw_[0] -> the sibling of raw_[1]: two OSDs on one host.
  state_.pg_upmap_items[kPg] = {{raw_[0], raw_[1] ^ 1}};
  const UpmapCleanup c = Check();
  EXPECT_THAT(c.cancelled, ElementsAre(Pair(kPg, UpmapCancelReason::kSameFailureDomain)));
  EXPECT_THAT(c.removed_pg_upmap_items, ElementsAre(kPg));
  EXPECT_THAT(c.removed_pg_upmap, IsEmpty());
  EXPECT_EQ(FormatUpmapCleanupCommands(c), "ceph osd rm-pg-upmap-items 1.0\n");
}

TEST_F(UpmapCleanupTest, ChooseStepWithTooManyBucketsCancels) {
  // take default; choose firstn 1 type host; choose firstn 0 type osd; emit
  // places a size-2 PG on one host; moving one copy away needs two hosts.
  crush::Rule& rule = state_.crush.rules[0];
  rule.steps = {{crush::RuleOp::kTake, -1, 0},
                {crush::RuleOp::kChooseFirstn, 1, crush_testing::kHostType},
                {crush::RuleOp::kChooseFirstn, 0, 0},
                {crush::RuleOp::kEmit, 0, 0}};
  state_.pools[1].size = 2;
  const auto raw = Raw(state_, kPg);
  ASSERT_EQ(raw.size(), 2u);
  ASSERT_EQ(Host(raw[0]), Host(raw[1]));
  const std::int32_t elsewhere = (raw[1] + kPerHost) % (4 * kPerHost);
  state_.pg_upmap_items[kPg] = {{raw[1], elsewhere}};
  EXPECT_THAT(Check().cancelled, ElementsAre(Pair(kPg, UpmapCancelReason::kTooManyBuckets)));
}

TEST_F(UpmapCleanupTest, OsdMovedOutOfTheRootCancels) {
  // `free_` is unlinked from its host and hung under a second root.
  crush::MapModel& m = state_.crush;
  crush::Bucket& host = m.buckets[static_cast<std::size_t>(1 + Host(free_))];
  const auto pos = static_cast<std::size_t>(std::find(host.items.begin(), host.items.end(), free_) -
                                            host.items.begin());
  host.items.erase(host.items.begin() + static_cast<std::ptrdiff_t>(pos));
  host.item_weights.erase(host.item_weights.begin() + static_cast<std::ptrdiff_t>(pos));
  crush_testing::FinishBucket(host);
  crush::Bucket other;
  other.id = -static_cast<int>(m.buckets.size()) - 1;
  other.type = crush_testing::kRootType;
  other.alg = crush::BucketAlg::kStraw2;
  other.items = {free_};
  other.item_weights = {crush::kWeightOne};
  crush_testing::FinishBucket(other);
  m.item_names[other.id] = "other";
  m.buckets.push_back(other);
  // The parents' weights are stale now; only membership matters here.
  const auto raw = Raw(state_, kPg);
  state_.pg_upmap_items[kPg] = {{raw[0], free_}};
  EXPECT_THAT(Check().cancelled, ElementsAre(Pair(kPg, UpmapCancelReason::kOutsideTakeRoot)));
}

TEST_F(UpmapCleanupTest, OsdBeyondTheEmittedCountMissingFromWeightMapCancels) {
  // chooseleaf firstn 2 emits two OSDs, so verify_upmap checks only the
  // first two of a 3-entry pg_upmap; the third, outside the rule (a device
  // in no bucket), is caught by the rule weight map.
  state_.crush.rules[0].steps[1].arg1 = 2;
  state_.crush.max_devices = 9;
  state_.osds.push_back(OsdInfo{kOsdExists | kOsdUp, 0x10000, kDefaultPrimaryAffinity});
  const auto raw = Raw(state_, kPg);
  ASSERT_EQ(raw.size(), 2u);
  state_.pg_upmap[kPg] = {raw[0], raw[1], 8};
  const UpmapCleanup c = Check();
  EXPECT_THAT(c.cancelled, ElementsAre(Pair(kPg, UpmapCancelReason::kOsdNotInRule)));
  EXPECT_THAT(c.removed_pg_upmap, ElementsAre(kPg));
  EXPECT_EQ(FormatUpmapCleanupCommands(c), "ceph osd rm-pg-upmap 1.0\n");
}

TEST_F(UpmapCleanupTest, ZeroCrushWeightTargetCancels) {
  // CRUSH weight 0 in its host (the others keep theirs): rule share 0.
  crush::Bucket& host = state_.crush.buckets[static_cast<std::size_t>(1 + Host(free_))];
  for (std::size_t i = 0; i < host.items.size(); ++i) {
    if (host.items[i] == free_) host.item_weights[i] = 0;
  }
  crush_testing::FinishBucket(host);
  const auto raw = Raw(state_, kPg);
  ASSERT_EQ(std::count(raw.begin(), raw.end(), free_), 0);
  state_.pg_upmap_items[kPg] = {{raw[0], free_}};
  EXPECT_THAT(Check().cancelled, ElementsAre(Pair(kPg, UpmapCancelReason::kOsdZeroWeight)));
}

TEST_F(UpmapCleanupTest, RedundantPgUpmapCancels) {
  state_.pg_upmap[kPg] = raw_;
  state_.pg_upmap_items[kPg] = {{raw_[0], free_}};
  const UpmapCleanup c = Check();
  EXPECT_THAT(c.cancelled, ElementsAre(Pair(kPg, UpmapCancelReason::kRedundantPgUpmap)));
  // Both entries of the PG go.
  EXPECT_EQ(FormatUpmapCleanupCommands(c),
            "ceph osd rm-pg-upmap 1.0\nceph osd rm-pg-upmap-items 1.0\n");
}

TEST_F(UpmapCleanupTest, ShortPgUpmapCancels) {
  state_.pg_upmap[kPg] = {raw_[0], free_};
  EXPECT_THAT(Check().cancelled, ElementsAre(Pair(kPg, UpmapCancelReason::kPgUpmapSizeMismatch)));
}

TEST_F(UpmapCleanupTest, PgUpmapWithOutTargetIsNotCleaned) {
  // _apply_upmap ignores it, and the raw set passes every check.
  state_.pg_upmap[kPg] = {free_, raw_[1], raw_[2]};
  state_.osds[static_cast<std::size_t>(free_)].weight = 0;
  EXPECT_FALSE(Check().changed());
}

TEST_F(UpmapCleanupTest, StaleSourcePairIsTrimmed) {
  const std::int32_t not_in_raw = raw_[0] ^ 1;
  ASSERT_EQ(std::count(raw_.begin(), raw_.end(), not_in_raw), 0);
  state_.pg_upmap_items[kPg] = {{not_in_raw, raw_[2] ^ 1}, {raw_[0], free_}};
  UpmapCleanup c = Check();
  EXPECT_THAT(c.cancelled, IsEmpty());
  EXPECT_THAT(c.trimmed_items, ElementsAre(Pair(kPg, UpmapItems{{raw_[0], free_}})));
  EXPECT_EQ(FormatUpmapCleanupCommands(c), "ceph osd pg-upmap-items 1.0 " +
                                               std::to_string(raw_[0]) + " " +
                                               std::to_string(free_) + "\n");
  ApplyUpmapCleanup(c, state_);
  EXPECT_THAT(state_.pg_upmap_items[kPg], ElementsAre(Pair(raw_[0], free_)));
}

TEST_F(UpmapCleanupTest, OutTargetPairIsTrimmed) {
  const std::int32_t out = free_ ^ 1;  // same free host, so the first pair stays valid
  state_.pg_upmap_items[kPg] = {{raw_[0], free_}, {raw_[1], out}};
  state_.osds[static_cast<std::size_t>(out)].weight = 0;
  EXPECT_THAT(Check().trimmed_items, ElementsAre(Pair(kPg, UpmapItems{{raw_[0], free_}})));
}

TEST_F(UpmapCleanupTest, AllPairsStaleCancels) {
  state_.pg_upmap_items[kPg] = {{raw_[0] ^ 1, free_}};
  EXPECT_THAT(Check().cancelled, ElementsAre(Pair(kPg, UpmapCancelReason::kNoOpPgUpmapItems)));
}

TEST_F(UpmapCleanupTest, GonePoolAndMergedAwaySeedCancel) {
  state_.pg_upmap_items[PgId{1, 20}] = {{0, 1}};  // ps >= pg_num 16
  state_.pg_upmap_items[PgId{7, 0}] = {{0, 1}};   // no pool 7
  state_.pg_upmap[PgId{7, 1}] = {0, 2, 4};
  const UpmapCleanup c = Check();
  EXPECT_THAT(c.cancelled, ElementsAre(Pair(PgId{1, 20}, UpmapCancelReason::kPgGone),
                                       Pair(PgId{7, 0}, UpmapCancelReason::kPgGone),
                                       Pair(PgId{7, 1}, UpmapCancelReason::kPgGone)));
  EXPECT_EQ(FormatUpmapCleanupCommands(c),
            "ceph osd rm-pg-upmap 7.1\n"
            "ceph osd rm-pg-upmap-items 1.14\n"
            "ceph osd rm-pg-upmap-items 7.0\n");
}

TEST_F(UpmapCleanupTest, MissingRuleCancels) {
  state_.pools[1].crush_rule = 9;
  state_.pg_upmap_items[kPg] = {{raw_[0], free_}};
  EXPECT_THAT(Check().cancelled, ElementsAre(Pair(kPg, UpmapCancelReason::kRuleMissing)));
}

TEST_F(UpmapCleanupTest, DownTargetIsLeftAlone) {
  state_.pg_upmap_items[kPg] = {{raw_[0], free_}};
  state_.osds[static_cast<std::size_t>(free_)].state = kOsdExists;  // down, still in
  EXPECT_FALSE(Check().changed());
}

TEST(UpmapCleanupEcTest, HoleInTheUpmappedSetCancels) {
  // A nonexistent OSD becomes a hole in an EC raw set; verify_upmap's emit
  // check finds CRUSH_ITEM_NONE under no bucket.
  ClusterState state = MakeState(FourHosts(), PoolType::kErasure, crush_testing::kEcRule);
  const auto raw = Raw(state, kPg);
  ASSERT_EQ(raw.size(), 3u);
  state.osds[static_cast<std::size_t>(raw[2])].state = 0;
  const std::int32_t free = FreeHostOsd(raw);
  state.pg_upmap_items[kPg] = {{raw[0], free}};
  ASSERT_THAT(Raw(state, kPg, true), ElementsAre(free, raw[1], crush::kItemNone));
  auto c = CheckPgUpmaps(state);
  ASSERT_THAT(c, IsOk());
  EXPECT_THAT(c->cancelled, ElementsAre(Pair(kPg, UpmapCancelReason::kOutsideTakeRoot)));
}

TEST_F(UpmapCleanupTest, CleanEditsTheStateAndIsIdempotent) {
  const PgId other{1, 1};
  const auto raw1 = Raw(state_, other);
  state_.pg_upmap_items[kPg] = {{raw_[0], raw_[1] ^ 1}};                            // cancelled
  state_.pg_upmap_items[other] = {{raw1[0] ^ 1, 0}, {raw1[0], FreeHostOsd(raw1)}};  // trimmed
  const std::uint32_t epoch = state_.epoch;
  auto c = CleanPgUpmaps(state_);
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->entries_changed(), 2);
  EXPECT_EQ(state_.epoch, epoch);
  EXPECT_EQ(state_.pg_upmap_items.count(kPg), 0u);
  EXPECT_THAT(state_.pg_upmap_items[other], ElementsAre(Pair(raw1[0], FreeHostOsd(raw1))));
  auto again = CleanPgUpmaps(state_);
  ASSERT_THAT(again, IsOk());
  EXPECT_FALSE(again->changed());
}

TEST(UpmapCancelReasonTest, NamesAreDistinct) {
  std::set<std::string_view> names;
  for (int r = 0; r <= static_cast<int>(UpmapCancelReason::kNoOpPgUpmapItems); ++r) {
    names.insert(UpmapCancelReasonName(static_cast<UpmapCancelReason>(r)));
  }
  EXPECT_EQ(names.size(), 10u);
  EXPECT_EQ(names.count("unknown"), 0u);
}

}  // namespace
}  // namespace crushkit::osdmap

namespace crushkit::osdmap {
namespace {

TEST(PoolMergeTest, PendingMergeSourcesAndTargets) {
  Pool p;
  p.pg_num = 128;
  p.pg_num_pending = 20;  // PGs 20..127 merge into their parents
  EXPECT_EQ(p.PgNumPending(), 20u);
  EXPECT_TRUE(p.IsPendingMerge(20));  // a source
  EXPECT_TRUE(p.IsPendingMerge(127));
  EXPECT_TRUE(p.IsPendingMerge(4));  // parent of 20 (0b10100 -> 0b0100)
  EXPECT_TRUE(p.IsPendingMerge(0));  // parent of 64
  EXPECT_FALSE(p.IsPendingMerge(128));
  p.pg_num_pending = 0;  // no merge
  EXPECT_FALSE(p.IsPendingMerge(4));
  p.pg_num = 8;
  p.pg_num_pending = 7;  // only 7 merges, into 3
  EXPECT_TRUE(p.IsPendingMerge(3));
  EXPECT_FALSE(p.IsPendingMerge(2));
}

// get_parent_of_type() spelled out as Ceph walks it: take roots in
// ascending id order, each root's buckets of `type` depth first, the first
// whose subtree (itself included) holds `item`.
int ReferenceParentOfType(const crush::MapModel& m, std::int32_t item, int type, int rule) {
  std::function<void(std::int32_t, std::vector<std::int32_t>*)> children =
      [&](std::int32_t id, std::vector<std::int32_t>* out) {
        if (id >= 0) {
          if (type == 0) out->push_back(id);
          return;
        }
        const crush::Bucket* b = m.FindBucket(id);
        if (b == nullptr || b->type < type) return;
        if (b->type == type) {
          out->push_back(id);
          return;
        }
        for (std::int32_t c : b->items) children(c, out);
      };
  std::function<bool(std::int32_t)> holds = [&](std::int32_t id) {
    if (id == item) return true;
    const crush::Bucket* b = m.FindBucket(id);
    return b != nullptr && std::any_of(b->items.begin(), b->items.end(), holds);
  };
  std::set<std::int32_t> roots;
  for (const crush::RuleStep& s : m.rules[static_cast<std::size_t>(rule)].steps) {
    if (s.op == crush::RuleOp::kTake) roots.insert(s.arg1);
  }
  std::vector<std::int32_t> candidates;
  for (std::int32_t root : roots) children(root, &candidates);
  for (std::int32_t c : candidates) {
    if (holds(c)) return c;
  }
  return 0;
}

TEST(UpmapVerifierTest, ParentOfTypeMatchesCephsWalkWithOverlappingTakes) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 6;
  spec.osds_per_host = 3;
  spec.racks = 2;
  crush::MapModel m = crush_testing::MakeClusterModel(spec);
  // A rule taking a host and the whole root: the host is a candidate twice
  // and its OSDs are claimed by whichever take root sorts first.
  std::int32_t some_host = 0;
  std::int32_t root = 0;
  for (const crush::Bucket& b : m.buckets) {
    if (b.alg == crush::BucketAlg::kNone) continue;
    if (b.type == crush_testing::kHostType) some_host = std::min(some_host, b.id);
    if (b.type == crush_testing::kRootType) root = b.id;
  }
  ASSERT_LT(some_host, 0);
  ASSERT_LT(root, 0);
  // A second root over a host holding two real hosts' OSDs, as a device
  // class shadow tree holds them: taken together with the real root, those
  // OSDs have two host candidates, and the one whose root sorts first wins.
  const auto next_id = [&] { return -static_cast<std::int32_t>(m.buckets.size()) - 1; };
  crush::Bucket shadow_host;
  shadow_host.id = next_id();
  shadow_host.type = crush_testing::kHostType;
  shadow_host.alg = crush::BucketAlg::kStraw2;
  for (std::int32_t osd : {0, 1, 4, 5}) {
    shadow_host.items.push_back(osd);
    shadow_host.item_weights.push_back(0x10000);
  }
  crush_testing::FinishBucket(shadow_host);
  m.buckets.push_back(shadow_host);
  crush::Bucket shadow_root;
  shadow_root.id = next_id();
  shadow_root.type = crush_testing::kRootType;
  shadow_root.alg = crush::BucketAlg::kStraw2;
  shadow_root.items = {shadow_host.id};
  shadow_root.item_weights = {shadow_host.weight};
  crush_testing::FinishBucket(shadow_root);
  m.buckets.push_back(shadow_root);
  crush::Rule two_takes;
  two_takes.steps = {{crush::RuleOp::kTake, root, 0},
                     {crush::RuleOp::kChooseleafFirstn, 0, crush_testing::kHostType},
                     {crush::RuleOp::kEmit, 0, 0},
                     {crush::RuleOp::kTake, some_host, 0},
                     {crush::RuleOp::kChooseFirstn, 0, 0},
                     {crush::RuleOp::kEmit, 0, 0}};
  m.rules.push_back(two_takes);
  crush::Rule both_roots;
  both_roots.steps = {{crush::RuleOp::kTake, root, 0},
                      {crush::RuleOp::kChooseleafFirstn, 0, crush_testing::kHostType},
                      {crush::RuleOp::kEmit, 0, 0},
                      {crush::RuleOp::kTake, shadow_root.id, 0},
                      {crush::RuleOp::kChooseleafFirstn, 0, crush_testing::kHostType},
                      {crush::RuleOp::kEmit, 0, 0}};
  m.rules.push_back(both_roots);
  m.rule_exists.assign(m.rules.size(), true);
  const int rules = static_cast<int>(m.rules.size());
  UpmapVerifier verifier(m);
  int found = 0;
  for (int rule = 0; rule < rules + 1; ++rule) {  // rules + 1: a missing rule
    for (int type :
         {0, crush_testing::kHostType, crush_testing::kRackType, crush_testing::kRootType}) {
      for (std::int32_t item = -static_cast<std::int32_t>(m.buckets.size()) - 1;
           item < m.max_devices + 1; ++item) {
        const int want = rule < rules ? ReferenceParentOfType(m, item, type, rule) : 0;
        ASSERT_EQ(verifier.ParentOfType(item, type, rule), want)
            << "item " << item << " type " << type << " rule " << rule;
        if (want != 0) ++found;
      }
    }
  }
  EXPECT_GT(found, 100);
  // The shadow root sorts first (more negative): its host claims osd.0.
  EXPECT_EQ(verifier.ParentOfType(0, crush_testing::kHostType, rules - 1), shadow_host.id);
}

}  // namespace
}  // namespace crushkit::osdmap
