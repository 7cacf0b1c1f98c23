#include "crush/edit/map_check.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "crush/builder.h"
#include "crush/edit/display.h"
#include "crush/edit/edit.h"
#include "crush/map.h"
#include "crush/mapper.h"

namespace crushkit::crush {
namespace {

class Checker {
 public:
  Checker(const MapModel& m, const CheckOptions& o) : m_(m), o_(o) {}

  std::vector<Finding> Run() {
    if (!CheckAcyclic()) return std::move(out_);  // every later walk would loop
    CheckNames();
    CheckLinks();
    CheckClasses();
    CheckTunablesAndAlgs();
    CheckWeights();
    absl::StatusOr<CrushMap> built = CrushMap::Build(m_);
    if (!built.ok()) {
      Add(FindingSeverity::kError, "map-invalid", "map", std::string(built.status().message()),
          "the mapper cannot use this map; fix the structure the message names");
    }
    for (int r = 0; r < m_.max_rules(); ++r) {
      if (m_.rule_exists[static_cast<std::size_t>(r)]) CheckRule(r, built.ok() ? &*built : nullptr);
    }
    std::stable_sort(out_.begin(), out_.end(),
                     [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
    return std::move(out_);
  }

 private:
  void Add(FindingSeverity s, std::string code, std::string subject, std::string message,
           std::string hint) {
    out_.push_back({s, std::move(code), std::move(subject), std::move(message), std::move(hint)});
  }

  std::string Name(ItemId id) const {
    auto it = m_.item_names.find(id);
    return it != m_.item_names.end() ? it->second
                                     : (id >= 0 ? "osd." : "bucket ") + std::to_string(id);
  }

  std::string TypeName(int type) const {
    auto it = m_.type_names.find(type);
    return it != m_.type_names.end() ? it->second : "type " + std::to_string(type);
  }

  std::string RuleName(int r) const {
    auto it = m_.rule_names.find(r);
    return "rule " + (it != m_.rule_names.end() ? it->second : std::to_string(r));
  }

  std::string Subject(ItemId id) const {
    if (id >= 0) return Name(id);
    const Bucket* b = m_.FindBucket(id);
    return (b != nullptr ? TypeName(b->type) + " " : "") + Name(id);
  }

  // Buckets must form a forest: Ceph's tools recurse forever on a cycle.
  bool CheckAcyclic() {
    std::map<ItemId, int> state;  // 1 = on the stack, 2 = done
    for (const Bucket& b : m_.buckets) {
      if (b.alg == BucketAlg::kNone || state[b.id] != 0) continue;
      std::vector<std::pair<ItemId, std::size_t>> stack = {{b.id, 0}};
      state[b.id] = 1;
      while (!stack.empty()) {
        auto& [id, next] = stack.back();
        const Bucket* cur = m_.FindBucket(id);
        if (cur == nullptr || next >= cur->items.size()) {
          state[id] = 2;
          stack.pop_back();
          continue;
        }
        const ItemId child = cur->items[next++];
        if (child >= 0 || m_.FindBucket(child) == nullptr) continue;
        if (state[child] == 1) {
          Add(FindingSeverity::kError, "bucket-cycle", Subject(child),
              Name(child) + " contains itself through " + Name(id),
              "unlink " + Name(child) + " from " + Name(id) + ": `ceph osd crush unlink " +
                  Name(child) + " " + Name(id) + "`");
          return false;
        }
        if (state[child] == 0) {
          state[child] = 1;
          stack.emplace_back(child, 0);
        }
      }
    }
    return true;
  }

  void CheckNames() {
    absl::StatusOr<std::string> names = CheckNameMaps(m_, 0);
    if (names.ok() && !names->empty()) {
      Add(FindingSeverity::kError, "name-missing", "map", *names,
          "name every bucket and type (`crushkit decompile` shows the map as text to edit)");
    }
    for (const Bucket& b : m_.buckets) {
      if (b.alg == BucketAlg::kNone) continue;
      for (ItemId item : b.items) {
        if (item >= 0 && item >= m_.max_devices) {
          Add(FindingSeverity::kError, "device-out-of-range", Subject(b.id),
              "device " + std::to_string(item) + " is beyond max_devices " +
                  std::to_string(m_.max_devices),
              "remove the device or recompile the map so max_devices covers it");
        }
      }
    }
  }

  // Items linked under several buckets, and child buckets whose type is not
  // below their parent's (shadow trees mirror the hierarchy and are skipped).
  void CheckLinks() {
    std::map<ItemId, std::vector<ItemId>> parents;
    for (const Bucket& b : m_.buckets) {
      if (b.alg == BucketAlg::kNone || IsShadowItem(m_, b.id)) continue;
      for (ItemId item : b.items) {
        parents[item].push_back(b.id);
        const Bucket* child = item < 0 ? m_.FindBucket(item) : nullptr;
        if (child != nullptr && child->type >= b.type) {
          Add(FindingSeverity::kWarning, "type-inverted", Subject(item),
              Subject(item) + " sits under " + Subject(b.id) + ", a type that is not above it",
              "move it under a bucket of a higher type: `ceph osd crush move " + Name(item) +
                  " <type>=<name>`");
        }
      }
    }
    for (const auto& [item, ps] : parents) {
      if (ps.size() < 2) continue;
      std::string where;
      for (ItemId p : ps) where += (where.empty() ? "" : ", ") + Name(p);
      Add(FindingSeverity::kWarning, "item-multiply-linked", Subject(item),
          Name(item) + " is linked under " + std::to_string(ps.size()) + " buckets (" + where +
              "): rules may choose it twice and its weight counts twice",
          "keep one link: `ceph osd crush unlink " + Name(item) + " " + Name(ps.back()) + "`");
    }
  }

  std::set<ItemId> LinkedDevices() const {
    std::set<ItemId> devices;
    for (const Bucket& b : m_.buckets) {
      if (b.alg == BucketAlg::kNone || IsShadowItem(m_, b.id)) continue;
      for (ItemId item : b.items) {
        if (item >= 0) devices.insert(item);
      }
    }
    return devices;
  }

  void CheckClasses() {
    if (m_.class_names.empty()) return;
    std::vector<ItemId> unclassed;
    std::set<std::int32_t> used;
    for (ItemId d : LinkedDevices()) {
      auto c = m_.class_map.find(d);
      if (c == m_.class_map.end()) {
        unclassed.push_back(d);
      } else {
        used.insert(c->second);
      }
    }
    if (!unclassed.empty()) {
      std::string list;
      for (std::size_t i = 0; i < unclassed.size() && i < 5; ++i) list += " " + Name(unclassed[i]);
      if (unclassed.size() > 5) list += " ...";
      Add(FindingSeverity::kWarning, "device-without-class", "map",
          std::to_string(unclassed.size()) +
              " device(s) have no class and are never chosen by class rules:" + list,
          "`ceph osd crush set-device-class <class> " + Name(unclassed.front()) + "`");
    }
    for (const auto& [id, name] : m_.class_names) {
      if (used.count(id) == 0) {
        Add(FindingSeverity::kInfo, "class-unused", "class " + name, "no device has class " + name,
            "`ceph osd crush class rm " + name + "` once no rule uses it");
      }
    }
    // Shadow trees must be what a rebuild would make of the hierarchy.
    MapModel rebuilt = m_;
    if (RebuildRootsWithClasses(rebuilt).ok() && rebuilt.buckets != m_.buckets) {
      Add(FindingSeverity::kWarning, "shadow-trees-stale", "map",
          "the device-class shadow trees differ from the hierarchy they mirror: class rules map by "
          "stale weights",
          "rebuild them: `crushkit crushtool -i MAP --rebuild-class-roots -o MAP`");
    }
  }

  void CheckTunablesAndAlgs() {
    if (!HasOptimalTunables(m_.tunables, o_.msr)) {
      Add(FindingSeverity::kWarning, "tunables-legacy", "map",
          "tunables profile is " + TunablesProfileName(m_.tunables, o_.msr) +
              ", not the optimal (jewel) one: more data moves on every change and placement is "
              "less even",
          "`ceph osd crush tunables optimal` (this moves data: size it first with `crushkit "
          "plan`)");
    }
    std::map<BucketAlg, int> legacy;
    for (const Bucket& b : m_.buckets) {
      if (b.alg != BucketAlg::kNone && b.alg != BucketAlg::kStraw2) ++legacy[b.alg];
    }
    for (const auto& [alg, n] : legacy) {
      std::string msg = std::to_string(n) + " bucket(s) use the " + BucketAlgName(alg) +
                        " algorithm: a weight change moves more than the data of the changed item";
      std::string hint =
          alg == BucketAlg::kStraw
              ? "`ceph osd crush set-all-straw-buckets-to-straw2` (moves a little data)"
              : "change `alg` to straw2 in the decompiled map and recompile (moves data)";
      if (alg == BucketAlg::kStraw && m_.tunables.straw_calc_version == 0) {
        msg += "; straw_calc_version 0 also computes their straws wrongly";
      }
      Add(FindingSeverity::kWarning, "bucket-alg-legacy", "map", msg, hint);
    }
  }

  void CheckWeights() {
    int zero_devices = 0;
    for (const Bucket& b : m_.buckets) {
      if (b.alg == BucketAlg::kNone || IsShadowItem(m_, b.id)) continue;
      if (b.items.empty()) {
        if (!FindNonshadowRoots(m_).count(b.id)) {
          Add(FindingSeverity::kInfo, "bucket-empty", Subject(b.id),
              Subject(b.id) + " has no items",
              "remove it if unused: `ceph osd crush rm " + Name(b.id) + "`");
        }
        continue;
      }
      if (b.weight == 0) {
        Add(FindingSeverity::kInfo, "bucket-zero-weight", Subject(b.id),
            Subject(b.id) + " has items but weight 0: rules never choose it", "");
      }
      for (std::size_t i = 0; i < b.items.size(); ++i) {
        if (b.items[i] >= 0 && BucketItemWeight(b, i) == 0) ++zero_devices;
      }
    }
    if (zero_devices > 0) {
      Add(FindingSeverity::kInfo, "devices-zero-weight", "map",
          std::to_string(zero_devices) + " device link(s) have crush weight 0 and receive no data",
          "");
    }
  }

  // The rule's failure domain: the chooseleaf type, else the last choose
  // step's type; -1 when the rule has several choose steps (then only the
  // mapping test judges it).
  struct RuleShape {
    ItemId take = 0;
    bool has_take = false, has_emit = false;
    int choose_steps = 0;
    int domain_type = -1;
    int count = 0;        // the last choose step's n (0 = num_rep, < 0 = num_rep - |n|)
    int fixed_count = 1;  // product of the choose steps' n when all are > 0, else 0
  };

  RuleShape ShapeOf(const Rule& rule) const {
    RuleShape s;
    for (const RuleStep& step : rule.steps) {
      switch (step.op) {
        case RuleOp::kTake:
          if (!s.has_take) s.take = step.arg1;
          s.has_take = true;
          break;
        case RuleOp::kEmit:
          s.has_emit = true;
          break;
        case RuleOp::kChooseFirstn:
        case RuleOp::kChooseIndep:
        case RuleOp::kChooseleafFirstn:
        case RuleOp::kChooseleafIndep:
          ++s.choose_steps;
          s.domain_type = step.arg2;
          s.count = step.arg1;
          s.fixed_count =
              step.arg1 > 0 && s.fixed_count > 0 ? std::min(s.fixed_count * step.arg1, 1 << 16) : 0;
          break;
        default:
          break;
      }
    }
    if (s.choose_steps == 0) s.fixed_count = 0;
    return s;
  }

  // Items of `type` under `root` (devices when type is 0), with their weights
  // as their parents hold them.
  std::map<ItemId, double> DomainsUnder(ItemId root, int type) const {
    std::map<ItemId, double> domains;
    std::vector<ItemId> stack = {root};
    std::set<ItemId> seen;
    while (!stack.empty()) {
      const ItemId id = stack.back();
      stack.pop_back();
      const Bucket* b = m_.FindBucket(id);
      if (b == nullptr || !seen.insert(id).second) continue;
      for (std::size_t i = 0; i < b->items.size(); ++i) {
        const ItemId c = b->items[i];
        const Bucket* cb = c < 0 ? m_.FindBucket(c) : nullptr;
        const int ctype = c >= 0 ? 0 : (cb != nullptr ? cb->type : -1);
        if (ctype == type) {
          domains[c] += static_cast<double>(BucketItemWeight(*b, i)) / kWeightOne;
        } else if (cb != nullptr) {
          stack.push_back(c);
        }
      }
    }
    return domains;
  }

  void CheckRule(int r, const CrushMap* built) {
    const Rule& rule = m_.rules[static_cast<std::size_t>(r)];
    const std::string subject = RuleName(r);
    const RuleShape s = ShapeOf(rule);
    if (!s.has_take || !s.has_emit) {
      Add(FindingSeverity::kError, s.has_take ? "rule-no-emit" : "rule-no-take", subject,
          subject +
              (s.has_take ? " never emits: it maps nothing" : " has no take step: it maps nothing"),
          "recreate it: `ceph osd crush rule create-replicated <name> <root> <failure-domain>`");
      return;
    }
    const bool take_exists =
        s.take >= 0 ? s.take < m_.max_devices : m_.FindBucket(s.take) != nullptr;
    if (!take_exists) {
      Add(FindingSeverity::kError, "rule-take-missing", subject,
          subject + " takes item " + std::to_string(s.take) + ", which does not exist",
          "point its take at an existing root (`crushkit decompile` to edit the rule)");
      return;
    }
    // Replicas to check for: --num-rep, else a product of fixed counts, else
    // 3 for replicated rules. Erasure rules carry no k+m (Ceph writes
    // max_size 20), so they are checked for what their domains allow.
    int replicas = o_.num_rep > 0 ? o_.num_rep : (s.fixed_count > 0 ? s.fixed_count : 0);
    if (replicas == 0 && rule.type == RuleType::kReplicated) replicas = 3;
    if (s.choose_steps == 1 && s.count <= 0 && s.domain_type >= 0) {
      if (s.domain_type != 0 && !m_.type_names.count(s.domain_type)) {
        Add(FindingSeverity::kError, "rule-unknown-type", subject,
            subject + " chooses type " + std::to_string(s.domain_type) +
                ", which the map does not define",
            "choose a defined type such as host");
        return;
      }
      const std::map<ItemId, double> domains = DomainsUnder(s.take, s.domain_type);
      int usable = 0;
      for (const auto& [id, w] : domains) usable += w > 0 ? 1 : 0;
      const std::string domain = TypeName(s.domain_type);
      if (replicas == 0) {  // k+m unknown: say what fits, judge nothing
        Add(FindingSeverity::kInfo, "rule-capacity", subject,
            subject + " can place at most " + std::to_string(usable - s.count) +
                " shards in distinct " + domain + "s under " + Name(s.take) +
                " (k+m of its pools must not exceed that)",
            "check it for your pools' k+m with --num-rep");
        return;
      }
      if (!CheckDomains(subject, s, domains, replicas + (s.count < 0 ? s.count : 0), domain))
        return;
    }
    if (replicas == 0) replicas = std::clamp<int>(rule.max_size, 1, 64);
    if (built != nullptr) TestRule(r, *built, replicas, subject);
  }

  // Enough weighted domains for `needed`, and none too large to fill.
  bool CheckDomains(const std::string& subject, const RuleShape& s,
                    const std::map<ItemId, double>& domains, int needed,
                    const std::string& domain) {
    int usable = 0;
    double total = 0, largest = 0;
    ItemId largest_id = 0;
    for (const auto& [id, w] : domains) {
      if (w > 0) ++usable;
      total += w;
      if (w > largest) largest = w, largest_id = id;
    }
    if (usable < needed) {
      Add(FindingSeverity::kError, "rule-unsatisfiable", subject,
          subject + " needs " + std::to_string(needed) + " distinct " + domain + "s under " +
              Name(s.take) + " but only " + std::to_string(usable) + " have weight",
          "add " + domain + "s under " + Name(s.take) +
              ", lower the pool size, or use a smaller failure domain");
      return false;
    }
    if (needed > 1 && total > 0 && largest / total > 1.0 / needed + 1e-9) {
      const double excess = largest - (total - largest) / (needed - 1);
      char msg[200];
      std::snprintf(msg, sizeof msg,
                    " holds %.1f%% of the weight under %s but at most 1/%d of each PG: "
                    "about %.2f of its weight cannot be used",
                    100 * largest / total, Name(s.take).c_str(), needed, excess);
      Add(FindingSeverity::kWarning, "failure-domain-imbalance", Subject(largest_id),
          Subject(largest_id) + msg + " (" + subject + ")",
          "spread capacity more evenly over the " + domain + "s, or add " + domain + "s");
    }
    return true;
  }

  // Maps test_inputs inputs and counts results short of `replicas` devices.
  void TestRule(int r, const CrushMap& built, int replicas, const std::string& subject) {
    Workspace ws(built, replicas);
    std::vector<ItemId> out(static_cast<std::size_t>(replicas));
    std::vector<Weight> reweights(static_cast<std::size_t>(std::max(built.max_devices(), 0)),
                                  kWeightOne);
    std::uint32_t short_results = 0;
    for (std::uint32_t x = 0; x < o_.test_inputs; ++x) {
      const int n = DoRule(built, r, x, reweights, ws, out);
      int devices = 0;
      for (int k = 0; k < n; ++k) {
        const ItemId item = out[static_cast<std::size_t>(k)];
        if (item >= 0 && item != kItemNone) ++devices;
      }
      if (devices < replicas) ++short_results;
    }
    if (short_results > 0) {
      Add(FindingSeverity::kWarning, "rule-short-mappings", subject,
          subject + ": " + std::to_string(short_results) + " of " + std::to_string(o_.test_inputs) +
              " inputs got fewer than " + std::to_string(replicas) +
              " devices (PGs would be undersized)",
          "check weights under its root, or raise the retries: `ceph osd crush set-tunable "
          "choose_total_tries 100`");
    }
  }

  const MapModel& m_;
  const CheckOptions& o_;
  std::vector<Finding> out_;
};

}  // namespace

std::vector<Finding> CheckMap(const MapModel& map, const CheckOptions& options) {
  return Checker(map, options).Run();
}

const char* SeverityName(FindingSeverity severity) {
  switch (severity) {
    case FindingSeverity::kError:
      return "error";
    case FindingSeverity::kWarning:
      return "warning";
    case FindingSeverity::kInfo:
      return "info";
  }
  return "info";
}

}  // namespace crushkit::crush
