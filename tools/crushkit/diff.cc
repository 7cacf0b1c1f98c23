// `crushkit diff BEFORE [AFTER | --crush-after MAP]`: what changing one
// cluster state into another moves, PG by PG and byte by byte.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "osdmap/movement.h"
#include "osdmap/movement_html.h"
#include "osdmap/movement_report.h"
#include "tools/common/file_io.h"
#include "tools/common/progress.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/crush_loading.h"
#include "tools/crushkit/state_loading.h"

namespace crushkit::tools {
namespace {

struct DiffArgs {
  std::string before;
  std::string after;
  std::string crush_after;
  bool keep_upmaps = false;
  bool json = false;
  std::string html;
  std::vector<std::string> by;
  int threads = 0;
  int top = 5;
};

int Fail(const std::string& msg) {
  std::cerr << "crushkit diff: " << msg << "\n";
  return 1;
}

int RunDiff(const DiffArgs& a) {
  if (a.after.empty() == a.crush_after.empty()) {
    return Fail("give either a second state file or --crush-after MAP, not both");
  }
  std::optional<osdmap::ClusterState> before = LoadState("diff", a.before);
  if (!before) return 1;
  std::optional<osdmap::ClusterState> after;
  std::vector<std::string> change;
  if (!a.after.empty()) {
    after = LoadState("diff", a.after);
    if (!after) return 1;
    change.push_back("state " + a.before + " -> state " + a.after);
  } else {
    absl::StatusOr<std::string> bytes = LoadCrushMapBytes(a.crush_after);
    if (!bytes.ok()) return Fail(a.crush_after + ": " + std::string(bytes.status().message()));
    auto replaced = osdmap::WithCrushMap(*before, *std::move(bytes));
    if (!replaced.ok()) return Fail(a.crush_after + ": " + std::string(replaced.status().message()));
    after = *std::move(replaced);
    change.push_back("crush map replaced by " + a.crush_after);
  }
  osdmap::MovementOptions options;
  options.threads = a.threads;
  if (!a.by.empty()) options.domain_types = a.by;
  Progress progress("mapping PGs before and after");
  options.progress = [&](std::uint64_t done, std::uint64_t total) { progress.Update(done, total); };
  options.keep_moves = !a.html.empty();
  absl::StatusOr<osdmap::Movement> m = osdmap::DiffStates(*std::move(before), *std::move(after), options);
  if (!m.ok()) return Fail(std::string(m.status().message()));
  m->change = std::move(change);
  if (!a.html.empty()) {
    osdmap::HtmlExtras extras;
    extras.title = "crushkit diff: " + m->change.front();
    if (absl::Status s = WriteFileAtomically(a.html, osdmap::MovementHtml(*m, extras)); !s.ok()) {
      return Fail(a.html + ": " + std::string(s.message()));
    }
  }
  if (a.json) {
    absl::StatusOr<std::string> json = osdmap::MovementToJson(*m);
    if (!json.ok()) return Fail(std::string(json.status().message()));
    std::cout << *json;
  } else {
    std::cout << osdmap::MovementSummary(*m, a.top);
  }
  std::cout.flush();
  return std::cout.good() ? 0 : 1;
}

}  // namespace

void AddDiffCommand(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "What a change moves: every PG of two cluster states mapped and compared, per pool, per OSD and "
      "per failure domain, with bytes from imported PG stats.\n"
      "Example: crushkit diff before.pb after.pb\n"
      "         crushkit diff state.pb --crush-after new-crush.txt --json");
  cmd->add_option("before", args->before, "state file before the change (from `crushkit import`)")
      ->required();
  cmd->add_option("after", args->after, "state file after the change (same cluster)");
  cmd->add_option("--crush-after", args->crush_after,
                  "instead of a second state: the same state with this crush map (binary or text)");
  cmd->add_flag("--keep-upmaps", args->keep_upmaps,
                "with --crush-after: keep upmap entries the new map invalidates (osdmaptool's "
                "behaviour) instead of dropping them as the monitor does");
  cmd->add_flag("--json", args->json, "print the report as JSON (schema: osdmap/proto/movement.proto)");
  cmd->add_option("--html", args->html, "also write a self-contained HTML report to this file");
  cmd->add_option("--by", args->by, "bucket types for the from -> to matrices (default: host rack)");
  cmd->add_option("--threads", args->threads, "mapping threads (default: number of CPUs)");
  cmd->add_option("--top", args->top, "entries per list in the summary (default 5)");
  cmd->callback([args]() {
    if (const int rc = RunDiff(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
