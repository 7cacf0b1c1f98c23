// RunBalance() and FormatBalanceRun() (upmap_balancer_modes.h).
#include "osdmap/balancer/upmap_balancer_modes.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "osdmap/balancer/upmap_balancer_report.h"

namespace crushkit::osdmap {

absl::StatusOr<BalanceRun> RunBalance(const ClusterState& state, BalanceMode mode,
                                      const BalancerOptions& options) {
  BalanceRun run;
  if (mode != BalanceMode::kRead) {
    absl::StatusOr<BalanceResult> result = BalanceUpmaps(state, options);
    if (!result.ok()) return result.status();
    run.upmap = std::move(*result);
  }
  if (mode != BalanceMode::kUpmap) {
    std::vector<std::int64_t> read_pools;
    for (std::int64_t id : options.pools) {
      const Pool* pool = state.FindPool(id);
      if (mode == BalanceMode::kRead || (pool != nullptr && pool->type == PoolType::kReplicated)) {
        read_pools.push_back(id);
      }
    }
    if (!options.pools.empty() && read_pools.empty()) {
      return absl::InvalidArgumentError("--mode upmap-read: no replicated pool among --pool");
    }
    absl::StatusOr<ReadBalanceResult> result =
        BalanceReads(run.upmap ? run.upmap->state : state, read_pools);
    if (!result.ok()) return result.status();
    run.read = std::move(*result);
  }
  return run;
}

absl::StatusOr<std::string> FormatBalanceRun(const BalanceRun& run, bool json,
                                             const BalancerOptions& options) {
  const BalanceResult* upmap = run.upmap ? &*run.upmap : nullptr;
  const ReadBalanceResult* read = run.read ? &*run.read : nullptr;
  if (json) return BalanceReportJson(upmap, read);
  std::string out;
  std::string commands;
  if (upmap != nullptr) {
    out = FormatBalanceSummary(*upmap, options.max_changes, options.max_deviation);
    commands = FormatBalanceCommands(*upmap);
  }
  if (read != nullptr) {
    if (!out.empty()) out += "\n";
    out += FormatReadBalanceSummary(*read);
    commands += FormatPgUpmapPrimaryCommands(read->new_pg_upmap_primary);
  }
  if (!commands.empty()) out += "\n" + commands;
  return out;
}

}  // namespace crushkit::osdmap
