#include "crush/edit/bucket_shares.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "crush/builder.h"
#include "crush/mapper.h"

namespace crushkit::crush {

namespace {

// The take step's subtree (a shadow tree for class rules): each item's parent
// and its weight as the parent holds it.
struct Subtree {
  std::map<ItemId, ItemId> parent;
  std::map<ItemId, double> weight;
};

Subtree WalkSubtree(const MapModel& m, ItemId root_id) {
  Subtree t;
  std::vector<ItemId> stack = {root_id};
  const Bucket* root = m.FindBucket(root_id);
  t.weight[root_id] = root != nullptr ? static_cast<double>(root->weight) : 0.0;
  while (!stack.empty()) {
    const ItemId id = stack.back();
    stack.pop_back();
    const Bucket* b = id < 0 ? m.FindBucket(id) : nullptr;
    if (b == nullptr) continue;
    for (std::size_t i = 0; i < b->items.size(); ++i) {
      const ItemId child = b->items[i];
      if (!t.parent.emplace(child, id).second) continue;  // reached twice: keep the first
      t.weight[child] = static_cast<double>(BucketItemWeight(*b, i));
      stack.push_back(child);
    }
  }
  return t;
}

// Maps inputs 0..inputs-1 and counts, for every item, the replicas placed
// under it; fills report->placed and report->short_results.
std::map<ItemId, std::uint64_t> CountReplicas(const CrushMap& map, int rule, int num_rep,
                                              std::uint32_t inputs, const Subtree& tree,
                                              ShareReport* report) {
  std::map<ItemId, std::uint64_t> counts;
  Workspace ws(map, num_rep);
  std::vector<ItemId> out(static_cast<std::size_t>(num_rep));
  std::vector<Weight> reweights(static_cast<std::size_t>(std::max(map.max_devices(), 0)),
                                kWeightOne);
  for (std::uint32_t x = 0; x < inputs; ++x) {
    const int n = DoRule(map, rule, x, reweights, ws, out);
    int devices = 0;
    for (int k = 0; k < n; ++k) {
      ItemId item = out[static_cast<std::size_t>(k)];
      if (item < 0 || item == kItemNone) continue;
      ++devices;
      ++report->placed;
      for (int depth = 0; depth < 64; ++depth) {  // the walk up stops at the take
        ++counts[item];
        if (item == report->root) break;
        auto p = tree.parent.find(item);
        if (p == tree.parent.end()) break;
        item = p->second;
      }
    }
    if (devices < num_rep) ++report->short_results;
  }
  return counts;
}

// Expected share: the product of weight fractions down from the root.
std::map<ItemId, double> ExpectedFractions(const MapModel& m, ItemId root, Subtree& tree) {
  std::map<ItemId, double> fraction;
  fraction[root] = 1.0;
  for (const auto& [item, w] : tree.weight) {
    if (item == root) continue;
    std::vector<ItemId> path;  // item up to (excluding) the root
    for (ItemId at = item; at != root && path.size() < 64;) {
      path.push_back(at);
      auto p = tree.parent.find(at);
      if (p == tree.parent.end()) break;
      at = p->second;
    }
    double f = 1.0;
    for (ItemId at : path) {
      const Bucket* holder = m.FindBucket(tree.parent[at]);
      const double total = holder != nullptr ? static_cast<double>(holder->weight) : 0.0;
      f *= total > 0 ? tree.weight[at] / total : 0.0;
    }
    fraction[item] = f;
  }
  return fraction;
}

}  // namespace

absl::StatusOr<ShareReport> MeasureShares(const CrushMap& map, int rule, int num_rep,
                                          std::uint32_t inputs) {
  if (!map.RuleExists(rule))
    return absl::NotFoundError("rule " + std::to_string(rule) + " does not exist");
  if (num_rep < 1 || num_rep > kMaxWorkspaceResult) {
    return absl::InvalidArgumentError("num_rep must be 1.." + std::to_string(kMaxWorkspaceResult));
  }
  const MapModel& m = map.model();
  ShareReport report;
  bool have_take = false;
  for (const RuleStep& s : m.rules[static_cast<std::size_t>(rule)].steps) {
    if (s.op == RuleOp::kTake) {
      report.root = s.arg1;
      have_take = true;
      break;
    }
  }
  if (!have_take)
    return absl::InvalidArgumentError("rule " + std::to_string(rule) + " has no take step");

  Subtree tree = WalkSubtree(m, report.root);
  std::map<ItemId, std::uint64_t> counts = CountReplicas(map, rule, num_rep, inputs, tree, &report);
  report.inputs = inputs;
  const std::map<ItemId, double> fraction = ExpectedFractions(m, report.root, tree);
  const double placed = static_cast<double>(report.placed);
  for (const auto& [item, f] : fraction) {
    ItemShare s;
    s.expected = f;
    s.replicas = counts.count(item) != 0 ? counts[item] : 0;
    s.actual = placed > 0 ? static_cast<double>(s.replicas) / placed : 0.0;
    s.binomial_sd = placed > 0 ? std::sqrt(f * (1 - f) / placed) : 0.0;
    report.items[item] = s;
  }
  return report;
}

int RuleDomainType(const MapModel& map, int rule) {
  if (rule < 0 || rule >= map.max_rules()) return 0;
  int type = 0;
  for (const RuleStep& s : map.rules[static_cast<std::size_t>(rule)].steps) {
    if (s.op == RuleOp::kChooseleafFirstn || s.op == RuleOp::kChooseleafIndep) return s.arg2;
    if (s.op == RuleOp::kChooseFirstn || s.op == RuleOp::kChooseIndep) type = s.arg2;
  }
  return type;
}

std::vector<ItemId> ItemsOfType(const MapModel& map, const ShareReport& report, int type) {
  std::vector<ItemId> items;
  for (const auto& [id, share] : report.items) {
    if (share.expected <= 0) continue;
    const Bucket* b = id < 0 ? map.FindBucket(id) : nullptr;
    const int t = id >= 0 ? 0 : (b != nullptr ? b->type : -1);
    if (t == type) items.push_back(id);
  }
  return items;
}

ShareSpread SpreadOf(const ShareReport& report, const std::vector<ItemId>& items) {
  ShareSpread spread;
  double sum_z2 = 0;
  for (ItemId id : items) {
    auto it = report.items.find(id);
    if (it == report.items.end() || it->second.expected <= 0) continue;
    const ItemShare& s = it->second;
    const double fill = s.actual / s.expected;
    const double z = s.binomial_sd > 0 ? (s.actual - s.expected) / s.binomial_sd : 0.0;
    if (spread.items == 0 || fill < spread.min_fill) spread.min_fill = fill;
    if (spread.items == 0 || fill > spread.max_fill) spread.max_fill = fill;
    sum_z2 += z * z;
    spread.within_2sd += std::abs(z) <= 2 ? 1 : 0;
    ++spread.items;
  }
  spread.rms_z = spread.items > 0 ? std::sqrt(sum_z2 / spread.items) : 0.0;
  return spread;
}

}  // namespace crushkit::crush
