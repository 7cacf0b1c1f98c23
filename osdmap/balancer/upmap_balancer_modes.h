// `crushkit balance`'s three modes in one call: the upmap balancer
// (upmap_balancer.h), the read balancer (read_balancer.h) or both
// (upmap-read: upmap first, then the primaries of the balanced map), and
// the report of whichever ran. Pure functions; thread-safe for distinct
// results.
#ifndef CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_MODES_H_
#define CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_MODES_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"

#include "osdmap/balancer/read_balancer.h"
#include "osdmap/balancer/upmap_balancer.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap {

enum class BalanceMode { kUpmap, kRead, kUpmapRead };

// What ran and what it changed.
struct BalanceRun {
  std::optional<BalanceResult> upmap;     // kUpmap, kUpmapRead
  std::optional<ReadBalanceResult> read;  // kRead, kUpmapRead

  // The state with every change applied (the last balancer's).
  const ClusterState& state() const { return read ? read->state : upmap->state; }

  // Whether any balancer (or the upmap cleanup) changed the state.
  bool changed() const {
    return (upmap && (!upmap->changes.empty() || upmap->cleanup.changed())) ||
           (read && !read->new_pg_upmap_primary.empty());
  }
};

// Runs `mode`'s balancers on `state` over options.pools (empty: all). The
// read balancer takes replicated pools only: in kUpmapRead the named EC
// pools are left to the upmap pass (kInvalidArgument when none of the named
// pools is replicated). Errors: BalanceUpmaps' and BalanceReads'.
absl::StatusOr<BalanceRun> RunBalance(const ClusterState& state, BalanceMode mode,
                                      const BalancerOptions& options);

// The report: with `json`, BalanceReportJson's; else the summaries
// (FormatBalanceSummary with options.max_changes and max_deviation, then
// FormatReadBalanceSummary) followed by the `ceph osd` commands, upmap ones
// first. Errors as ProtoToJson.
absl::StatusOr<std::string> FormatBalanceRun(const BalanceRun& run, bool json,
                                             const BalancerOptions& options);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_MODES_H_
