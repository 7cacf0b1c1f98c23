// `crushkit tree MAP [--test [--rule R] [--num-rep N] [--inputs N]]`: the
// hierarchy with classes and weights (crush::WalkTree, as `ceph osd crush
// tree`), and with --test each item's expected and actual share of a rule's
// replicas (crush::MeasureShares), the deviation in binomial standard
// deviations.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "crush/edit/bucket_shares.h"
#include "crush/edit/display.h"
#include "crush/edit/edit.h"
#include "crush/map.h"
#include "osdmap/formats/proto_json.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/crush_loading.h"
#include "tools/proto/map_reports.pb.h"

namespace crushkit::tools {
namespace {

struct TreeArgs {
  std::string map;
  bool test = false;
  int rule = 0;
  int num_rep = 3;
  std::uint32_t inputs = 65536;
  bool json = false;
};

// The share of `id` in `report`: its own, or, for a class rule, its shadow's.
const crush::ItemShare* ShareOf(const crush::MapModel& m, const crush::ShareReport& report,
                                crush::ItemId id) {
  if (auto it = report.items.find(id); it != report.items.end()) return &it->second;
  auto cls = m.class_map.find(report.root);
  auto shadows = m.class_buckets.find(id);
  if (cls == m.class_map.end() || shadows == m.class_buckets.end()) return nullptr;
  auto shadow = shadows->second.find(cls->second);
  if (shadow == shadows->second.end()) return nullptr;
  auto it = report.items.find(shadow->second);
  return it == report.items.end() ? nullptr : &it->second;
}

std::string TypeNameOf(const crush::MapModel& m, crush::ItemId id) {
  int type = 0;
  if (id < 0) {
    const crush::Bucket* b = m.FindBucket(id);
    type = b != nullptr ? b->type : 0;
  }
  auto tname = m.type_names.find(type);
  return tname != m.type_names.end() ? tname->second : "?";
}

int PrintJson(const TreeArgs& a, const crush::MapModel& m, const std::vector<crush::TreeItem>& tree,
              const crush::ShareReport* shares) {
  reports::TreeReport report;
  report.set_map(a.map);
  for (const crush::TreeItem& t : tree) {
    reports::TreeItem* p = report.add_items();
    p->set_id(t.id);
    auto name = m.item_names.find(t.id);
    p->set_name(name != m.item_names.end() ? name->second : std::to_string(t.id));
    p->set_type(TypeNameOf(m, t.id));
    if (const std::string* cls = crush::ItemClassName(m, t.id)) p->set_device_class(*cls);
    p->set_weight(t.weight);
    p->set_depth(t.depth);
    if (shares == nullptr) continue;
    if (const crush::ItemShare* s = ShareOf(m, *shares, t.id)) {
      reports::ItemShare* q = p->mutable_share();
      q->set_id(t.id);
      q->set_name(p->name());
      q->set_weight(t.weight);
      q->set_expected_share(s->expected);
      q->set_actual_share(s->actual);
      q->set_deviation_sd(s->binomial_sd > 0 ? (s->actual - s->expected) / s->binomial_sd : 0.0);
      q->set_fill(s->expected > 0 ? s->actual / s->expected : 0.0);
      q->set_replicas(s->replicas);
    }
  }
  if (shares != nullptr) {
    reports::RuleTest* t = report.mutable_test();
    t->set_rule(a.rule);
    t->set_num_rep(a.num_rep);
    t->set_inputs(a.inputs);
    t->set_placed(shares->placed);
    t->set_short_results(shares->short_results);
  }
  absl::StatusOr<std::string> json = osdmap::ProtoToJson(report, /*print_defaults=*/true);
  if (!json.ok()) return CommandFailed("tree", std::string(json.status().message()));
  std::cout << *json;
  return 0;
}

int RunTree(const TreeArgs& a) {
  absl::StatusOr<crush::MapModel> model = LoadCrushModel(a.map);
  if (!model.ok()) return CommandFailed("tree", std::string(model.status().message()));
  absl::StatusOr<std::vector<crush::TreeItem>> tree = crush::WalkTree(*model, false);
  if (!tree.ok()) return CommandFailed("tree", std::string(tree.status().message()));
  std::optional<crush::ShareReport> shares;
  if (a.test) {
    absl::StatusOr<crush::CrushMap> map = crush::CrushMap::Build(*model);
    if (!map.ok()) return CommandFailed("tree", std::string(map.status().message()));
    absl::StatusOr<crush::ShareReport> r = crush::MeasureShares(*map, a.rule, a.num_rep, a.inputs);
    if (!r.ok()) return CommandFailed("tree", std::string(r.status().message()));
    shares = *std::move(r);
    if (a.json) return PrintJson(a, *model, *tree, &*shares);
    std::printf("rule %d, %d replicas, x = 0..%u: %llu replicas placed, %llu short results\n",
                a.rule, a.num_rep, a.inputs - 1, static_cast<unsigned long long>(shares->placed),
                static_cast<unsigned long long>(shares->short_results));
  }
  if (a.json) return PrintJson(a, *model, *tree, nullptr);
  std::printf("%-6s %-6s %10s  %-10s %-24s", "ID", "CLASS", "WEIGHT", "TYPE", "NAME");
  if (shares) std::printf(" %9s %9s %7s", "EXPECTED", "ACTUAL", "DEV/SD");
  std::printf("\n");
  const crush::MapModel& m = *model;
  for (const crush::TreeItem& t : *tree) {
    const std::string* cls = crush::ItemClassName(m, t.id);
    auto name = m.item_names.find(t.id);
    const std::string label = std::string(static_cast<std::size_t>(2 * t.depth), ' ') +
                              (name != m.item_names.end() ? name->second : std::to_string(t.id));
    std::printf("%-6d %-6s %10.5f  %-10s %-24s", t.id, cls != nullptr ? cls->c_str() : "", t.weight,
                TypeNameOf(m, t.id).c_str(), label.c_str());
    if (shares) {
      if (const crush::ItemShare* s = ShareOf(m, *shares, t.id)) {
        const double dev = s->binomial_sd > 0 ? (s->actual - s->expected) / s->binomial_sd : 0.0;
        std::printf(" %8.3f%% %8.3f%% %+7.1f", 100 * s->expected, 100 * s->actual, dev);
      }
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace

void AddTreeCommand(CLI::App& app) {
  auto args = std::make_shared<TreeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "tree",
      "Show a crush map's hierarchy; with --test, how a rule's replicas spread over it\n"
      "  example: crushkit tree map.bin --test --rule 0 --num-rep 3");
  cmd->add_option("map", args->map, "crush map (Ceph binary or text)")->required();
  cmd->add_flag("--test", args->test,
                "map inputs through a rule and show expected vs actual shares");
  cmd->add_option("--rule", args->rule, "rule id (default 0)");
  cmd->add_option("--num-rep", args->num_rep, "replicas per input (default 3)")
      ->check(CLI::Range(1, 1 << 16));
  cmd->add_option("--inputs", args->inputs, "inputs x = 0..N-1 (default 65536)")
      ->check(CLI::Range(1u, 1u << 26));
  cmd->add_flag("--json", args->json, "print the tree (and shares) as JSON");
  cmd->callback([args] {
    if (const int rc = RunTree(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
