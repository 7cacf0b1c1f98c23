#include "crush/edit/edit.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crush/builder.h"
#include "crush/model.h"

namespace crushkit::crush {
namespace {

constexpr Weight kOne = kWeightOne;

// default (root, -1) { host0 (-2) { osd.0 osd.1 }  host1 (-3) { osd.2 osd.3 } },
// straw2 everywhere, jewel tunables, rule 0 takes default.
MapModel TwoHosts() {
  MapModel m;
  m.tunables = TunablesFor(TunablesProfile::kJewel);
  m.type_names = {{0, "osd"}, {1, "host"}, {2, "root"}};
  for (int i = 0; i < 4; ++i) m.item_names[i] = "osd." + std::to_string(i);
  m.max_devices = 4;
  auto root = MakeBucket(BucketAlg::kStraw2, kHashRjenkins1, 2, {}, {}, 1);
  EXPECT_TRUE(AddBucket(m, -1, *root).ok());
  for (int h = 0; h < 2; ++h) {
    const std::vector<ItemId> items = {2 * h, 2 * h + 1};
    const std::vector<Weight> weights = {kOne, kOne};
    auto host = MakeBucket(BucketAlg::kStraw2, kHashRjenkins1, 1, items, weights, 1);
    EXPECT_TRUE(AddBucket(m, -2 - h, *host).ok());
    m.item_names[-2 - h] = "host" + std::to_string(h);
    EXPECT_TRUE(AddBucketItem(*m.FindBucket(-1), -2 - h, 2 * kOne, 1).ok());
  }
  m.item_names[-1] = "default";
  Rule rule;
  rule.steps = {{RuleOp::kTake, -1, 0}, {RuleOp::kChooseleafFirstn, 0, 1}, {RuleOp::kEmit, 0, 0}};
  m.rules.push_back(rule);
  m.rule_exists.push_back(true);
  m.rule_names[0] = "replicated_rule";
  return m;
}

std::string NameOf(const MapModel& m, ItemId id) {
  auto it = m.item_names.find(id);
  return it == m.item_names.end() ? "" : it->second;
}

TEST(EditTest, FindItemTakesTheHighestIdOfADuplicatedName) {
  MapModel m = TwoHosts();
  m.item_names[7] = "osd.1";
  EXPECT_EQ(*FindItem(m, "osd.1"), 7);
  EXPECT_EQ(FindItem(m, "nosuch").status().code(), absl::StatusCode::kNotFound);
}

TEST(EditTest, InsertItemUnderExistingHostPropagatesWeight) {
  MapModel m = TwoHosts();
  ASSERT_TRUE(InsertItem(m, 4, 0.5F, "osd.4", {{"host", "host1"}}).ok());
  const Bucket* host1 = m.FindBucket(-3);
  ASSERT_EQ(host1->items.size(), 3U);
  EXPECT_EQ(host1->items[2], 4);
  EXPECT_EQ(host1->item_weights[2], kOne / 2);
  EXPECT_EQ(host1->weight, 2 * kOne + kOne / 2);
  EXPECT_EQ(m.FindBucket(-1)->weight, 4 * kOne + kOne / 2);
  EXPECT_EQ(m.FindBucket(-1)->item_weights[1], 2 * kOne + kOne / 2);
  EXPECT_EQ(m.max_devices, 5);
  EXPECT_EQ(NameOf(m, 4), "osd.4");
}

TEST(EditTest, InsertItemCreatesMissingBucketsWithTheDefaultAlgorithm) {
  MapModel m = TwoHosts();
  m.tunables.allowed_bucket_algs = 22;  // legacy: straw is the default
  ASSERT_TRUE(InsertItem(m, 9, 1.0F, "osd.9", {{"host", "newhost"}, {"root", "default"}}).ok());
  // The first free slot: -4.
  const Bucket* created = m.FindBucket(-4);
  ASSERT_NE(created, nullptr);
  EXPECT_EQ(NameOf(m, -4), "newhost");
  EXPECT_EQ(created->alg, BucketAlg::kStraw);
  EXPECT_EQ(created->type, 1);
  EXPECT_EQ(created->items, std::vector<ItemId>{9});
  EXPECT_EQ(created->straws.size(), 1U);
  EXPECT_EQ(m.FindBucket(-1)->items.back(), -4);
  EXPECT_EQ(m.FindBucket(-1)->weight, 5 * kOne);
  EXPECT_EQ(m.max_devices, 10);
}

TEST(EditTest, InsertItemErrorsCarryCephsErrno) {
  MapModel m = TwoHosts();
  auto bad_name = InsertItem(m, 5, 1.0F, "bad name", {{"host", "host0"}});
  EXPECT_EQ(CephErrno(bad_name), 22);
  auto taken = InsertItem(m, 5, 1.0F, "osd.0", {{"host", "host0"}});
  EXPECT_EQ(taken.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(CephErrno(taken), 17);
  auto wrong_type = InsertItem(m, 5, 1.0F, "osd.5", {{"host", "default"}});
  EXPECT_EQ(CephErrno(wrong_type), 22);
  auto too_heavy = InsertItem(m, 6, 70000.0F, "osd.6", {{"host", "host0"}});
  EXPECT_EQ(CephErrno(too_heavy), 75);
  // A bucket cannot go below its own child.
  auto loop = InsertItem(m, -1, 1.0F, "default", {{"host", "host0"}});
  EXPECT_EQ(loop.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(CephErrno(loop), 40);  // ELOOP
}

TEST(EditTest, RemoveItemRefusesNonEmptyAndRuleBuckets) {
  MapModel m = TwoHosts();
  EXPECT_EQ(CephErrno(RemoveItem(m, -2)), 39);  // ENOTEMPTY
  m.FindBucket(-1)->items.clear();              // make the root empty
  EXPECT_EQ(CephErrno(RemoveItem(m, -1)), 16);  // EBUSY: rule 0 takes it
  EXPECT_EQ(CephErrno(RemoveItem(m, -42)), 2);
  // As in Ceph, a device id found nowhere is "removed" successfully.
  EXPECT_TRUE(RemoveItem(m, 42).ok());
}

TEST(EditTest, RemoveDeviceAdjustsAncestorsAndForgetsItsName) {
  MapModel m = TwoHosts();
  ASSERT_TRUE(RemoveItem(m, 1).ok());
  EXPECT_EQ(m.FindBucket(-2)->items, std::vector<ItemId>{0});
  EXPECT_EQ(m.FindBucket(-2)->weight, kOne);
  EXPECT_EQ(m.FindBucket(-1)->item_weights[0], kOne);
  EXPECT_EQ(m.FindBucket(-1)->weight, 3 * kOne);
  EXPECT_EQ(m.item_names.count(1), 0U);
}

TEST(EditTest, RemoveEmptyBucketFreesItsSlot) {
  MapModel m = TwoHosts();
  ASSERT_TRUE(RemoveItem(m, 0).ok());
  ASSERT_TRUE(RemoveItem(m, 1).ok());
  ASSERT_TRUE(RemoveItem(m, -2).ok());
  EXPECT_EQ(m.FindBucket(-2), nullptr);
  EXPECT_EQ(m.FindBucket(-1)->items, std::vector<ItemId>{-3});
  EXPECT_EQ(*CreateBucket(m, "rack0", "host"), -2);  // slot reused
}

TEST(EditTest, MoveBucketDetachesAndRelinks) {
  MapModel m = TwoHosts();
  m.type_names[3] = "top";
  auto top = CreateBucket(m, "top0", "top");
  ASSERT_TRUE(top.ok());
  ASSERT_TRUE(MoveBucket(m, -3, {{"top", "top0"}}).ok());
  EXPECT_EQ(m.FindBucket(-1)->items, std::vector<ItemId>{-2});
  EXPECT_EQ(m.FindBucket(-1)->weight, 2 * kOne);
  EXPECT_EQ(m.FindBucket(*top)->items, std::vector<ItemId>{-3});
  EXPECT_EQ(m.FindBucket(*top)->weight, 2 * kOne);
  EXPECT_TRUE(CheckItemLoc(m, -3, {{"top", "top0"}}));
  EXPECT_FALSE(CheckItemLoc(m, -3, {{"root", "default"}}));
}

TEST(EditTest, CreateBucketChecksNameAndType) {
  MapModel m = TwoHosts();
  EXPECT_EQ(CreateBucket(m, "host0", "host").status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(CephErrno(CreateBucket(m, "h9", "osd").status()), 22);  // type 0
  EXPECT_EQ(CephErrno(CreateBucket(m, "h9", "nosuch").status()), 22);
  auto id = CreateBucket(m, "h9", "host", {{"root", "default"}});
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(m.FindBucket(-1)->items.back(), *id);
}

TEST(EditTest, DeviceClassesGetShadowTreesWithStableIds) {
  MapModel m = TwoHosts();
  ASSERT_TRUE(SetDeviceClass(m, 0, "ssd").ok());
  ASSERT_TRUE(SetDeviceClass(m, 2, "ssd").ok());
  // Clones children first, ids from the lowest free slot: host0~ssd -4,
  // host1~ssd -5, default~ssd -6.
  EXPECT_EQ(NameOf(m, -4), "host0~ssd");
  EXPECT_EQ(NameOf(m, -5), "host1~ssd");
  EXPECT_EQ(NameOf(m, -6), "default~ssd");
  EXPECT_EQ(m.FindBucket(-6)->items, (std::vector<ItemId>{-4, -5}));
  EXPECT_EQ(m.FindBucket(-6)->weight, 2 * kOne);
  EXPECT_EQ(m.class_buckets.at(-1).at(0), -6);
  // A rebuild after an edit keeps the ids and follows the weights.
  ASSERT_TRUE(AdjustItemWeightF(m, 0, 3.0F).ok());
  EXPECT_EQ(m.FindBucket(-4)->weight, 3 * kOne);  // adjusted in place
  ASSERT_TRUE(RebuildRootsWithClasses(m).ok());
  EXPECT_EQ(NameOf(m, -6), "default~ssd");
  EXPECT_EQ(m.FindBucket(-6)->weight, 4 * kOne);
  EXPECT_EQ(CephErrno(SetDeviceClass(m, 0, "hdd")), 16);
}

// The session's index must answer as the scan does while its own edits
// add names (devices, new buckets, shadow clones that the next rebuild
// erases and makes again), with duplicated names and errors in between.
TEST(EditTest, EditSessionEditsAsTheFreeFunctions) {
  const auto make = [] {
    MapModel m = TwoHosts();
    m.item_names[-20] = "host1";  // a bucket-less id sharing a bucket's name
    m.item_names[8] = "dup";
    m.item_names[-9] = "dup";
    return m;
  };
  MapModel one = make();
  MapModel batched = make();
  EditSession session(batched);
  const auto both = [&](const auto& free_call, const auto& session_call) {
    const absl::Status a = free_call(one);
    const absl::Status b = session_call();
    EXPECT_EQ(a, b);
    EXPECT_TRUE(one == batched);
  };
  const Location in_host1 = {{"host", "host1"}};
  const Location new_rack = {{"host", "host9"}, {"rack", "rack9"}, {"root", "default"}};
  for (ItemId id = 4; id < 7; ++id) {
    const std::string name = "osd." + std::to_string(id);
    const Location& loc = id == 5 ? new_rack : in_host1;
    both([&](MapModel& m) { return InsertItem(m, id, 1.0F, name, loc); },
         [&] { return session.InsertItem(id, 1.0F, name, loc); });
    both([&](MapModel& m) { return SetDeviceClass(m, id, id == 6 ? "hdd" : "ssd"); },
         [&] { return session.SetDeviceClass(id, id == 6 ? "hdd" : "ssd"); });
  }
  // Errors: a name taken by another id, a location naming a device.
  both([&](MapModel& m) { return InsertItem(m, 7, 1.0F, "osd.4", in_host1); },
       [&] { return session.InsertItem(7, 1.0F, "osd.4", in_host1); });
  both(
      [&](MapModel& m) {
        return InsertItem(m, 7, 1.0F, "osd.7", {{"host", "dup"}});
      },
      [&] {
        return session.InsertItem(7, 1.0F, "osd.7", {{"host", "dup"}});
      });
  for (const char* name : {"host1", "dup", "host9", "rack9", "host1~ssd", "osd.5", "nosuch"}) {
    const absl::StatusOr<ItemId> a = FindItem(one, name);
    const absl::StatusOr<ItemId> b = session.FindItem(name);
    ASSERT_EQ(a.ok(), b.ok()) << name;
    if (a.ok()) {
      EXPECT_EQ(*a, *b) << name;
    }
  }
  EXPECT_EQ(*session.FindItem("host1"), -3);
  EXPECT_EQ(*session.FindItem("dup"), 8);
  EXPECT_LT(*session.FindItem("host9~ssd"), 0);
}

TEST(EditTest, AdjustItemWeightKeepsWeightSetsSumming) {
  MapModel m = TwoHosts();
  ChooseArgMap& args = m.choose_args[kCompatChooseArgs];
  args[-2].weight_set = {{kOne, kOne}};
  ASSERT_TRUE(AdjustItemWeight(m, 1, 3 * kOne).ok());
  EXPECT_EQ(args[-2].weight_set[0], (std::vector<Weight>{kOne, 3 * kOne}));
  // Buckets without a weight set got one (their item weights), with the
  // sums propagated upwards.
  ASSERT_EQ(args.count(-1), 1U);
  EXPECT_EQ(args[-1].weight_set[0], (std::vector<Weight>{4 * kOne, 2 * kOne}));
  EXPECT_EQ(m.FindBucket(-1)->weight, 6 * kOne);
}

TEST(EditTest, CephAssertsOnTheEmptyWeightSetsOfFreshClones) {
  const auto make = [](bool with_choose_args) {
    MapModel m = TwoHosts();
    m.class_names[0] = "ssd";
    m.class_map[0] = 0;
    m.class_map[2] = 0;
    m.item_names[5] = "osd.5";  // named, in no bucket
    if (with_choose_args) m.choose_args[kCompatChooseArgs][-1].weight_set = {{2 * kOne, 2 * kOne}};
    return m;
  };
  // update_item of an unlinked device: remove_item (nothing to adjust)
  // rebuilds the shadow trees, cloning host0/host1 without weight sets
  // (calloc(0) in Ceph); insert_item's weight adjustment then reaches those
  // clones: ceph_assert(arg->weight_set_positions > 0).
  MapModel m = make(true);
  EXPECT_EQ(UpdateItem(m, 5, 1.0F, "osd.5", {{"host", "host0"}}).code(),
            absl::StatusCode::kInternal);
  // Without choose_args the same edit is fine.
  MapModel plain = make(false);
  ASSERT_TRUE(UpdateItem(plain, 5, 1.0F, "osd.5", {{"host", "host0"}}).ok());
  EXPECT_EQ(plain.FindBucket(-2)->items, (std::vector<ItemId>{0, 1, 5}));
}

TEST(EditTest, AdjustItemWeightFValidatesLikeCeph) {
  MapModel m = TwoHosts();
  EXPECT_EQ(AdjustItemWeightF(m, 0, -1.0F).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(*AdjustItemWeightF(m, 42, 1.0F), 0);  // in no bucket
  EXPECT_EQ(*AdjustItemWeightF(m, 0, 0.5F), 1);
  EXPECT_EQ(m.FindBucket(-2)->item_weights[0], kOne / 2);
}

TEST(EditTest, ReweightRecomputesBucketWeightsBottomUp) {
  MapModel m = TwoHosts();
  m.FindBucket(-1)->item_weights = {7, 9};
  m.FindBucket(-1)->weight = 16;
  ASSERT_TRUE(ReweightAll(m).ok());
  EXPECT_EQ(m.FindBucket(-1)->item_weights, (std::vector<Weight>{2 * kOne, 2 * kOne}));
  EXPECT_EQ(m.FindBucket(-1)->weight, 4 * kOne);
}

TEST(EditTest, TreeRemovalZeroesTheLeafInPlace) {
  auto tree = MakeBucket(BucketAlg::kTree, kHashRjenkins1, 1, std::vector<ItemId>{5, 6, 7},
                         std::vector<Weight>{kOne, kOne, kOne}, 1);
  ASSERT_TRUE(tree.ok());
  ASSERT_TRUE(RemoveBucketItem(*tree, 6, 1).ok());
  // builder.c keeps the slot (item id 0, weight 0) since a later leaf weighs.
  EXPECT_EQ(tree->items, (std::vector<ItemId>{5, 0, 7}));
  EXPECT_EQ(BucketItemWeight(*tree, 1), 0U);
  EXPECT_EQ(tree->weight, 2 * kOne);
  ASSERT_TRUE(RemoveBucketItem(*tree, 7, 1).ok());
  EXPECT_EQ(tree->items, std::vector<ItemId>{5});  // trailing zero leaves trimmed
  EXPECT_EQ(RemoveBucketItem(*tree, 5, 1).code(), absl::StatusCode::kUnimplemented);
}

TEST(EditTest, FinalizeMaxDevicesCanShrink) {
  MapModel m = TwoHosts();
  m.max_devices = 40;
  FinalizeMaxDevices(m);
  EXPECT_EQ(m.max_devices, 4);
  m.item_names[11] = "osd.11";
  FinalizeMaxDevices(m);
  EXPECT_EQ(m.max_devices, 12);
}

TEST(EditRulesTest, AddSimpleRuleBuildsPacificsRule) {
  MapModel m = TwoHosts();
  SimpleRuleSpec spec{.name = "r", .root = "default", .failure_domain = "host", .mode = "firstn"};
  auto id = AddSimpleRule(m, spec);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(*id, 1);
  const Rule& r = m.rules[1];
  EXPECT_EQ(r.ruleset, 1);
  EXPECT_EQ(r.min_size, 1);
  EXPECT_EQ(r.max_size, 10);
  EXPECT_EQ(r.steps,
            (std::vector<RuleStep>{
                {RuleOp::kTake, -1, 0}, {RuleOp::kChooseleafFirstn, 0, 1}, {RuleOp::kEmit, 0, 0}}));
  EXPECT_EQ(*FindRuleByName(m, "r"), 1);
  // indep: the two tries steps first, sizes 3..20; type 0 is a plain choose.
  spec = {.name = "e", .root = "host0", .failure_domain = "", .mode = "indep"};
  ASSERT_EQ(*AddSimpleRule(m, spec), 2);
  EXPECT_EQ(m.rules[2].min_size, 3);
  EXPECT_EQ(m.rules[2].max_size, 20);
  EXPECT_EQ(m.rules[2].steps, (std::vector<RuleStep>{{RuleOp::kSetChooseleafTries, 5, 0},
                                                     {RuleOp::kSetChooseTries, 100, 0},
                                                     {RuleOp::kTake, -2, 0},
                                                     {RuleOp::kChooseIndep, 0, 0},
                                                     {RuleOp::kEmit, 0, 0}}));
}

TEST(EditRulesTest, AddSimpleRuleErrorsInCephsWords) {
  MapModel m = TwoHosts();
  auto text = [&m](SimpleRuleSpec spec) { return CephErrorText(AddSimpleRule(m, spec).status()); };
  EXPECT_EQ(text({.name = "replicated_rule", .root = "default", .mode = "firstn"}),
            "rule replicated_rule exists");
  EXPECT_EQ(text({.name = "x", .root = "nowhere", .mode = "firstn"}),
            "root item nowhere does not exist");
  EXPECT_EQ(text({.name = "x", .root = "default", .failure_domain = "rack", .mode = "firstn"}),
            "unknown type rack");
  EXPECT_EQ(text({.name = "x", .root = "default", .device_class = "ssd", .mode = "firstn"}),
            "device class ssd does not exist");
  EXPECT_EQ(text({.name = "x", .root = "default", .mode = "spread"}), "unknown mode spread");
  ASSERT_TRUE(SetDeviceClass(m, 0, "ssd").ok());
  // Every bucket of the tree has a shadow (even host1, which has no ssd);
  // a device has none.
  EXPECT_EQ(text({.name = "x", .root = "osd.1", .device_class = "ssd", .mode = "firstn"}),
            "root osd.1 has no devices with class ssd");
  EXPECT_EQ(m.max_rules(), 1);  // nothing added on error
  // A class rule takes the shadow root.
  auto id = AddSimpleRule(m, {.name = "fast",
                              .root = "default",
                              .failure_domain = "host",
                              .device_class = "ssd",
                              .mode = "firstn"});
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(m.rules[1].steps[0].arg1, m.class_buckets.at(-1).at(0));
}

TEST(EditRulesTest, TheFirstFreeIdSkipsUsedRulesets) {
  MapModel m = TwoHosts();
  // Slots: 0 (ruleset 0), 1 empty, 2 (ruleset 1): slot 1's ruleset is taken.
  m.rules.resize(3);
  m.rule_exists = {true, false, true};
  m.rules[2] = m.rules[0];
  m.rules[2].ruleset = 1;
  auto id = AddSimpleRule(m, {.name = "r", .root = "default", .mode = "firstn"});
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, 3);
  // Slot 1 stays free (ruleset 1 is used) until the table is full:
  // then the search ends at max_rules, which crush_add_rule refuses.
  int added = 0;
  while (
      AddSimpleRule(m, {.name = "r" + std::to_string(added), .root = "default", .mode = "firstn"})
          .ok()) {
    ++added;
  }
  EXPECT_EQ(added, kMaxRules - 4);
  EXPECT_EQ(CephErrorText(
                AddSimpleRule(m, {.name = "last", .root = "default", .mode = "firstn"}).status()),
            "failed to add rule 256 because (28) No space left on device");
}

TEST(EditRulesTest, RemoveRuleEmptiesTheSlotAndDropsUnusedShadows) {
  MapModel m = TwoHosts();
  ASSERT_TRUE(SetDeviceClass(m, 0, "ssd").ok());
  ASSERT_TRUE(
      AddSimpleRule(m, {.name = "fast", .root = "default", .device_class = "ssd", .mode = "firstn"})
          .ok());
  ASSERT_TRUE(RemoveRule(m, 1).ok());
  EXPECT_EQ(m.max_rules(), 2);
  EXPECT_FALSE(m.rule_exists[1]);
  EXPECT_FALSE(FindRuleByName(m, "fast").ok());
  EXPECT_EQ(CephErrno(RemoveRule(m, 1)), 2);
  EXPECT_EQ(CephErrno(RemoveRule(m, 7)), 2);
}

TEST(EditRulesTest, BuildSimpleCrushRulesUsesTypeOnesName) {
  MapModel m = TwoHosts();
  ASSERT_TRUE(RemoveRule(m, 0).ok());
  ASSERT_TRUE(BuildSimpleCrushRules(m, "default").ok());
  EXPECT_EQ(*FindRuleByName(m, "replicated_rule"), 0);
  EXPECT_EQ(m.rules[0].steps[1], (RuleStep{RuleOp::kChooseleafFirstn, 0, 1}));
  m.type_names.erase(1);
  EXPECT_EQ(BuildSimpleCrushRules(m, "default").code(), absl::StatusCode::kInternal);
}

TEST(EditTest, CephErrnoOfOtherErrnos) {
  EXPECT_EQ(CephErrno(absl::OkStatus()), 0);
  EXPECT_EQ(CephErrno(absl::UnknownError("errno 34: overflow")), 34);
  EXPECT_EQ(CephErrno(absl::AbortedError("loop")), 40);
}

}  // namespace
}  // namespace crushkit::crush
