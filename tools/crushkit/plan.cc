// `crushkit plan STATE OPS...`: apply a proposed change (a change file, or
// --do operations) to a cluster state and report what it moves.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "osdmap/change_ops.h"
#include "osdmap/planner.h"
#include "tools/common/file_io.h"
#include "tools/common/progress.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/report_options.h"
#include "tools/crushkit/state_loading.h"

namespace crushkit::tools {
namespace {

struct PlanArgs {
  std::string state;
  std::string ops;
  std::vector<std::string> do_ops;
  ReportArgs report;
};

int Fail(const std::string& msg) {
  std::cerr << "crushkit plan: " << msg << "\n";
  return 1;
}

int RunPlan(const PlanArgs& a) {
  if (a.ops.empty() == a.do_ops.empty()) return Fail("give a change file or --do operations (not both)");
  std::string text;
  std::string file = a.ops;
  if (!a.ops.empty()) {
    absl::StatusOr<std::string> bytes = ReadFileBytes(a.ops);
    if (!bytes.ok()) return Fail(a.ops + ": " + std::string(bytes.status().message()));
    text = *std::move(bytes);
  } else {
    file = "--do";
    for (const std::string& op : a.do_ops) text += op + "\n";
  }
  absl::StatusOr<osdmap::ChangeList> change = osdmap::ParseChange(text, file);
  if (!change.ok()) {
    std::cerr << change.status().message();
    return 1;
  }
  if (change->ops.empty()) return Fail(file + ": no operations");
  absl::StatusOr<osdmap::PlanOptions> plan = MakePlanOptions(a.report);
  if (!plan.ok()) return Fail(std::string(plan.status().message()));
  std::optional<osdmap::ClusterState> state = LoadState("plan", a.state);
  if (!state) return 1;
  Progress progress("mapping PGs before and after");
  plan->movement.progress = [&](std::uint64_t done, std::uint64_t total) { progress.Update(done, total); };
  absl::StatusOr<osdmap::PlanReport> report = osdmap::PlanChange(*std::move(state), *change, *plan);
  if (!report.ok()) {
    // Apply errors are located diagnostics, already formatted.
    if (report.status().code() == absl::StatusCode::kInvalidArgument) {
      std::cerr << report.status().message();
      return 1;
    }
    return Fail(std::string(report.status().message()));
  }
  return PrintReport("plan", "crushkit plan: " + file, a.report, *report);
}

}  // namespace

void AddPlanCommand(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "What a proposed change would move: apply operations (Ceph's own commands, one per line: "
      "`osd out 3`, `osd crush reweight osd.7 2.5`, `osd crush add-bucket rack3 rack root=default`, "
      "`add-host node9 osds=12 weight=7.277 class=hdd rack=rack3`, `drain node3`, `osd pool set rbd "
      "pg_num 4096`, ...) to a cluster state, then report per pool, OSD and failure domain, with the "
      "simulated backfill.\n"
      "Example: crushkit plan state.pb samples/cluster/add-rack.ops --html report.html\n"
      "         crushkit plan state.pb --do 'osd out 12' --do 'osd out 13' --json");
  cmd->add_option("state", args->state, "state file (from `crushkit import`)")->required();
  cmd->add_option("ops", args->ops, "change file: one operation per line, '#' comments");
  cmd->add_option("--do", args->do_ops, "an operation, instead of a change file (repeatable)");
  AddReportOptions(cmd, &args->report);
  cmd->callback([args]() {
    if (const int rc = RunPlan(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
