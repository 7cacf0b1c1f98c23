// The chart sections of the HTML report: each is a chart box (drawn by the
// script of movement_html_script.cc) and the table of its values.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include "osdmap/planning/movement_html_internal.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/plan_headline.h"

namespace crushkit::osdmap::internal {
namespace {

// At most this many points of a curve go into the page (every k-th and
// the last): a schedule of 100,000 jobs would otherwise weigh megabytes.
constexpr std::size_t kMaxCurvePoints = 600;

// The ratio lines as the chart box's data attributes (percent).
std::string RatioAttributes(const MovementRisks& risks) {
  return absl::StrFormat(" data-nearfull='%.4g' data-backfillfull='%.4g' data-full='%.4g'",
                         100 * risks.nearfull_ratio, 100 * risks.backfillfull_ratio,
                         100 * risks.full_ratio);
}

// Cell values of a heat map in one unit for the whole matrix.
struct ValueUnit {
  double divisor = 1;
  std::string name;  // "TiB", "shards"
};

ValueUnit UnitFor(double peak, bool bytes) {
  if (!bytes) return {1, "shards"};
  const std::pair<double, const char*> units[] = {
      {1024.0 * 1024 * 1024 * 1024, "TiB"}, {1024.0 * 1024 * 1024, "GiB"}, {1024.0 * 1024, "MiB"}};
  for (const auto& [d, n] : units) {
    if (peak >= d) return {d, n};
  }
  return {1024, "KiB"};
}

std::string CellText(double v, const ValueUnit& u) {
  if (v <= 0) return "0";
  const double x = v / u.divisor;
  if (u.name == "shards" || x >= 100) return absl::StrFormat("%.0f", x);
  if (x >= 10) return absl::StrFormat("%.1f", x);
  return absl::StrFormat("%.2f", x);
}

bool IsPseudoName(const std::string& n) { return !n.empty() && n.front() == '('; }

}  // namespace

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

bool NaturalLess(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && digit(a[ei])) ++ei;
      while (ej < b.size() && digit(b[ej])) ++ej;
      // Compare the numbers without leading zeros: longer is larger.
      std::string_view na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      while (na.size() > 1 && na.front() == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb.front() == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

void OsdSection(std::string& h, const PlanReport& r) {
  const Movement& m = r.movement;
  const bool bytes = m.bytes_source != BytesSource::kUnknown;
  auto fill_known = [bytes](const OsdMovement& o) {
    return o.capacity_bytes > 0 && (bytes || o.capacity_from_osd_df);
  };
  const bool any_fill = std::any_of(m.osds.begin(), m.osds.end(), fill_known);
  std::map<std::int32_t, double> peak;
  if (r.safety && r.safety->fill) {
    for (const OsdFillPeak& p : r.safety->fill->osds) peak[p.osd] = p.fill_peak;
  }
  std::vector<const OsdMovement*> osds;
  for (const OsdMovement& o : m.osds) osds.push_back(&o);
  std::sort(osds.begin(), osds.end(), [](const OsdMovement* a, const OsdMovement* b) {
    if (a->domain != b->domain) return NaturalLess(a->domain, b->domain);
    if (a->host != b->host) return NaturalLess(a->host, b->host);
    return a->osd < b->osd;
  });
  std::set<std::string> hosts, domains;
  for (const OsdMovement* o : osds) {
    hosts.insert(o->host);
    if (!o->domain.empty()) domains.insert(o->domain);
  }
  absl::StrAppend(&h, "<h2>OSDs before and after</h2>\n<p class=muted>All ",
                  Plural(osds.size(), "OSD"), " that exist before or after the change, on ",
                  Plural(hosts.size(), "host"));
  if (!domains.empty()) {
    absl::StrAppend(&h, " in ", Plural(domains.size(), "failure domain"),
                    " (the bucket above the host, e.g. its rack)");
  }
  absl::StrAppend(&h, ", grouped by ", domains.empty() ? "" : "failure domain, then ",
                  "host (natural order; each chart's title names its domains and hosts). ");
  if (any_fill) {
    absl::StrAppend(
        &h,
        "Bars: fill after the change (blue; orange at or past nearfull, red at or past full); "
        "grey dash: before; red triangle: the peak while backfilling (a new copy lands before "
        "the copy it replaces is deleted)",
        peak.empty() ? " (not simulated here)" : "",
        ". Dashed lines: the nearfull, backfillfull and full ratios. Fill = used / capacity (",
        bytes ? "PG stats" : "ceph osd df", ").</p>\n<div class=chart id=osd-chart data-kind=osd",
        " data-table=osd-values data-unit='%' data-ytitle='fill (% of the OSD&#39;s capacity)'",
        RatioAttributes(m.risks), "></div>\n");
  } else {
    h += "Fill is unknown (no PG stats or `ceph osd df` imported): PGs per OSD, bars after the "
         "change, grey dash before.</p>\n<div class=chart id=osd-chart data-kind=osd "
         "data-table=osd-values data-unit='PGs' data-ytitle='PGs on the OSD (count)'></div>\n";
  }
  h += "<div class='values scroll'><table id=osd-values class=data><thead><tr><th>domain</th>"
       "<th>host</th><th>OSD</th><th>class</th>";
  if (any_fill) h += "<th>fill before</th><th>peak during</th><th>fill after</th>";
  h += "<th>PGs before</th><th>PGs after</th></tr></thead><tbody>\n";
  for (const OsdMovement* o : osds) {
    absl::StrAppend(&h, "<tr data-domain='", HtmlEscape(o->domain), "' data-host='",
                    HtmlEscape(o->host), "' data-osd=", o->osd);
    std::string cells;
    if (any_fill && fill_known(*o)) {
      auto it = peak.find(o->osd);
      const double pk = it != peak.end() ? it->second : std::max(o->fill_before, o->fill_after);
      absl::StrAppendFormat(&h, " data-before=%.2f data-after=%.2f", 100 * o->fill_before,
                            100 * o->fill_after);
      if (it != peak.end()) absl::StrAppendFormat(&h, " data-peak=%.2f", 100 * pk);
      cells = absl::StrFormat("<td>%.1f%%</td><td>%s</td><td>%.1f%%</td>", 100 * o->fill_before,
                              it != peak.end() ? absl::StrFormat("%.1f%%", 100 * pk) : "-",
                              100 * o->fill_after);
    } else if (any_fill) {
      cells = "<td>-</td><td>-</td><td>-</td>";
    } else {
      absl::StrAppend(&h, " data-before=", o->pgs_before, " data-after=", o->pgs_after);
    }
    absl::StrAppend(&h, "><td>", HtmlEscape(o->domain), "</td><td>", HtmlEscape(o->host),
                    "</td><td>osd.", o->osd, "</td><td>", HtmlEscape(o->device_class), "</td>",
                    cells, "<td>", o->pgs_before, "</td><td>", o->pgs_after, "</td></tr>\n");
  }
  h += "</tbody></table></div>\n";
}

namespace {

// A domain matrix as the page shows it: the `max_domains` busiest domains
// (sent plus received) by name, in natural order with "(new)"/"(none)"
// last, and the rest summed into one "other N" row and column.
struct HeatGrid {
  std::vector<std::string> names;  // rows = columns; "other N" last when folded
  std::vector<double> cells;       // names.size() squared, row (from) major
  std::vector<double> rows, cols;  // row and column totals
  double total = 0;
  double peak = 0;          // the largest cell
  std::size_t shown = 0;    // domains shown by name
  std::size_t domains = 0;  // every domain of the matrix
  bool has_new = false;     // a "(new)" domain: copies with no previous holder
  bool has_none = false;    // a "(none)" domain: OSDs in no domain
};

double HeatValue(const DomainCell& c, bool bytes) {
  return bytes ? static_cast<double>(c.bytes) : static_cast<double>(c.shards);
}

// The `max_domains` busiest names of `load` that carry any, in display order.
std::vector<std::string> BusiestDomains(const std::map<std::string, double>& load,
                                        int max_domains) {
  std::vector<std::pair<double, std::string>> busiest;
  for (const auto& [name, v] : load) {
    if (v > 0) busiest.emplace_back(-v, name);
  }
  std::sort(busiest.begin(), busiest.end());
  const std::size_t shown = std::min(busiest.size(), static_cast<std::size_t>(max_domains));
  std::vector<std::string> names;
  for (std::size_t i = 0; i < shown; ++i) names.push_back(busiest[i].second);
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    if (IsPseudoName(a) != IsPseudoName(b)) return IsPseudoName(b);
    return NaturalLess(a, b);
  });
  return names;
}

HeatGrid FoldHeatMap(const DomainMatrix& d, bool bytes, int max_domains) {
  std::map<std::string, double> load;
  for (const std::string& n : d.names) load[n] += 0;
  for (const DomainCell& c : d.cells) {
    load[c.from] += HeatValue(c, bytes);
    load[c.to] += HeatValue(c, bytes);
  }
  HeatGrid g;
  g.names = BusiestDomains(load, max_domains);
  g.shown = g.names.size();
  g.domains = load.size();
  g.has_new = load.contains("(new)");
  g.has_none = load.contains("(none)");
  const std::size_t others = load.size() - g.shown;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < g.names.size(); ++i) index[g.names[i]] = i;
  const std::size_t n = g.names.size() + (others > 0 ? 1 : 0);
  if (others > 0) g.names.push_back(absl::StrCat("other ", others));
  g.cells.assign(n * n, 0);
  g.rows.assign(n, 0);
  g.cols.assign(n, 0);
  for (const DomainCell& c : d.cells) {
    auto f = index.find(c.from), t = index.find(c.to);
    const std::size_t fi = f != index.end() ? f->second : n - 1;
    const std::size_t ti = t != index.end() ? t->second : n - 1;
    g.cells[fi * n + ti] += HeatValue(c, bytes);
    g.rows[fi] += HeatValue(c, bytes);
    g.cols[ti] += HeatValue(c, bytes);
    g.total += HeatValue(c, bytes);
  }
  g.peak = *std::max_element(g.cells.begin(), g.cells.end());
  return g;
}

// The section's title and the paragraph that says how to read it.
void AppendHeatMapIntro(std::string& h, const std::string& type, bool traffic, bool bytes,
                        const HeatGrid& g, const ValueUnit& unit) {
  absl::StrAppend(&h, "<h2>", type, " to ", type,
                  traffic ? " network traffic" : " placement of copies", "</h2>\n<p class=muted>",
                  traffic ? absl::StrCat("Each row is the ", type,
                                         " that sends (the OSD pushing the backfill, or for EC an "
                                         "OSD whose shard it reads); each column the ",
                                         type, " that receives. ")
                          : absl::StrCat("Each row is the ", type,
                                         " of the copy a new copy replaces (not who sends it: see "
                                         "the network traffic); each column the ",
                                         type, " where the new copy is. "),
                  "Cells: ", bytes ? absl::StrCat(unit.name, " moved") : "shards moved",
                  " (darker is more, scale below); the last row and column are totals. "
                  "Names in natural order.");
  if (g.has_new) {
    h += " (new): the copy had no previous holder (a hole refilled or a pool growing a copy).";
  }
  if (g.has_none) {
    absl::StrAppend(&h, " (none): an OSD in no ", type, ".");
  }
  if (g.shown < g.domains) {
    absl::StrAppend(&h, " Only the ", g.shown, " busiest of ", g.domains, " are shown; \"",
                    g.names.back(), "\" sums the other ", g.domains - g.shown, ".");
  }
  h += "</p>\n";
}

// The matrix with its totals and the colour scale under it.
void AppendHeatMapTable(std::string& h, const std::string& type, bool traffic, const HeatGrid& g,
                        const ValueUnit& unit) {
  const std::size_t n = g.names.size();
  absl::StrAppend(&h, "<div class=tw><table class=heat data-type='", type,
                  "'><thead><tr><th class=corner>", traffic ? "from \\ to" : "old \\ new", "</th>");
  for (const std::string& c : g.names) {
    absl::StrAppend(&h, "<th class=col title='", traffic ? "receiving " : "new copy on ", type, " ",
                    HtmlEscape(c), "'>", HtmlEscape(c), "</th>");
  }
  h += "<th class=col>total</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < n; ++i) {
    absl::StrAppend(&h, "<tr><th title='", traffic ? "sending " : "old copy on ", type, " ",
                    HtmlEscape(g.names[i]), "'>", HtmlEscape(g.names[i]), "</th>");
    for (std::size_t j = 0; j < n; ++j) {
      const double v = g.cells[i * n + j];
      const double a = g.peak > 0 && v > 0 ? 0.08 + 0.92 * v / g.peak : 0;
      absl::StrAppendFormat(&h, "<td class=v style='background:rgba(204,51,0,%.3f)%s'>%s</td>", a,
                            a > 0.55 ? ";color:#fff" : "", CellText(v, unit));
    }
    absl::StrAppend(&h, "<td class='v tot'>", CellText(g.rows[i], unit), "</td></tr>\n");
  }
  h += "<tr class=tot><th>total</th>";
  for (std::size_t j = 0; j < n; ++j) {
    absl::StrAppend(&h, "<td class='v tot'>", CellText(g.cols[j], unit), "</td>");
  }
  absl::StrAppend(
      &h, "<td class='v tot'>", CellText(g.total, unit),
      "</td></tr>\n</tbody></table></div>\n<div class=scale>0 <span class=grad></span> ",
      CellText(g.peak, unit), " ", unit.name, " (the largest cell)</div>\n");
}

}  // namespace

void HeatMapSection(std::string& h, const DomainMatrix& d, bool bytes, int max_domains,
                    bool traffic) {
  const HeatGrid grid = FoldHeatMap(d, bytes, max_domains);
  const ValueUnit unit = UnitFor(grid.peak, bytes);
  const std::string type = HtmlEscape(d.type);
  AppendHeatMapIntro(h, type, traffic, bytes, grid, unit);
  AppendHeatMapTable(h, type, traffic, grid, unit);
}

void TimeSeriesSection(std::string& h, const HtmlSeries& s, int id) {
  if (s.points.empty()) return;
  const std::string table = absl::StrCat("series-", id);
  absl::StrAppend(&h, "<h2>", HtmlEscape(s.title), "</h2>\n<div class=chart data-kind=time",
                  " data-table=", table, " data-ytitle='", HtmlEscape(s.y_label), "' data-yunit='",
                  HtmlEscape(s.y_unit), "'");
  if (s.y_line >= 0) {
    absl::StrAppendFormat(&h, " data-line=%.6g data-linelabel='%s'", s.y_line,
                          HtmlEscape(s.y_line_label));
  }
  absl::StrAppend(&h, "></div>\n<div class='values scroll'><table id=", table,
                  " class=data><thead><tr><th>time since the start</th><th>", HtmlEscape(s.y_label),
                  "</th></tr></thead><tbody>\n");
  const std::size_t stride = s.points.size() / kMaxCurvePoints + 1;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    if (i % stride != 0 && i + 1 != s.points.size()) continue;
    const auto& [x, y] = s.points[i];
    absl::StrAppendFormat(&h, "<tr data-s=%.1f data-y=%.4g><td>%s</td><td>%.4g%s</td></tr>\n", x, y,
                          FormatDuration(x), y, HtmlEscape(s.y_unit));
  }
  for (const auto& [x, label] : s.markers) {
    absl::StrAppendFormat(&h,
                          "<tr class=mark data-s=%.1f data-mark='%s'><td>%s</td><td>%s</td></tr>\n",
                          x, HtmlEscape(label), FormatDuration(x), HtmlEscape(label));
  }
  h += "</tbody></table></div>\n";
}

void StepFillSection(std::string& h, const PlanReport& r) {
  if (!r.staged) return;
  const StagedPlan& p = *r.staged;
  const bool any = std::any_of(p.steps.begin(), p.steps.end(), [](const PlanStep& s) {
    return s.peak.osd != crush::kItemNone && s.peak.capacity > 0;
  });
  if (!any) return;
  absl::StrAppend(
      &h,
      "<h2>Fill per step</h2>\n<p class=muted>For each step of the staged plan, the fullest OSD "
      "that receives data in it, at the step's worst moment: its use when the step starts plus "
      "everything it receives in the step (nothing it gives up is deleted yet). Dashed lines: "
      "nearfull, backfillfull and full",
      p.max_fill > 0 ? absl::StrFormat(", and --max-fill %.3g%%", 100 * p.max_fill) : "",
      ".</p>\n<div class=chart data-kind=steps data-table=step-fill data-ytitle='fill of the "
      "fullest receiving OSD (%)'",
      RatioAttributes(r.movement.risks));
  if (p.max_fill > 0) absl::StrAppendFormat(&h, " data-limit='%.4g'", 100 * p.max_fill);
  h += "></div>\n<div class='values scroll'><table id=step-fill class=data><thead><tr><th>step"
       "</th><th>OSD</th><th>fill at the step's start</th><th>receives</th><th>fill at worst</th>"
       "</tr></thead><tbody>\n";
  for (const PlanStep& s : p.steps) {
    if (s.peak.osd == crush::kItemNone || s.peak.capacity == 0) {
      absl::StrAppend(&h, "<tr data-label='step ", s.index, "' data-y=0><td>", s.index,
                      "</td><td>none receives</td><td></td><td></td><td></td></tr>\n");
      continue;
    }
    absl::StrAppendFormat(&h,
                          "<tr data-label='step %d' data-y=%.2f data-osd=%d><td>%d</td><td>osd.%d"
                          "</td><td>%.1f%%</td><td>%s</td><td>%.1f%%</td></tr>\n",
                          s.index, 100 * s.peak.fill, s.peak.osd, s.index, s.peak.osd,
                          100 * s.peak.start_fill,
                          FormatBytes(static_cast<double>(s.peak.incoming)), 100 * s.peak.fill);
  }
  h += "</tbody></table></div>\n";
}

}  // namespace crushkit::osdmap::internal
