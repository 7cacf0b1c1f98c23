#include "crush/edit/reclassify.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "crush/builder.h"
#include "crush/edit/edit.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/model.h"

namespace crushkit::crush {
namespace {

void AddHost(MapModel& m, ItemId id, const std::string& name, std::vector<ItemId> devices) {
  const std::vector<Weight> weights(devices.size(), kWeightOne);
  auto host = MakeBucket(BucketAlg::kStraw2, kHashRjenkins1, 1, devices, weights, 1);
  ASSERT_TRUE(AddBucket(m, id, *host).ok());
  m.item_names[id] = name;
}

void AddRoot(MapModel& m, ItemId id, const std::string& name, std::vector<ItemId> children) {
  std::vector<Weight> weights;
  for (ItemId c : children) weights.push_back(m.FindBucket(c)->weight);
  auto root = MakeBucket(BucketAlg::kStraw2, kHashRjenkins1, 2, children, weights, 1);
  ASSERT_TRUE(AddBucket(m, id, *root).ok());
  m.item_names[id] = name;
}

void AddRule(MapModel& m, const std::string& name, ItemId take) {
  Rule rule;
  rule.steps = {{RuleOp::kTake, take, 0}, {RuleOp::kChooseleafFirstn, 0, 1}, {RuleOp::kEmit, 0, 0}};
  m.rule_names[m.max_rules()] = name;
  m.rules.push_back(rule);
  m.rule_exists.push_back(true);
}

// A pre-Luminous map: hdd and ssd devices in parallel trees.
//   default (-1) { host0 (-2) { 0 1 }  host1 (-3) { 2 } }
//   ssd (-4) { host0-ssd (-5) { 3 }  host2-ssd (-6) { 4 } }
// rule 0 takes default, rule 1 takes ssd.
MapModel Legacy() {
  MapModel m;
  m.tunables = TunablesFor(TunablesProfile::kJewel);
  m.type_names = {{0, "osd"}, {1, "host"}, {2, "root"}};
  for (int i = 0; i < 5; ++i) m.item_names[i] = "osd." + std::to_string(i);
  m.max_devices = 5;
  AddHost(m, -2, "host0", {0, 1});
  AddHost(m, -3, "host1", {2});
  AddRoot(m, -1, "default", {-2, -3});
  AddHost(m, -5, "host0-ssd", {3});
  AddHost(m, -6, "host2-ssd", {4});
  AddRoot(m, -4, "ssd", {-5, -6});
  AddRule(m, "hdd_rule", -1);
  AddRule(m, "ssd_rule", -4);
  return m;
}

// The results of `rule` for x = 0..499 with 2 replicas.
std::vector<std::vector<ItemId>> Mappings(const MapModel& model, int rule) {
  auto map = CrushMap::Build(model);
  EXPECT_TRUE(map.ok()) << map.status();
  Workspace ws(*map, 2);
  const std::vector<Weight> weights(static_cast<std::size_t>(map->max_devices()), 0x10000);
  std::vector<std::vector<ItemId>> all;
  for (std::uint32_t x = 0; x < 500; ++x) {
    std::array<ItemId, 2> out{};
    const int n = DoRule(*map, rule, x, weights, ws, out, map->ResolveChooseArgs(0));
    all.emplace_back(out.begin(), out.begin() + n);
  }
  return all;
}

ReclassifySpec Roots(std::map<std::string, std::string> roots) {
  ReclassifySpec spec;
  spec.roots = std::move(roots);
  return spec;
}

ReclassifySpec Buckets(std::map<std::string, std::pair<std::string, std::string>> buckets) {
  ReclassifySpec spec;
  spec.buckets = std::move(buckets);
  return spec;
}

std::string Name(const MapModel& m, ItemId id) {
  auto it = m.item_names.find(id);
  return it == m.item_names.end() ? "" : it->second;
}

TEST(ReclassifyTest, RootKeepsItsIdsAsTheShadowTreeSoNothingMoves) {
  MapModel m = Legacy();
  const auto before = Mappings(m, 0);
  ASSERT_TRUE(SetSubtreeClass(m, "default", "hdd").ok());
  std::string log;
  ASSERT_TRUE(Reclassify(m, Roots({{"default", "hdd"}}), &log).ok());
  EXPECT_EQ(log,
            "classify_root default (-1) as hdd\n"
            "  renumbering bucket -1 -> -7\n"
            "  renumbering bucket -3 -> -8\n"
            "  renumbering bucket -2 -> -9\n");
  EXPECT_EQ(Name(m, -7), "default");
  EXPECT_EQ(Name(m, -1), "default~hdd");
  EXPECT_EQ(Name(m, -2), "host0~hdd");
  EXPECT_EQ(Name(m, -9), "host0");
  EXPECT_EQ(m.class_buckets[-7].begin()->second, -1);
  EXPECT_EQ(m.FindBucket(-1)->items, (std::vector<ItemId>{-2, -3}));
  // Rule 0 still takes -1, now default's hdd shadow tree: same placements.
  EXPECT_EQ(Mappings(m, 0), before);
}

TEST(ReclassifyTest, MatchedBucketsMoveIntoTheirBasesAndLendThemTheirIds) {
  MapModel m = Legacy();
  const auto ssd_before = Mappings(m, 1);
  std::string log;
  const ReclassifySpec spec = Buckets({{"%-ssd", {"ssd", "default"}}, {"ssd", {"ssd", "default"}}});
  ASSERT_TRUE(Reclassify(m, spec, &log).ok()) << log;
  EXPECT_EQ(log,
            "classify_bucket %-ssd as ssd default bucket default (root)\n"
            "match %-ssd to host0-ssd basename host0\n"
            "  have base -2\n"
            "match %-ssd to host2-ssd basename host2\n"
            "  created base -7\n"
            "classify_bucket ssd as ssd default bucket default (root)\n"
            "match ssd to ssd basename default\n"
            "  have base -1\n"
            "moving items from -6 (host2-ssd) to -7 (host2)\n"
            "moving items from -5 (host0-ssd) to -2 (host0)\n"
            "moving items from -4 (ssd) to -1 (default)\n");
  // The ssd devices joined their hosts, with the class set.
  EXPECT_EQ(m.FindBucket(-2)->items, (std::vector<ItemId>{0, 1, 3}));
  EXPECT_EQ(m.FindBucket(-7)->items, (std::vector<ItemId>{4}));
  EXPECT_EQ(m.FindBucket(-1)->items, (std::vector<ItemId>{-2, -3, -7}));
  EXPECT_EQ(Name(m, -4), "default~ssd");
  EXPECT_EQ(Name(m, -5), "host0~ssd");
  EXPECT_EQ(Name(m, -6), "host2~ssd");
  // Rule 1 takes -4, now default's ssd shadow tree with the old ids.
  EXPECT_EQ(Mappings(m, 1), ssd_before);
}

TEST(ReclassifyTest, UnknownRootFailsWithCephsMessage) {
  MapModel m = Legacy();
  std::string log;
  const absl::Status s = Reclassify(m, Roots({{"nosuch", "hdd"}}), &log);
  EXPECT_EQ(CephErrno(s), 22);
  EXPECT_EQ(log, "root nosuch does not exist\n");
}

TEST(ReclassifyTest, RuleTakingAClassOfTheRootIsRefused) {
  MapModel m = Legacy();
  ASSERT_TRUE(SetDeviceClass(m, 0, "hdd").ok());
  const ItemId shadow = m.class_buckets[-1].begin()->second;
  AddRule(m, "hdd_class", shadow);
  std::string log;
  const absl::Status s = Reclassify(m, Roots({{"default", "hdd"}}), &log);
  EXPECT_EQ(CephErrno(s), 22);
  EXPECT_EQ(log,
            "classify_root default (-1) as hdd\n"
            "  rule 2 includes take on root default class 0\n");
}

TEST(ReclassifyTest, UnknownDefaultParentFails) {
  MapModel m = Legacy();
  std::string log;
  const absl::Status s = Reclassify(m, Buckets({{"%-ssd", {"ssd", "nosuch"}}}), &log);
  EXPECT_EQ(CephErrno(s), 22);
  EXPECT_EQ(log, "default parent nosuch does not exist\n");
}

TEST(ReclassifyTest, ChildBucketNotMatchedFailsTheMove) {
  MapModel m = Legacy();
  std::string log;
  // "ssd" is matched but its children are not: Ceph gives up (EINVAL).
  const absl::Status s = Reclassify(m, Buckets({{"ssd", {"ssd", "default"}}}), &log);
  EXPECT_EQ(CephErrno(s), 22);
  EXPECT_NE(log.find("moving items from -4 (ssd) to -1 (default)\n"), std::string::npos);
}

TEST(ReclassifyTest, DeviceAsDefaultParentIsUndefinedInCeph) {
  MapModel m = Legacy();
  std::string log;
  const absl::Status s = Reclassify(m, Buckets({{"%-ssd", {"ssd", "osd.0"}}}), &log);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
}

TEST(SetSubtreeClassTest, ClassesEveryDeviceBelowReplacingOldClasses) {
  MapModel m = Legacy();
  m.class_names[0] = "nvme";
  m.class_map[3] = 0;
  ASSERT_TRUE(SetSubtreeClass(m, "ssd", "ssd").ok());
  EXPECT_EQ(m.class_names.at(1), "ssd");
  EXPECT_EQ(m.class_map.at(3), 1);
  EXPECT_EQ(m.class_map.at(4), 1);
  EXPECT_EQ(m.class_map.count(0), 0U);
  // No shadow-tree rebuild: that is left to the caller (reclassify).
  EXPECT_TRUE(m.class_buckets.empty());
}

TEST(SetSubtreeClassTest, DeviceOrUnknownNameIsNotFound) {
  MapModel m = Legacy();
  EXPECT_EQ(SetSubtreeClass(m, "nosuch", "hdd").code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(m.class_names.empty());
  // A device: the class is created before Ceph finds out.
  EXPECT_EQ(SetSubtreeClass(m, "osd.0", "hdd").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(m.class_names.at(0), "hdd");
  EXPECT_TRUE(m.class_map.empty());
}

}  // namespace
}  // namespace crushkit::crush
