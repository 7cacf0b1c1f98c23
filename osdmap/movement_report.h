// Printing a Movement (osdmap/movement.h): the one-screen terminal summary a
// person reads first, and the JSON of osdmap/proto/movement.proto for
// scripts (protobuf's printer; no hand-built JSON).
// Thread-safety: pure functions.
#ifndef CRUSHKIT_OSDMAP_MOVEMENT_REPORT_H_
#define CRUSHKIT_OSDMAP_MOVEMENT_REPORT_H_

#include <string>

#include "absl/status/statusor.h"
#include "osdmap/movement.h"

namespace crushkit::osdmap {

// The report as JSON (proto field names, zero values printed, 2-space
// indent). Errors: kInternal if protobuf refuses (it should not).
absl::StatusOr<std::string> MovementToJson(const Movement& m);

// A summary for a terminal, at most about 40 lines: the change, totals and
// per-pool lines, the OSDs receiving and losing most, the busiest
// failure-domain flows, and risks. `top` bounds each list.
std::string MovementSummary(const Movement& m, int top = 5);

// "1.5 TiB", "730 MiB", "0 B": binary units, 3 significant digits.
std::string FormatBytes(double bytes);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MOVEMENT_REPORT_H_
