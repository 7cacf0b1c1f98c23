// ChoiceMemo: mapping x on B while replaying A's straw2 choices must give
// exactly B's plain result, and recording must not change A's result. The
// random cases mix every bucket algorithm, choose_args (weight sets with
// several positions, substitute ids, pool and compat indexes), legacy and
// modern tunables, firstn / indep / chooseleaf rules with retries, and
// devices out or half out, under the edits a cluster change makes.
#include "crush/choice_memo.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "gtest/gtest.h"

#include "crush/builder.h"
#include "crush/hash.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/model.h"
#include "crush/types.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::crush {
namespace {

using Rng = std::mt19937;

int Uniform(Rng& rng, int lo, int hi) {  // inclusive
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

std::size_t SlotOf(ItemId id) { return static_cast<std::size_t>(BucketSlot(id)); }

std::vector<Weight> ItemWeights(const Bucket& b) {
  std::vector<Weight> w;
  for (std::size_t i = 0; i < b.items.size(); ++i) w.push_back(BucketItemWeight(b, i));
  return w;
}

// Rebuilds bucket `id` with `items`/`weights` (its alg, type and id kept),
// then updates its weight in every parent, up to the root, as Ceph's
// adjust_item_weight does.
void Rebuild(MapModel& m, ItemId id, const std::vector<ItemId>& items,
             std::vector<Weight> weights) {
  Bucket& old = m.buckets[SlotOf(id)];
  if (old.alg == BucketAlg::kUniform) {  // one positive weight for all items
    const Weight u = weights.empty() || weights[0] == 0 ? kWeightOne : weights[0];
    weights.assign(weights.size(), u);
  }
  auto made =
      MakeBucket(old.alg, old.hash, old.type, items, weights, m.tunables.straw_calc_version);
  ASSERT_TRUE(made.ok()) << made.status();
  made->id = id;
  old = *std::move(made);
  for (Bucket& parent : m.buckets) {
    for (std::size_t i = 0; i < parent.items.size(); ++i) {
      if (parent.items[i] != id) continue;
      std::vector<Weight> w = ItemWeights(parent);
      if (w[i] == m.buckets[SlotOf(id)].weight) continue;
      w[i] = m.buckets[SlotOf(id)].weight;
      const std::vector<ItemId> its = parent.items;
      Rebuild(m, parent.id, its, w);
      return;
    }
  }
}

RuleStep Step(RuleOp op, std::int32_t a1 = 0, std::int32_t a2 = 0) { return RuleStep{op, a1, a2}; }

// Extra rules beside cluster_builder's: plain choose at two levels, indep
// down to devices, local retry overrides, several take/emit blocks.
void AddRules(MapModel& m) {
  const ItemId root = -1;
  const ItemId some_host = m.buckets.back().id;
  auto add = [&m](RuleType type, std::vector<RuleStep> steps) {
    Rule r;
    r.ruleset = static_cast<std::uint8_t>(m.rules.size());
    r.type = type;
    r.min_size = 1;
    r.max_size = 20;
    r.steps = std::move(steps);
    m.rules.push_back(r);
    m.rule_exists.push_back(true);
  };
  add(RuleType::kReplicated,
      {Step(RuleOp::kTake, root), Step(RuleOp::kChooseFirstn, 2, crush_testing::kHostType),
       Step(RuleOp::kChooseFirstn, 2, crush_testing::kOsdType), Step(RuleOp::kEmit)});
  add(RuleType::kErasure,
      {Step(RuleOp::kSetChooseTries, 50), Step(RuleOp::kTake, root),
       Step(RuleOp::kChooseIndep, 0, crush_testing::kOsdType), Step(RuleOp::kEmit)});
  add(RuleType::kReplicated,
      {Step(RuleOp::kSetChooseLocalTries, 3), Step(RuleOp::kSetChooseLocalFallbackTries, 4),
       Step(RuleOp::kSetChooseleafVaryR, 0), Step(RuleOp::kSetChooseleafStable, 0),
       Step(RuleOp::kTake, root), Step(RuleOp::kChooseleafFirstn, 0, crush_testing::kHostType),
       Step(RuleOp::kEmit)});
  add(RuleType::kErasure,
      {Step(RuleOp::kTake, some_host), Step(RuleOp::kChooseleafFirstn, 1, 0), Step(RuleOp::kEmit),
       Step(RuleOp::kTake, root), Step(RuleOp::kChooseleafIndep, 3, crush_testing::kHostType),
       Step(RuleOp::kEmit)});
}

BucketAlg RandomAlg(Rng& rng) {
  switch (Uniform(rng, 0, 9)) {
    case 0:
      return BucketAlg::kUniform;
    case 1:
      return BucketAlg::kList;
    case 2:
      return BucketAlg::kTree;
    case 3:
      return BucketAlg::kStraw;
    default:
      return BucketAlg::kStraw2;  // the common case, and the memoised one
  }
}

// Random choose_args for straw2 buckets: each present index gives a weight
// set (1-3 positions) and/or substitute ids to about half the buckets.
void AddChooseArgs(MapModel& m, Rng& rng) {
  const std::vector<std::int64_t> candidates = {kCompatChooseArgs, 1, 2};
  for (const std::int64_t index : candidates) {
    if (Uniform(rng, 0, 2) == 0) continue;
    ChooseArgMap& args = m.choose_args[index];
    for (const Bucket& b : m.buckets) {
      if (b.alg != BucketAlg::kStraw2 || Uniform(rng, 0, 1) == 0) continue;
      ChooseArg a;
      if (Uniform(rng, 0, 3) != 0) {
        a.weight_set.resize(static_cast<std::size_t>(Uniform(rng, 1, 3)));
        for (auto& row : a.weight_set) {
          for (const Weight w : b.item_weights) {
            row.push_back(Uniform(rng, 0, 5) == 0 ? 0
                                                  : w / 2 + static_cast<Weight>(rng() % (w + 1u)));
          }
        }
      }
      if (Uniform(rng, 0, 3) == 0) {
        for (std::size_t i = 0; i < b.items.size(); ++i)
          a.ids.push_back(static_cast<ItemId>(rng()));
      }
      args[b.id] = a;
    }
  }
}

MapModel RandomModel(Rng& rng) {
  crush_testing::ClusterSpec spec;
  spec.hosts = Uniform(rng, 2, 12);
  spec.osds_per_host = Uniform(rng, 1, 7);
  spec.racks = Uniform(rng, 0, 2) == 0 ? 0 : Uniform(rng, 1, std::min(spec.hosts, 4));
  for (int i = 0; i < spec.hosts * spec.osds_per_host; ++i) {
    spec.osd_weights.push_back(
        Uniform(rng, 0, 9) == 0 ? 0 : static_cast<Weight>(Uniform(rng, 0x4000, 0x30000)));
  }
  const TunablesProfile profiles[] = {TunablesProfile::kArgonaut, TunablesProfile::kBobtail,
                                      TunablesProfile::kFirefly, TunablesProfile::kJewel};
  spec.tunables = TunablesFor(profiles[Uniform(rng, 0, 3)]);
  MapModel m = crush_testing::MakeClusterModel(spec);
  // Mixed algorithms: rebuild some buckets (leaves first: hosts are last).
  for (std::size_t s = m.buckets.size(); s-- > 0;) {
    const BucketAlg alg = RandomAlg(rng);
    Bucket& b = m.buckets[s];
    if (alg == b.alg) continue;
    const std::vector<ItemId> items = b.items;
    const std::vector<Weight> w = ItemWeights(b);
    b.alg = alg;
    Rebuild(m, b.id, items, w);
  }
  if (Uniform(rng, 0, 2) != 0) AddChooseArgs(m, rng);
  AddRules(m);
  return m;
}

// Keeps every choose_args entry of bucket `id` the right size after an item
// was inserted at `pos` (insert) or removed from it.
void FixChooseArgs(MapModel& m, ItemId id, std::size_t pos, bool insert, Rng& rng) {
  for (auto& [index, args] : m.choose_args) {
    auto it = args.find(id);
    if (it == args.end()) continue;
    ChooseArg& a = it->second;
    for (auto& row : a.weight_set) {
      if (insert) {
        row.insert(row.begin() + static_cast<std::ptrdiff_t>(pos),
                   static_cast<Weight>(0x10000 + rng() % 0x10000));
      } else {
        row.erase(row.begin() + static_cast<std::ptrdiff_t>(pos));
      }
    }
    if (!a.ids.empty()) {
      if (insert) {
        a.ids.insert(a.ids.begin() + static_cast<std::ptrdiff_t>(pos), static_cast<ItemId>(rng()));
      } else {
        a.ids.erase(a.ids.begin() + static_cast<std::ptrdiff_t>(pos));
      }
    }
  }
}

// One random edit of the kinds a cluster change makes. Returns its name.
std::string RandomEdit(MapModel& m, Rng& rng) {
  std::vector<ItemId> nonempty;
  std::vector<ItemId> hosts;
  for (const Bucket& b : m.buckets) {
    if (b.alg == BucketAlg::kNone || b.items.empty()) continue;
    nonempty.push_back(b.id);
    if (b.type == crush_testing::kHostType) hosts.push_back(b.id);
  }
  const int kind = Uniform(rng, 0, 4);
  if (kind == 0 || kind == 4) {  // reweight one item (an OSD, mostly)
    const ItemId id = kind == 0 ? hosts[rng() % hosts.size()] : nonempty[rng() % nonempty.size()];
    const Bucket& b = m.buckets[SlotOf(id)];
    std::vector<Weight> w = ItemWeights(b);
    const std::size_t i = rng() % w.size();
    w[i] = Uniform(rng, 0, 5) == 0 ? 0 : static_cast<Weight>(Uniform(rng, 0x2000, 0x40000));
    const std::vector<ItemId> items = b.items;
    Rebuild(m, id, items, w);
    return "reweight";
  }
  if (kind == 1) {  // add a new OSD to a host
    const ItemId id = hosts[rng() % hosts.size()];
    const Bucket& b = m.buckets[SlotOf(id)];
    std::vector<Weight> w = ItemWeights(b);
    std::vector<ItemId> items = b.items;
    const std::size_t pos = items.size();
    items.push_back(m.max_devices++);
    w.push_back(b.alg == BucketAlg::kUniform && !w.empty() ? w[0] : kWeightOne);
    FixChooseArgs(m, id, pos, true, rng);
    Rebuild(m, id, items, w);
    return "add";
  }
  if (kind == 2) {  // remove an item from a bucket of two or more
    std::vector<ItemId> big;
    for (const ItemId id : nonempty) {
      if (m.buckets[SlotOf(id)].items.size() >= 2) big.push_back(id);
    }
    if (big.empty()) return "none";
    const ItemId id = big[rng() % big.size()];
    const Bucket& b = m.buckets[SlotOf(id)];
    std::vector<Weight> w = ItemWeights(b);
    std::vector<ItemId> items = b.items;
    const std::size_t pos = rng() % items.size();
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(pos));
    w.erase(w.begin() + static_cast<std::ptrdiff_t>(pos));
    FixChooseArgs(m, id, pos, false, rng);
    Rebuild(m, id, items, w);
    return "remove";
  }
  // kind == 3: one choose_args weight changed (or a reweight if none).
  for (auto& [index, args] : m.choose_args) {
    for (auto& [id, a] : args) {
      if (a.weight_set.empty() || Uniform(rng, 0, 2) != 0) continue;
      auto& row = a.weight_set[rng() % a.weight_set.size()];
      row[rng() % row.size()] += 0x1000;
      return "choose_args";
    }
  }
  return "none";
}

std::vector<Weight> RandomReweights(int n, Rng& rng) {
  std::vector<Weight> rw(static_cast<std::size_t>(n), kWeightOne);
  for (Weight& w : rw) {
    const int k = Uniform(rng, 0, 19);
    if (k == 0) w = 0;
    if (k == 1) w = static_cast<Weight>(Uniform(rng, 0x1000, 0xffff));
  }
  return rw;
}

CrushMap BuildMapOrDie(const MapModel& m) {
  auto map = CrushMap::Build(m);
  EXPECT_TRUE(map.ok()) << map.status();
  if (!map.ok()) std::abort();
  return *std::move(map);
}

constexpr std::size_t kResultMax = 12;

// For every rule, choose_args index and x: A with a recording workspace
// equals A plain; B replaying equals B plain. Adds the replay hits to *hits.
void ExpectPairExact(const CrushMap& a, const CrushMap& b, const std::vector<Weight>& rw_a,
                     const std::vector<Weight>& rw_b, int inputs, int capacity,
                     const std::string& what, std::uint64_t* hits) {
  ChoiceMemo memo(a, b, capacity);
  const int max = static_cast<int>(kResultMax);
  Workspace rec(a, max), plain_a(a, max);
  Workspace rep(b, max), plain_b(b, max);
  rec.RecordChoicesInto(&memo);
  rep.ReplayChoicesFrom(&memo);
  for (int rule = 0; rule < std::min(a.max_rules(), b.max_rules()); ++rule) {
    for (const std::int64_t pool : {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}}) {
      const ChooseArgsRef args_a = a.ResolveChooseArgs(pool);
      for (int i = 0; i < inputs; ++i) {
        // Now and then B maps x for another pool (other choose_args) than
        // A recorded it for: the memo must not apply then.
        const ChooseArgsRef args_b = b.ResolveChooseArgs(i % 7 == 3 ? (pool + 1) % 3 : pool);
        const auto x =
            static_cast<std::uint32_t>(i) * 2654435761u + static_cast<std::uint32_t>(rule);
        // Mostly 1-4 results (a rule asking for 12 replicas of a tiny map
        // runs every retry), sometimes the full 12.
        const std::size_t n = i % 40 == 0 ? kResultMax : 1 + static_cast<std::size_t>(i) % 4;
        ItemId ra[kResultMax], pa[kResultMax], rb[kResultMax], pb[kResultMax];
        const int na = DoRule(a, rule, x, rw_a, rec, std::span(ra, n), args_a);
        const int npa = DoRule(a, rule, x, rw_a, plain_a, std::span(pa, n), args_a);
        ASSERT_EQ(na, npa) << what << " rule " << rule << " x " << x;
        for (int k = 0; k < na; ++k) ASSERT_EQ(ra[k], pa[k]) << what << " A rule " << rule;
        const int nb = DoRule(b, rule, x, rw_b, rep, std::span(rb, n), args_b);
        *hits += rep.memo_hits();
        const int npb = DoRule(b, rule, x, rw_b, plain_b, std::span(pb, n), args_b);
        ASSERT_EQ(nb, npb) << what << " rule " << rule << " x " << x << " pool " << pool;
        for (int k = 0; k < nb; ++k) {
          ASSERT_EQ(rb[k], pb[k]) << what << " B rule " << rule << " x " << x << " pool " << pool
                                  << " pos " << k;
        }
        ASSERT_EQ(rep.diverged_from_ceph(), plain_b.diverged_from_ceph());
      }
    }
  }
}

TEST(ChoiceMemoTest, ReplayOnRandomEditedMapsIsBitExact) {
  Rng rng(20261203);
  std::uint64_t hits = 0;
  for (int iter = 0; iter < 40; ++iter) {
    const MapModel ma = RandomModel(rng);
    MapModel mb = ma;
    std::string what = "iter " + std::to_string(iter) + ":";
    const int edits = Uniform(rng, 1, 3);
    for (int e = 0; e < edits; ++e) {
      what += ' ';
      what += RandomEdit(mb, rng);
    }
    const CrushMap a = BuildMapOrDie(ma);
    const CrushMap b = BuildMapOrDie(mb);
    const std::vector<Weight> rw_a = RandomReweights(a.max_devices(), rng);
    std::vector<Weight> rw_b = rw_a;
    rw_b.resize(static_cast<std::size_t>(b.max_devices()), kWeightOne);
    if (Uniform(rng, 0, 3) == 0) rw_b = RandomReweights(b.max_devices(), rng);
    const int capacity = Uniform(rng, 0, 4) == 0 ? Uniform(rng, 1, 4) : kDefaultChoiceMemoCapacity;
    ExpectPairExact(a, b, rw_a, rw_b, 200, capacity, what, &hits);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(hits, 10000u);  // the memo was really used
}

TEST(ChoiceMemoTest, IdenticalMapsShareEveryStraw2BucketAndReplayEveryChoice) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 8;
  spec.osds_per_host = 5;
  spec.racks = 2;
  const CrushMap a = crush_testing::MakeCluster(spec);
  const CrushMap b = crush_testing::MakeCluster(spec);  // another layout, same content
  ChoiceMemo memo(a, b);
  EXPECT_EQ(memo.shared_slots(), 1 + 2 + 8);
  const std::vector<Weight> rw(40, kWeightOne);
  Workspace rec(a, 3), rep(b, 3);
  rec.RecordChoicesInto(&memo);
  rep.ReplayChoicesFrom(&memo);
  ItemId oa[3], ob[3];
  for (std::uint32_t x = 0; x < 200; ++x) {
    ASSERT_EQ(DoRule(a, crush_testing::kReplicatedRule, x, rw, rec, oa), 3);
    EXPECT_EQ(memo.x(), x);
    EXPECT_GE(memo.size(), 9);  // root, rack and host for each of 3 reps
    ASSERT_EQ(DoRule(b, crush_testing::kReplicatedRule, x, rw, rep, ob), 3);
    // Every choice B makes was made and recorded by A (a key may be looked
    // up more than once).
    EXPECT_GE(rep.memo_hits(), static_cast<std::uint32_t>(memo.size()));
    EXPECT_TRUE(std::equal(oa, oa + 3, ob));
  }
}

TEST(ChoiceMemoTest, ChangedBucketsAndTheirAncestorsAreNotShared) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 8;
  spec.osds_per_host = 5;
  spec.racks = 2;
  MapModel ma = crush_testing::MakeClusterModel(spec);
  MapModel mb = ma;
  // host0 is bucket -4 (root -1, racks -2 and -3); reweight its first OSD.
  std::vector<Weight> w = mb.buckets[3].item_weights;
  w[0] = 0x8000;
  Rebuild(mb, -4, mb.buckets[3].items, w);
  const CrushMap a = BuildMapOrDie(ma);
  const CrushMap b = BuildMapOrDie(mb);
  ChoiceMemo memo(a, b);
  // One item weight differs in host0, rack0 (holds host0) and the root.
  for (const int slot : {0, 1, 3}) {
    EXPECT_FALSE(memo.SlotShared(slot)) << slot;
    EXPECT_TRUE(memo.SlotPartiallyShared(slot)) << slot;
  }
  EXPECT_TRUE(memo.SlotShared(2));  // rack1
  EXPECT_TRUE(memo.SlotShared(4));
  EXPECT_EQ(memo.shared_slots(), 1 + 7);
  EXPECT_EQ(memo.partially_shared_slots(), 3);

  // Appending an item shares the bucket partially; changing more than
  // kMaxChoiceMemoWeightChanges weights unshares it.
  MapModel mc = ma;
  std::vector<ItemId> items = mc.buckets[3].items;
  w = mc.buckets[3].item_weights;
  items.push_back(40);
  w.push_back(kWeightOne);
  ++mc.max_devices;
  Rebuild(mc, -4, items, w);
  MapModel md = ma;
  w = md.buckets[4].item_weights;
  for (Weight& v : w) v /= 2;
  Rebuild(md, -5, md.buckets[4].items, w);
  const CrushMap c = BuildMapOrDie(mc);
  const CrushMap d = BuildMapOrDie(md);
  EXPECT_TRUE(ChoiceMemo(a, c).SlotPartiallyShared(3));
  EXPECT_FALSE(ChoiceMemo(a, c).SlotShared(3));
  EXPECT_FALSE(ChoiceMemo(a, d).SlotPartiallyShared(4));
  EXPECT_TRUE(ChoiceMemo(a, d).SlotPartiallyShared(1));
}

TEST(ChoiceMemoTest, ChooseArgsDifferenceInAnyIndexUnsharesTheBucket) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 4;
  spec.osds_per_host = 3;
  MapModel ma = crush_testing::MakeClusterModel(spec);
  ma.choose_args[5][-2].weight_set = {{1, 2, 3}};
  MapModel mb = ma;
  mb.choose_args[5][-2].weight_set = {{1, 2, 4}};
  mb.choose_args[7][-3].ids = {9, 8, 7};  // index only B has
  ChoiceMemo memo(BuildMapOrDie(ma), BuildMapOrDie(mb));
  EXPECT_TRUE(memo.SlotShared(0));
  EXPECT_FALSE(memo.SlotShared(1));
  EXPECT_FALSE(memo.SlotShared(2));
  EXPECT_TRUE(memo.SlotShared(3));
  EXPECT_EQ(memo.shared_slots(), 3);
}

TEST(ChoiceMemoTest, ReplayIgnoresAnotherInputAnotherChooseArgsIndexAndForeignMaps) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 6;
  spec.osds_per_host = 4;
  MapModel ma = crush_testing::MakeClusterModel(spec);
  ma.choose_args[3][-2].weight_set = {{0x10000, 0x20000, 0x10000, 0x8000}};
  const CrushMap a = BuildMapOrDie(ma);
  const CrushMap b = BuildMapOrDie(ma);
  const CrushMap other = BuildMapOrDie(ma);
  const std::vector<Weight> rw(24, kWeightOne);
  ChoiceMemo memo(a, b);
  Workspace rec(a, 3), rep(b, 3), rep_other(other, 3);
  rec.RecordChoicesInto(&memo);
  rep.ReplayChoicesFrom(&memo);
  rep_other.ReplayChoicesFrom(&memo);
  ItemId out[3];
  ASSERT_EQ(DoRule(a, crush_testing::kReplicatedRule, 11, rw, rec, out), 3);
  ASSERT_GT(memo.size(), 0);
  DoRule(b, crush_testing::kReplicatedRule, 12, rw, rep, out);
  EXPECT_EQ(rep.memo_hits(), 0u);  // another x
  DoRule(b, crush_testing::kReplicatedRule, 11, rw, rep, out, b.ResolveChooseArgs(3));
  EXPECT_EQ(rep.memo_hits(), 0u);  // recorded without choose_args
  DoRule(other, crush_testing::kReplicatedRule, 11, rw, rep_other, out);
  EXPECT_EQ(rep_other.memo_hits(), 0u);  // not map B
  DoRule(b, crush_testing::kReplicatedRule, 11, rw, rep, out);
  EXPECT_GT(rep.memo_hits(), 0u);
  rep.ClearMemo();
  DoRule(b, crush_testing::kReplicatedRule, 11, rw, rep, out);
  EXPECT_EQ(rep.memo_hits(), 0u);
  // Recording on B (not the memo's map A) leaves the memo alone.
  Workspace rec_b(b, 3);
  rec_b.RecordChoicesInto(&memo);
  DoRule(b, crush_testing::kReplicatedRule, 99, rw, rec_b, out);
  EXPECT_EQ(memo.x(), 11u);
  memo.Clear();
  EXPECT_FALSE(memo.has_input());
  EXPECT_EQ(memo.size(), 0);
}

TEST(ChoiceMemoTest, FullMemoStopsRecordingAndStaysExact) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 10;
  spec.osds_per_host = 4;
  spec.racks = 3;
  const CrushMap a = crush_testing::MakeCluster(spec);
  const CrushMap b = crush_testing::MakeCluster(spec);
  const std::vector<Weight> rw(40, kWeightOne);
  ChoiceMemo memo(a, b, 2);
  Workspace rec(a, 8), rep(b, 8);
  rec.RecordChoicesInto(&memo);
  rep.ReplayChoicesFrom(&memo);
  ItemId oa[8], ob[8];
  std::uint64_t hits = 0;
  for (std::uint32_t x = 0; x < 500; ++x) {
    const int na = DoRule(a, crush_testing::kEcRule, x, rw, rec, oa);
    EXPECT_EQ(memo.size(), 2);
    const int nb = DoRule(b, crush_testing::kEcRule, x, rw, rep, ob);
    hits += rep.memo_hits();
    ASSERT_EQ(na, nb);
    ASSERT_TRUE(std::equal(oa, oa + na, ob));
  }
  EXPECT_GE(hits, 1000u);
}

// One input recorded on A by a ChoiceLog: what an arena per PG keeps.
struct Recorded {
  int rule = 0;
  std::int64_t pool = 0;
  std::uint32_t x = 0;
  std::size_t n = 0;
  std::int64_t args_key = 0;
  std::vector<RecordedChoice> choices;
};

// Records `inputs` inputs per rule and pool on A (checking that recording
// leaves A's results alone).
std::vector<Recorded> RecordInputs(const CrushMap& a, const std::vector<Weight>& rw_a, int inputs,
                                   int capacity) {
  const int max = static_cast<int>(kResultMax);
  ChoiceLog log(capacity);
  Workspace rec(a, max), plain(a, max);
  rec.RecordChoicesInto(&log);
  std::vector<Recorded> out;
  for (int rule = 0; rule < a.max_rules(); ++rule) {
    for (const std::int64_t pool : {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}}) {
      const ChooseArgsRef args = a.ResolveChooseArgs(pool);
      for (int i = 0; i < inputs; ++i) {
        Recorded r{
            .rule = rule,
            .pool = pool,
            .x = static_cast<std::uint32_t>(i) * 2654435761u + static_cast<std::uint32_t>(rule),
            .n = i % 40 == 0 ? kResultMax : 1 + static_cast<std::size_t>(i) % 4,
            .args_key = 0,
            .choices = {}};
        ItemId ra[kResultMax], pa[kResultMax];
        const int na = DoRule(a, rule, r.x, rw_a, rec, std::span(ra, r.n), args);
        const int np = DoRule(a, rule, r.x, rw_a, plain, std::span(pa, r.n), args);
        EXPECT_EQ(na, np);
        for (int k = 0; k < std::min(na, np); ++k) EXPECT_EQ(ra[k], pa[k]) << "rule " << rule;
        EXPECT_EQ(log.x(), r.x);
        r.args_key = log.args_key();
        r.choices.assign(log.choices().begin(), log.choices().end());
        out.push_back(std::move(r));
      }
    }
  }
  return out;
}

// Every recorded input mapped on B replaying its choices equals B plain.
void ExpectReplayExact(const CrushMap& a, const CrushMap& b, const std::vector<Recorded>& recorded,
                       const std::vector<Weight>& rw_b, const std::string& what,
                       std::uint64_t* hits) {
  const ChoiceDelta delta(a, b);
  const int max = static_cast<int>(kResultMax);
  Workspace rep(b, max), plain(b, max);
  for (const Recorded& r : recorded) {
    if (r.rule >= b.max_rules()) continue;
    // Now and then B maps x for another pool than A recorded it for:
    // another choose_args key, so the replay must not apply.
    const std::int64_t pool = r.x % 7 == 3 ? (r.pool + 1) % 3 : r.pool;
    const ChooseArgsRef args = b.ResolveChooseArgs(pool);
    rep.ReplayChoices(&delta, r.choices, r.x, r.args_key);
    ItemId rb[kResultMax], pb[kResultMax];
    const int nb = DoRule(b, r.rule, r.x, rw_b, rep, std::span(rb, r.n), args);
    *hits += rep.memo_hits();
    const int np = DoRule(b, r.rule, r.x, rw_b, plain, std::span(pb, r.n), args);
    ASSERT_EQ(nb, np) << what << " rule " << r.rule << " x " << r.x;
    for (int k = 0; k < nb; ++k) {
      ASSERT_EQ(rb[k], pb[k]) << what << " rule " << r.rule << " x " << r.x << " pool " << pool
                              << " pos " << k;
    }
    ASSERT_EQ(rep.diverged_from_ceph(), plain.diverged_from_ceph());
    ASSERT_EQ(rep.visited_buckets(), plain.visited_buckets());
  }
}

// A log recorded once on A, replayed on many maps made from A by the edits
// a change makes (reweights up and down, OSDs added and removed, choose_args
// weights) and on an unedited copy: bit-exact against plain DoRule on each.
TEST(ChoiceLogTest, OneRecordReplayedOnManyEditedMapsIsBitExact) {
  Rng rng(20261207);
  std::uint64_t hits = 0;
  for (int iter = 0; iter < 30; ++iter) {
    const MapModel ma = RandomModel(rng);
    const CrushMap a = BuildMapOrDie(ma);
    const std::vector<Weight> rw_a = RandomReweights(a.max_devices(), rng);
    const int capacity = Uniform(rng, 0, 4) == 0 ? Uniform(rng, 1, 6) : kDefaultChoiceLogCapacity;
    const std::vector<Recorded> recorded = RecordInputs(a, rw_a, 120, capacity);
    if (HasFailure()) return;
    for (int m = 0; m < 5; ++m) {
      MapModel mb = ma;
      std::string what = "iter " + std::to_string(iter) + " map " + std::to_string(m) + ":";
      const int edits = m == 0 ? 0 : Uniform(rng, 1, 3);
      for (int e = 0; e < edits; ++e) {
        what += ' ';
        what += RandomEdit(mb, rng);
      }
      const CrushMap b = BuildMapOrDie(mb);
      std::vector<Weight> rw_b = rw_a;
      rw_b.resize(static_cast<std::size_t>(b.max_devices()), kWeightOne);
      if (Uniform(rng, 0, 3) == 0) rw_b = RandomReweights(b.max_devices(), rng);
      ExpectReplayExact(a, b, recorded, rw_b, what, &hits);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(hits, 20000u);  // the log was really used
}

TEST(ChoiceLogTest, DeltaKindsOfSameChangedAndReplacedBuckets) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 8;
  spec.osds_per_host = 5;
  spec.racks = 2;
  const MapModel ma = crush_testing::MakeClusterModel(spec);
  const CrushMap a = BuildMapOrDie(ma);
  // host0 (-4, slot 3): its first OSD reweighted, a new OSD appended and
  // its last OSD removed; its rack (slot 1) and the root (slot 0) change
  // weight at one item each.
  MapModel mb = ma;
  std::vector<ItemId> items = mb.buckets[3].items;
  std::vector<Weight> w = mb.buckets[3].item_weights;
  w[0] = 0x8000;
  items.pop_back();
  w.pop_back();
  items.push_back(40);
  w.push_back(kWeightOne);
  ++mb.max_devices;
  Rebuild(mb, -4, items, w);
  const ChoiceDelta delta(a, BuildMapOrDie(mb));
  for (const int slot : {0, 1, 3}) EXPECT_TRUE(delta.SlotChanged(slot)) << slot;
  EXPECT_TRUE(delta.SlotSame(2));
  EXPECT_EQ(delta.same_slots(), 1 + 7);
  EXPECT_EQ(delta.changed_slots(), 3);
  // Every item of a bucket changed, or its items reordered: drawn in full.
  MapModel mc = ma;
  w = mc.buckets[4].item_weights;
  for (Weight& v : w) v /= 2;
  Rebuild(mc, -5, mc.buckets[4].items, w);
  MapModel md = ma;
  items = md.buckets[5].items;
  std::swap(items[0], items[1]);
  Rebuild(md, -6, items, md.buckets[5].item_weights);
  EXPECT_FALSE(ChoiceDelta(a, BuildMapOrDie(mc)).SlotChanged(4));
  EXPECT_FALSE(ChoiceDelta(a, BuildMapOrDie(mc)).SlotSame(4));
  EXPECT_FALSE(ChoiceDelta(a, BuildMapOrDie(md)).SlotChanged(5));
  EXPECT_FALSE(ChoiceDelta(a, BuildMapOrDie(md)).SlotSame(5));
}

// Replay applies only to the input, choose_args key and map it was made for.
TEST(ChoiceLogTest, ReplayIgnoresAnotherInputAnotherChooseArgsKeyAndForeignMaps) {
  crush_testing::ClusterSpec spec;
  spec.hosts = 6;
  spec.osds_per_host = 4;
  const CrushMap a = crush_testing::MakeCluster(spec);
  const CrushMap b = crush_testing::MakeCluster(spec);
  const CrushMap other = crush_testing::MakeCluster(spec);
  const std::vector<Weight> rw(24, kWeightOne);
  ChoiceLog log;
  Workspace rec(a, 3), rep(b, 3), rep_other(other, 3);
  rec.RecordChoicesInto(&log);
  ItemId out[3];
  ASSERT_EQ(DoRule(a, crush_testing::kReplicatedRule, 11, rw, rec, out), 3);
  ASSERT_FALSE(log.choices().empty());
  EXPECT_EQ(log.args_key(), kNoChooseArgsKey);
  const std::vector<RecordedChoice> kept(log.choices().begin(), log.choices().end());
  const ChoiceDelta delta(a, b);
  rep.ReplayChoices(&delta, kept, 11, kNoChooseArgsKey);
  rep_other.ReplayChoices(&delta, kept, 11, kNoChooseArgsKey);
  DoRule(b, crush_testing::kReplicatedRule, 12, rw, rep, out);
  EXPECT_EQ(rep.memo_hits(), 0u);  // another x
  rep.ReplayChoices(&delta, kept, 11, 3);
  DoRule(b, crush_testing::kReplicatedRule, 11, rw, rep, out);
  EXPECT_EQ(rep.memo_hits(), 0u);  // recorded under another key
  DoRule(other, crush_testing::kReplicatedRule, 11, rw, rep_other, out);
  EXPECT_EQ(rep_other.memo_hits(), 0u);  // not the delta's map
  rep.ReplayChoices(&delta, kept, 11, kNoChooseArgsKey);
  DoRule(b, crush_testing::kReplicatedRule, 11, rw, rep, out);
  EXPECT_EQ(rep.memo_hits(), static_cast<std::uint32_t>(kept.size()));
  rep.ClearMemo();
  DoRule(b, crush_testing::kReplicatedRule, 11, rw, rep, out);
  EXPECT_EQ(rep.memo_hits(), 0u);
}

// Ties as Ceph breaks them: the first item of the largest draw. Two hosts
// of one huge weight draw alike for every x whose hashes agree; host0 won
// nothing on A (half the weight), so on B the replay must give host0, the
// changed item, over the recorded winner host1 at an equal draw (the
// random maps above rarely tie: dropping the index rule passes them).
TEST(ChoiceLogTest, EqualDrawGoesToTheLowerIndexAsInCeph) {
  constexpr Weight kHuge = 0x7fff0000;
  crush_testing::ClusterSpec spec;
  spec.hosts = 2;
  spec.osds_per_host = 1;
  spec.osd_weights = {kHuge / 2, kHuge};
  const CrushMap a = crush_testing::MakeCluster(spec);
  spec.osd_weights = {kHuge, kHuge};
  const CrushMap b = crush_testing::MakeCluster(spec);
  const ChoiceDelta delta(a, b);
  ASSERT_TRUE(delta.SlotChanged(0));
  const std::vector<Weight> rw(2, kWeightOne);
  ChoiceLog log;
  Workspace rec(a, 1), rep(b, 1), plain(b, 1);
  rec.RecordChoicesInto(&log);
  int ties = 0;
  for (std::uint32_t x = 0; x < (1u << 22); ++x) {
    const ItemId host0 = -2, host1 = -3;
    if ((Hash32_3(x, static_cast<std::uint32_t>(host0), 0) & 0xffffu) !=
        (Hash32_3(x, static_cast<std::uint32_t>(host1), 0) & 0xffffu)) {
      continue;
    }
    ++ties;
    ItemId oa[1], ob[1], op[1];
    ASSERT_EQ(DoRule(a, crush_testing::kReplicatedRule, x, rw, rec, oa), 1);
    ASSERT_EQ(oa[0], 1) << x;  // host1's OSD: host0 weighs half
    const std::vector<RecordedChoice> kept(log.choices().begin(), log.choices().end());
    rep.ReplayChoices(&delta, kept, x, log.args_key());
    ASSERT_EQ(DoRule(b, crush_testing::kReplicatedRule, x, rw, rep, ob), 1);
    ASSERT_EQ(DoRule(b, crush_testing::kReplicatedRule, x, rw, plain, op), 1);
    ASSERT_EQ(op[0], 0) << x;  // the tie goes to host0
    ASSERT_EQ(ob[0], op[0]) << x;
    ASSERT_GT(rep.memo_hits(), 0u);
  }
  EXPECT_GT(ties, 20);
}

}  // namespace
}  // namespace crushkit::crush
