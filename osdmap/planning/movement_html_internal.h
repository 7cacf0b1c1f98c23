// Pieces of the HTML report (movement_html.h) shared by its files:
// escaping, the natural order of bucket names, and the chart sections.
//
// The charts are drawn in the browser by Chart.js (Debian's libjs-chart.js,
// inlined into the page). Each chart reads its values from an HTML table
// beside it (data-* attributes of the rows), so the page holds every value
// once, as text a printout or a search can find; without the library the
// tables stay and each chart box says why it is empty.
// Thread-safety: pure functions.
#ifndef CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_HTML_INTERNAL_H_
#define CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_HTML_INTERNAL_H_

#include <string>
#include <string_view>

#include "osdmap/planning/movement_html.h"
#include "osdmap/planning/plan_report.h"

namespace crushkit::osdmap::internal {

std::string HtmlEscape(std::string_view s);

// "host2" < "host10" < "host10a": runs of digits compare as numbers.
bool NaturalLess(std::string_view a, std::string_view b);

// Every OSD's fill before, at its peak during the backfill, and after,
// grouped by failure domain (the bucket above the host), then host (both
// in natural order), with the nearfull,
// backfillfull and full lines; PGs per OSD when fill is unknown.
void OsdSection(std::string& h, const PlanReport& r);

// A from -> to matrix as a table with each cell's value printed in it, a
// colour scale, names in natural order and the busiest `max_domains`
// (the rest summed as one row and column).
void HeatMapSection(std::string& h, const DomainMatrix& d, bool bytes, int max_domains,
                    bool traffic);

// A curve over time (`id` makes the page's element ids unique).
void TimeSeriesSection(std::string& h, const HtmlSeries& s, int id);

// A staged plan's fullest receiving OSD per step.
void StepFillSection(std::string& h, const PlanReport& r);

// The <script> elements at the end of the page: `library` (Chart.js) and
// the code that draws every chart box from its table.
std::string ChartScripts(const std::string& library);

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_HTML_INTERNAL_H_
