// How a BalanceResult (upmap_balancer.h) is shown: a terminal summary that
// fits a screen, and the JSON report (proto/balance.proto). The `ceph osd`
// commands are FormatBalanceCommands() in upmap_balancer.h.
// Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_REPORT_H_
#define CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_REPORT_H_

#include <string>

#include "absl/status/statusor.h"

#include "osdmap/balancer/upmap_balancer.h"

namespace crushkit::osdmap {

// A few lines: the totals, then one line per pool (at most 20, then a count
// of the rest) with its max deviation and stddev before -> after, its
// changes and why it stopped, then the overall line. Deviations in PGs, or
// in binary units (KiB, MiB, ...) when balancing by bytes.
std::string FormatBalanceSummary(const BalanceResult& result, int max_changes,
                                 double max_deviation);

// The result as proto/balance.proto's BalanceReport printed as JSON
// (proto_json.h, zero values included). Errors as ProtoToJson.
absl::StatusOr<std::string> BalanceReportJson(const BalanceResult& result);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_REPORT_H_
