#include "crush/edit/display.h"

#include <cstdio>
#include <functional>
#include <utility>

#include "crush/builder.h"
#include "crush/edit/edit.h"

namespace crushkit::crush {
namespace {

const std::string* FindName(const std::map<std::int32_t, std::string>& names, std::int32_t id) {
  auto it = names.find(id);
  return it == names.end() ? nullptr : &it->second;
}

// CrushWrapper::get_item_id(): build_rmaps() walks name_map in id order, so
// of two items sharing a name the larger id wins; 0 when unknown ("hrm").
ItemId ItemIdByName(const MapModel& map, const std::string& name) {
  ItemId found = 0;
  for (const auto& [id, n] : map.item_names) {
    if (n == name) found = id;
  }
  return found;
}

float ToFloatWeight(Weight w) { return static_cast<float>(w) / static_cast<float>(0x10000); }

// Dumper::next(): the walk itself, calling `visit` for each item after its
// children were queued (as Ceph sorts them, which is where an unnamed child
// bucket crashes it). `visit` returns false to stop.
absl::Status Walk(const MapModel& map, const std::set<ItemId>& roots,
                  const std::function<bool(const TreeItem&)>& visit) {
  std::vector<TreeItem> stack;  // back() is the front of Ceph's list
  std::vector<ItemId> path;     // ancestors by depth, to refuse cycles
  for (ItemId root : roots) {
    const Bucket* rb = map.FindBucket(root);
    stack.push_back(TreeItem{root, 0, 0, rb != nullptr ? ToFloatWeight(rb->weight) : 0.0f});
    while (!stack.empty()) {
      TreeItem qi = stack.back();
      stack.pop_back();
      path.resize(static_cast<std::size_t>(qi.depth));
      path.push_back(qi.id);
      if (qi.id < 0) {
        if (const Bucket* b = map.FindBucket(qi.id)) {
          std::map<std::string, std::pair<ItemId, float>> sorted;
          for (std::size_t k = b->items.size(); k-- > 0;) {
            const ItemId child = b->items[k];
            std::string sort_by;
            if (child >= 0) {
              if (const std::string* c = ItemClassName(map, child)) sort_by = *c;
              char nn[80];
              std::snprintf(nn, sizeof(nn), "_osd.%08d", child);
              sort_by += nn;
            } else {
              const std::string* name = FindName(map.item_names, child);
              if (name == nullptr) {
                return absl::InternalError("bucket " + std::to_string(child) +
                                           " has no name (Ceph's tree walk crashes here)");
              }
              sort_by = "_" + *name;
            }
            sorted[sort_by] = {child, ToFloatWeight(BucketItemWeight(*b, k))};
          }
          for (auto p = sorted.rbegin(); p != sorted.rend(); ++p) {
            for (ItemId a : path) {
              if (a == p->second.first) {
                return absl::InternalError("bucket " + std::to_string(qi.id) +
                                           " is its own ancestor (Ceph's tree walk never ends)");
              }
            }
            stack.push_back(TreeItem{p->second.first, qi.id, qi.depth + 1, p->second.second});
          }
        }
      }
      if (!visit(qi)) return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

}  // namespace

const Bucket* ImmediateParent(const MapModel& map, ItemId id) {
  for (const Bucket& b : map.buckets) {
    if (b.alg == BucketAlg::kNone || IsShadowItem(map, b.id)) continue;
    for (ItemId item : b.items) {
      if (item == id) return &b;
    }
  }
  return nullptr;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> FullLocationOrdered(
    const MapModel& map, ItemId id) {
  std::vector<std::pair<std::string, std::string>> path;
  if (FindName(map.item_names, id) == nullptr) return path;
  ItemId cur = id;
  // Each step climbs one level; more steps than buckets means a cycle.
  for (int steps = 0; steps <= map.max_buckets() + 1; ++steps) {
    const Bucket* parent = ImmediateParent(map, cur);
    if (parent == nullptr) return path;
    const std::string* name = FindName(map.item_names, parent->id);
    const std::string* type = FindName(map.type_names, parent->type);
    if (name == nullptr || type == nullptr) {
      return absl::InternalError("bucket " + std::to_string(parent->id) +
                                 " has no name or type name (Ceph aborts here)");
    }
    path.emplace_back(*type, *name);
    cur = ItemIdByName(map, *name);
  }
  return absl::InternalError("the ancestors of item " + std::to_string(id) +
                             " form a cycle (Ceph loops forever)");
}

absl::StatusOr<std::map<std::string, std::string>> FullLocation(const MapModel& map, ItemId id) {
  auto path = FullLocationOrdered(map, id);
  if (!path.ok()) return path.status();
  std::map<std::string, std::string> loc;
  for (auto& [type, name] : *path) loc.emplace(type, name);  // the nearest ancestor of a type wins
  return loc;
}

std::string FullLocationOrderedString(
    const std::vector<std::pair<std::string, std::string>>& path) {
  std::string out;
  for (auto p = path.rbegin(); p != path.rend(); ++p) {
    if (!out.empty()) out += ',';
    out += p->first + "=" + p->second;
  }
  return out;
}

absl::StatusOr<std::set<ItemId>> Leaves(const MapModel& map, const std::string& name) {
  bool known = false;
  for (const auto& [id, n] : map.item_names) known = known || n == name;
  std::set<ItemId> leaves;
  if (!known) return leaves;
  const ItemId top = ItemIdByName(map, name);
  if (top >= 0) return std::set<ItemId>{top};
  // _get_leaves(): depth first; a missing bucket anywhere empties the answer.
  std::vector<std::pair<ItemId, int>> stack = {{top, 0}};
  std::vector<ItemId> path;
  while (!stack.empty()) {
    const auto [id, depth] = stack.back();
    stack.pop_back();
    if (id >= 0) {
      leaves.insert(id);
      continue;
    }
    const Bucket* b = map.FindBucket(id);
    if (b == nullptr) return std::set<ItemId>{};
    path.resize(static_cast<std::size_t>(depth));
    for (ItemId a : path) {
      if (a == id) {
        return absl::InternalError("bucket " + std::to_string(id) +
                                   " is its own ancestor (Ceph recurses until it crashes)");
      }
    }
    path.push_back(id);
    for (std::size_t k = b->items.size(); k-- > 0;) stack.emplace_back(b->items[k], depth + 1);
  }
  return leaves;
}

std::set<ItemId> FindAllRoots(const MapModel& map) {
  std::set<ItemId> held;
  for (const Bucket& b : map.buckets) {
    if (b.alg == BucketAlg::kNone) continue;
    held.insert(b.items.begin(), b.items.end());
  }
  std::set<ItemId> roots;
  for (const Bucket& b : map.buckets) {
    if (b.alg != BucketAlg::kNone && held.count(b.id) == 0) roots.insert(b.id);
  }
  return roots;
}

const std::string* ItemClassName(const MapModel& map, ItemId id) {
  auto it = map.class_map.find(id);
  if (it == map.class_map.end()) return nullptr;
  return FindName(map.class_names, it->second);
}

absl::StatusOr<std::vector<TreeItem>> WalkTree(const MapModel& map, bool show_shadow) {
  const std::set<ItemId> roots = show_shadow ? FindAllRoots(map) : FindNonshadowRoots(map);
  std::vector<TreeItem> out;
  absl::Status s = Walk(map, roots, [&out](const TreeItem& qi) {
    out.push_back(qi);
    return true;
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::string> CheckNameMaps(const MapModel& map, unsigned max_id) {
  const int limit = static_cast<int>(max_id);
  std::string failure;
  auto check = [&](const TreeItem& qi) {
    int type = 0;
    if (qi.id < 0) {
      if (FindName(map.item_names, qi.id) == nullptr) {
        failure = "unknown item name: item#" + std::to_string(qi.id);
        return false;
      }
      const Bucket* b = map.FindBucket(qi.id);
      type = b != nullptr ? b->type : -2;  // get_bucket_type(): -ENOENT
    } else if (limit > 0 && qi.id >= limit) {
      failure = "item id too large: item#" + std::to_string(qi.id);
      return false;
    }
    if (FindName(map.type_names, type) == nullptr) {
      failure = "unknown type name: item#" + std::to_string(qi.id);
      return false;
    }
    return true;
  };
  absl::Status s = Walk(map, FindNonshadowRoots(map), check);
  if (!failure.empty()) return failure;
  if (!s.ok()) return s;
  // Ceph then checks a stray osd.0, whatever the map holds.
  check(TreeItem{});
  return failure;
}

std::vector<std::string> OverlappedRules(const MapModel& map) {
  // (ruleset, type) -> size -> rule names: the interval map of
  // check_overlapped_rules() evaluated at each size (sizes are bytes).
  std::map<std::pair<int, int>, std::vector<std::set<std::string>>> rulesets;
  for (int r = 0; r < map.max_rules(); ++r) {
    if (!map.rule_exists[static_cast<std::size_t>(r)]) continue;
    const Rule& rule = map.rules[static_cast<std::size_t>(r)];
    auto& sizes = rulesets[{rule.ruleset, static_cast<int>(rule.type)}];
    sizes.resize(256);
    const std::string* n = FindName(map.rule_names, r);
    const std::string name = n != nullptr ? *n : "rule" + std::to_string(r);
    for (int s = rule.min_size; s <= rule.max_size; ++s)
      sizes[static_cast<std::size_t>(s)].insert(name);
  }
  std::vector<std::string> lines;
  for (const auto& [key, sizes] : rulesets) {
    // icl joins neighbouring sizes holding the same set into one segment.
    for (std::size_t s = 0; s < sizes.size();) {
      std::size_t e = s + 1;
      while (e < sizes.size() && sizes[e] == sizes[s]) ++e;
      if (sizes[s].size() > 1) {
        std::string line = "overlapped rules in ruleset " + std::to_string(key.first) + ": ";
        bool first = true;
        for (const std::string& name : sizes[s]) {
          if (!first) line += ", ";
          line += name;
          first = false;
        }
        lines.push_back(line);
      }
      s = e;
    }
  }
  return lines;
}

namespace {
constexpr std::uint32_t kLegacyAlgs = 22;  // uniform | list | straw
constexpr std::uint32_t kHammerAlgs = 54;  // + straw2

bool DefaultMsr(const Tunables& t, bool msr) {
  return !msr || (t.msr_descents == 100 && t.msr_collision_tries == 100);
}

bool Modern(const Tunables& t, std::uint32_t vary_r, std::uint32_t stable, std::uint32_t algs,
            bool msr) {
  return t.choose_local_tries == 0 && t.choose_local_fallback_tries == 0 &&
         t.choose_total_tries == 50 && t.chooseleaf_descend_once == 1 &&
         t.chooseleaf_vary_r == vary_r && t.chooseleaf_stable == stable &&
         t.allowed_bucket_algs == algs && DefaultMsr(t, msr);
}
}  // namespace

bool HasLegacyTunables(const Tunables& t, bool msr) {
  return t.choose_local_tries == 2 && t.choose_local_fallback_tries == 5 &&
         t.choose_total_tries == 19 && t.chooseleaf_descend_once == 0 && t.chooseleaf_vary_r == 0 &&
         t.chooseleaf_stable == 0 && t.allowed_bucket_algs == kLegacyAlgs && DefaultMsr(t, msr);
}

bool HasOptimalTunables(const Tunables& t, bool msr) { return Modern(t, 1, 1, kHammerAlgs, msr); }

std::string TunablesProfileName(const Tunables& t, bool msr) {
  if (Modern(t, 1, 1, kHammerAlgs, msr)) return "jewel";
  if (Modern(t, 1, 0, kHammerAlgs, msr)) return "hammer";
  if (Modern(t, 1, 0, kLegacyAlgs, msr)) return "firefly";
  if (Modern(t, 0, 0, kLegacyAlgs, msr)) return "bobtail";
  if (HasLegacyTunables(t, msr)) return "argonaut";
  return "unknown";
}

bool HasRuleOp(const MapModel& map, std::initializer_list<RuleOp> ops) {
  for (std::size_t r = 0; r < map.rules.size(); ++r) {
    if (!map.rule_exists[r]) continue;
    for (const RuleStep& step : map.rules[r].steps) {
      for (RuleOp op : ops) {
        if (step.op == op) return true;
      }
    }
  }
  return false;
}

bool HasV2Rules(const MapModel& map) {
  return HasRuleOp(map, {RuleOp::kChooseIndep, RuleOp::kChooseleafIndep, RuleOp::kSetChooseTries,
                         RuleOp::kSetChooseleafTries});
}

bool HasV3Rules(const MapModel& map) { return HasRuleOp(map, {RuleOp::kSetChooseleafVaryR}); }

bool HasV5Rules(const MapModel& map) { return HasRuleOp(map, {RuleOp::kSetChooseleafStable}); }

bool HasV4Buckets(const MapModel& map) {
  for (const Bucket& b : map.buckets) {
    if (b.alg == BucketAlg::kStraw2) return true;
  }
  return false;
}

bool HasMsrRules(const MapModel& map) {
  for (std::size_t r = 0; r < map.rules.size(); ++r) {
    if (!map.rule_exists[r]) continue;
    const RuleType type = map.rules[r].type;
    if (type == RuleType::kMsrFirstn || type == RuleType::kMsrIndep) return true;
  }
  return false;
}

std::string MinRequiredVersion(const MapModel& map, bool msr) {
  const Tunables& t = map.tunables;
  if (msr && (HasMsrRules(map) || !DefaultMsr(t, msr))) return "squid";
  if (HasV5Rules(map) || t.chooseleaf_stable != 0) return "jewel";
  if (HasV4Buckets(map)) return "hammer";
  if (t.chooseleaf_vary_r != 0) return "firefly";
  if (t.chooseleaf_descend_once != 0 || t.choose_local_tries != 2 ||
      t.choose_local_fallback_tries != 5 || t.choose_total_tries != 19) {
    return "bobtail";
  }
  return "argonaut";
}

}  // namespace crushkit::crush
