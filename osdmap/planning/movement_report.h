// Printing a PlanReport (a Movement, osdmap/planning/movement.h, and its simulated
// backfill): the one-screen terminal summary a person reads first, and the
// JSON of osdmap/proto/movement.proto for scripts (protobuf's printer; no
// hand-built JSON).
// Thread-safety: pure functions.
#ifndef CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_REPORT_H_
#define CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_REPORT_H_

#include <string>

#include "absl/status/statusor.h"

#include "osdmap/planning/plan_report.h"

namespace crushkit::osdmap {

// The report as JSON (proto field names, zero values printed, 2-space
// indent). Errors: kInternal if protobuf refuses (it should not).
absl::StatusOr<std::string> ReportToJson(const PlanReport& r, bool with_pgs = false);

// The moving PGs (Movement::moves, kept with MovementOptions::keep_moves) as
// CSV with a header line: pg, before, after, targets (OSD lists joined with
// spaces), pusher, bytes_per_target, objects_per_target, degraded.
std::string PgMovesCsv(const Movement& m);

// A summary for a terminal, at most about 40 lines: the change, totals and
// per-pool lines, the OSDs receiving and losing most, the busiest
// failure-domain flows, the backfill estimate, and risks. `top` bounds each list.
std::string ReportSummary(const PlanReport& r, int top = 5);

// The plans' Ceph commands as a shell script: one function per staged step
// (step_0, step_1, ...) and, with an upmap plan, upmap_pins and
// upmap_batch_1, ...; `sh FILE NAME` runs one, without an argument it only
// prints the names.
std::string PlanCommandsScript(const PlanReport& r);

// To the precision it has, two units at most: "13 days 17 h", "3 h 5 min",
// "2 min 14 s", "45 s", "4.2 s".
std::string FormatDuration(double seconds);

// "1.5 TiB", "730 MiB", "0 B": binary units, 3 significant digits.
std::string FormatBytes(double bytes);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_REPORT_H_
