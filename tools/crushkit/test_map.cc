// `crushkit test MAP [--rule R]... [--num-rep N] [--inputs N] [--json]`:
// maps inputs through each rule and shows how evenly the replicas land on
// the rule's failure domains and devices against the binomial baseline of a
// truly random placement (crush::MeasureShares, crush::SpreadOf).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "crush/edit/bucket_shares.h"
#include "crush/map.h"
#include "osdmap/formats/proto_json.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/crush_loading.h"
#include "tools/proto/map_reports.pb.h"

namespace crushkit::tools {
namespace {

struct TestArgs {
  std::string map;
  std::vector<int> rules;
  int num_rep = 3;
  std::uint32_t inputs = 65536;
  int top = 20;
  bool all = false;
  bool json = false;
};

std::string NameOf(const crush::MapModel& m, crush::ItemId id) {
  auto it = m.item_names.find(id);
  return it != m.item_names.end() ? it->second : std::to_string(id);
}

void FillSpread(const crush::ShareSpread& s, reports::ShareSpread* p) {
  p->set_items(s.items);
  p->set_min_fill(s.min_fill);
  p->set_max_fill(s.max_fill);
  p->set_rms_deviation_sd(s.rms_z);
  p->set_within_2sd(s.within_2sd);
}

absl::StatusOr<reports::RuleTest> TestRule(const crush::CrushMap& map, int rule,
                                           const TestArgs& a) {
  const crush::MapModel& m = map.model();
  absl::StatusOr<crush::ShareReport> shares = crush::MeasureShares(map, rule, a.num_rep, a.inputs);
  if (!shares.ok()) return shares.status();
  reports::RuleTest t;
  t.set_rule(rule);
  auto rname = m.rule_names.find(rule);
  t.set_name(rname != m.rule_names.end() ? rname->second : "rule" + std::to_string(rule));
  t.set_num_rep(a.num_rep);
  t.set_inputs(a.inputs);
  t.set_placed(shares->placed);
  t.set_short_results(shares->short_results);
  const int type = crush::RuleDomainType(m, rule);
  auto tname = m.type_names.find(type);
  t.set_domain_type(tname != m.type_names.end() ? tname->second : std::to_string(type));
  const crush::Bucket* root = m.FindBucket(shares->root);
  const double root_weight =
      root != nullptr ? static_cast<double>(root->weight) / crush::kWeightOne : 0.0;
  const std::vector<crush::ItemId> domains = crush::ItemsOfType(m, *shares, type);
  for (crush::ItemId id : domains) {
    const crush::ItemShare& s = shares->items.at(id);
    reports::ItemShare* d = t.add_domains();
    d->set_id(id);
    d->set_name(NameOf(m, id));
    d->set_weight(s.expected * root_weight);
    d->set_expected_share(s.expected);
    d->set_actual_share(s.actual);
    d->set_deviation_sd(s.binomial_sd > 0 ? (s.actual - s.expected) / s.binomial_sd : 0.0);
    d->set_fill(s.expected > 0 ? s.actual / s.expected : 0.0);
    d->set_replicas(s.replicas);
  }
  FillSpread(crush::SpreadOf(*shares, domains), t.mutable_domain_spread());
  FillSpread(crush::SpreadOf(*shares, crush::ItemsOfType(m, *shares, 0)),
             t.mutable_device_spread());
  return t;
}

void PrintSpread(const char* what, const reports::ShareSpread& s) {
  std::printf("  %6d %-10s fill %.3f..%.3f, rms %.2f SD, %d within 2 SD (%.0f%%)\n", s.items(),
              what, s.min_fill(), s.max_fill(), s.rms_deviation_sd(), s.within_2sd(),
              s.items() > 0 ? 100.0 * s.within_2sd() / s.items() : 0.0);
}

void PrintRule(const reports::RuleTest& t, const TestArgs& a) {
  std::printf("rule %d %s: %d replicas, x = 0..%u: %llu placed, %llu short mapping(s)\n", t.rule(),
              t.name().c_str(), t.num_rep(), t.inputs() - 1,
              static_cast<unsigned long long>(t.placed()),
              static_cast<unsigned long long>(t.short_results()));
  std::printf(
      "  spread against expected shares (random placement: rms ~1 SD, ~95%% within 2 SD)\n");
  PrintSpread((t.domain_type() + "s").c_str(), t.domain_spread());
  if (t.domain_type() != "osd" && t.device_spread().items() > 0)
    PrintSpread("devices", t.device_spread());
  std::vector<const reports::ItemShare*> rows;
  for (const reports::ItemShare& d : t.domains()) rows.push_back(&d);
  std::sort(rows.begin(), rows.end(),
            [](const auto* x, const auto* y) { return x->deviation_sd() > y->deviation_sd(); });
  const bool trim = !a.all && static_cast<int>(rows.size()) > a.top;
  std::printf("  %-24s %10s %9s %9s %7s %6s\n", t.domain_type().c_str(), "WEIGHT", "EXPECTED",
              "ACTUAL", "DEV/SD", "FILL");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::size_t half = static_cast<std::size_t>(a.top / 2);
    if (trim && i == half) {
      std::printf("  ... %zu more (--all shows them)\n", rows.size() - 2 * half);
      i = rows.size() - half;
    }
    const reports::ItemShare& d = *rows[i];
    std::printf("  %-24s %10.5f %8.3f%% %8.3f%% %+7.1f %6.3f\n", d.name().c_str(), d.weight(),
                100 * d.expected_share(), 100 * d.actual_share(), d.deviation_sd(), d.fill());
  }
}

int RunTest(const TestArgs& a) {
  absl::StatusOr<crush::MapModel> model = LoadCrushModel(a.map);
  if (!model.ok()) return CommandFailed("test", std::string(model.status().message()));
  absl::StatusOr<crush::CrushMap> map = crush::CrushMap::Build(*model);
  if (!map.ok()) return CommandFailed("test", a.map + ": " + std::string(map.status().message()));
  std::vector<int> rules = a.rules;
  if (rules.empty()) {
    for (int r = 0; r < map->max_rules(); ++r) {
      if (map->RuleExists(r)) rules.push_back(r);
    }
  }
  reports::TestReport report;
  report.set_map(a.map);
  for (int r : rules) {
    absl::StatusOr<reports::RuleTest> t = TestRule(*map, r, a);
    if (!t.ok())
      return CommandFailed("test",
                           "rule " + std::to_string(r) + ": " + std::string(t.status().message()));
    *report.add_rules() = *std::move(t);
  }
  if (a.json) {
    absl::StatusOr<std::string> json = osdmap::ProtoToJson(report, /*print_defaults=*/true);
    if (!json.ok()) return CommandFailed("test", std::string(json.status().message()));
    std::cout << *json;
    return 0;
  }
  for (int i = 0; i < report.rules_size(); ++i) {
    if (i > 0) std::printf("\n");
    PrintRule(report.rules(i), a);
  }
  return 0;
}

}  // namespace

void AddTestCommand(CLI::App& app) {
  auto args = std::make_shared<TestArgs>();
  CLI::App* cmd = app.add_subcommand(
      "test",
      "Map inputs through rules and show how evenly failure domains and devices fill\n"
      "  example: crushkit test map.bin --rule 0 --num-rep 3 --inputs 100000");
  cmd->add_option("map", args->map, "crush map (Ceph binary or text)")->required();
  cmd->add_option("--rule", args->rules, "rule id (repeatable; default every rule)");
  cmd->add_option("--num-rep", args->num_rep, "replicas (or k+m shards) per input (default 3)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--inputs", args->inputs, "inputs x = 0..N-1 (default 65536)")
      ->check(CLI::Range(1u, 1u << 26));
  cmd->add_option("--top", args->top,
                  "failure domains shown per rule, most and least filled (default 20)")
      ->check(CLI::Range(2, 1 << 20));
  cmd->add_flag("--all", args->all, "show every failure domain");
  cmd->add_flag("--json", args->json, "print the results as JSON (every failure domain)");
  cmd->callback([args] {
    if (const int rc = RunTest(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
