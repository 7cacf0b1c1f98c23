#include "osdmap/planning/change_warnings.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include "osdmap/changes/change_ops_internal.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/planning/movement_internal.h"
#include "osdmap/planning/movement_report.h"

namespace crushkit::osdmap {
namespace {

using crush::ItemId;

// ---- kNewBucket ----

std::string TypeNameOf(const crush::MapModel& map, int type) {
  auto it = map.type_names.find(type);
  return it == map.type_names.end() ? std::to_string(type) : it->second;
}

std::optional<int> TypeIdOf(const crush::MapModel& map, const std::string& name) {
  for (const auto& [id, n] : map.type_names) {
    if (n == name) return id;
  }
  return std::nullopt;
}

std::set<ItemId> ShadowIds(const crush::MapModel& map) {
  std::set<ItemId> shadow;
  for (const auto& [orig, per_class] : map.class_buckets) {
    for (const auto& [cls, id] : per_class) shadow.insert(id);
  }
  return shadow;
}

// Bucket name -> type name of every bucket outside the shadow trees.
std::map<std::string, std::string> BucketTypes(const crush::MapModel& map) {
  const std::set<ItemId> shadow = ShadowIds(map);
  std::map<std::string, std::string> out;
  for (const crush::Bucket& b : map.buckets) {
    if (b.alg == crush::BucketAlg::kNone || shadow.contains(b.id)) continue;
    if (auto n = map.item_names.find(b.id); n != map.item_names.end())
      out[n->second] = TypeNameOf(map, b.type);
  }
  return out;
}

// ---- kDetached ----

// What the pools' rules of one state reach: devices (shadow trees honour
// the device class) and buckets by name (a shadow bucket counts as its
// original).
struct RuleReach {
  bool any_rule = false;
  std::set<ItemId> osds;
  std::set<std::string> buckets;
  std::set<std::string> taken;  // names of the take steps' (original) buckets
};

RuleReach ReachOf(const ClusterState& s) {
  const crush::MapModel& map = s.crush;
  std::map<ItemId, ItemId> original;  // shadow id -> original id
  for (const auto& [orig, per_class] : map.class_buckets) {
    for (const auto& [cls, id] : per_class) original[id] = orig;
  }
  auto name_of = [&](ItemId id) -> std::string {
    auto o = original.find(id);
    auto n = map.item_names.find(o == original.end() ? id : o->second);
    return n == map.item_names.end() ? std::to_string(id) : n->second;
  };
  RuleReach r;
  std::set<ItemId> walked;
  for (const auto& [id, pool] : s.pools) {
    const int rule = FindCrushRule(map, pool.crush_rule, static_cast<int>(pool.type),
                                   static_cast<int>(pool.size), s.ceph_release);
    if (rule < 0 || rule >= map.max_rules() || !map.rule_exists[static_cast<std::size_t>(rule)])
      continue;
    r.any_rule = true;
    for (const crush::RuleStep& step : map.rules[static_cast<std::size_t>(rule)].steps) {
      if (step.op != crush::RuleOp::kTake) continue;
      if (step.arg1 < 0) r.taken.insert(name_of(step.arg1));
      std::vector<ItemId> stack = {step.arg1};
      while (!stack.empty()) {
        const ItemId item = stack.back();
        stack.pop_back();
        if (item >= 0) {
          r.osds.insert(item);
          continue;
        }
        if (!walked.insert(item).second) continue;
        const crush::Bucket* b = map.FindBucket(item);
        if (b == nullptr) continue;
        r.buckets.insert(name_of(item));
        stack.insert(stack.end(), b->items.begin(), b->items.end());
      }
    }
  }
  return r;
}

// One top bucket's detached OSDs and buckets.
struct DetachedGroup {
  ItemId top = 0;
  std::vector<ItemId> osds;
  std::vector<ItemId> left;  // what left (or, for new OSDs, their hosts), in order found
};

std::string ItemName(const crush::MapModel& map, ItemId id) {
  auto n = map.item_names.find(id);
  if (n != map.item_names.end()) return n->second;
  return id >= 0 ? absl::StrCat("osd.", id) : std::to_string(id);
}

// "host 'node3'" (a bucket with its type) or "osd.7".
std::string Describe(const crush::MapModel& map, ItemId id) {
  if (id >= 0) return ItemName(map, id);
  const crush::Bucket* b = map.FindBucket(id);
  return absl::StrCat(b == nullptr ? "bucket" : TypeNameOf(map, b->type), " '", ItemName(map, id),
                      "'");
}

PlanWarning MakeDetachedWarning(const ClusterState& after, const RuleReach& reach_after,
                                const DetachedGroup& g) {
  const crush::MapModel& map = after.crush;
  PlanWarning w;
  w.kind = PlanWarning::Kind::kDetached;
  w.bucket = ItemName(map, g.top);
  for (ItemId id : g.left) w.buckets.push_back(ItemName(map, id));
  w.osds = g.osds;
  std::sort(w.osds.begin(), w.osds.end());
  const std::vector<std::optional<crush::Weight>> weights = DeviceCrushWeights(map);
  bool all_df = !w.osds.empty();
  for (ItemId o : w.osds) {
    const auto d = static_cast<std::size_t>(o);
    if (d < weights.size() && weights[d]) w.crush_weight += *weights[d] / 65536.0;
    auto u = after.osd_usage.find(o);
    if (u == after.osd_usage.end() || u->second.kb == 0) {
      all_df = false;
      continue;
    }
    w.capacity_bytes += u->second.kb * 1024;
    w.used_bytes += u->second.kb_used * 1024;
  }
  w.capacity_from_osd_df = all_df;
  std::string subject;
  if (g.left.size() == 1) {
    subject = Describe(map, g.left.front());
  } else {
    std::vector<std::string> quoted;
    for (std::size_t i = 0; i < g.left.size() && i < 4; ++i)
      quoted.push_back(absl::StrCat("'", w.buckets[i], "'"));
    subject = absl::StrCat(g.left.size(), " buckets (", absl::StrJoin(quoted, ", "),
                           g.left.size() > 4 ? ", ..." : "", ")");
  }
  std::string what = absl::StrCat(w.osds.size(), w.osds.size() == 1 ? " OSD" : " OSDs",
                                  absl::StrFormat(", crush weight %.3f", w.crush_weight));
  if (w.capacity_from_osd_df) {
    absl::StrAppend(&what, ", ", FormatBytes(static_cast<double>(w.capacity_bytes)),
                    " capacity holding ", FormatBytes(static_cast<double>(w.used_bytes)),
                    " per ceph osd df");
  }
  std::string where;
  if (reach_after.buckets.contains(w.bucket)) {
    // The tree is taken, the OSDs are not: no rule takes their class there.
    std::set<std::string> classes;
    for (ItemId o : w.osds) {
      auto c = map.class_map.find(o);
      auto n = c == map.class_map.end() ? map.class_names.end() : map.class_names.find(c->second);
      classes.insert(n == map.class_names.end() ? "no class" : "class '" + n->second + "'");
    }
    where = absl::StrCat("it is under ", Describe(map, g.top), " but its OSDs (",
                         absl::StrJoin(classes, ", "),
                         ") are in no device class a pool's rule takes there");
  } else if (g.left.size() == 1 && g.left.front() == g.top) {
    where = "it hangs from no bucket";
  } else {
    where = absl::StrCat("it now hangs under ", Describe(map, g.top),
                         ", the top of a tree that no pool's rule takes");
  }
  w.message =
      absl::StrCat(subject, " (", what, ") is outside every tree a pool's rule takes: ", where,
                   "; no data will be placed on ", w.osds.size() == 1 ? "that OSD" : "those OSDs");
  if (w.used_bytes > 0) absl::StrAppend(&w.message, " and what they hold moves off");
  return w;
}

}  // namespace

std::vector<PlanWarning> NewBucketWarnings(const ClusterState& before, const ChangeList& change) {
  const crush::MapModel& map = before.crush;
  std::map<std::string, std::string> known = BucketTypes(map);  // name -> type
  std::vector<PlanWarning> out;
  for (const ChangeOp& op : change.ops) {
    for (const LocationWord& l : op.location) {
      if (known.contains(l.name.text)) continue;
      const int type = TypeIdOf(map, l.type.text).value_or(0);
      // Ceph creates the missing buckets of a location from the bottom up,
      // each linked into the next word's bucket; the chain stops at the
      // first bucket that exists.
      const LocationWord* anchor = nullptr;
      std::optional<int> anchor_type;
      for (const LocationWord& up : op.location) {
        const std::optional<int> t = TypeIdOf(map, up.type.text);
        if (!t || *t <= type || !known.contains(up.name.text)) continue;
        if (!anchor_type || *t < *anchor_type) {
          anchor = &up;
          anchor_type = t;
        }
      }
      std::vector<std::string> same_type;
      for (const auto& [name, t] : known) {
        if (t == l.type.text) same_type.push_back(name);
      }
      PlanWarning w;
      w.kind = PlanWarning::Kind::kNewBucket;
      w.where = absl::StrCat(change.file_name, ":", l.name.line, ":", l.name.column);
      w.bucket = l.name.text;
      w.suggestion = internal::ClosestName(l.name.text, same_type);
      w.message = absl::StrCat(l.type.text, " '", l.name.text, "' does not exist: Ceph creates it",
                               anchor != nullptr ? absl::StrCat(" under ", anchor->type.text, " '",
                                                                anchor->name.text, "'")
                                                 : ", attached to no root");
      if (!w.suggestion.empty()) {
        absl::StrAppend(&w.message, "; did you mean '", w.suggestion, "'?");
      } else if (!same_type.empty()) {
        const std::size_t shown = std::min<std::size_t>(same_type.size(), 6);
        absl::StrAppend(&w.message, "; existing ", l.type.text, " buckets: ",
                        absl::StrJoin(same_type.begin(), same_type.begin() + shown, ", "),
                        same_type.size() > shown ? ", ..." : "");
      }
      out.push_back(std::move(w));
    }
    for (const LocationWord& l : op.location) known.emplace(l.name.text, l.type.text);
    if (op.kind == ChangeOpKind::kCrushAddBucket) known.emplace(op.name.text, op.type.text);
    if (op.kind == ChangeOpKind::kAddHost) known.emplace(op.name.text, "host");
  }
  return out;
}

std::vector<PlanWarning> DetachedWarnings(const ClusterState& before, const ClusterState& after) {
  const RuleReach reach_before = ReachOf(before);
  const RuleReach reach_after = ReachOf(after);
  if (!reach_after.any_rule) return {};
  const internal::Ancestry anc(after.crush);
  const internal::Ancestry anc_before(before.crush);
  const crush::MapModel& map = after.crush;
  auto top_of = [&](ItemId id) {
    for (int guard = 0; guard < 1000; ++guard) {  // a cycle cannot hang the report
      auto p = anc.parents().find(id);
      if (p == anc.parents().end()) break;
      id = p->second;
    }
    return id;
  };
  // The highest ancestor of `id` (itself included) that a rule reached
  // before, if any.
  auto highest_left = [&](ItemId id) -> std::optional<ItemId> {
    std::optional<ItemId> found;
    for (int guard = 0; guard < 1000; ++guard) {
      if (id < 0 && reach_before.buckets.contains(ItemName(map, id))) found = id;
      auto p = anc.parents().find(id);
      if (p == anc.parents().end()) break;
      id = p->second;
    }
    return found;
  };
  std::map<ItemId, DetachedGroup> groups;
  auto add_left = [](DetachedGroup& g, ItemId id) {
    if (std::find(g.left.begin(), g.left.end(), id) == g.left.end()) g.left.push_back(id);
  };
  for (const auto& [item, parent] : anc.parents()) {
    if (item < 0 || reach_after.osds.contains(item)) continue;
    const bool was_inside = reach_before.osds.contains(item);
    const bool is_new = !anc_before.parents().contains(item);
    if (!was_inside && !is_new) continue;
    DetachedGroup& g = groups[top_of(item)];
    g.top = top_of(item);
    g.osds.push_back(item);
    add_left(g, highest_left(item).value_or(parent));
  }
  // Buckets a rule reached before and none reaches now, even empty ones.
  const std::set<ItemId> shadow = ShadowIds(map);
  for (const crush::Bucket& b : map.buckets) {
    if (b.alg == crush::BucketAlg::kNone || shadow.contains(b.id)) continue;
    const std::string name = ItemName(map, b.id);
    if (!reach_before.buckets.contains(name) || reach_after.buckets.contains(name)) continue;
    DetachedGroup& g = groups[top_of(b.id)];
    g.top = top_of(b.id);
    add_left(g, highest_left(b.id).value_or(b.id));
  }
  std::vector<PlanWarning> out;
  for (const auto& [top, g] : groups) {
    // A bucket listed under another listed bucket is said by its ancestor.
    DetachedGroup pruned = g;
    pruned.left.clear();
    for (ItemId id : g.left) {
      bool covered = false;
      for (ItemId other : g.left) {
        if (other == id) continue;
        for (ItemId cur = id; !covered;) {
          auto p = anc.parents().find(cur);
          if (p == anc.parents().end()) break;
          cur = p->second;
          covered = cur == other;
        }
      }
      if (!covered) pruned.left.push_back(id);
    }
    out.push_back(MakeDetachedWarning(after, reach_after, pruned));
  }
  std::stable_sort(out.begin(), out.end(), [](const PlanWarning& a, const PlanWarning& b) {
    return a.crush_weight > b.crush_weight;
  });
  return out;
}

std::string FormatPlanWarning(const PlanWarning& w) {
  return w.where.empty() ? w.message : absl::StrCat(w.where, ": ", w.message);
}

}  // namespace crushkit::osdmap
