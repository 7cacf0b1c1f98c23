// `crushkit check MAP [--num-rep N] [--json] [--strict]`: every validation
// crush::CheckMap knows, each finding with a fix hint. Exit 1 when there is
// an error (with --strict, also a warning).
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "crush/edit/map_check.h"
#include "osdmap/formats/proto_json.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/crush_loading.h"
#include "tools/proto/map_reports.pb.h"

namespace crushkit::tools {
namespace {

struct CheckArgs {
  std::string map;
  int num_rep = 0;
  std::uint32_t inputs = 1024;
  bool json = false;
  bool strict = false;
};

int RunCheck(const CheckArgs& a) {
  absl::StatusOr<crush::MapModel> model = LoadCrushModel(a.map);
  if (!model.ok()) {
    std::cerr << "crushkit check: " << model.status().message() << "\n";
    return 1;
  }
  const std::vector<crush::Finding> findings =
      crush::CheckMap(*model, {.num_rep = a.num_rep, .test_inputs = a.inputs});
  reports::CheckReport report;
  report.set_map(a.map);
  for (const crush::Finding& f : findings) {
    reports::Finding* p = report.add_findings();
    p->set_severity(crush::SeverityName(f.severity));
    p->set_code(f.code);
    p->set_subject(f.subject);
    p->set_message(f.message);
    p->set_hint(f.hint);
    if (f.severity == crush::FindingSeverity::kError) report.set_errors(report.errors() + 1);
    if (f.severity == crush::FindingSeverity::kWarning) report.set_warnings(report.warnings() + 1);
  }
  if (a.json) {
    absl::StatusOr<std::string> json = osdmap::ProtoToJson(report, /*print_defaults=*/true);
    if (!json.ok()) {
      std::cerr << "crushkit check: " << json.status().message() << "\n";
      return 1;
    }
    std::cout << *json;
  } else {
    for (const reports::Finding& f : report.findings()) {
      std::printf("%-7s %-26s %s\n", f.severity().c_str(), f.code().c_str(), f.message().c_str());
      if (!f.hint().empty()) std::printf("        %-26s fix: %s\n", "", f.hint().c_str());
    }
    std::printf("%s: %d error(s), %d warning(s), %d note(s)\n", a.map.c_str(), report.errors(),
                report.warnings(), report.findings_size() - report.errors() - report.warnings());
  }
  return report.errors() > 0 || (a.strict && report.warnings() > 0) ? 1 : 0;
}

}  // namespace

void AddCheckCommand(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Check a crush map before injecting it: errors, risky settings, each with a fix\n"
      "  example: crushkit check map.bin --num-rep 3 && ceph osd setcrushmap -i map.bin");
  cmd->add_option("map", args->map, "crush map (Ceph binary or text)")->required();
  cmd->add_option("--num-rep", args->num_rep,
                  "replicas each rule must place (default: 3 for replicated rules; for erasure "
                  "rules what their "
                  "failure domains allow)")
      ->check(CLI::Range(0, 64));
  cmd->add_option("--inputs", args->inputs,
                  "inputs mapped per rule to find short mappings (default 1024)")
      ->check(CLI::Range(1u, 1u << 20));
  cmd->add_flag("--json", args->json, "print the findings as JSON");
  cmd->add_flag("--strict", args->strict, "exit 1 on warnings too");
  cmd->callback([args] {
    if (const int rc = RunCheck(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
