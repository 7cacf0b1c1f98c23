// Fuzz target: the MSR mapper (crush_msr_do_rule) on valid-by-construction
// maps.
//
// The fuzz bytes build a tree hierarchy (devices -> 1..4 levels of buckets ->
// one root; random algorithms, sizes, weights including zero, holes in the
// slot array), the msr tunables (small, so each call stays cheap), MSR rules
// of types msr_firstn / msr_indep with set_msr_* prefixes and 1..2 blocks of
// `take; choosemsr ...; emit` whose steps may be well formed or not (types
// out of order, a leaf step before the last, a last step above the
// leaves, non-MSR steps), optional choose_args, then reweights, x and
// result sizes. Besides map_invariants.h it checks, for well-formed
// single-block rules (types strictly descending to osd):
//   - every item is a device that is not out (reweight 0 or past the
//     vector) and appears once;
//   - msr_firstn has no kItemNone; msr_indep returns exactly the capacity;
//   - no call is reported as diverging from Ceph (only malformed rules,
//     takes of devices and tree buckets whose weights are all zero may be).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "crush/builder.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/model.h"
#include "crush/types.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/map_invariants.h"
#include "tests/fuzz/random_hierarchy.h"

namespace {

namespace crush = crushkit::crush;
using crush::BucketAlg;
using crush::ItemId;
using crush::RuleOp;
using crush::Weight;
using crushkit::fuzz::ByteSource;

constexpr std::uint64_t kBudget = 1 << 15;

struct RuleInfo {
  bool well_formed = false;
  bool firstn = false;
};

// One `take; choosemsr...; emit` block. Well formed: types strictly
// descending from below the root's type to 0.
bool AddBlock(ByteSource& in, crush::Rule& rule, ItemId root, int top_type) {
  rule.steps.push_back({RuleOp::kTake, root, 0});
  bool well_formed = true;
  const int shape = static_cast<int>(in.Range(0, 7));
  if (shape == 0) {
    // Anything: random ops (choosemsr or not) and types.
    for (int s = static_cast<int>(in.Range(0, 3)); s > 0; --s) {
      const RuleOp op = in.Range(0, 3) == 0 ? RuleOp::kChooseFirstn : RuleOp::kChooseMsr;
      rule.steps.push_back({op, static_cast<std::int32_t>(in.Range(0, 4)),
                            static_cast<std::int32_t>(in.Range(0, top_type))});
    }
    well_formed = false;
  } else {
    int type = top_type;
    while (type > 1 && in.Bool()) {
      type = static_cast<int>(in.Range(1, type - 1));
      rule.steps.push_back({RuleOp::kChooseMsr, static_cast<std::int32_t>(in.Range(0, 4)), type});
    }
    rule.steps.push_back({RuleOp::kChooseMsr, static_cast<std::int32_t>(in.Range(0, 6)), 0});
  }
  rule.steps.push_back({RuleOp::kEmit, 0, 0});
  return well_formed;
}

void CheckWellFormed(const RuleInfo& info, int cap, std::span<const Weight> reweights,
                     const std::vector<ItemId>& out, const std::string& where) {
  std::set<ItemId> seen;
  for (const ItemId item : out) {
    if (item == crush::kItemNone) {
      FUZZ_CHECK(!info.firstn, where + ": msr_firstn returned kItemNone");
      continue;
    }
    FUZZ_CHECK(item >= 0, where + ": bucket " + std::to_string(item) + " returned");
    FUZZ_CHECK(seen.insert(item).second, where + ": duplicate item " + std::to_string(item));
    FUZZ_CHECK(static_cast<std::size_t>(item) < reweights.size() &&
                   reweights[static_cast<std::size_t>(item)] != 0,
               where + ": out device " + std::to_string(item) + " returned");
  }
  if (!info.firstn) {
    FUZZ_CHECK(out.size() == static_cast<std::size_t>(cap),
               where + ": msr_indep returned " + std::to_string(out.size()) + " positions");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteSource in(data, size);
  crush::MapModel m;
  m.tunables = crush::TunablesFor(in.Bool() ? crush::TunablesProfile::kOptimal
                                            : crush::TunablesProfile::kLegacy);
  m.tunables.msr_descents = static_cast<std::uint32_t>(in.Range(0, 6));
  m.tunables.msr_collision_tries = static_cast<std::uint32_t>(in.Range(0, 6));
  m.tail = crush::EncodedTail::kMsr;

  const std::optional<crushkit::fuzz::Hierarchy> h =
      crushkit::fuzz::BuildRandomHierarchy(in, m, /*max_devices=*/48, /*max_group=*/6);
  if (!h) return 0;
  const int num_devices = h->num_devices;
  const ItemId root = h->root;
  const int top_type = h->top_type;
  m.max_devices = num_devices;

  std::vector<RuleInfo> infos;
  for (int r = static_cast<int>(in.Range(1, 4)); r > 0; --r) {
    crush::Rule rule;
    RuleInfo info;
    info.firstn = in.Bool();
    rule.type = info.firstn ? crush::RuleType::kMsrFirstn : crush::RuleType::kMsrIndep;
    for (int s = static_cast<int>(in.Range(0, 2)); s > 0; --s) {
      const RuleOp op = in.Bool() ? RuleOp::kSetMsrDescents : RuleOp::kSetMsrCollisionTries;
      rule.steps.push_back({op, static_cast<std::int32_t>(in.Range(0, 6)), 0});
    }
    info.well_formed = AddBlock(in, rule, root, top_type);
    if (in.Range(0, 3) == 0) {
      // A second block (positions after the first's), or a take of a device.
      if (in.Bool()) {
        AddBlock(in, rule, root, top_type);
      } else {
        rule.steps.push_back({RuleOp::kTake, static_cast<ItemId>(in.Range(0, num_devices - 1)), 0});
        rule.steps.push_back({RuleOp::kEmit, 0, 0});
      }
      info.well_formed = false;
    }
    m.rules.push_back(std::move(rule));
    m.rule_exists.push_back(true);
    infos.push_back(info);
  }

  if (in.Bool()) {
    crush::ChooseArgMap& args = m.choose_args[in.Bool() ? 0 : crush::kCompatChooseArgs];
    const int positions = static_cast<int>(in.Range(1, 3));
    for (const crush::Bucket& b : m.buckets) {
      if (b.alg != BucketAlg::kStraw2 || in.Range(0, 2) == 0) continue;
      crush::ChooseArg& arg = args[b.id];
      arg.weight_set.resize(static_cast<std::size_t>(positions));
      for (auto& row : arg.weight_set) {
        for (std::size_t i = 0; i < b.items.size(); ++i)
          row.push_back(crushkit::fuzz::RandomWeight(in));
      }
      if (in.Bool()) {
        for (const ItemId item : b.items)
          arg.ids.push_back(item + static_cast<ItemId>(in.Range(0, 3)));
      }
    }
  }

  // A tree bucket whose weights are all zero sends Ceph's descent past its
  // last item (out of bounds); crushkit flags that as a divergence
  // (mapper.h), so only maps without one must never diverge.
  bool zero_tree = false;
  for (const crush::Bucket& b : m.buckets) {
    if (b.alg != BucketAlg::kTree) continue;
    bool all_zero = true;
    for (std::size_t i = 0; i < b.items.size(); ++i) {
      all_zero = all_zero && crush::BucketItemWeight(b, i) == 0;
    }
    zero_tree = zero_tree || all_zero;
  }

  auto map = crush::CrushMap::Build(m);
  FUZZ_CHECK(map.ok(), "valid-by-construction map rejected: " + map.status().ToString());

  const std::vector<Weight> reweights =
      crushkit::fuzz::RandomReweights(in, m.max_devices);  // max_devices >= 1
  const crush::ChooseArgsRef args = map->ResolveChooseArgs(0);
  for (int round = 0; round < 2 && in.remaining() > 0; ++round) {
    const std::uint32_t x = in.U32();
    const int max_result = static_cast<int>(in.Range(0, 12));
    const auto out_size = static_cast<std::size_t>(in.Range(0, 12));
    const int cap = std::min(max_result, static_cast<int>(out_size));
    for (int r = 0; r < map->max_rules(); ++r) {
      const std::string where = "msr rule " + std::to_string(r) + " x " + std::to_string(x);
      for (int variant = 0; variant < (args.none() ? 1 : 2); ++variant) {
        const crush::ChooseArgsRef a = variant == 0 ? crush::ChooseArgsRef{} : args;
        const auto out =
            crushkit::fuzz::MapAndCheck(*map, r, x, reweights, max_result, out_size, a, kBudget);
        const RuleInfo& info = infos[static_cast<std::size_t>(r)];
        if (!info.well_formed) continue;
        crush::Workspace ws(*map, max_result);
        ws.set_budget(kBudget);
        std::vector<ItemId> again(out_size);
        crush::DoRule(*map, r, x, reweights, ws, again, a);
        FUZZ_CHECK(!ws.diverged_from_ceph() || ws.budget_exhausted() || zero_tree,
                   where + ": a well-formed MSR rule diverged from Ceph");
        // Ceph's own answer is undefined there (an all-zero tree bucket).
        if (ws.diverged_from_ceph()) continue;
        CheckWellFormed(info, cap, reweights, out, where);
      }
    }
  }
  return 0;
}
