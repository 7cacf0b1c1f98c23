// The safety section of the plan/diff report (change_safety.h) as protobuf
// and as terminal lines. Private to osdmap/ (movement_report.cc calls it);
// not installed.
#ifndef CRUSHKIT_OSDMAP_PLANNING_CHANGE_SAFETY_REPORT_H_
#define CRUSHKIT_OSDMAP_PLANNING_CHANGE_SAFETY_REPORT_H_

#include <string>

#include "osdmap/planning/change_safety.h"
#include "osdmap/planning/movement_html.h"
#include "osdmap/proto/movement.pb.h"

namespace crushkit::osdmap::internal {

// At most 20 peak OSDs and 20 stalls.
void SafetyToProto(const ChangeSafety& s, proto::Safety* p);

// "safety:" and its lines: MAX AVAIL per pool before / lowest during /
// after, the `top` OSDs with the highest peak fill, toofull stalls.
void AppendSafety(std::string& out, const ChangeSafety& s, int top);

// The HTML page's tables: MAX AVAIL per pool, the 15 highest peak fills,
// the 15 longest toofull stalls (appended to extras.tables).
void AddSafetyTables(const ChangeSafety& s, HtmlExtras& extras);

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_PLANNING_CHANGE_SAFETY_REPORT_H_
