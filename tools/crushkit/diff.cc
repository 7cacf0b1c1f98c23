// `crushkit diff BEFORE [AFTER | --crush-after MAP]`: what changing one
// cluster state into another moves, PG by PG and byte by byte.
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "osdmap/planning/crushdiff_summary.h"
#include "osdmap/planning/planner.h"
#include "tools/common/progress.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/crush_loading.h"
#include "tools/crushkit/report_options.h"
#include "tools/crushkit/state_loading.h"

namespace crushkit::tools {
namespace {

struct DiffArgs {
  std::string before;
  std::string after;
  std::string crush_after;
  ReportArgs report;
};

// --format crushdiff: crushdiff's five lines on stdout, its warnings on
// stderr. Upmaps stay as they are with --crush-after (crushdiff imports the
// map with osdmaptool, which runs no cleanup).
int RunCrushdiff(const DiffArgs& a) {
  if (!a.report.html.empty())
    return CommandFailed("diff", "--html does not go with --format crushdiff");
  std::optional<osdmap::ClusterState> before = LoadState("diff", a.before);
  if (!before) return 1;
  std::optional<osdmap::ClusterState> after;
  if (!a.after.empty()) {
    after = LoadState("diff", a.after);
    if (!after) return 1;
  } else {
    absl::StatusOr<std::string> bytes = LoadCrushMapBytes(a.crush_after, before->ceph_release);
    if (!bytes.ok())
      return CommandFailed("diff", a.crush_after + ": " + std::string(bytes.status().message()));
    absl::StatusOr<osdmap::ClusterState> imported =
        osdmap::CrushdiffImportCrush(*before, *std::move(bytes));
    if (!imported.ok())
      return CommandFailed("diff", a.crush_after + ": " + std::string(imported.status().message()));
    after = *std::move(imported);
  }
  Progress progress("mapping PGs before and after");
  osdmap::MapAllOptions options;
  options.threads = a.report.threads;
  options.progress = [&](std::uint64_t done, std::uint64_t total) { progress.Update(done, total); };
  absl::StatusOr<osdmap::CrushdiffSummary> summary =
      osdmap::CompareCrushdiff(*std::move(before), *std::move(after), options);
  if (!summary.ok()) return CommandFailed("diff", std::string(summary.status().message()));
  for (const std::string& w : summary->warnings) std::cerr << w << "\n";
  std::cout << osdmap::FormatCrushdiff(*summary);
  std::cout.flush();
  return std::cout.good() ? 0 : 1;
}

int RunDiff(const DiffArgs& a) {
  if (a.after.empty() == a.crush_after.empty()) {
    return CommandFailed("diff", "give either a second state file or --crush-after MAP, not both");
  }
  if (a.report.format == "crushdiff") return RunCrushdiff(a);
  absl::StatusOr<osdmap::PlanOptions> plan = MakePlanOptions(a.report);
  if (!plan.ok()) return CommandFailed("diff", std::string(plan.status().message()));
  Progress progress("mapping PGs before and after");
  plan->movement.progress = [&](std::uint64_t done, std::uint64_t total) {
    progress.Update(done, total);
  };
  std::optional<osdmap::ClusterState> before = LoadState("diff", a.before);
  if (!before) return 1;
  absl::StatusOr<osdmap::PlanReport> report;
  std::string change;
  if (!a.after.empty()) {
    std::optional<osdmap::ClusterState> after = LoadState("diff", a.after);
    if (!after) return 1;
    report = osdmap::DiffTwoStates(*std::move(before), *std::move(after), *plan);
    change = "state " + a.before + " -> state " + a.after;
  } else {
    absl::StatusOr<std::string> bytes = LoadCrushMapBytes(a.crush_after, before->ceph_release);
    if (!bytes.ok())
      return CommandFailed("diff", a.crush_after + ": " + std::string(bytes.status().message()));
    report = osdmap::DiffNewCrushMap(*std::move(before), *std::move(bytes), *plan);
    change = "crush map replaced by " + a.crush_after;
  }
  if (!report.ok()) return CommandFailed("diff", std::string(report.status().message()));
  report->movement.change = {change};
  return PrintReport("diff", "crushkit diff: " + change, a.report, *report);
}

}  // namespace

void AddDiffCommand(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "What a change moves: every PG of two cluster states mapped and compared, per pool, per OSD "
      "and "
      "per failure domain, with bytes from imported PG stats, and how long the backfill takes.\n"
      "Example: crushkit diff before.pb after.pb\n"
      "         crushkit diff state.pb --crush-after new-crush.txt --json\n"
      "         crushkit diff state.pb --crush-after new-crush.txt --format crushdiff");
  cmd->add_option("before", args->before, "state file before the change (from `crushkit import`)")
      ->required();
  cmd->add_option("after", args->after,
                  "state file after the change (same cluster). Its upmaps are cleaned as the "
                  "monitor does on every epoch (a no-op for a map a monitor wrote; drops what it "
                  "would for a hand-made one); --keep-upmaps takes them as they are");
  cmd->add_option("--crush-after", args->crush_after,
                  "instead of a second state: the same state with this crush map (binary, or "
                  "text compiled as the state's Ceph release)");
  AddReportOptions(cmd, &args->report, {"crushdiff"});
  cmd->callback([args]() {
    if (const int rc = RunDiff(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
