// How a BalanceResult (upmap_balancer.h) and a ReadBalanceResult
// (read_balancer.h) are shown: terminal summaries that fit a screen, and
// the JSON report (proto/balance.proto). The `ceph osd`
// commands are FormatBalanceCommands() in upmap_balancer.h.
// Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_REPORT_H_
#define CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_REPORT_H_

#include <string>

#include "absl/status/statusor.h"

#include "osdmap/balancer/read_balancer.h"
#include "osdmap/balancer/upmap_balancer.h"

namespace crushkit::osdmap {

// A few lines: the totals, then one line per pool (at most 20, then a count
// of the rest) with its max deviation and stddev before -> after, its
// changes and why it stopped, then the overall line; deviations in PGs.
// By bytes: per device class the fullest and emptiest %USE and the spread
// before -> after, its moves and why it stopped (with the sentence naming
// the OSD that stopped it), then per pool its largest |PG deviation| and
// MAX AVAIL before -> after.
std::string FormatBalanceSummary(const BalanceResult& result, int max_changes,
                                 double max_deviation);

// The result as proto/balance.proto's BalanceReport printed as JSON
// (proto_json.h, zero values included; mode "upmap"). Errors as ProtoToJson.
absl::StatusOr<std::string> BalanceReportJson(const BalanceResult& result);

// The read balancer's summary: the totals, then one line per pool (at most
// 20) with its read_balance_score before -> after as `osdmaptool --print`
// shows it ("-" where Ceph cannot compute it), its changes and, when it
// kept its primaries, why.
std::string FormatReadBalanceSummary(const ReadBalanceResult& result);

// The report of `crushkit balance --mode read|upmap-read`: `upmap`'s part
// as above (when not null), then each read-balanced pool's scores, the
// pg_upmap_primaries set, and their `ceph osd pg-upmap-primary` commands
// after the upmap ones. Errors as ProtoToJson.
absl::StatusOr<std::string> BalanceReportJson(const BalanceResult* upmap,
                                              const ReadBalanceResult* read);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_REPORT_H_
