// Printing a comparison of alternative changes (plan_compare.h): the
// terminal table (within 100 columns), the JSON of
// osdmap/proto/movement.proto's Comparison (protobuf's printer), and the
// HTML page: the best alternative's report (movement_html.h) with the
// comparison table right after its headline.
// Thread-safety: pure functions.
#ifndef CRUSHKIT_OSDMAP_PLANNING_PLAN_COMPARE_REPORT_H_
#define CRUSHKIT_OSDMAP_PLANNING_PLAN_COMPARE_REPORT_H_

#include <string>

#include "absl/status/statusor.h"

#include "osdmap/planning/movement_html.h"
#include "osdmap/planning/plan_compare.h"

namespace crushkit::osdmap {

// The terminal table: one row per alternative, best first (a name longer
// than its column on a line of its own), the failed ones with their error,
// then MAX AVAIL per pool and the best one's where/when. `rank_by_default`:
// the criterion was not chosen (the text says it is the default).
std::string ComparisonSummary(const PlanComparison& c, bool rank_by_default);

// proto::Comparison as JSON (field names as in the .proto, zero values
// printed). Errors: kInternal if protobuf refuses (it should not).
absl::StatusOr<std::string> ComparisonToJson(const PlanComparison& c, bool rank_by_default);

// The comparison as an HTML table (HtmlExtras::top_tables).
HtmlTable ComparisonTable(const PlanComparison& c, bool rank_by_default);

// The page: c.best_report's report with the comparison table after its
// headline. REQUIRES: c.best_report (CompareOptions::keep_best).
std::string ComparisonHtml(const PlanComparison& c, bool rank_by_default, HtmlExtras extras);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_PLAN_COMPARE_REPORT_H_
