#include "tools/strategies/topology.h"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

#include "crush/builder.h"
#include "crush/edit/edit.h"
#include "crush/status_macros.h"

namespace crushkit::strategies {
namespace {

using crush::Bucket;
using crush::BucketAlg;
using crush::MapModel;
using crush::RuleOp;
using crush::Weight;

// Deepest hierarchy we walk; real maps have < 12 levels, and the bound keeps a
// corrupt (cyclic) map from recursing without end.
constexpr int kMaxDepth = 64;

std::string ItemName(const MapModel& m, ItemId id) {
  if (auto it = m.item_names.find(id); it != m.item_names.end()) return it->second;
  return id >= 0 ? absl::StrCat("osd.", id) : absl::StrCat("bucket", id);
}

absl::StatusOr<const crush::Rule*> GetRule(const MapModel& m, int rule) {
  if (rule < 0 || rule >= m.max_rules() || !m.rule_exists[static_cast<std::size_t>(rule)]) {
    return absl::NotFoundError(absl::StrCat("rule ", rule, " does not exist in the map"));
  }
  return &m.rules[static_cast<std::size_t>(rule)];
}

absl::StatusOr<ItemId> RuleRoot(const MapModel& m, int rule) {
  CRUSH_ASSIGN_OR_RETURN(const crush::Rule* r, GetRule(m, rule));
  for (const auto& step : r->steps) {
    if (step.op == RuleOp::kTake) {
      if (m.FindBucket(step.arg1) == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("rule ", rule, " takes ", step.arg1, ", which is not a bucket"));
      }
      return step.arg1;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("rule ", rule, " has no 'take' step"));
}

// Calls visit(bucket, path) for every bucket below `root` (depth first, items
// in order), path = ancestors from the root down to and including `bucket`.
absl::Status Walk(const MapModel& m, ItemId root,
                  const std::function<void(const Bucket&, const std::vector<ItemId>&)>& visit) {
  std::vector<ItemId> path;
  std::function<absl::Status(ItemId)> rec = [&](ItemId id) -> absl::Status {
    const Bucket* b = m.FindBucket(id);
    if (b == nullptr) return absl::OkStatus();
    if (static_cast<int>(path.size()) >= kMaxDepth ||
        std::find(path.begin(), path.end(), id) != path.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bucket ", id, " is part of a cycle or nested deeper than ", kMaxDepth));
    }
    path.push_back(id);
    visit(*b, path);
    for (ItemId child : b->items) {
      if (child < 0) CRUSH_RETURN_IF_ERROR(rec(child));
    }
    path.pop_back();
    return absl::OkStatus();
  };
  return rec(root);
}

absl::Status CheckEditable(const MapModel& m) {
  if (!m.class_buckets.empty() || !m.choose_args.empty()) {
    return absl::UnimplementedError(
        "editing maps with device classes or choose_args is not supported; "
        "compare against a second map instead");
  }
  for (const Bucket& b : m.buckets) {
    if (b.alg != BucketAlg::kNone && b.alg != BucketAlg::kStraw2) {
      return absl::UnimplementedError(absl::StrCat(
          "bucket ", ItemName(m, b.id), " is not straw2; only all-straw2 maps can be edited"));
    }
  }
  return absl::OkStatus();
}

// Shares proportional to `weights`, none above `cap` (water-filling).
std::vector<double> WaterFill(const std::vector<double>& weights, double cap) {
  const std::size_t n = weights.size();
  std::vector<double> shares(n, 0.0);
  std::vector<bool> capped(n, false);
  int ncapped = 0;
  for (;;) {
    const double remaining = 1.0 - ncapped * cap;
    double w_sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!capped[i]) w_sum += weights[i];
    }
    if (w_sum <= 0) return shares;
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (!capped[i] && remaining * weights[i] / w_sum > cap * (1 + 1e-12)) {
        capped[i] = true;
        shares[i] = cap;
        ++ncapped;
        any = true;
      }
    }
    if (!any) {
      for (std::size_t i = 0; i < n; ++i) {
        if (!capped[i]) shares[i] = remaining * weights[i] / w_sum;
      }
      return shares;
    }
  }
}

}  // namespace

double Topology::total_weight() const {
  double t = 0;
  for (const Node& n : nodes) t += n.weight;
  return t;
}

int Topology::IndexOf(ItemId id) const {
  auto it = std::lower_bound(nodes.begin(), nodes.end(), id,
                             [](const Node& n, ItemId v) { return n.id < v; });
  return it != nodes.end() && it->id == id ? static_cast<int>(it - nodes.begin()) : -1;
}

absl::StatusOr<Topology> TopologyFromModel(std::shared_ptr<const MapModel> model, int rule,
                                           const std::optional<std::string>& domain_type) {
  if (model == nullptr) return absl::InvalidArgumentError("no map");
  const MapModel& m = *model;
  CRUSH_ASSIGN_OR_RETURN(const crush::Rule* r, GetRule(m, rule));
  CRUSH_ASSIGN_OR_RETURN(ItemId root, RuleRoot(m, rule));

  int type = 0;
  if (domain_type.has_value()) {
    auto it = std::find_if(m.type_names.begin(), m.type_names.end(),
                           [&](const auto& kv) { return kv.second == *domain_type; });
    if (it == m.type_names.end()) {
      return absl::NotFoundError(absl::StrCat("unknown failure domain type '", *domain_type, "'"));
    }
    type = it->first;
  } else {
    for (const auto& step : r->steps) {
      if (step.op == RuleOp::kChooseFirstn || step.op == RuleOp::kChooseIndep ||
          step.op == RuleOp::kChooseleafFirstn || step.op == RuleOp::kChooseleafIndep ||
          step.op == RuleOp::kChooseMsr) {
        type = step.arg2;
        break;
      }
    }
  }

  Topology topo;
  auto type_it = m.type_names.find(type);
  topo.domain_type = type_it != m.type_names.end() ? type_it->second : absl::StrCat("type", type);
  std::set<ItemId> seen;
  std::map<ItemId, int> domain_index;
  auto domain_of = [&](ItemId id) {
    auto [it, inserted] = domain_index.emplace(id, static_cast<int>(topo.domain_names.size()));
    if (inserted) topo.domain_names.push_back(ItemName(m, id));
    return it->second;
  };
  CRUSH_RETURN_IF_ERROR(Walk(m, root, [&](const Bucket& b, const std::vector<ItemId>& path) {
    for (std::size_t i = 0; i < b.items.size(); ++i) {
      const ItemId id = b.items[i];
      const Weight w = crush::BucketItemWeight(b, i);
      if (id < 0 || w == 0 || !seen.insert(id).second) continue;
      ItemId domain = id;
      if (type != 0) {
        for (ItemId anc : path) {
          if (m.FindBucket(anc)->type == type) {
            domain = anc;
            break;
          }
        }
      }
      topo.nodes.push_back(Node{id, ItemName(m, id), w / 65536.0, domain_of(domain)});
    }
  }));
  if (topo.nodes.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("rule ", rule, " reaches no device with positive weight"));
  }
  std::sort(topo.nodes.begin(), topo.nodes.end(),
            [](const Node& a, const Node& b) { return a.id < b.id; });
  topo.model = std::move(model);
  topo.rule = rule;
  return topo;
}

absl::StatusOr<MapModel> MakeFlatModel(int n) {
  // 50000 keeps the root weight (n * 1.0 in 16.16) well inside a u32.
  if (n < 1 || n > 50000) {
    return absl::InvalidArgumentError(absl::StrCat("--nodes must be 1..50000, got ", n));
  }
  MapModel m;
  m.tunables = crush::TunablesFor(crush::TunablesProfile::kJewel);
  m.max_devices = n;
  m.type_names = {{0, "osd"}, {1, "root"}};
  Bucket root;
  root.id = -1;
  root.type = 1;
  root.alg = BucketAlg::kStraw2;
  for (int i = 0; i < n; ++i) {
    root.items.push_back(i);
    root.item_weights.push_back(crush::kWeightOne);
    m.item_names[i] = absl::StrCat("osd.", i);
  }
  root.weight = static_cast<Weight>(n) * crush::kWeightOne;
  m.buckets.push_back(std::move(root));
  m.item_names[-1] = "default";
  crush::Rule rule;
  rule.ruleset = 0;
  rule.type = crush::RuleType::kReplicated;
  rule.min_size = 1;
  rule.max_size = 10;
  rule.steps = {{RuleOp::kTake, -1, 0}, {RuleOp::kChooseFirstn, 0, 0}, {RuleOp::kEmit, 0, 0}};
  m.rules.push_back(std::move(rule));
  m.rule_exists.push_back(true);
  m.rule_names[0] = "replicated_rule";
  return m;
}

absl::StatusOr<std::vector<ItemId>> AddDevices(MapModel& model, int rule, int count, Weight weight,
                                               std::optional<ItemId> parent) {
  CRUSH_RETURN_IF_ERROR(CheckEditable(model));
  if (count < 1 || count > 50000) {
    return absl::InvalidArgumentError(absl::StrCat("--add must be 1..50000, got ", count));
  }
  if (weight == 0) return absl::InvalidArgumentError("added devices need a positive weight");
  std::vector<ItemId> targets;
  if (parent.has_value()) {
    if (model.FindBucket(*parent) == nullptr) {
      return absl::NotFoundError(absl::StrCat("bucket ", *parent, " does not exist"));
    }
    targets.push_back(*parent);
  } else {
    CRUSH_ASSIGN_OR_RETURN(ItemId root, RuleRoot(model, rule));
    CRUSH_RETURN_IF_ERROR(Walk(model, root, [&](const Bucket& b, const std::vector<ItemId>&) {
      const bool holds_devices =
          std::any_of(b.items.begin(), b.items.end(), [](ItemId i) { return i >= 0; });
      if (holds_devices && std::find(targets.begin(), targets.end(), b.id) == targets.end()) {
        targets.push_back(b.id);
      }
    }));
    if (targets.empty()) {
      return absl::InvalidArgumentError("no bucket below the rule's root holds devices");
    }
  }
  std::vector<ItemId> added;
  for (int i = 0; i < count; ++i) {
    const ItemId id = model.max_devices;
    const ItemId parent_id = targets[static_cast<std::size_t>(i) % targets.size()];
    const Bucket* b = model.FindBucket(parent_id);
    auto type_name = model.type_names.find(b->type);
    auto bucket_name = model.item_names.find(parent_id);
    if (type_name == model.type_names.end() || bucket_name == model.item_names.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bucket ", parent_id, " has no name or its type has none"));
    }
    // CrushWrapper::insert_item at weight 0, then the exact 16.16 weight
    // (insert_item takes a float, which cannot carry every 16.16 value).
    CRUSH_RETURN_IF_ERROR(crush::InsertItem(model, id, 0.0F, absl::StrCat("osd.", id),
                                            {{type_name->second, bucket_name->second}}));
    CRUSH_RETURN_IF_ERROR(crush::AdjustItemWeight(model, id, weight).status());
    added.push_back(id);
  }
  return added;
}

absl::Status RemoveDevice(MapModel& model, ItemId id) {
  CRUSH_RETURN_IF_ERROR(CheckEditable(model));
  const bool linked = std::any_of(model.buckets.begin(), model.buckets.end(), [&](const Bucket& b) {
    return std::find(b.items.begin(), b.items.end(), id) != b.items.end();
  });
  if (!linked) return absl::NotFoundError(absl::StrCat("device ", id, " is in no bucket"));
  return crush::RemoveItem(model, id);  // CrushWrapper::remove_item
}

absl::Status ReweightDevice(MapModel& model, ItemId id, Weight weight) {
  CRUSH_RETURN_IF_ERROR(CheckEditable(model));
  CRUSH_ASSIGN_OR_RETURN(int changed, crush::AdjustItemWeight(model, id, weight));
  if (changed == 0) return absl::NotFoundError(absl::StrCat("device ", id, " is in no bucket"));
  return absl::OkStatus();
}

absl::StatusOr<ItemId> ResolveDevice(const MapModel& model, const std::string& name) {
  for (const auto& [id, n] : model.item_names) {
    if (id >= 0 && n == name) return id;
  }
  std::string_view digits = name;
  if (digits.substr(0, 4) == "osd.") digits.remove_prefix(4);
  int id = -1;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (ec == std::errc() && ptr == digits.data() + digits.size() && id >= 0 &&
      id < model.max_devices) {
    return id;
  }
  return absl::NotFoundError(absl::StrCat("no device named '", name, "' in the map"));
}

std::vector<double> IdealShares(const Topology& topo, int replicas) {
  const std::size_t n = topo.nodes.size();
  const double cap = replicas > 0 ? 1.0 / replicas : 1.0;
  std::vector<double> domain_weight(topo.domain_names.size(), 0.0);
  for (const Node& node : topo.nodes)
    domain_weight[static_cast<std::size_t>(node.domain)] += node.weight;
  const auto live_domains = static_cast<int>(
      std::count_if(domain_weight.begin(), domain_weight.end(), [](double w) { return w > 0; }));
  std::vector<double> shares(n, 0.0);
  if (replicas <= live_domains) {
    const std::vector<double> ds = WaterFill(domain_weight, cap);
    for (std::size_t i = 0; i < n; ++i) {
      const auto d = static_cast<std::size_t>(topo.nodes[i].domain);
      shares[i] = ds[d] * topo.nodes[i].weight / domain_weight[d];
    }
    return shares;
  }
  std::vector<double> weights(n);
  for (std::size_t i = 0; i < n; ++i) weights[i] = topo.nodes[i].weight;
  return WaterFill(weights, static_cast<int>(n) >= replicas ? cap : 1.0);
}

}  // namespace crushkit::strategies
