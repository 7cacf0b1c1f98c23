// `crushkit balance STATE [--pool P]... [--max N] [--deviation D]
// [--by pgs|bytes] [--seed S] [--json] [-o FILE] [--threads N]`: the upmap balancer
// (osdmap/balancer/upmap_balancer.h). Prints a summary and the `ceph osd
// pg-upmap-items` commands (or the JSON report); -o writes the state with
// the changes applied.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "osdmap/balancer/upmap_balancer.h"
#include "osdmap/balancer/upmap_balancer_report.h"
#include "osdmap/formats/state_codec.h"
#include "tools/common/file_io.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/state_loading.h"

namespace crushkit::tools {
namespace {

struct BalanceArgs {
  std::string state;
  std::vector<std::string> pools;
  int max = 100;
  double deviation = 5;
  std::string by = "pgs";
  std::uint64_t seed = 0;
  bool json = false;
  std::string output;
  int threads = 0;
};

int RunBalance(const BalanceArgs& a) {
  std::optional<osdmap::ClusterState> state = LoadState("balance", a.state);
  if (!state) return 1;
  if (auto s = osdmap::ValidateState(*state); !s.ok())
    return CommandFailed("balance", a.state + ": " + std::string(s.message()));
  osdmap::BalancerOptions options;
  for (const std::string& p : a.pools) {
    const osdmap::Pool* pool = FindPoolArg("balance", *state, p);
    if (pool == nullptr) return 1;
    options.pools.push_back(pool->id);
  }
  options.max_changes = a.max;
  options.max_deviation = a.deviation;
  options.by = a.by == "bytes" ? osdmap::BalanceBy::kBytes : osdmap::BalanceBy::kPgs;
  options.seed = a.seed;
  options.threads = a.threads;
  absl::StatusOr<osdmap::BalanceResult> result = osdmap::BalanceUpmaps(*state, options);
  if (!result.ok()) return CommandFailed("balance", std::string(result.status().message()));
  std::string out;
  if (a.json) {
    absl::StatusOr<std::string> json = osdmap::BalanceReportJson(*result);
    if (!json.ok()) return CommandFailed("balance", std::string(json.status().message()));
    out = *json;
  } else {
    out = osdmap::FormatBalanceSummary(*result, a.max, a.deviation);
    const std::string commands = osdmap::FormatBalanceCommands(*result);
    if (!commands.empty()) out += "\n" + commands;
  }
  WriteAndFlush(stdout, out);
  std::cerr << UndefinedMappingsWarning(result->diverged_from_ceph);
  if (!a.output.empty()) {
    if (!result->changes.empty() || result->cleanup.changed()) ++result->state.epoch;
    auto bytes = osdmap::SerializeState(result->state, osdmap::StateFormatForPath(a.output));
    if (!bytes.ok()) return CommandFailed("balance", std::string(bytes.status().message()));
    if (absl::Status s = WriteFileAtomically(a.output, *bytes); !s.ok()) {
      return CommandFailed("balance", std::string(s.message()));
    }
  }
  return std::ferror(stdout) ? 1 : 0;
}

}  // namespace

void AddBalanceCommand(CLI::App& app) {
  auto args = std::make_shared<BalanceArgs>();
  CLI::App* cmd = app.add_subcommand(
      "balance",
      "Compute pg_upmap_items that even out PGs (or bytes) per OSD against each OSD's\n"
      "CRUSH-weight target, keeping every pool's failure domains, device classes and\n"
      "EC shard positions (the job of `osdmaptool --upmap`, deterministic). Prints a\n"
      "summary and the `ceph osd pg-upmap-items` commands.\n"
      "  example: crushkit balance state.pb --max 200 --deviation 1 -o balanced.pb");
  cmd->add_option("state", args->state, "crushkit state file (from `crushkit import`)")->required();
  cmd->add_option("--pool", args->pools, "balance only this pool (name or id; repeatable)");
  cmd->add_option("--max", args->max, "at most this many moves, each one PG shard (default 100)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--deviation", args->deviation,
                  "stop when every OSD is within this many PGs of its target (default 5; "
                  "by bytes: this many average PG shards)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--by", args->by, "what to even out: pgs (default) or bytes (needs PG stats)")
      ->check(CLI::IsMember({"pgs", "bytes"}));
  cmd->add_option("--seed", args->seed,
                  "shuffle candidate PGs with this seed (default 0: pg order); same seed, same "
                  "result");
  cmd->add_flag("--json", args->json, "print the report as JSON (proto/balance.proto)");
  cmd->add_option("-o,--output", args->output,
                  "write the state with the upmaps applied (.pb binary, .json text)");
  cmd->add_option("--threads", args->threads,
                  "mapping threads (default: number of CPUs); output is the same for any value")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([args]() {
    if (const int rc = RunBalance(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
