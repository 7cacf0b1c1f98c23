// Pieces shared by the report printers (movement_report.cc, the totals and
// schedule; plan_steps_report.cc, the staged and upmap plans). Private to
// osdmap/; not installed.
#ifndef CRUSHKIT_OSDMAP_PLANNING_REPORT_INTERNAL_H_
#define CRUSHKIT_OSDMAP_PLANNING_REPORT_INTERNAL_H_

#include <string>

#include "osdmap/planning/movement.h"
#include "osdmap/planning/plan_report.h"
#include "osdmap/proto/movement.pb.h"

namespace crushkit::osdmap::internal {

void CountersToProto(const MovementCounters& c, proto::Counters* p);

// "12.3k", "4.56M": counts for a terminal.
std::string FormatCount(double n);

// The staged plan into the report (steps, staging).
void StagedPlanToProto(const StagedPlan& plan, proto::MovementReport* msg);

// The staged plan's lines of the terminal summary.
void AppendStagedPlan(std::string& out, const StagedPlan& plan, bool bytes_known);

// The upmap plan into the report (upmap_plan), and its terminal lines.
void UpmapPlanToProto(const UpmapPinPlan& plan, proto::UpmapPlan* p);
void AppendUpmapPlan(std::string& out, const UpmapPinPlan& plan, bool bytes_known);

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_PLANNING_REPORT_INTERNAL_H_
