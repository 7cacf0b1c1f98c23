// Rules, as CrushCompiler::parse_rule lowers them: the name and id, the
// type, min_size/max_size, then each step.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "compiler/sema_passes.h"

namespace crushkit::compiler::sema {
namespace {

using crush::ItemId;
using crush::RuleOp;

// Ceph grows the rule array to any id; we stop at 16 bits to bound memory.
constexpr std::int64_t kMaxRuleId = 65535;

// How a rule is named in messages: " in rule 'x'" or " in unnamed rule".
struct RuleLabel {
  std::string name;  // "" for an unnamed rule
  std::string in_rule;
};

// The rule pass: the state CrushCompiler keeps from one rule to the next.
class RuleLowering {
 public:
  RuleLowering(SemaContext& ctx, bool populated) : ctx_(ctx), populated_(populated) {}

  void Lower(const ast::Rule& r);

 private:
  bool CheckName(const ast::Rule& r);
  bool CheckId(const ast::Rule& r, bool ok, int& ruleno);
  bool ResolveType(const ast::Rule& r, crush::Rule& rule);
  bool ReadSizes(const ast::Rule& r, crush::Rule& rule);

  // Each fills `step` and returns true (LowerTake leaves it empty when the
  // shadow trees were not built), or reports and returns false.
  bool LowerTake(const ast::Step& s, const RuleLabel& label, crush::RuleStep& step);
  std::optional<int> ResolveTakeClass(const ast::Step& s, const RuleLabel& label);
  std::optional<ItemId> ShadowOfTake(const ast::Step& s, const RuleLabel& label, ItemId id,
                                     int device_class);
  bool LowerSetParam(const ast::Step& s, crush::RuleStep& step);
  bool LowerChoose(const ast::Step& s, const RuleLabel& label, crush::RuleStep& step);

  void Store(const ast::Rule& r, const RuleLabel& label, int ruleno, crush::Rule rule);

  // "<what> is not supported by Ceph <release> (MSR needs Squid or later)".
  std::string NotInRelease(std::string_view what) const {
    return std::string(what) + " is not supported by Ceph " +
           std::string(crush::CephReleaseName(ctx_.release)) + " (MSR needs Squid or later)";
  }

  SemaContext& ctx_;
  // Shadow trees were built (no error before the first rule): only then can
  // "step take X class C" be resolved.
  const bool populated_;
  bool warned_sizes_ignored_ = false;
  std::map<std::string_view, SourceRange> rule_name_decl_;
  std::map<int, SourceRange> rule_id_decl_;
};

// CrushCompiler::parse_rule. Every line is checked; a rule with errors is
// not added.
void RuleLowering::Lower(const ast::Rule& r) {
  bool ok = CheckName(r);
  int ruleno = 0;
  ok = CheckId(r, ok, ruleno);
  crush::Rule rule;
  rule.ruleset = static_cast<std::uint8_t>(ruleno);
  ok = ResolveType(r, rule) && ok;
  ok = ReadSizes(r, rule) && ok;
  RuleLabel label;
  if (r.name) label.name = std::string(r.name->text);
  label.in_rule = r.name ? " in rule " + Quote(label.name) : std::string(" in unnamed rule");
  for (const ast::Step& s : r.steps) {
    crush::RuleStep step;
    switch (s.kind) {
      case ast::StepKind::kTake:
        ok = LowerTake(s, label, step) && ok;
        break;
      case ast::StepKind::kSetParam:
        ok = LowerSetParam(s, step) && ok;
        break;
      case ast::StepKind::kChoose:
        ok = LowerChoose(s, label, step) && ok;
        break;
      case ast::StepKind::kEmit:
        step = {RuleOp::kEmit, 0, 0};
        break;
    }
    rule.steps.push_back(step);
  }
  if (!ok) return;
  Store(r, label, ruleno, std::move(rule));
}

bool RuleLowering::CheckName(const ast::Rule& r) {
  if (!r.name) return true;
  const std::string rname(r.name->text);
  if (auto it = rule_name_decl_.find(rname); it != rule_name_decl_.end()) {
    ctx_.sink.ReportCephError("rule name '" + rname + "' already defined\n\n");
    ctx_.Error(r.name->range, "rule name " + Quote(rname) + " is already defined",
               {SemaContext::Note(it->second, "previous definition is here")});
    return false;
  }
  rule_name_decl_[r.name->text] = r.name->range;
  return true;
}

// The id must be new; `ok` (the name was new) gates the reuse check, as a
// rule reported for its name is not reported again for its id.
bool RuleLowering::CheckId(const ast::Rule& r, bool ok, int& ruleno) {
  if (r.id.value > kMaxRuleId) {
    ctx_.Error(r.id.range, "rule id " + std::to_string(r.id.value) + " is out of range (0..65535)");
    ok = false;
  }
  ruleno = static_cast<int>(std::min<std::int64_t>(r.id.value, kMaxRuleId));
  if (auto it = rule_id_decl_.find(ruleno); it != rule_id_decl_.end() && ok) {
    ctx_.sink.ReportCephError("rule " + std::to_string(ruleno) + " already exists\n");
    ctx_.Error(r.id.range, "rule id " + std::to_string(ruleno) + " is already used",
               {SemaContext::Note(it->second, "previous definition is here")});
    ok = false;
  }
  rule_id_decl_.emplace(ruleno, r.id.range);
  return ok;
}

bool RuleLowering::ResolveType(const ast::Rule& r, crush::Rule& rule) {
  const std::string_view type = r.type.text;
  if (type == "replicated") {
    rule.type = crush::RuleType::kReplicated;
  } else if (type == "erasure") {
    rule.type = crush::RuleType::kErasure;
  } else if (ctx_.msr && (type == "msr_firstn" || type == "msr_indep")) {
    rule.type = type == "msr_firstn" ? crush::RuleType::kMsrFirstn : crush::RuleType::kMsrIndep;
  } else {
    ctx_.Error(r.type.range, NotInRelease("rule type " + Quote(type)));
    return false;
  }
  return true;
}

// Quincy made min_size/max_size optional, ignores them and encodes 1/100.
bool RuleLowering::ReadSizes(const ast::Rule& r, crush::Rule& rule) {
  bool ok = true;
  rule.min_size = 1;
  rule.max_size = 100;
  for (auto [size, field, keyword] : {std::tuple{&r.min_size, &rule.min_size, "min_size"},
                                      std::tuple{&r.max_size, &rule.max_size, "max_size"}}) {
    if (!*size) continue;
    if (!ctx_.CheckInt32(**size, keyword)) {
      ok = false;
    } else if (crush::HasRulesets(ctx_.release)) {
      *field = static_cast<std::uint8_t>((*size)->value);
    } else {
      if (!warned_sizes_ignored_) {
        // Once per map: a Pacific map has the lines in every rule.
        warned_sizes_ignored_ = true;
        ctx_.Warning((*size)->range,
                     "min_size/max_size are ignored by Ceph " +
                         std::string(crush::CephReleaseName(ctx_.release)) +
                         " (rules have no size range since Quincy), here and in every rule");
      }
      ctx_.sink.ReportCephMessage("WARNING: " + std::string(keyword) +
                                  " is no longer supported, ignoring");
    }
  }
  return ok;
}

// "step take X [class C]": X's id, or the id of its shadow bucket for C.
bool RuleLowering::LowerTake(const ast::Step& s, const RuleLabel& label, crush::RuleStep& step) {
  auto it = ctx_.names.find(s.item.text);
  if (it == ctx_.names.end()) {
    ctx_.sink.ReportCephError("in rule '" + label.name + "' item '" + std::string(s.item.text) +
                              "' not defined\n");
    ctx_.UnknownName(s.item.range, "unknown item " + Quote(s.item.text) + label.in_rule,
                     s.item.text, ctx_.names, &ctx_.names);
    return false;
  }
  ItemId id = it->second.id;
  if (s.device_class) {
    const std::optional<int> device_class = ResolveTakeClass(s, label);
    if (!device_class) return false;
    // Without shadow trees the map already has errors: leave the step empty.
    if (!populated_) return true;
    const std::optional<ItemId> shadow = ShadowOfTake(s, label, id, *device_class);
    if (!shadow) return false;
    id = *shadow;
  }
  step = {RuleOp::kTake, id, 0};
  return true;
}

std::optional<int> RuleLowering::ResolveTakeClass(const ast::Step& s, const RuleLabel& label) {
  const std::string_view cname = s.device_class->text;
  auto c = ctx_.class_id.find(cname);
  if (c != ctx_.class_id.end()) return c->second;
  ctx_.UnknownName(s.device_class->range, "unknown device class " + Quote(cname) + label.in_rule,
                   cname, ctx_.class_id, SemaContext::kNoDecls);
  return std::nullopt;
}

std::optional<ItemId> RuleLowering::ShadowOfTake(const ast::Step& s, const RuleLabel& label,
                                                 ItemId id, int device_class) {
  const std::string_view cname = s.device_class->text;
  auto cb = ctx_.model.class_buckets.find(id);
  if (cb == ctx_.model.class_buckets.end()) {
    ctx_.sink.ReportCephError("in rule '" + label.name + "' step take " + std::string(s.item.text) +
                              " has no class information\n");
    ctx_.Error(s.item.range, "step take " + Quote(s.item.text) + " has no class information" +
                                 label.in_rule + " (no device class shadow tree was built for it)");
    return std::nullopt;
  }
  auto shadow = cb->second.find(device_class);
  if (shadow == cb->second.end()) {
    ctx_.sink.ReportCephError("in rule '" + label.name + "' step take " + std::string(s.item.text) +
                              " no matching bucket for class " + std::string(cname) + "\n");
    ctx_.Error(s.device_class->range, "step take " + Quote(s.item.text) +
                                          " has no matching bucket for class " + Quote(cname) +
                                          label.in_rule);
    return std::nullopt;
  }
  return shadow->second;
}

// "step set_* N".
bool RuleLowering::LowerSetParam(const ast::Step& s, crush::RuleStep& step) {
  const std::string_view op = s.op.text;
  if (!ctx_.msr && (op == "set_msr_descents" || op == "set_msr_collision_tries")) {
    ctx_.Error(s.op.range, NotInRelease("step " + Quote(op)));
    return false;
  }
  if (!ctx_.CheckInt32(s.count, "step argument")) return false;
  RuleOp code = RuleOp::kSetChooseTries;
  if (op == "set_choose_local_tries")
    code = RuleOp::kSetChooseLocalTries;
  else if (op == "set_choose_local_fallback_tries")
    code = RuleOp::kSetChooseLocalFallbackTries;
  else if (op == "set_chooseleaf_tries")
    code = RuleOp::kSetChooseleafTries;
  else if (op == "set_chooseleaf_vary_r")
    code = RuleOp::kSetChooseleafVaryR;
  else if (op == "set_chooseleaf_stable")
    code = RuleOp::kSetChooseleafStable;
  else if (op == "set_msr_descents")
    code = RuleOp::kSetMsrDescents;
  else if (op == "set_msr_collision_tries")
    code = RuleOp::kSetMsrCollisionTries;
  step = {code, static_cast<std::int32_t>(s.count.value), 0};
  return true;
}

// "step choose|chooseleaf|choosemsr firstn|indep N type T".
bool RuleLowering::LowerChoose(const ast::Step& s, const RuleLabel& label, crush::RuleStep& step) {
  if (s.op.text == "choosemsr" && !ctx_.msr) {
    ctx_.Error(s.op.range, NotInRelease("step 'choosemsr'"));
    return false;
  }
  auto t = ctx_.type_id.find(s.type.text);
  if (t == ctx_.type_id.end()) {
    ctx_.sink.ReportCephError("in rule '" + label.name + "' type '" + std::string(s.type.text) +
                              "' not defined\n");
    ctx_.UnknownName(s.type.range, "unknown type " + Quote(s.type.text) + label.in_rule,
                     s.type.text, ctx_.type_id, &ctx_.type_decl);
    return false;
  }
  if (!ctx_.CheckInt32(s.count, "replica count")) return false;
  const bool leaf = s.op.text == "chooseleaf";
  const bool firstn = s.mode.text == "firstn";
  RuleOp code = leaf ? (firstn ? RuleOp::kChooseleafFirstn : RuleOp::kChooseleafIndep)
                     : (firstn ? RuleOp::kChooseFirstn : RuleOp::kChooseIndep);
  if (s.op.text == "choosemsr") code = RuleOp::kChooseMsr;
  step = {code, static_cast<std::int32_t>(s.count.value), t->second};
  return true;
}

void RuleLowering::Store(const ast::Rule& r, const RuleLabel& label, int ruleno, crush::Rule rule) {
  crush::MapModel& m = ctx_.model;
  const auto slot = static_cast<std::size_t>(ruleno);
  if (slot >= m.rules.size()) {
    m.rules.resize(slot + 1);
    m.rule_exists.resize(slot + 1, false);
  }
  m.rules[slot] = std::move(rule);
  m.rule_exists[slot] = true;
  if (r.name) m.rule_names[ruleno] = label.name;
}

}  // namespace

void LowerRules(SemaContext& ctx, const std::vector<const ast::Rule*>& rules,
                const FileShadowIds& shadow_ids) {
  if (rules.empty()) return;
  // After an error the map is incomplete; cloning it would only produce
  // cascading diagnostics, so shadow trees (and the checks that need them)
  // are skipped.
  const bool populated = ctx.errors == 0;
  if (populated) PopulateClasses(ctx, shadow_ids, rules.front()->keyword.range);
  RuleLowering pass(ctx, populated);
  for (const ast::Rule* r : rules) pass.Lower(*r);
}

}  // namespace crushkit::compiler::sema
