// DoRule on MSR rules (msr_firstn / msr_indep, crush_msr_do_rule): a
// hand-built map whose expected mappings were taken from Ceph 20.2's
// crushtool (`crushtool-tentacle -i map.bin --test --show-mappings --rule R
// --num-rep N [--weight D W] [--pool-id P]` on the same map compiled from
// text; the text is in the comment of MsrTestMap(); crushtool --test uses
// choose_args 0), plus the cases where
// Ceph itself faults and crushkit maps nothing.
#include <cstdint>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/model.h"
#include "crush/types.h"

namespace crushkit::crush {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;

constexpr Weight kOne = 0x10000;
constexpr ItemId kNone = kItemNone;

Bucket Straw2(ItemId id, std::uint16_t type, std::vector<ItemId> items, Weight each) {
  Bucket b;
  b.id = id;
  b.type = type;
  b.alg = BucketAlg::kStraw2;
  b.items = std::move(items);
  b.item_weights.assign(b.items.size(), each);
  b.weight = static_cast<Weight>(each * b.items.size());
  return b;
}

Rule MsrRule(RuleType type, std::vector<RuleStep> steps) {
  Rule r;
  r.type = type;
  r.min_size = 1;
  r.max_size = 100;
  r.steps = std::move(steps);
  return r;
}

// The map, as crushtool 20.2 text (types osd=0 host=1 root=2; optimal
// tunables plus `tunable msr_descents 7`, `tunable msr_collision_tries 9`):
//   host h0..h3 {id -2..-5; straw2; osd.(2i), osd.(2i+1) weight 1}
//   root default {id -1; straw2; h0..h3 weight 2}
//   rule 0 msr_indep: set_msr_descents 5; set_msr_collision_tries 3;
//          take default; choosemsr 3 type host; choosemsr 2 type osd; emit
//   rule 1 msr_firstn: take default; choosemsr 0 type osd; emit
//   rule 2 msr_indep: take default; choose firstn 2 type host; emit
//   rule 3 msr_firstn: set_msr_descents 1; set_msr_collision_tries 1;
//          take default; choosemsr 4 type host; choosemsr 1 type osd; emit
//   rule 4 msr_firstn: take osd.3; emit   (Ceph asserts)
//   choose_args 0 { bucket_id -1, weight_set [[5 1 1 1] [1 1 1 5]],
//                   ids [-20 -30 -40 -50] }
MapModel MsrTestMap() {
  MapModel m;
  m.max_devices = 8;
  m.buckets.push_back(Straw2(-1, 2, {-2, -3, -4, -5}, 2 * kOne));
  for (int h = 0; h < 4; ++h) {
    m.buckets.push_back(Straw2(-2 - h, 1, {2 * h, 2 * h + 1}, kOne));
  }
  m.tunables = TunablesFor(TunablesProfile::kOptimal);
  m.tunables.msr_descents = 7;
  m.tunables.msr_collision_tries = 9;
  m.tail = EncodedTail::kMsr;
  const RuleStep take{RuleOp::kTake, -1, 0};
  const RuleStep emit{RuleOp::kEmit, 0, 0};
  m.rules.push_back(MsrRule(RuleType::kMsrIndep, {{RuleOp::kSetMsrDescents, 5, 0},
                                                  {RuleOp::kSetMsrCollisionTries, 3, 0},
                                                  take,
                                                  {RuleOp::kChooseMsr, 3, 1},
                                                  {RuleOp::kChooseMsr, 2, 0},
                                                  emit}));
  m.rules.push_back(MsrRule(RuleType::kMsrFirstn, {take, {RuleOp::kChooseMsr, 0, 0}, emit}));
  m.rules.push_back(MsrRule(RuleType::kMsrIndep, {take, {RuleOp::kChooseFirstn, 2, 1}, emit}));
  m.rules.push_back(MsrRule(RuleType::kMsrFirstn, {{RuleOp::kSetMsrDescents, 1, 0},
                                                   {RuleOp::kSetMsrCollisionTries, 1, 0},
                                                   take,
                                                   {RuleOp::kChooseMsr, 4, 1},
                                                   {RuleOp::kChooseMsr, 1, 0},
                                                   emit}));
  m.rules.push_back(MsrRule(RuleType::kMsrFirstn, {{RuleOp::kTake, 3, 0}, emit}));
  m.rule_exists.assign(m.rules.size(), true);
  ChooseArg root;
  root.weight_set = {{5 * kOne, kOne, kOne, kOne}, {kOne, kOne, kOne, 5 * kOne}};
  root.ids = {-20, -30, -40, -50};
  m.choose_args[0][-1] = root;
  return m;
}

class MsrMapperTest : public ::testing::Test {
 protected:
  MsrMapperTest() : map_(*CrushMap::Build(MsrTestMap())), weights_(8, kOne) {}

  std::vector<ItemId> Map(int rule, std::uint32_t x, int num_rep, ChooseArgsRef args = {}) {
    Workspace ws(map_, num_rep);
    std::vector<ItemId> out(static_cast<std::size_t>(num_rep));
    const int n = DoRule(map_, rule, x, weights_, ws, out, args);
    diverged_ = ws.diverged_from_ceph();
    out.resize(static_cast<std::size_t>(n));
    return out;
  }

  CrushMap map_;
  std::vector<Weight> weights_;
  bool diverged_ = false;
};

TEST_F(MsrMapperTest, IndepTwoStepsMatchesCeph) {
  EXPECT_THAT(Map(0, 0, 6), ElementsAre(7, 6, 3, 2, 4, 5));
  EXPECT_THAT(Map(0, 1, 6), ElementsAre(7, 6, 3, 2, 5, 4));
  EXPECT_THAT(Map(0, 2, 6), ElementsAre(4, 5, 3, 2, 7, 6));
  EXPECT_FALSE(diverged_);
}

// result_max feeds the descent's r, so x 0 changes with num-rep 8; the
// block is 3 x 2 wide, so msr_indep leaves positions 6 and 7 empty.
TEST_F(MsrMapperTest, IndepReturnsCapacityWithHolesPastTheBlock) {
  EXPECT_THAT(Map(0, 0, 8), ElementsAre(7, 1, 3, 2, 4, 5, kNone, kNone));
  EXPECT_THAT(Map(0, 1, 8), ElementsAre(7, 6, 3, 2, 5, 4, kNone, kNone));
}

TEST_F(MsrMapperTest, FirstnChooseZeroMeansNumRep) {
  EXPECT_THAT(Map(1, 0, 5), ElementsAre(7, 3, 4, 6, 2));
  EXPECT_THAT(Map(1, 2, 5), ElementsAre(4, 2, 3, 5, 6));
  // Only 8 devices: firstn returns what it found.
  EXPECT_THAT(Map(1, 0, 12), ElementsAre(7, 3, 4, 6, 2, 0, 5, 1));
}

TEST_F(MsrMapperTest, OutDevicesAreRetriedAcrossDescents) {
  weights_[2] = 0;
  weights_[7] = 0;
  EXPECT_THAT(Map(0, 0, 6), ElementsAre(6, 1, 3, kNone, 4, 5));
  EXPECT_THAT(Map(0, 2, 6), ElementsAre(4, 5, 3, 1, kNone, 6));
  EXPECT_THAT(Map(0, 3, 6), ElementsAre(4, 5, 0, 1, 3, 6));
}

TEST_F(MsrMapperTest, FirstnWithPartialReweight) {
  weights_[0] = 0;
  weights_[1] = 0x8000;  // crushtool --weight 1 0.5
  EXPECT_THAT(Map(1, 1, 5), ElementsAre(7, 3, 5, 1, 4));
  EXPECT_THAT(Map(1, 3, 5), ElementsAre(4, 3, 7, 1, 6));
}

TEST_F(MsrMapperTest, RuleStepsOverrideMapTunables) {
  // One descent, one collision try: out devices are not replaced.
  weights_[2] = 0;
  weights_[3] = 0;
  EXPECT_THAT(Map(3, 0, 4), ElementsAre(7, 4));
  EXPECT_THAT(Map(3, 1, 4), ElementsAre(7, 5, 0));
  EXPECT_THAT(Map(3, 2, 4), ElementsAre(4));
}

TEST_F(MsrMapperTest, ChooseArgsWeightSetsAndIdsApply) {
  const ChooseArgsRef args = map_.ResolveChooseArgs(0);
  ASSERT_FALSE(args.none());
  // Position p of a stride uses weight_set[p] (the last row past the end).
  EXPECT_THAT(Map(0, 0, 6, args), ElementsAre(0, 1, 7, 6, 2, 3));
  EXPECT_THAT(Map(0, 2, 6, args), ElementsAre(7, 6, 1, 0, 3, 2));
  EXPECT_THAT(Map(1, 0, 3, args), ElementsAre(0, 7, 6));
  EXPECT_THAT(Map(1, 2, 3, args), ElementsAre(7, 1, 3));
}

// Ceph: a non-choosemsr step in an MSR block makes the rule map nothing,
// even for msr_indep (0, not result_max).
TEST_F(MsrMapperTest, MalformedRuleMapsNothing) {
  EXPECT_THAT(Map(2, 0, 3), ElementsAre());
  EXPECT_FALSE(diverged_);
}

// Ceph re-runs a `take <device>` block until an assertion fires.
TEST_F(MsrMapperTest, TakeOfADeviceIsReportedAsDivergence) {
  EXPECT_THAT(Map(4, 0, 3), ElementsAre());
  EXPECT_TRUE(diverged_);
}

TEST_F(MsrMapperTest, ZeroCapacityMapsNothing) {
  Workspace ws(map_, 0);
  EXPECT_EQ(DoRule(map_, 0, 1, weights_, ws, {}), 0);
  EXPECT_EQ(DoRule(map_, 1, 1, weights_, ws, {}), 0);
}

// crush_msr_do_rule never touches the choose_tries histogram.
TEST_F(MsrMapperTest, ChooseTriesProfileIsUntouched) {
  Workspace ws(map_, 6);
  ws.EnableChooseTriesProfile(map_);
  std::vector<ItemId> out(6);
  for (std::uint32_t x = 0; x < 64; ++x) DoRule(map_, 0, x, weights_, ws, out);
  EXPECT_THAT(ws.choose_tries_profile(), Each(0u));
}

// A workspace reused across calls and rules gives the same answers as a
// fresh one (the step vectors are cleared per block).
TEST_F(MsrMapperTest, WorkspaceReuseIsStateless) {
  Workspace ws(map_, 8);
  std::vector<ItemId> out(8);
  for (std::uint32_t x = 0; x < 32; ++x) {
    for (int rule : {0, 1, 3}) {
      for (int n : {3, 6, 8}) {
        std::span<ItemId> o(out.data(), static_cast<std::size_t>(n));
        const int got = DoRule(map_, rule, x, weights_, ws, o);
        std::vector<ItemId> fresh = Map(rule, x, n);
        EXPECT_EQ(std::vector<ItemId>(out.begin(), out.begin() + got), fresh)
            << "rule " << rule << " x " << x << " n " << n;
      }
    }
  }
}

}  // namespace
}  // namespace crushkit::crush
