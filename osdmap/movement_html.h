// The movement report as one self-contained HTML page (no network, scripts
// or fonts): totals and per-pool table, per-OSD fill before/after as bars
// with the nearfull/backfillfull/full lines, failure-domain movement as a
// heat map, and, when given, the misplaced-over-time curve of a backfill
// schedule and the steps of a staged plan.
// Thread-safety: pure functions.
#ifndef CRUSHKIT_OSDMAP_MOVEMENT_HTML_H_
#define CRUSHKIT_OSDMAP_MOVEMENT_HTML_H_

#include <string>
#include <utility>
#include <vector>

#include "osdmap/plan_report.h"

namespace crushkit::osdmap {

// A curve for the page: (x, y) points in order of x.
struct HtmlSeries {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::pair<double, double>> points;
  // Horizontal reference line (e.g. the 5% misplaced target); < 0: none.
  double y_line = -1;
};

// One row of a table the page shows as is (e.g. a staged plan's steps).
struct HtmlTable {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

struct HtmlExtras {
  std::string title = "crushkit movement report";
  std::vector<HtmlSeries> series;  // e.g. the misplaced ratio over time
  std::vector<HtmlTable> tables;   // e.g. staged plan steps, busiest OSDs
  int max_osd_bars = 120;          // OSDs drawn in the fill chart (fullest first)
  int max_domains = 40;            // rows/columns of each heat map (busiest first)
};

// The page. Text from the state (pool, host names) is HTML-escaped. The
// report's schedule, if any, adds the misplaced-over-time curve and the
// busiest hosts and OSDs.
std::string ReportHtml(const PlanReport& r, HtmlExtras extras = {});

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MOVEMENT_HTML_H_
