// Tests of every documented limit (tests/fuzz/README.md, "Limits"): each one
// just below (accepted) and just above (a clear error, or the documented
// capped behaviour). Expected values are derived by hand in the comments.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/builder.h"
#include "crush/codec.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/model.h"
#include "crush/types.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::crush {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::Each;
using ::testing::HasSubstr;
using ::testing::Ne;

// A little-endian byte writer for hand-made encodings.
class Bytes {
 public:
  Bytes& U32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) s_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return *this;
  }

  Bytes& S32(std::int32_t v) { return U32(static_cast<std::uint32_t>(v)); }

  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

// Header of an encoding with `max_buckets` bucket slots and `max_rules` rule slots.
Bytes Header(std::int32_t max_buckets, std::uint32_t max_rules) {
  Bytes b;
  b.U32(kCrushMagic).S32(max_buckets).U32(max_rules).S32(0);
  return b;
}

// One straw2 bucket with `items` (weight 1.0 each) in slot 0 (id -1).
MapModel OneBucket(const std::vector<ItemId>& items, BucketAlg alg = BucketAlg::kStraw2) {
  MapModel m;
  std::vector<Weight> weights(items.size(), kWeightOne);
  auto b = MakeBucket(alg, kHashRjenkins1, 1, items, weights, 1);
  EXPECT_THAT(b, IsOk());
  b->id = -1;
  m.buckets.push_back(*b);
  m.tunables = TunablesFor(TunablesProfile::kJewel);
  for (ItemId i : items) {
    if (i >= 0) m.max_devices = std::max(m.max_devices, i + 1);
  }
  return m;
}

// take -1; <op> numrep type; emit.
Rule SimpleRule(RuleOp op, int numrep, int type, ItemId root = -1) {
  Rule r;
  r.steps = {{RuleOp::kTake, root, 0}, {op, numrep, type}, {RuleOp::kEmit, 0, 0}};
  return r;
}

void AddRule(MapModel& m, Rule r) {
  m.rules.push_back(std::move(r));
  m.rule_exists.push_back(true);
}

// ---------------------------------------------------------------- devices

TEST(DeviceLimitTest, LargestDecodableDeviceIdIsAccepted) {
  // kMaxDecodedDevices - 1 is the largest id: max_devices becomes 2^24.
  MapModel m = OneBucket({0, kMaxDecodedDevices - 1});
  auto decoded = DecodeCrushMap(EncodeCrushMap(m));
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(decoded->max_devices, kMaxDecodedDevices);
  EXPECT_THAT(CrushMap::Build(*decoded), IsOk());
}

TEST(DeviceLimitTest, DeviceIdAtTheLimitIsRejected) {
  MapModel m = OneBucket({0, kMaxDecodedDevices});
  EXPECT_THAT(DecodeCrushMap(EncodeCrushMap(m)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("too large")));
}

TEST(DeviceLimitTest, NamedDeviceAtTheLimitIsRejected) {
  MapModel m = OneBucket({0});
  m.item_names[kMaxDecodedDevices - 1] = "osd.big";
  EXPECT_THAT(DecodeCrushMap(EncodeCrushMap(m)), IsOk());
  m.item_names[kMaxDecodedDevices] = "osd.bigger";
  EXPECT_THAT(DecodeCrushMap(EncodeCrushMap(m)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("too large")));
}

TEST(DeviceLimitTest, DevicesAtOrBeyondMaxDevicesAreNeverMapped) {
  // Build accepts device ids >= max_devices; the mapper treats them as bad
  // items (Ceph's "bad item" skip), so only device 0 can come out.
  MapModel m = OneBucket({0, 1, 2});
  m.max_devices = 1;
  AddRule(m, SimpleRule(RuleOp::kChooseFirstn, 3, 0));
  auto map = CrushMap::Build(m);
  ASSERT_THAT(map, IsOk());
  Workspace ws(*map, 3);
  std::vector<Weight> rw(3, kWeightOne);
  for (std::uint32_t x = 0; x < 50; ++x) {
    std::vector<ItemId> out(3);
    const int n = DoRule(*map, 0, x, rw, ws, out);
    for (int i = 0; i < n; ++i) EXPECT_EQ(out[static_cast<std::size_t>(i)], 0);
  }
}

// ---------------------------------------------------------------- buckets

TEST(BucketLimitTest, BucketSlotsAreBoundedByInputSizeOnly) {
  // Every slot costs at least its 4-byte alg word, so max_buckets can be as
  // large as the input allows: 100000 empty slots decode.
  constexpr int kSlots = 100000;
  Bytes b = Header(kSlots, 0);
  for (int i = 0; i < kSlots; ++i) b.U32(0);
  b.U32(0).U32(0).U32(0);  // three empty name maps
  auto m = DecodeCrushMap(b.str());
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(m->max_buckets(), kSlots);
  EXPECT_THAT(CrushMap::Build(*m), IsOk());
}

TEST(BucketLimitTest, MoreSlotsThanBytesIsDataLoss) {
  // Claims 100001 slots but carries 100000: rejected before allocating.
  Bytes b = Header(100001, 0);
  for (int i = 0; i < 100000; ++i) b.U32(0);
  b.U32(0).U32(0).U32(0);
  EXPECT_THAT(DecodeCrushMap(b.str()), StatusIs(absl::StatusCode::kDataLoss));
  EXPECT_THAT(DecodeCrushMap(Header(0x7fffffff, 0).str()), StatusIs(absl::StatusCode::kDataLoss));
  EXPECT_THAT(DecodeCrushMap(Header(-1, 0).str()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("negative max_buckets")));
}

TEST(BucketLimitTest, BuilderAcceptsIdsDownToMinusMaxSlots) {
  MapModel m;
  auto b = MakeBucket(BucketAlg::kStraw2, kHashRjenkins1, 1, std::vector<ItemId>{0},
                      std::vector<Weight>{kWeightOne}, 1);
  ASSERT_THAT(b, IsOk());
  EXPECT_THAT(AddBucket(m, -kMaxBucketSlots, *b), IsOk());
  EXPECT_EQ(m.max_buckets(), kMaxBucketSlots);
  EXPECT_THAT(AddBucket(m, -kMaxBucketSlots - 1, *b),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("below the supported")));
}

// ---------------------------------------------------------------- items per bucket

TEST(ItemsPerBucketTest, TreeBucketHoldsUpTo64Items) {
  // The format stores a tree's node count in a u8 and the builder uses
  // 1 << depth nodes: 64 items need depth 7 (128 nodes); 65 need 256, which
  // does not fit, so such a bucket cannot be encoded faithfully.
  std::vector<ItemId> items(64);
  for (int i = 0; i < 64; ++i) items[static_cast<std::size_t>(i)] = i;
  MapModel ok = OneBucket(items, BucketAlg::kTree);
  EXPECT_EQ(ok.buckets[0].node_weights.size(), 128u);
  auto decoded = DecodeCrushMap(EncodeCrushMap(ok));
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(*decoded, ok);

  items.push_back(64);
  MapModel too_big = OneBucket(items, BucketAlg::kTree);
  EXPECT_EQ(too_big.buckets[0].node_weights.size(), 256u);
  EXPECT_THAT(DecodeCrushMap(EncodeCrushMap(too_big)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("tree num_nodes")));
}

TEST(ItemsPerBucketTest, Straw2BucketSizeIsBoundedByInputSizeOnly) {
  std::vector<ItemId> items(50000);
  for (int i = 0; i < 50000; ++i) items[static_cast<std::size_t>(i)] = i;
  MapModel m = OneBucket(items);
  AddRule(m, SimpleRule(RuleOp::kChooseFirstn, 3, 0));
  const std::string bytes = EncodeCrushMap(m);
  auto decoded = DecodeCrushMap(bytes);
  ASSERT_THAT(decoded, IsOk());
  auto map = CrushMap::Build(*decoded);
  ASSERT_THAT(map, IsOk());
  Workspace ws(*map, 3);
  std::vector<Weight> rw(50000, kWeightOne);
  std::vector<ItemId> out(3);
  EXPECT_EQ(DoRule(*map, 0, 1, rw, ws, out), 3);

  // The size word claims one item more than the bytes hold: the bucket is
  // at offset 16 (header); its size word at 16 + 4 + 4 + 2 + 1 + 1 + 4.
  std::string bigger = bytes;
  const std::size_t size_at = 32;
  ASSERT_EQ(static_cast<unsigned char>(bigger[size_at]) |
                (static_cast<unsigned char>(bigger[size_at + 1]) << 8),
            50000u & 0xffffu);
  bigger[size_at] = static_cast<char>(0xff);
  bigger[size_at + 1] = static_cast<char>(0xff);
  bigger[size_at + 2] = static_cast<char>(0xff);
  bigger[size_at + 3] = static_cast<char>(0x0f);
  EXPECT_THAT(DecodeCrushMap(bigger), StatusIs(absl::StatusCode::kDataLoss));
}

// ---------------------------------------------------------------- rules and steps

TEST(RuleLimitTest, RuleSlotsBeyondKMaxRulesAreAcceptedAsCephDoes) {
  MapModel m = OneBucket({0, 1});
  for (int i = 0; i < kMaxRules; ++i) AddRule(m, SimpleRule(RuleOp::kChooseFirstn, 1, 0));
  EXPECT_THAT(CrushMap::Build(m), IsOk());
  // kMaxRules bounds the ids Ceph picks itself; crushtool 16.2 compiles and
  // maps any explicit rule id (crush/rule_edge_test.cc checks id 70000 against
  // it), so a 257th slot decodes and builds too.
  AddRule(m, SimpleRule(RuleOp::kChooseFirstn, 1, 0));
  auto decoded = DecodeCrushMap(EncodeCrushMap(m));
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(decoded->max_rules(), kMaxRules + 1);
  EXPECT_THAT(CrushMap::Build(*decoded), IsOk());
}

TEST(RuleLimitTest, StepsAreBoundedByInputSizeOnly) {
  // 10000 steps (noops between take and emit) decode, build and map.
  MapModel m = OneBucket({0, 1, 2});
  Rule r;
  r.steps.push_back({RuleOp::kTake, -1, 0});
  for (int i = 0; i < 10000; ++i) r.steps.push_back({RuleOp::kNoop, 0, 0});
  r.steps.push_back({RuleOp::kChooseFirstn, 2, 0});
  r.steps.push_back({RuleOp::kEmit, 0, 0});
  AddRule(m, r);
  const std::string bytes = EncodeCrushMap(m);
  auto decoded = DecodeCrushMap(bytes);
  ASSERT_THAT(decoded, IsOk());
  auto map = CrushMap::Build(*decoded);
  ASSERT_THAT(map, IsOk());
  Workspace ws(*map, 2);
  std::vector<Weight> rw(3, kWeightOne);
  std::vector<ItemId> out(2);
  EXPECT_EQ(DoRule(*map, 0, 7, rw, ws, out), 2);

  // Rule length one step larger than the bytes: the rule header starts after
  // the bucket; find its length word by value (10003) and bump it.
  std::string longer = bytes;
  const std::string want = Bytes().U32(10003).str();
  const std::size_t at = longer.find(want);
  ASSERT_NE(at, std::string::npos);
  longer.replace(at, 4, Bytes().U32(10000000).str());
  EXPECT_THAT(DecodeCrushMap(longer), StatusIs(absl::StatusCode::kDataLoss));
}

// ---------------------------------------------------------------- choose_args positions

// A straw2 root over 4 devices with a weight set of `positions` rows, row p
// favouring device p % 4 (weight 16) over the others (weight 1).
MapModel WithPositions(int positions) {
  MapModel m = OneBucket({0, 1, 2, 3});
  AddRule(m, SimpleRule(RuleOp::kChooseFirstn, 3, 0));
  ChooseArg& arg = m.choose_args[kCompatChooseArgs][-1];
  for (int p = 0; p < positions; ++p) {
    std::vector<Weight> row(4, kWeightOne);
    row[static_cast<std::size_t>(p % 4)] = 16 * kWeightOne;
    arg.weight_set.push_back(row);
  }
  return m;
}

std::vector<std::vector<ItemId>> MapAll(const MapModel& m, int numrep) {
  auto map = CrushMap::Build(m);
  EXPECT_THAT(map, IsOk());
  Workspace ws(*map, numrep);
  std::vector<Weight> rw(4, kWeightOne);
  std::vector<std::vector<ItemId>> all;
  for (std::uint32_t x = 0; x < 200; ++x) {
    std::vector<ItemId> out(static_cast<std::size_t>(numrep));
    out.resize(
        static_cast<std::size_t>(DoRule(*map, 0, x, rw, ws, out, map->ResolveChooseArgs(0))));
    all.push_back(out);
  }
  return all;
}

TEST(ChooseArgsLimitTest, PositionsBeyondTheResultSizeAreUnused) {
  // numrep 3 reads rows 0..2 only: a 4th row (or a 40th) changes nothing.
  const auto three = MapAll(WithPositions(3), 3);
  EXPECT_EQ(MapAll(WithPositions(4), 3), three);
  EXPECT_EQ(MapAll(WithPositions(40), 3), three);
  // ... but the rows do matter: with no weight set results differ.
  EXPECT_NE(MapAll(WithPositions(0), 3), three);
}

TEST(ChooseArgsLimitTest, FewerPositionsThanReplicasReuseTheLastRow) {
  // mapper.c: position >= weight_set_positions uses the last row. With two
  // rows, positions 1 and 2 both use row 1, which is a 3-row set whose
  // third row equals its second.
  MapModel two = WithPositions(2);
  MapModel three = WithPositions(2);
  auto& rows = three.choose_args[kCompatChooseArgs][-1].weight_set;
  rows.push_back(rows[1]);
  EXPECT_EQ(MapAll(two, 3), MapAll(three, 3));
}

TEST(ChooseArgsLimitTest, PositionCountLargerThanTheBytesIsDataLoss) {
  MapModel m = WithPositions(2);
  std::string bytes = EncodeCrushMap(m);
  // Layout of the choose_args group: u32 n=1, s64 index=-1, u32 n_args=1,
  // u32 slot=0, u32 positions=2 -> replace "positions 2" with 1000000.
  const std::string marker = Bytes().U32(1).U32(0).U32(2).str();  // n_args, slot, positions
  const std::size_t at = bytes.rfind(marker);
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at + 8, 4, Bytes().U32(1000000).str());
  EXPECT_THAT(DecodeCrushMap(bytes), StatusIs(absl::StatusCode::kDataLoss));
}

// ---------------------------------------------------------------- hierarchy depth

// A chain root -1 -> -2 -> ... -> -depth -> device 0 (straw2, one item each).
MapModel Chain(int depth) {
  MapModel m;
  m.tunables = TunablesFor(TunablesProfile::kJewel);
  m.max_devices = 1;
  for (int i = 0; i < depth; ++i) {
    const ItemId child = i + 1 < depth ? BucketIdOfSlot(i + 1) : 0;
    // Types 1..65535 (never 0: a bucket of type 0 is a separate mapper issue).
    const auto type = static_cast<std::uint16_t>(1 + (depth - i) % 65535);
    auto b = MakeBucket(BucketAlg::kStraw2, kHashRjenkins1, type, std::vector<ItemId>{child},
                        std::vector<Weight>{kWeightOne}, 1);
    EXPECT_THAT(b, IsOk());
    b->id = BucketIdOfSlot(i);
    m.buckets.push_back(*b);
  }
  AddRule(m, SimpleRule(RuleOp::kChooseleafFirstn, 1, 0));
  return m;
}

TEST(DepthLimitTest, DeepChainsBuildAndMap) {
  // No depth limit: validation is iterative and the descent is a loop, so a
  // 100000-level chain neither overflows the stack nor fails.
  MapModel m = Chain(100000);
  auto decoded = DecodeCrushMap(EncodeCrushMap(m));
  ASSERT_THAT(decoded, IsOk());
  auto map = CrushMap::Build(*decoded);
  ASSERT_THAT(map, IsOk());
  Workspace ws(*map, 1);
  std::vector<Weight> rw(1, kWeightOne);
  std::vector<ItemId> out(1);
  ASSERT_EQ(DoRule(*map, 0, 3, rw, ws, out), 1);
  EXPECT_EQ(out[0], 0);
  EXPECT_FALSE(ws.budget_exhausted());
}

TEST(DepthLimitTest, ACycleIsRejected) {
  // Infinite depth: the deepest bucket points back at the root.
  MapModel m = Chain(50);
  m.buckets.back().items[0] = -1;
  m.max_devices = 0;
  EXPECT_THAT(CrushMap::Build(m), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cycle")));
}

// ---------------------------------------------------------------- replica count

MapModel FourHosts() {
  crush_testing::ClusterSpec spec;
  spec.hosts = 4;
  spec.osds_per_host = 2;
  return crush_testing::MakeClusterModel(spec);
}

int Count(const CrushMap& map, int rule, int max_result, std::size_t out_size,
          std::vector<ItemId>* result = nullptr) {
  Workspace ws(map, max_result);
  std::vector<Weight> rw(static_cast<std::size_t>(map.max_devices()), kWeightOne);
  std::vector<ItemId> out(out_size);
  const int n = DoRule(map, rule, 11, rw, ws, out);
  if (result != nullptr) *result = std::vector<ItemId>(out.begin(), out.begin() + std::max(n, 0));
  return n;
}

TEST(ReplicaLimitTest, ResultIsCappedByWorkspaceAndSpan) {
  // Rule 0 is "chooseleaf firstn 0 type host": numrep 0 means "as many as
  // the result can hold", i.e. min(max_result, out.size()).
  auto map = CrushMap::Build(FourHosts());
  ASSERT_THAT(map, IsOk());
  EXPECT_EQ(Count(*map, crush_testing::kReplicatedRule, 3, 3), 3);
  EXPECT_EQ(Count(*map, crush_testing::kReplicatedRule, 3, 2), 2);  // span is smaller
  EXPECT_EQ(Count(*map, crush_testing::kReplicatedRule, 2, 3), 2);  // workspace is smaller
  EXPECT_EQ(Count(*map, crush_testing::kReplicatedRule, 0, 3), 0);
  EXPECT_EQ(Count(*map, crush_testing::kReplicatedRule, -5, 3), 0);  // treated as 0
}

TEST(ReplicaLimitTest, MoreReplicasThanFailureDomains) {
  // 4 hosts: firstn finds 4 distinct hosts and stops; indep keeps 5
  // positions, one of them a hole.
  auto map = CrushMap::Build(FourHosts());
  ASSERT_THAT(map, IsOk());
  EXPECT_EQ(Count(*map, crush_testing::kReplicatedRule, 4, 4), 4);
  EXPECT_EQ(Count(*map, crush_testing::kReplicatedRule, 5, 5), 4);
  std::vector<ItemId> out;
  EXPECT_EQ(Count(*map, crush_testing::kEcRule, 4, 4, &out), 4);
  EXPECT_THAT(out, Each(Ne(kItemNone)));
  EXPECT_EQ(Count(*map, crush_testing::kEcRule, 5, 5, &out), 5);
  EXPECT_EQ(std::count(out.begin(), out.end(), kItemNone), 1);
}

TEST(ReplicaLimitTest, LargeResultCapacityIsFine) {
  // Capacity is the caller's choice (the workspace allocates 3 x max_result);
  // indep fills every requested position, with holes past the 4 hosts.
  auto map = CrushMap::Build(FourHosts());
  ASSERT_THAT(map, IsOk());
  std::vector<ItemId> out;
  EXPECT_EQ(Count(*map, crush_testing::kEcRule, 1000, 1000, &out), 1000);
  EXPECT_EQ(std::count(out.begin(), out.end(), kItemNone), 996);
}

// ---------------------------------------------------------------- tunables / work budget

TEST(WorkBudgetTest, HugeTriesOnAnUnsatisfiableRuleEndWithCephsResult) {
  // 3 replicas on distinct hosts but only one host: Ceph retries
  // choose_total_tries times per replica. With 2^31 tries crushkit proves
  // after 64 that none can succeed (crush/mapper_hopeless.cc) and returns
  // Ceph's result, the one replica found, without nearing the budget. Over a
  // tree bucket no proof is attempted: the budget ends the call.
  crush_testing::ClusterSpec spec;
  spec.hosts = 1;
  spec.osds_per_host = 2;
  for (const BucketAlg root_alg : {BucketAlg::kStraw2, BucketAlg::kTree}) {
    spec.root_alg = root_alg;
    MapModel m = crush_testing::MakeClusterModel(spec);
    m.tunables.choose_total_tries = 50;
    auto map = CrushMap::Build(m);
    ASSERT_THAT(map, IsOk());
    Workspace ws(*map, 3);
    ws.set_budget(1 << 20);
    std::vector<Weight> rw(2, kWeightOne);
    std::vector<ItemId> out(3);
    EXPECT_EQ(DoRule(*map, crush_testing::kReplicatedRule, 5, rw, ws, out), 1);
    EXPECT_FALSE(ws.budget_exhausted());

    m.tunables.choose_total_tries = 0x7fffffff;
    auto huge = CrushMap::Build(m);
    ASSERT_THAT(huge, IsOk());
    Workspace ws2(*huge, 3);
    ws2.set_budget(1 << 20);
    EXPECT_EQ(DoRule(*huge, crush_testing::kReplicatedRule, 5, rw, ws2, out), 1);
    EXPECT_EQ(ws2.budget_exhausted(), root_alg == BucketAlg::kTree);
  }
}

}  // namespace
}  // namespace crushkit::crush
