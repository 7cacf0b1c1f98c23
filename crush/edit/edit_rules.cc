// CrushWrapper's rule edits (src/crush/CrushWrapper.cc, Ceph 16.2):
// get_rule_id, add_simple_rule_at, remove_rule, and OSDMap's
// build_simple_crush_rules.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "crush/edit/edit.h"
#include "crush/edit/internal/editor.h"
#include "crush/status_macros.h"

namespace crushkit::crush {
namespace {

using internal::ErrnoStatus;

bool RuleExists(const MapModel& map, int id) {
  return id >= 0 && id < map.max_rules() && map.rule_exists[static_cast<std::size_t>(id)];
}

// ruleset_exists(): some rule carries this ruleset byte.
bool RulesetExists(const MapModel& map, int ruleset) {
  for (int r = 0; r < map.max_rules(); ++r) {
    if (RuleExists(map, r) && map.rules[static_cast<std::size_t>(r)].ruleset == ruleset) {
      return true;
    }
  }
  return false;
}

// get_class_id() through Ceph's reverse class map: the highest id wins.
int ClassIdOf(const MapModel& map, std::string_view name) {
  int id = -1;
  for (const auto& [i, n] : map.class_names) {
    if (n == name) id = i;
  }
  return id;
}

}  // namespace

absl::StatusOr<int> FindRuleByName(const MapModel& map, std::string_view name) {
  std::optional<int> id;
  for (const auto& [i, n] : map.rule_names) {
    if (n == name) id = i;  // ascending ids: the highest wins, as Ceph's rmap
  }
  if (!id) return absl::NotFoundError("rule " + std::string(name) + " does not exist");
  return *id;
}

absl::StatusOr<int> AddSimpleRule(MapModel& map, const SimpleRuleSpec& spec) {
  internal::Editor editor(map);
  if (FindRuleByName(map, spec.name).ok()) {
    return ErrnoStatus(17, "rule " + spec.name + " exists");
  }
  int rno = spec.id;
  if (rno >= 0) {
    if (RuleExists(map, rno))
      return ErrnoStatus(17, "rule with ruleno " + std::to_string(rno) + " exists");
    if (RulesetExists(map, rno))
      return ErrnoStatus(17, "ruleset " + std::to_string(rno) + " exists");
  } else {
    for (rno = 0; rno < map.max_rules(); ++rno) {
      if (!RuleExists(map, rno) && !RulesetExists(map, rno)) break;
    }
  }
  if (!editor.NameExists(spec.root)) {
    return ErrnoStatus(2, "root item " + spec.root + " does not exist");
  }
  ItemId root = editor.ItemIdOf(spec.root);
  int type = 0;
  if (!spec.failure_domain.empty()) {
    type = editor.TypeIdOf(spec.failure_domain);
    if (type < 0) return ErrnoStatus(22, "unknown type " + spec.failure_domain);
  }
  if (!spec.device_class.empty()) {
    const int class_id = ClassIdOf(map, spec.device_class);
    if (class_id < 0) {
      return ErrnoStatus(22, "device class " + spec.device_class + " does not exist");
    }
    auto shadows = map.class_buckets.find(root);
    if (shadows == map.class_buckets.end() || shadows->second.count(class_id) == 0) {
      return ErrnoStatus(22,
                         "root " + spec.root + " has no devices with class " + spec.device_class);
    }
    root = shadows->second.at(class_id);
  }
  const bool firstn = spec.mode == "firstn";
  if (!firstn && spec.mode != "indep") return ErrnoStatus(22, "unknown mode " + spec.mode);
  // crush_add_rule: growing past CRUSH_MAX_RULES is -ENOSPC.
  if (rno >= map.max_rules() && map.max_rules() + 1 > kMaxRules) {
    return ErrnoStatus(
        28, "failed to add rule " + std::to_string(rno) + " because (28) No space left on device");
  }

  Rule rule;
  rule.ruleset = static_cast<std::uint8_t>(rno);
  rule.type = spec.type;
  rule.min_size = firstn ? 1 : 3;
  rule.max_size = firstn ? 10 : 20;
  if (!firstn) {
    rule.steps.push_back({RuleOp::kSetChooseleafTries, 5, 0});
    rule.steps.push_back({RuleOp::kSetChooseTries, 100, 0});
  }
  rule.steps.push_back({RuleOp::kTake, root, 0});
  if (type != 0) {
    rule.steps.push_back({firstn ? RuleOp::kChooseleafFirstn : RuleOp::kChooseleafIndep, 0, type});
  } else {
    rule.steps.push_back({firstn ? RuleOp::kChooseFirstn : RuleOp::kChooseIndep, 0, 0});
  }
  rule.steps.push_back({RuleOp::kEmit, 0, 0});
  if (rno >= map.max_rules()) {
    map.rules.resize(static_cast<std::size_t>(rno) + 1);
    map.rule_exists.resize(static_cast<std::size_t>(rno) + 1, false);
  }
  map.rules[static_cast<std::size_t>(rno)] = std::move(rule);
  map.rule_exists[static_cast<std::size_t>(rno)] = true;
  map.rule_names[rno] = spec.name;
  return rno;
}

absl::Status RemoveRule(MapModel& map, int id) {
  if (!RuleExists(map, id)) {
    return ErrnoStatus(2, "rule " + std::to_string(id) + " does not exist");
  }
  map.rules[static_cast<std::size_t>(id)] = Rule{};
  map.rule_exists[static_cast<std::size_t>(id)] = false;
  map.rule_names.erase(id);
  return RebuildRootsWithClasses(map);
}

absl::Status BuildSimpleCrushRules(MapModel& map, std::string_view root) {
  // osd_pool_default_crush_rule is -1 and the map has no replicated rule
  // yet in Ceph's callers, so the id is the first free one;
  // osd_crush_chooseleaf_type is 1.
  auto type1 = map.type_names.find(1);
  if (type1 == map.type_names.end()) {
    return absl::InternalError("the map has no type 1 (Ceph builds a string from a null name)");
  }
  SimpleRuleSpec spec;
  spec.name = "replicated_rule";
  spec.root = std::string(root);
  spec.failure_domain = type1->second;
  spec.mode = "firstn";
  return AddSimpleRule(map, spec).status();
}

}  // namespace crushkit::crush
