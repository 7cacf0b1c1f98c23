// `crushkit plan STATE OPS...`: apply a proposed change (a change file, or
// --do operations) to a cluster state and report what it moves; with
// several change files (or --compare, --place-hosts, --drain-order,
// --steps) plan each alternative and compare them.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "osdmap/changes/change_ops.h"
#include "osdmap/planning/backfill_pusher.h"
#include "osdmap/planning/compare_request.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/plan_compare.h"
#include "osdmap/planning/plan_compare_report.h"
#include "osdmap/planning/planner.h"
#include "tools/common/file_io.h"
#include "tools/common/progress.h"
#include "tools/crushkit/change_input.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/report_options.h"
#include "tools/crushkit/state_loading.h"

namespace crushkit::tools {
namespace {

struct PlanArgs {
  std::string state;
  std::vector<std::string> ops;
  std::vector<std::string> do_ops;
  std::string max_misplaced;
  std::string max_fill;
  std::string commands;
  std::string log_tails;
  bool upmap_remapped = false;
  ReportArgs report;
  // Comparing alternatives.
  bool compare = false;
  std::string rank_by;
  std::string place_hosts;
  std::vector<std::string> drain_order;
  int steps = 0;
};

bool IsComparison(const PlanArgs& a) {
  return a.ops.size() > 1 || a.compare || !a.place_hosts.empty() || !a.drain_order.empty() ||
         a.steps > 0;
}

// The flags that do not go with comparing; empty: none.
std::string CompareFlagsError(const PlanArgs& a) {
  if (!a.max_misplaced.empty() || !a.max_fill.empty() || a.upmap_remapped || !a.commands.empty() ||
      !a.log_tails.empty() || a.report.pgs || !a.report.pgs_csv.empty()) {
    return "comparing alternatives: --max-misplaced, --max-fill, --upmap-remapped, --commands, "
           "--log-tails, --pgs and --pgs-csv plan one change (stage alternatives with --steps N)";
  }
  if (a.steps > 0 && (a.ops.size() + (a.do_ops.empty() ? 0 : 1) != 1 || !a.place_hosts.empty() ||
                      !a.drain_order.empty())) {
    return "--steps N stages one change: give one change file (or --do)";
  }
  return "";
}

absl::StatusOr<osdmap::CompareOptions> MakeCompareOptions(const PlanArgs& a) {
  absl::StatusOr<osdmap::PlanOptions> plan = MakePlanOptions(a.report);
  if (!plan.ok()) return plan.status();
  osdmap::CompareOptions options;
  options.plan = *std::move(plan);
  options.threads = a.report.threads;
  options.keep_best = !a.report.html.empty();
  options.rank_by =
      osdmap::DefaultRankBy(!a.place_hosts.empty()   ? osdmap::CompareQuestion::kPlaceHosts
                            : !a.drain_order.empty() ? osdmap::CompareQuestion::kDrainOrder
                                                     : osdmap::CompareQuestion::kChanges);
  if (!a.rank_by.empty()) {
    absl::StatusOr<osdmap::RankBy> r = osdmap::ParseRankBy(a.rank_by);
    if (!r.ok()) return r.status();
    options.rank_by = *r;
  }
  return options;
}

// The change files, then --do, as alternatives; false after printing why.
bool LoadGivenAlternatives(const PlanArgs& a, std::vector<osdmap::PlanAlternative>& out) {
  for (const std::string& file : a.ops) {
    std::optional<osdmap::ChangeList> change = LoadChange("plan", file, {});
    if (!change) return false;
    out.push_back(
        osdmap::PlanAlternative{.name = file, .stages = {*std::move(change)}, .max_misplaced = {}});
  }
  if (!a.do_ops.empty()) {
    std::optional<osdmap::ChangeList> change = LoadChange("plan", "", a.do_ops);
    if (!change) return false;
    out.push_back(osdmap::PlanAlternative{
        .name = "--do", .stages = {*std::move(change)}, .max_misplaced = {}});
  }
  return true;
}

// The comparison as --html, --json or the table; the exit status.
int PrintComparison(const PlanArgs& a, const osdmap::PlanComparison& c) {
  const bool rank_default = a.rank_by.empty();
  if (!a.report.html.empty() && c.best_report) {
    osdmap::HtmlExtras extras;
    extras.title = "crushkit plan: which change is best";
    extras.chart_library = osdmap::DefaultChartLibrary();
    if (absl::Status s =
            WriteFileAtomically(a.report.html, osdmap::ComparisonHtml(c, rank_default, extras));
        !s.ok()) {
      return CommandFailed("plan", a.report.html + ": " + std::string(s.message()));
    }
  }
  if (a.report.json || a.report.format == "json") {
    absl::StatusOr<std::string> json = osdmap::ComparisonToJson(c, rank_default);
    if (!json.ok()) return CommandFailed("plan", std::string(json.status().message()));
    std::cout << *json;
  } else {
    std::cout << osdmap::ComparisonSummary(c, rank_default);
  }
  std::cout.flush();
  if (!std::cout.good()) return 1;
  // Nothing planned: every alternative's error is printed above.
  return c.alternatives.empty() || c.alternatives.front().rank != 1 ? 1 : 0;
}

int RunCompare(const PlanArgs& a) {
  if (const std::string error = CompareFlagsError(a); !error.empty()) {
    return CommandFailed("plan", error);
  }
  absl::StatusOr<osdmap::CompareOptions> options = MakeCompareOptions(a);
  if (!options.ok()) return CommandFailed("plan", std::string(options.status().message()));
  osdmap::CompareRequest request;
  if (!LoadGivenAlternatives(a, request.given)) return 1;
  std::optional<osdmap::ClusterState> state = LoadState("plan", a.state);
  if (!state) return 1;
  if (!a.place_hosts.empty()) {
    request.place_hosts = LoadChange("plan", a.place_hosts, {});
    if (!request.place_hosts) return 1;
  }
  request.drain_order = a.drain_order;
  request.steps = a.steps;
  absl::StatusOr<std::vector<osdmap::PlanAlternative>> alternatives =
      osdmap::RequestedAlternatives(*state, request);
  if (!alternatives.ok())
    return CommandFailed("plan", std::string(alternatives.status().message()));
  if (alternatives->empty()) {
    return CommandFailed(
        "plan", "nothing to compare: give change files, --do, --place-hosts or --drain-order");
  }
  Progress progress("alternatives planned");
  options->progress = [&](int done, int total) {
    progress.Update(static_cast<std::uint64_t>(done), static_cast<std::uint64_t>(total));
  };
  absl::StatusOr<osdmap::PlanComparison> c =
      osdmap::CompareRequested(*state, request, *alternatives, *options);
  if (!c.ok()) {
    if (c.status().code() == absl::StatusCode::kInvalidArgument &&
        c.status().message().find(": error: ") != std::string::npos) {
      std::cerr << c.status().message();
      return 1;
    }
    return CommandFailed("plan", std::string(c.status().message()));
  }
  return PrintComparison(a, *c);
}

int RunPlan(const PlanArgs& a) {
  if (IsComparison(a)) return RunCompare(a);
  std::optional<osdmap::ChangeList> change =
      LoadChange("plan", a.ops.empty() ? "" : a.ops.front(), a.do_ops);
  if (!change) return 1;
  absl::StatusOr<osdmap::PlanOptions> plan = MakePlanOptions(a.report);
  if (!plan.ok()) return CommandFailed("plan", std::string(plan.status().message()));
  if (!a.max_misplaced.empty()) {
    absl::StatusOr<double> limit = osdmap::ParseMisplacedLimit(a.max_misplaced);
    if (!limit.ok()) return CommandFailed("plan", std::string(limit.status().message()));
    plan->max_misplaced = *limit;
    plan->upmap_remapped = a.upmap_remapped;
  } else if (!a.commands.empty() || a.upmap_remapped || !a.max_fill.empty()) {
    return CommandFailed(
        "plan",
        "--commands, --upmap-remapped and --max-fill plan in steps: give --max-misplaced too");
  }
  if (!a.max_fill.empty()) {
    absl::StatusOr<double> fill = osdmap::ParseFillLimit(a.max_fill);
    if (!fill.ok()) return CommandFailed("plan", std::string(fill.status().message()));
    plan->max_fill = *fill;
  }
  osdmap::PgLogTails tails;
  if (!a.log_tails.empty()) {
    absl::StatusOr<std::string> text = ReadFileBytes(a.log_tails);
    if (!text.ok()) return CommandFailed("plan", std::string(text.status().message()));
    absl::StatusOr<osdmap::PgLogTails> parsed = osdmap::ParseLogTailsJson(*text);
    if (!parsed.ok()) {
      return CommandFailed("plan", a.log_tails + ": " + std::string(parsed.status().message()));
    }
    tails = *std::move(parsed);
    plan->movement.log_tails = &tails;
  }
  std::optional<osdmap::ClusterState> state = LoadState("plan", a.state);
  if (!state) return 1;
  Progress progress("mapping PGs before and after");
  plan->movement.progress = [&](std::uint64_t done, std::uint64_t total) {
    progress.Update(done, total);
  };
  Progress staging("staging the change");
  plan->staging_progress = [&](double fraction, int) {
    staging.Update(static_cast<std::uint64_t>(fraction * 1000), 1000);
  };
  absl::StatusOr<osdmap::PlanReport> report = osdmap::PlanChange(*std::move(state), *change, *plan);
  if (!report.ok()) {
    // Apply errors are located diagnostics, already formatted.
    if (report.status().code() == absl::StatusCode::kInvalidArgument) {
      std::cerr << report.status().message();
      return 1;
    }
    return CommandFailed("plan", std::string(report.status().message()));
  }
  if (!a.commands.empty()) {
    if (absl::Status s = WriteFileAtomically(a.commands, osdmap::PlanCommandsScript(*report));
        !s.ok()) {
      return CommandFailed("plan", a.commands + ": " + std::string(s.message()));
    }
  }
  return PrintReport("plan", "crushkit plan: " + change->file_name, a.report, *report);
}

}  // namespace

void AddPlanCommand(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "What a proposed change would move: apply operations (Ceph's own commands, one per line: "
      "`osd out 3`, `osd crush reweight osd.7 2.5`, `osd crush add-bucket rack3 rack "
      "root=default`, "
      "`add-host node9 osds=12 weight=7.277 class=hdd rack=rack3`, `drain node3`, `osd pool set "
      "rbd "
      "pg_num 4096`, ...) to a cluster state, then report per pool, OSD and failure domain, with "
      "the "
      "simulated backfill.\n"
      "Example: crushkit plan state.pb samples/cluster/add-rack.ops --html report.html\n"
      "         crushkit plan state.pb --do 'osd out 12' --do 'osd out 13' --json");
  cmd->add_option("state", args->state, "state file (from `crushkit import`)")->required();
  cmd->add_option("ops", args->ops,
                  "change file: one operation per line, '#' comments; several files: compare "
                  "them as alternatives");
  cmd->add_option("--do", args->do_ops, "an operation, instead of a change file (repeatable)");
  cmd->add_option("--max-misplaced", args->max_misplaced,
                  "also plan the change in steps that each misplace at most this share of the data "
                  "(5% or 0.05; Ceph's target_max_misplaced_ratio is 5%)");
  cmd->add_option(
      "--max-fill", args->max_fill,
      "with --max-misplaced: keep every OSD that receives data under this fill at every "
      "moment of every step, counting the copies that land before the ones they replace "
      "are deleted (85% or 0.85; default: the state's backfillfull_ratio; none: no "
      "limit); steps are split or reordered, or the plan says which OSD cannot be kept");
  cmd->add_option(
      "--commands", args->commands,
      "with --max-misplaced: write the steps' Ceph commands to this file as a shell script");
  cmd->add_flag(
      "--upmap-remapped", args->upmap_remapped,
      "with --max-misplaced: also the upmap way (CERN's upmap-remapped): pin every remapped PG "
      "where its data is with upmap entries, then remove the pins in batches under the limit");
  cmd->add_option("--log-tails", args->log_tails,
                  "JSON of every holder's PG log tail (`ceph pg PGID query` output, one or a list; "
                  "or {\"PG\": {\"OSD\": \"EPOCH'VERSION\"}}, as loopback-change.py records): the "
                  "pusher of a replicated PG whose new primary holds nothing is the holder with "
                  "the oldest tail, as Ceph's peering picks it");
  cmd->add_flag("--compare", args->compare,
                "compare alternatives (implied by several change files, --place-hosts, "
                "--drain-order, --steps): a table of data moved, amplification, duration, peak "
                "fill, balance after and MAX AVAIL per pool, best first");
  cmd->add_option("--rank-by", args->rank_by,
                  "rank alternatives by moved, duration, peak-fill, fullest, deviation, "
                  "amplification or max-avail (default: moved; fullest with --place-hosts, "
                  "peak-fill with --drain-order)");
  cmd->add_option("--place-hosts", args->place_hosts,
                  "a change file of add-host lines: compare placing them in each existing rack "
                  "(the bucket type above the hosts) and in a new one");
  cmd->add_option("--drain-order", args->drain_order,
                  "hosts to drain one after the other (comma-separated): compare the orders "
                  "(all of up to 4 hosts; more: each host first)")
      ->delimiter(',');
  cmd->add_option("--steps", args->steps,
                  "compare the change at once with it staged into about 2..N steps (N <= 20)")
      ->check(CLI::Range(2, 20));
  AddReportOptions(cmd, &args->report);
  cmd->callback([args]() {
    if (const int rc = RunPlan(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
