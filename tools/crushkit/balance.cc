// `crushkit balance STATE [--mode upmap|read|upmap-read] [--read] [--pool P]...
// [--max N] [--deviation D] [--by pgs|bytes] [--spread P] [--seed S] [--json]
// [-o FILE [--osdmap MAP]] [--threads N]`: the upmap balancer (osdmap/balancer/upmap_balancer.h),
// the read balancer (osdmap/balancer/read_balancer.h: pg_upmap_primaries,
// the mgr balancer's `read` mode) or both (`upmap-read`: upmap first, then
// the primaries of the balanced map). Prints a summary and the `ceph osd`
// commands (or the JSON report); -o writes the state with the changes
// applied.
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "osdmap/balancer/read_balancer.h"
#include "osdmap/balancer/upmap_balancer.h"
#include "osdmap/balancer/upmap_balancer_report.h"
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

int RunBalance(const BalanceArgs& a) {
  const std::string mode = a.read ? "read" : a.mode;
  std::optional<osdmap::ClusterState> state = LoadState("balance", a.state);
  if (!state) return 1;
  if (auto s = osdmap::ValidateState(*state); !s.ok())
    return CommandFailed("balance", a.state + ": " + std::string(s.message()));
  std::vector<std::int64_t> pool_ids;
  for (const std::string& p : a.pools) {
    const osdmap::Pool* pool = FindPoolArg("balance", *state, p);
    if (pool == nullptr) return 1;
    pool_ids.push_back(pool->id);
  }
  std::optional<osdmap::BalanceResult> upmap;
  if (mode != "read") {
    osdmap::BalancerOptions options;
    options.pools = pool_ids;
    options.max_changes = a.max;
    options.max_deviation = a.deviation;
    options.by = a.by == "bytes" ? osdmap::BalanceBy::kBytes : osdmap::BalanceBy::kPgs;
    options.max_spread = a.spread;
    options.seed = a.seed;
    options.threads = a.threads;
    absl::StatusOr<osdmap::BalanceResult> result = osdmap::BalanceUpmaps(*state, options);
    if (!result.ok()) return CommandFailed("balance", std::string(result.status().message()));
    upmap = std::move(*result);
  }
  std::optional<osdmap::ReadBalanceResult> read;
  if (mode != "upmap") {
    // The read balancer takes replicated pools only: named EC pools are
    // left to the upmap pass in upmap-read mode.
    std::vector<std::int64_t> read_pools;
    for (std::int64_t id : pool_ids) {
      if (mode == "read" || state->FindPool(id)->type == osdmap::PoolType::kReplicated)
        read_pools.push_back(id);
    }
    if (!pool_ids.empty() && read_pools.empty()) {
      return CommandFailed("balance", "--mode upmap-read: no replicated pool among --pool");
    }
    absl::StatusOr<osdmap::ReadBalanceResult> result =
        osdmap::BalanceReads(upmap ? upmap->state : *state, read_pools);
    if (!result.ok()) return CommandFailed("balance", std::string(result.status().message()));
    read = std::move(*result);
  }
  std::string out;
  if (a.json) {
    absl::StatusOr<std::string> json =
        osdmap::BalanceReportJson(upmap ? &*upmap : nullptr, read ? &*read : nullptr);
    if (!json.ok()) return CommandFailed("balance", std::string(json.status().message()));
    out = *json;
  } else {
    std::string commands;
    if (upmap) {
      out = osdmap::FormatBalanceSummary(*upmap, a.max, a.deviation);
      commands = osdmap::FormatBalanceCommands(*upmap);
    }
    if (read) {
      if (!out.empty()) out += "\n";
      out += osdmap::FormatReadBalanceSummary(*read);
      commands += osdmap::FormatPgUpmapPrimaryCommands(read->new_pg_upmap_primary);
    }
    if (!commands.empty()) out += "\n" + commands;
  }
  WriteAndFlush(stdout, out);
  if (!a.output.empty()) {
    osdmap::ClusterState after = read ? read->state : upmap->state;
    if ((upmap && (!upmap->changes.empty() || upmap->cleanup.changed())) ||
        (read && !read->new_pg_upmap_primary.empty())) {
      ++after.epoch;
    }
    absl::StatusOr<std::string> bytes;
    if (a.osdmap.empty()) {
      bytes = osdmap::SerializeState(after, osdmap::StateFormatForPath(a.output));
    } else {
      // The cluster's own map with the changes, as `osdmaptool --save`
      // writes it, for Ceph's tools to read.
      absl::StatusOr<std::string> original = ReadFileBytes(a.osdmap);
      if (!original.ok()) return CommandFailed("balance", std::string(original.status().message()));
      osdmap::OsdmaptoolSave save;
      save.epoch = after.epoch;
      save.incrementals_applied = after.epoch != state->epoch;
      save.release = after.ceph_release;
      bytes = osdmap::SaveLikeOsdmaptool(*original, after, save);
      if (!bytes.ok()) {
        return CommandFailed("balance",
                             "--osdmap " + a.osdmap + ": " + std::string(bytes.status().message()));
      }
    }
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
