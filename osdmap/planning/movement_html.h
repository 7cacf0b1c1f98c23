// The movement report as one self-contained HTML page that fetches nothing:
// the headline and assumptions (plan_headline.h), totals and per-pool
// table, every OSD's fill before / peak / after grouped by host with the
// nearfull/backfillfull/full lines, failure-domain movement as heat maps
// with each cell's value printed, and, when given, the misplaced-over-time
// curves of a backfill schedule and a staged plan (step markers) and the
// fill per step. Charts are drawn by Chart.js (Debian's libjs-chart.js),
// inlined into the page; every charted value is also in a table beside its
// chart, and the print style shows all of them (a PDF carries every value).
// Thread-safety: pure functions; DefaultChartLibrary reads a file.
#ifndef CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_HTML_H_
#define CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_HTML_H_

#include <string>
#include <utility>
#include <vector>

#include "osdmap/planning/plan_report.h"

namespace crushkit::osdmap {

// A curve over time for the page: (seconds since the start, y) points in
// order of time; the page picks minutes, hours or days for the axis.
struct HtmlSeries {
  std::string title;
  std::string y_label;  // the axis title, with its unit: "misplaced (% of object copies)"
  std::string y_unit;   // printed after each tick: "%", "" for counts
  std::vector<std::pair<double, double>> points;
  // Vertical markers (seconds, label), e.g. where each step starts.
  std::vector<std::pair<double, std::string>> markers;
  // Horizontal reference line (e.g. the 5% misplaced target); < 0: none.
  double y_line = -1;
  std::string y_line_label;
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
  // Shown right after the headline, before "What moves" (e.g. a comparison
  // of alternative changes, plan_compare_report.h).
  std::vector<HtmlTable> top_tables;
  int max_domains = 30;  // rows/columns of each heat map (busiest first)
  // Chart.js's source (DefaultChartLibrary()), inlined; empty: the page
  // says the charts need it and shows their tables only.
  std::string chart_library;
};

// Where Debian's libjs-chart.js installs Chart.js 3 (UMD build).
inline constexpr const char* kChartLibraryPath = "/usr/share/javascript/chart.js/chart.min.js";

// Chart.js read from $CRUSHKIT_CHART_JS if set, else kChartLibraryPath;
// "" when the file cannot be read (the page then works without charts).
std::string DefaultChartLibrary();

// The page. Text from the state (pool, host names) is HTML-escaped. The
// report's schedule, if any, adds the misplaced-over-time curve and the
// busiest hosts and OSDs.
std::string ReportHtml(const PlanReport& r, HtmlExtras extras = {});

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_HTML_H_
