// `crushkit balance STATE [--mode upmap|read|upmap-read] [--read] [--pool P]...
// [--max N] [--deviation D] [--by pgs|bytes] [--spread P] [--seed S] [--json]
// [-o FILE [--osdmap MAP]] [--threads N]`: the upmap balancer (osdmap/balancer/upmap_balancer.h),
// the read balancer (osdmap/balancer/read_balancer.h: pg_upmap_primaries,
// the mgr balancer's `read` mode) or both (`upmap-read`: upmap first, then
// the primaries of the balanced map). Prints a summary and the `ceph osd`
// commands (or the JSON report); -o writes the state with the changes
// applied. The modes run in osdmap/balancer/upmap_balancer_modes.h.
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "osdmap/balancer/upmap_balancer.h"
#include "osdmap/balancer/upmap_balancer_modes.h"
#include "osdmap/formats/osdmap_binary_save.h"
#include "osdmap/formats/state_codec.h"
#include "tools/common/file_io.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/state_loading.h"

namespace crushkit::tools {
namespace {

struct BalanceArgs {
  std::string state;
  std::string mode = "upmap";
  bool read = false;
  std::vector<std::string> pools;
  int max = 100;
  double deviation = 5;
  std::string by = "pgs";
  double spread = 1;
  std::string osdmap;  // with -o: the binary osdmap to write the changes onto
  std::uint64_t seed = 0;
  bool json = false;
  std::string output;
  int threads = 0;
};

// The balanced state as -o asks: the state file, or with --osdmap the
// cluster's own map with the changes, as `osdmaptool --save` writes it,
// for Ceph's tools to read.
absl::StatusOr<std::string> BalancedBytes(const BalanceArgs& a, const osdmap::ClusterState& before,
                                          const osdmap::BalanceRun& run) {
  osdmap::ClusterState after = run.state();
  if (run.changed()) ++after.epoch;
  if (a.osdmap.empty()) return osdmap::SerializeState(after, osdmap::StateFormatForPath(a.output));
  absl::StatusOr<std::string> original = ReadFileBytes(a.osdmap);
  if (!original.ok()) return original.status();
  osdmap::OsdmaptoolSave save;
  save.epoch = after.epoch;
  save.incrementals_applied = after.epoch != before.epoch;
  save.release = after.ceph_release;
  absl::StatusOr<std::string> bytes = osdmap::SaveLikeOsdmaptool(*original, after, save);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        "--osdmap " + a.osdmap + ": " + std::string(bytes.status().message()));
  }
  return bytes;
}

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
  options.max_spread = a.spread;
  options.seed = a.seed;
  options.threads = a.threads;
  const std::string mode = a.read ? "read" : a.mode;
  const osdmap::BalanceMode m = mode == "read"    ? osdmap::BalanceMode::kRead
                                : mode == "upmap" ? osdmap::BalanceMode::kUpmap
                                                  : osdmap::BalanceMode::kUpmapRead;
  absl::StatusOr<osdmap::BalanceRun> run = osdmap::RunBalance(*state, m, options);
  if (!run.ok()) return CommandFailed("balance", std::string(run.status().message()));
  absl::StatusOr<std::string> out = osdmap::FormatBalanceRun(*run, a.json, options);
  if (!out.ok()) return CommandFailed("balance", std::string(out.status().message()));
  WriteAndFlush(stdout, *out);
  if (!a.output.empty()) {
    absl::StatusOr<std::string> bytes = BalancedBytes(a, *state, *run);
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
      "EC shard positions (the job of `osdmaptool --upmap`, deterministic); with\n"
      "--mode read, pg_upmap_primaries that even out each replicated pool's primaries\n"
      "(Ceph's read balancer: reads move, no data does), reporting each pool's\n"
      "read_balance_score before and after; --mode upmap-read does both, upmap first.\n"
      "Prints a summary and the `ceph osd` commands.\n"
      "  example: crushkit balance state.pb --max 200 --deviation 1 -o balanced.pb\n"
      "  example: crushkit balance state.pb --mode upmap-read --json");
  cmd->add_option("state", args->state, "crushkit state file (from `crushkit import`)")->required();
  cmd->add_option("--mode", args->mode,
                  "upmap (default: pg_upmap_items), read (pg_upmap_primaries) or upmap-read")
      ->check(CLI::IsMember({"upmap", "read", "upmap-read"}));
  cmd->add_flag("--read", args->read, "the same as --mode read");
  cmd->add_option("--pool", args->pools, "balance only this pool (name or id; repeatable)");
  cmd->add_option("--max", args->max, "at most this many moves, each one PG shard (default 100)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--deviation", args->deviation,
                  "stop when every OSD is within this many PGs of its target (default 5; "
                  "by bytes: keep every pool within it)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--by", args->by,
                  "what to even out: pgs (default) or bytes: %USE within each device class, "
                  "PG counts kept within --deviation (needs PG stats; fill from `ceph osd df`)")
      ->check(CLI::IsMember({"pgs", "bytes"}));
  cmd->add_option("--spread", args->spread,
                  "by bytes: stop when each class's fullest - emptiest %USE is within this "
                  "many points (default 1)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", args->seed,
                  "shuffle candidate PGs with this seed (default 0: pg order); same seed, same "
                  "result");
  cmd->add_flag("--json", args->json, "print the report as JSON (proto/balance.proto)");
  CLI::Option* output =
      cmd->add_option("-o,--output", args->output,
                      "write the state with the changes applied (.pb binary, .json text)");
  cmd->add_option("--osdmap", args->osdmap,
                  "with -o: write this binary osdmap (`ceph osd getmap`, the state's cluster) "
                  "with the changes applied instead, as `osdmaptool --save` writes it")
      ->needs(output);
  cmd->add_option("--threads", args->threads,
                  "mapping threads (default: number of CPUs); output is the same for any value")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([args]() {
    if (const int rc = RunBalance(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
