#include "tools/crushtool/crush_dump.h"

#include <cstdio>
#include <string>

#include "crush/builder.h"
#include "crush/edit/display.h"

namespace crushkit::tools::crushtool {
namespace {

using crush::BucketAlg;
using crush::ItemId;
using crush::MapModel;
using crush::RuleOp;

const std::string* Find(const std::map<std::int32_t, std::string>& m, std::int32_t id) {
  auto it = m.find(id);
  return it == m.end() ? nullptr : &it->second;
}

// The choose_args Ceph keeps after decoding: update_choose_args() drops the
// arguments of buckets that are missing or not straw2.
const crush::ChooseArg* LiveArg(const MapModel& map, const crush::ChooseArgMap& args,
                                ItemId bucket) {
  auto it = args.find(bucket);
  if (it == args.end()) return nullptr;
  const crush::Bucket* b = map.FindBucket(bucket);
  if (b == nullptr || b->alg != BucketAlg::kStraw2) return nullptr;
  return &it->second;
}

// One step of rule `r`, inside its "step" object (CrushWrapper::dump_rule()'s switch).
void DumpStep(const MapModel& map, crush::CephRelease release, int r, const crush::RuleStep& step,
              CephFormatter& f, std::vector<std::string>* warnings) {
  auto choose = [&](const char* op) {
    f.DumpString("op", op);
    f.DumpInt("num", step.arg1);
    const std::string* t = Find(map.type_names, step.arg2);
    if (t == nullptr) {
      warnings->push_back(
          "rule " + std::to_string(r) + " chooses type " + std::to_string(step.arg2) +
          ", which has no name: Ceph's output is undefined here, crushkit prints \"\"");
    }
    f.DumpString("type", t != nullptr ? *t : "");
  };
  switch (step.op) {
    case RuleOp::kNoop:
      f.DumpString("op", "noop");
      break;
    case RuleOp::kTake: {
      f.DumpString("op", "take");
      f.DumpInt("item", step.arg1);
      const std::string* n = Find(map.item_names, step.arg1);
      f.DumpString("item_name", n != nullptr ? *n : "");
      break;
    }
    case RuleOp::kEmit:
      f.DumpString("op", "emit");
      break;
    case RuleOp::kChooseFirstn:
      choose("choose_firstn");
      break;
    case RuleOp::kChooseIndep:
      choose("choose_indep");
      break;
    case RuleOp::kChooseleafFirstn:
      choose("chooseleaf_firstn");
      break;
    case RuleOp::kChooseleafIndep:
      choose("chooseleaf_indep");
      break;
    case RuleOp::kSetChooseTries:
      f.DumpString("op", "set_choose_tries");
      f.DumpInt("num", step.arg1);
      break;
    case RuleOp::kSetChooseleafTries:
      f.DumpString("op", "set_chooseleaf_tries");
      f.DumpInt("num", step.arg1);
      break;
    // Releases before Squid print the MSR steps as unknown opcodes.
    case RuleOp::kChooseMsr:
      if (crush::HasMsr(release)) {
        choose("choosemsr");
        break;
      }
      [[fallthrough]];
    case RuleOp::kSetMsrDescents:
      if (crush::HasMsr(release) && step.op == RuleOp::kSetMsrDescents) {
        f.DumpString("op", "set_msr_descents");
        f.DumpInt("num", step.arg1);
        break;
      }
      [[fallthrough]];
    case RuleOp::kSetMsrCollisionTries:
      if (crush::HasMsr(release) && step.op == RuleOp::kSetMsrCollisionTries) {
        f.DumpString("op", "set_msr_collision_tries");
        f.DumpInt("num", step.arg1);
        break;
      }
      [[fallthrough]];
    default:
      f.DumpInt("opcode", static_cast<std::int64_t>(step.op));
      f.DumpInt("arg1", step.arg1);
      f.DumpInt("arg2", step.arg2);
  }
}

void DumpRules(const MapModel& map, crush::CephRelease release, CephFormatter& f,
               std::vector<std::string>* warnings) {
  for (int r = 0; r < map.max_rules(); ++r) {
    if (!map.rule_exists[static_cast<std::size_t>(r)]) continue;
    const crush::Rule& rule = map.rules[static_cast<std::size_t>(r)];
    f.OpenObject("rule");
    f.DumpInt("rule_id", r);
    if (const std::string* n = Find(map.rule_names, r)) f.DumpString("rule_name", *n);
    if (crush::HasRulesets(release)) {
      f.DumpInt("ruleset", rule.ruleset);
      f.DumpInt("type", static_cast<int>(rule.type));
      f.DumpInt("min_size", rule.min_size);
      f.DumpInt("max_size", rule.max_size);
    } else {
      f.DumpInt("type", static_cast<int>(rule.type));
    }
    f.OpenArray("steps");
    for (const crush::RuleStep& step : rule.steps) {
      f.OpenObject("step");
      DumpStep(map, release, r, step, f, warnings);
      f.Close();
    }
    f.Close();
    f.Close();
  }
}

void DumpTunables(const MapModel& map, crush::CephRelease release, CephFormatter& f) {
  const crush::Tunables& t = map.tunables;
  const bool msr = crush::HasMsr(release);
  // get_*() return int: the 32-bit tunables print signed.
  f.DumpInt("choose_local_tries", static_cast<std::int32_t>(t.choose_local_tries));
  f.DumpInt("choose_local_fallback_tries",
            static_cast<std::int32_t>(t.choose_local_fallback_tries));
  f.DumpInt("choose_total_tries", static_cast<std::int32_t>(t.choose_total_tries));
  f.DumpInt("chooseleaf_descend_once", static_cast<std::int32_t>(t.chooseleaf_descend_once));
  f.DumpInt("chooseleaf_vary_r", t.chooseleaf_vary_r);
  f.DumpInt("chooseleaf_stable", t.chooseleaf_stable);
  if (msr) {
    f.DumpInt("msr_descents", static_cast<std::int32_t>(t.msr_descents));
    f.DumpInt("msr_collision_tries", static_cast<std::int32_t>(t.msr_collision_tries));
  }
  f.DumpInt("straw_calc_version", t.straw_calc_version);
  f.DumpInt("allowed_bucket_algs", t.allowed_bucket_algs);  // unsigned getter
  f.DumpString("profile", crush::TunablesProfileName(t, msr));
  f.DumpInt("optimal_tunables", crush::HasOptimalTunables(t, msr) ? 1 : 0);
  f.DumpInt("legacy_tunables", crush::HasLegacyTunables(t, msr) ? 1 : 0);
  f.DumpString("minimum_required_version", crush::MinRequiredVersion(map, msr));
  f.DumpInt("require_feature_tunables",
            (t.choose_local_tries != 2 || t.choose_local_fallback_tries != 5 ||
             t.choose_total_tries != 19)
                ? 1
                : 0);
  f.DumpInt("require_feature_tunables2", t.chooseleaf_descend_once != 0 ? 1 : 0);
  f.DumpInt("has_v2_rules", crush::HasV2Rules(map) ? 1 : 0);
  f.DumpInt("require_feature_tunables3", t.chooseleaf_vary_r != 0 ? 1 : 0);
  f.DumpInt("has_v3_rules", crush::HasV3Rules(map) ? 1 : 0);
  f.DumpInt("has_v4_buckets", crush::HasV4Buckets(map) ? 1 : 0);
  f.DumpInt("require_feature_tunables5", t.chooseleaf_stable != 0 ? 1 : 0);
  f.DumpInt("has_v5_rules", crush::HasV5Rules(map) ? 1 : 0);
  if (msr) f.DumpInt("has_msr_rules", crush::HasMsrRules(map) ? 1 : 0);
}

void DumpChooseArgs(const MapModel& map, CephFormatter& f) {
  f.OpenObject("choose_args");
  for (const auto& [index, args] : map.choose_args) {
    f.OpenArray(std::to_string(index));
    for (int i = 0; i < map.max_buckets(); ++i) {
      const ItemId bucket = -1 - i;
      const crush::ChooseArg* arg = LiveArg(map, args, bucket);
      if (arg == nullptr || (arg->weight_set.empty() && arg->ids.empty())) continue;
      f.OpenObject("choose_args");
      f.DumpInt("bucket_id", bucket);
      if (!arg->weight_set.empty()) {
        f.OpenArray("weight_set");
        for (const auto& weights : arg->weight_set) {
          f.OpenArray("weights");
          for (crush::Weight w : weights) {
            f.DumpFloat("weight", static_cast<float>(w) / static_cast<float>(0x10000));
          }
          f.Close();
        }
        f.Close();
      }
      if (!arg->ids.empty()) {
        f.OpenArray("ids");
        for (ItemId id : arg->ids) f.DumpInt("id", id);
        f.Close();
      }
      f.Close();
    }
    f.Close();
  }
  f.Close();
}

}  // namespace

void DumpCrushMap(const MapModel& map, crush::CephRelease release, CephFormatter& f,
                  std::vector<std::string>* warnings) {
  f.OpenArray("devices");
  for (int i = 0; i < map.max_devices; ++i) {
    f.OpenObject("device");
    f.DumpInt("id", i);
    const std::string* n = Find(map.item_names, i);
    f.DumpString("name", n != nullptr ? *n : "device" + std::to_string(i));
    if (const std::string* c = crush::ItemClassName(map, i)) f.DumpString("class", *c);
    f.Close();
  }
  f.Close();

  // Ceph counts type ids up from 0 until it has printed every named type; a
  // negative type id is never reached (Ceph would loop forever), so it is
  // left out.
  f.OpenArray("types");
  if (map.type_names.find(0) == map.type_names.end() && !map.type_names.empty()) {
    f.OpenObject("type");
    f.DumpInt("type_id", 0);
    f.DumpString("name", "device");
    f.Close();
  }
  for (const auto& [id, name] : map.type_names) {
    if (id < 0) {
      warnings->push_back(
          "type " + std::to_string(id) +
          " has a negative id: Ceph's --dump never ends on this map, crushkit leaves it out");
      continue;
    }
    f.OpenObject("type");
    f.DumpInt("type_id", id);
    f.DumpString("name", name);
    f.Close();
  }
  f.Close();

  f.OpenArray("buckets");
  for (const crush::Bucket& b : map.buckets) {
    if (b.alg == BucketAlg::kNone) continue;
    f.OpenObject("bucket");
    f.DumpInt("id", b.id);
    if (const std::string* n = Find(map.item_names, b.id)) f.DumpString("name", *n);
    f.DumpInt("type_id", b.type);
    if (const std::string* t = Find(map.type_names, b.type)) f.DumpString("type_name", *t);
    f.DumpInt("weight", static_cast<std::int32_t>(b.weight));
    f.DumpString("alg", crush::BucketAlgName(b.alg));
    f.DumpString("hash", b.hash == crush::kHashRjenkins1 ? "rjenkins1" : "unknown");
    f.OpenArray("items");
    for (std::size_t j = 0; j < b.items.size(); ++j) {
      f.OpenObject("item");
      f.DumpInt("id", b.items[j]);
      f.DumpInt("weight", static_cast<std::int32_t>(crush::BucketItemWeight(b, j)));
      f.DumpInt("pos", static_cast<std::int64_t>(j));
      f.Close();
    }
    f.Close();
    f.Close();
  }
  f.Close();

  f.OpenArray("rules");
  DumpRules(map, release, f, warnings);
  f.Close();

  f.OpenObject("tunables");
  DumpTunables(map, release, f);
  f.Close();

  DumpChooseArgs(map, f);
}

std::string WeightfText(float w) {
  if (w < -0.01F) return "-";
  if (w < 0.000001F) return "0";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.5f", static_cast<double>(w));
  return buf;
}

absl::StatusOr<std::string> FormatCrushTree(const MapModel& map) {
  auto items = crush::WalkTree(map, /*show_shadow=*/true);
  if (!items.ok()) return items.status();

  // TextTable: headings left-aligned, cells right-aligned except TYPE NAME.
  std::vector<std::string> headings = {"ID", "CLASS", "WEIGHT"};
  for (const auto& [index, args] : map.choose_args) {
    headings.push_back(index == crush::kCompatChooseArgs ? "(compat)" : std::to_string(index));
  }
  headings.push_back("TYPE NAME");
  std::vector<std::vector<std::string>> rows;
  for (const crush::TreeItem& qi : *items) {
    std::vector<std::string> row;
    row.push_back(std::to_string(qi.id));
    const std::string* c = crush::ItemClassName(map, qi.id);
    row.push_back(c != nullptr ? *c : "");
    row.push_back(WeightfText(qi.weight));
    for (const auto& [index, args] : map.choose_args) {
      std::string cell;
      if (qi.parent < 0) {
        const crush::ChooseArg* arg = LiveArg(map, args, qi.parent);
        const crush::Bucket* b = map.FindBucket(qi.parent);
        if (arg != nullptr && b != nullptr && !arg->weight_set.empty()) {
          const auto& ws = arg->weight_set[0];
          std::size_t pos = 0;
          while (pos < ws.size() && pos < b->items.size() && b->items[pos] != qi.id) ++pos;
          // Past the weight set Ceph reads beyond it; crushkit shows 0.
          const crush::Weight w = pos < ws.size() ? ws[pos] : 0;
          cell = WeightfText(static_cast<float>(w) / static_cast<float>(0x10000));
        }
      }
      row.push_back(cell);
    }
    std::string name(static_cast<std::size_t>(qi.depth) * 4, ' ');
    if (qi.id < 0) {
      const crush::Bucket* b = map.FindBucket(qi.id);
      const std::string* type = b != nullptr ? Find(map.type_names, b->type) : nullptr;
      // A null type name puts Ceph's ostringstream in a failed state: the
      // rest of the cell is lost.
      if (type != nullptr) {
        const std::string* n = Find(map.item_names, qi.id);
        name += *type + " " + (n != nullptr ? *n : "");
      }
    } else {
      name += "osd." + std::to_string(qi.id);
    }
    row.push_back(name);
    rows.push_back(std::move(row));
  }

  std::vector<std::size_t> width(headings.size());
  for (std::size_t j = 0; j < headings.size(); ++j) {
    width[j] = headings[j].size();
    for (const auto& row : rows) width[j] = std::max(width[j], row[j].size());
  }
  auto pad = [](const std::string& s, std::size_t w, bool left) {
    const std::string fill(w - s.size(), ' ');
    return left ? s + fill : fill + s;
  };
  std::string out;
  for (std::size_t j = 0; j < headings.size(); ++j) {
    if (j > 0) out += "  ";
    out += pad(headings[j], width[j], true);
  }
  out += "\n";
  for (const auto& row : rows) {
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (j > 0) out += "  ";
      out += pad(row[j], width[j], j + 1 == row.size());
    }
    out += "\n";
  }
  return out;
}

}  // namespace crushkit::tools::crushtool
