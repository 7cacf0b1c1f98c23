// Fuzz target: the mapper on valid-by-construction maps.
//
// The fuzz bytes drive a ByteSource that builds a tree-shaped hierarchy
// (devices -> 1..4 levels of buckets -> one root, every item in exactly one
// bucket; random algorithms, sizes, weights, holes in the slot array), random
// tunables, rules of the form [set_* steps] take root, choose*, emit, and a
// two-choose rule, optional choose_args, then reweights, x and result sizes.
// Besides map_invariants.h it checks, for the single-choose rules:
//   - every item has the requested type (chooseleaf: a device);
//   - firstn: no kItemNone and no duplicates (the hierarchy is a tree, so
//     distinct subtrees have distinct leaves);
//   - indep: exactly min(numrep, cap) positions, non-none items distinct;
//   - no device that is out (reweight 0, or beyond the reweight vector)
//     is ever returned (crush_choose_* reject them via is_out()).
// (Except "chooseleaf indep N type 0", see CheckSingleChoose.)
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

constexpr std::uint64_t kBudget = 1 << 14;

struct RuleInfo {
  bool single_choose = false;
  RuleOp op = RuleOp::kNoop;
  int numrep = 0;
  int type = 0;
};

RuleOp ChooseOp(ByteSource& in) {
  static constexpr RuleOp kOps[] = {RuleOp::kChooseFirstn, RuleOp::kChooseIndep,
                                    RuleOp::kChooseleafFirstn, RuleOp::kChooseleafIndep};
  return kOps[in.Range(0, 3)];
}

bool IsIndep(RuleOp op) { return op == RuleOp::kChooseIndep || op == RuleOp::kChooseleafIndep; }

bool IsLeaf(RuleOp op) { return op == RuleOp::kChooseleafFirstn || op == RuleOp::kChooseleafIndep; }

void AddRule(crush::MapModel& m, crush::Rule rule) {
  m.rules.push_back(std::move(rule));
  m.rule_exists.push_back(true);
}

void CheckSingleChoose(const crush::CrushMap& map, const RuleInfo& info, int cap,
                       std::span<const Weight> reweights, const std::vector<ItemId>& out,
                       const std::string& where) {
  int numrep = info.numrep;
  if (numrep <= 0) numrep += cap;
  if (numrep <= 0) {
    FUZZ_CHECK(out.empty(), where + ": numrep <= 0 but items returned");
    return;
  }
  const int want_type = IsLeaf(info.op) ? 0 : info.type;
  // Ceph quirk: "chooseleaf indep N type 0" stores a device as its own leaf
  // before the is_out() check, and a rejected slot keeps it (mapper.c
  // crush_choose_indep only resets UNDEF leaves). Such rules can return out
  // devices and duplicates; verified against Pacific crushtool, which maps
  // regressions/mapper/chooseleaf-indep-type0-keeps-out-device to [1,2,2]
  // with osd.2 weighted 0, exactly as crushkit does.
  const bool leaf_quirk = info.op == RuleOp::kChooseleafIndep && info.type == 0;
  std::set<ItemId> seen;
  for (const ItemId item : out) {
    if (item == crush::kItemNone) {
      FUZZ_CHECK(IsIndep(info.op), where + ": firstn returned kItemNone");
      continue;
    }
    FUZZ_CHECK(seen.insert(item).second || leaf_quirk,
               where + ": duplicate item " + std::to_string(item));
    if (item >= 0) {
      FUZZ_CHECK(want_type == 0, where + ": device " + std::to_string(item) + " for type " +
                                     std::to_string(want_type));
      FUZZ_CHECK(leaf_quirk || (static_cast<std::size_t>(item) < reweights.size() &&
                                reweights[static_cast<std::size_t>(item)] != 0),
                 where + ": out device " + std::to_string(item) + " returned (" +
                     std::to_string(reweights.size()) + " reweights)");
    } else {
      const crush::Bucket* b = map.model().FindBucket(item);
      FUZZ_CHECK(b != nullptr && b->type == want_type,
                 where + ": bucket " + std::to_string(item) + " has the wrong type");
    }
  }
  if (IsIndep(info.op)) {
    FUZZ_CHECK(out.size() == static_cast<std::size_t>(std::min(numrep, cap)),
               where + ": indep returned " + std::to_string(out.size()) + " positions");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteSource in(data, size);
  crush::MapModel m;
  crush::Tunables& t = m.tunables;
  t.choose_local_tries = static_cast<std::uint32_t>(in.Range(0, 3));
  t.choose_local_fallback_tries = static_cast<std::uint32_t>(in.Range(0, 5));
  t.choose_total_tries = static_cast<std::uint32_t>(in.Range(0, 60));
  t.chooseleaf_descend_once = static_cast<std::uint32_t>(in.Range(0, 1));
  t.chooseleaf_vary_r = static_cast<std::uint8_t>(in.Range(0, 3));
  t.chooseleaf_stable = static_cast<std::uint8_t>(in.Range(0, 1));
  t.straw_calc_version = static_cast<std::uint8_t>(in.Range(0, 1));

  // Devices, then levels of buckets up to a single root.
  const std::optional<crushkit::fuzz::Hierarchy> h =
      crushkit::fuzz::BuildRandomHierarchy(in, m, /*max_devices=*/64, /*max_group=*/8);
  if (!h) return 0;
  const int num_devices = h->num_devices;
  const ItemId root = h->root;
  const int top_type = h->top_type;
  // Some devices may lie at or beyond max_devices ("bad items" to the mapper).
  m.max_devices = std::max(0, num_devices - static_cast<int>(in.Range(0, 7) == 0));

  // Rules.
  std::vector<RuleInfo> infos;
  const int num_rules = static_cast<int>(in.Range(1, 4));
  for (int r = 0; r < num_rules; ++r) {
    crush::Rule rule;
    RuleInfo info;
    info.single_choose = true;
    info.op = ChooseOp(in);
    info.numrep = static_cast<int>(in.Range(-2, 6));
    info.type = static_cast<int>(in.Range(0, top_type));
    rule.type = IsIndep(info.op) ? crush::RuleType::kErasure : crush::RuleType::kReplicated;
    for (int s = static_cast<int>(in.Range(0, 3)); s > 0; --s) {
      const auto op = static_cast<RuleOp>(in.Range(8, 13));
      rule.steps.push_back({op, static_cast<std::int32_t>(in.Range(-1, 60)), 0});
    }
    rule.steps.push_back({RuleOp::kTake, root, 0});
    rule.steps.push_back({info.op, info.numrep, info.type});
    rule.steps.push_back({RuleOp::kEmit, 0, 0});
    AddRule(m, std::move(rule));
    infos.push_back(info);
  }
  {
    // Two chooses: pick buckets of some type, then leaves (or items) below.
    crush::Rule rule;
    rule.steps.push_back({RuleOp::kTake, root, 0});
    rule.steps.push_back({ChooseOp(in), static_cast<std::int32_t>(in.Range(-1, 3)),
                          static_cast<std::int32_t>(in.Range(1, top_type))});
    rule.steps.push_back({ChooseOp(in), static_cast<std::int32_t>(in.Range(-1, 3)),
                          static_cast<std::int32_t>(in.Range(0, top_type))});
    rule.steps.push_back({RuleOp::kEmit, 0, 0});
    AddRule(m, std::move(rule));
    infos.push_back(RuleInfo{});
  }

  // choose_args for some straw2 buckets (index 0, or the compat set).
  if (in.Bool()) {
    const std::int64_t index = in.Bool() ? 0 : crush::kCompatChooseArgs;
    const int positions = static_cast<int>(in.Range(1, 3));
    crush::ChooseArgMap& args = m.choose_args[index];
    for (const crush::Bucket& b : m.buckets) {
      if (b.alg != BucketAlg::kStraw2 || in.Range(0, 2) == 0) continue;
      crush::ChooseArg& arg = args[b.id];
      if (in.Bool()) {
        arg.weight_set.resize(static_cast<std::size_t>(positions));
        for (auto& row : arg.weight_set) {
          for (std::size_t i = 0; i < b.items.size(); ++i)
            row.push_back(crushkit::fuzz::RandomWeight(in));
        }
      }
      if (in.Bool()) {
        for (const ItemId item : b.items)
          arg.ids.push_back(item + static_cast<ItemId>(in.Range(0, 3)));
      }
    }
  }

  auto map = crush::CrushMap::Build(m);
  FUZZ_CHECK(map.ok(), "valid-by-construction map rejected: " + map.status().ToString());

  const std::vector<Weight> reweights = crushkit::fuzz::RandomReweights(in, m.max_devices);
  const crush::ChooseArgsRef args = map->ResolveChooseArgs(0);
  // Two inputs x per map: the fuzzer varies x across runs anyway, and each
  // round maps every rule twice per choose_args variant (MapAndCheck).
  for (int round = 0; round < 2 && in.remaining() > 0; ++round) {
    const std::uint32_t x = in.U32();
    const int max_result = static_cast<int>(in.Range(0, 8));
    const auto out_size = static_cast<std::size_t>(in.Range(0, 10));
    const int cap = std::min(max_result, static_cast<int>(out_size));
    for (int r = 0; r < map->max_rules(); ++r) {
      const std::string where = "rule " + std::to_string(r) + " x " + std::to_string(x);
      // Without choose_args for index 0 the second variant would repeat the first.
      for (int variant = 0; variant < (args.none() ? 1 : 2); ++variant) {
        const crush::ChooseArgsRef a = variant == 0 ? crush::ChooseArgsRef{} : args;
        const auto out =
            crushkit::fuzz::MapAndCheck(*map, r, x, reweights, max_result, out_size, a, kBudget);
        if (infos[static_cast<std::size_t>(r)].single_choose) {
          CheckSingleChoose(*map, infos[static_cast<std::size_t>(r)], cap, reweights, out, where);
        }
      }
    }
  }
  return 0;
}
