#include "osdmap/movement_html.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include "osdmap/change_safety_report.h"
#include "osdmap/movement_report.h"
#include "osdmap/plan_headline.h"

namespace crushkit::osdmap {
namespace {

std::string Escape(std::string_view s) {
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

constexpr const char* kStyle = R"(<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 10px;text-align:right;border-bottom:1px solid #eee}
th{background:#f5f5f5}td:first-child,th:first-child{text-align:left}
table.kv th{text-align:left;background:none;white-space:nowrap}table.kv td{text-align:left}
.note{color:#a40}.muted{color:#777}svg text{font:11px system-ui,sans-serif}
</style>)";

std::string Pct(double part, double whole) {
  return whole > 0 ? absl::StrFormat("%.1f%%", 100 * part / whole) : "-";
}

void PoolTable(std::string& h, const Movement& m) {
  const bool bytes = m.bytes_source != BytesSource::kUnknown;
  h += "<table><tr><th>pool</th><th>PGs</th><th>remapped</th><th>shards moved</th>";
  if (bytes) h += "<th>objects to move</th><th>bytes to move</th><th>of stored</th>";
  h += "<th>degraded after</th><th>inactive after</th><th>amplification</th></tr>\n";
  auto row = [&](const MovementCounters& c) {
    absl::StrAppend(&h, "<tr><td>", Escape(c.pool_name), "</td><td>", c.pgs, "</td><td>",
                    c.pgs_remapped, " (", Pct(c.pgs_remapped, c.pgs), ")</td><td>", c.shards_moved,
                    " (", Pct(c.shards_moved, c.shards_total), ")</td>");
    if (bytes) {
      absl::StrAppend(&h, "<td>", c.objects_to_move, "</td><td>",
                      FormatBytes(static_cast<double>(c.bytes_to_move)), "</td><td>",
                      Pct(static_cast<double>(c.bytes_to_move), static_cast<double>(c.bytes_total)),
                      "</td>");
    }
    absl::StrAppend(&h, "<td>", c.pgs_degraded_after, "</td><td>", c.pgs_inactive_after,
                    "</td><td>",
                    c.amplification > 0             ? absl::StrFormat("%.2fx", c.amplification)
                    : !c.amplification_note.empty() ? "n/a"
                                                    : "-",
                    "</td></tr>\n");
  };
  for (const MovementCounters& c : m.pools) row(c);
  if (m.pools.size() > 1) row(m.totals);
  h += "</table>\n";
}

// Without bytes or `ceph osd df`, fill is unknown: PGs per OSD instead.
void PgCountChart(std::string& h, const Movement& m, int max_bars) {
  std::vector<const OsdMovement*> osds;
  for (const OsdMovement& o : m.osds) osds.push_back(&o);
  std::sort(osds.begin(), osds.end(), [](const OsdMovement* a, const OsdMovement* b) {
    const auto da = static_cast<long>(a->pgs_in) + a->pgs_out,
               db = static_cast<long>(b->pgs_in) + b->pgs_out;
    return da != db ? da > db : a->osd < b->osd;
  });
  if (static_cast<int>(osds.size()) > max_bars) osds.resize(static_cast<std::size_t>(max_bars));
  std::sort(osds.begin(), osds.end(),
            [](const OsdMovement* a, const OsdMovement* b) { return a->osd < b->osd; });
  std::uint32_t top = 1;
  for (const OsdMovement* o : osds) top = std::max({top, o->pgs_before, o->pgs_after});
  const int bar = 9, gap = 3, height = 200, left = 40;
  const int width = left + static_cast<int>(osds.size()) * (2 * bar + gap) + 10;
  auto y = [&](double v) { return 10 + height - static_cast<int>(std::lround(v / top * height)); };
  absl::StrAppend(&h, "<svg width='", width, "' height='", height + 60, "' role='img'>\n");
  absl::StrAppendFormat(&h, "<text x='2' y='%d'>%u</text><text x='2' y='%d'>0</text>\n", y(top) + 4,
                        top, y(0) + 4);
  int x = left;
  for (const OsdMovement* o : osds) {
    absl::StrAppendFormat(&h,
                          "<rect x='%d' y='%d' width='%d' height='%d' fill='#bbb'><title>osd.%d: "
                          "%u PGs before</title></rect>\n",
                          x, y(o->pgs_before), bar, 10 + height - y(o->pgs_before), o->osd,
                          o->pgs_before);
    absl::StrAppendFormat(&h,
                          "<rect x='%d' y='%d' width='%d' height='%d' fill='#36c'><title>osd.%d "
                          "%s: %u PGs after (+%u -%u)</title></rect>\n",
                          x + bar, y(o->pgs_after), bar, 10 + height - y(o->pgs_after), o->osd,
                          Escape(o->host), o->pgs_after, o->pgs_in, o->pgs_out);
    absl::StrAppendFormat(&h, "<text x='%d' y='%d' transform='rotate(60 %d %d)'>%d</text>\n", x,
                          height + 24, x, height + 24, o->osd);
    x += 2 * bar + gap;
  }
  h += "</svg>\n<p class=muted>Fill is unknown (no PG stats or `ceph osd df` imported): PGs per "
       "OSD, grey "
       "before, blue after, for the OSDs that change most.</p>\n";
}

// Fill before (grey) and after (blue, orange past nearfull, red past full)
// for the fullest OSDs, with the ratio lines.
void FillChart(std::string& h, const Movement& m, int max_bars) {
  std::vector<const OsdMovement*> osds;
  const bool fill_known = m.bytes_source != BytesSource::kUnknown;
  for (const OsdMovement& o : m.osds) {
    if (o.capacity_bytes > 0 && (fill_known || o.capacity_from_osd_df)) osds.push_back(&o);
  }
  if (osds.empty()) {
    PgCountChart(h, m, max_bars);
    return;
  }
  std::sort(osds.begin(), osds.end(), [](const OsdMovement* a, const OsdMovement* b) {
    return a->fill_after != b->fill_after ? a->fill_after > b->fill_after : a->osd < b->osd;
  });
  if (static_cast<int>(osds.size()) > max_bars) osds.resize(static_cast<std::size_t>(max_bars));
  const double top = std::max({1.0, static_cast<double>(m.risks.full_ratio) + 0.05,
                               osds.front()->fill_after + 0.05, osds.front()->fill_before + 0.05});
  const int bar = 9, gap = 3, height = 220, left = 40;
  const int width = left + static_cast<int>(osds.size()) * (2 * bar + gap) + 10;
  auto y = [&](double f) { return 10 + height - static_cast<int>(std::lround(f / top * height)); };
  absl::StrAppend(&h, "<svg width='", width, "' height='", height + 60, "' role='img'>\n");
  for (double t = 0; t <= top + 1e-9; t += 0.25) {
    absl::StrAppendFormat(
        &h,
        "<text x='2' y='%d'>%.0f%%</text><line x1='%d' x2='%d' y1='%d' y2='%d' stroke='#eee'/>\n",
        y(t) + 4, 100 * t, left, width, y(t), y(t));
  }
  const std::pair<double, const char*> lines[] = {{m.risks.nearfull_ratio, "#e90"},
                                                  {m.risks.backfillfull_ratio, "#d60"},
                                                  {m.risks.full_ratio, "#c00"}};
  for (const auto& [ratio, color] : lines) {
    absl::StrAppendFormat(
        &h, "<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='%s' stroke-dasharray='4 3'/>\n", left,
        width, y(ratio), y(ratio), color);
  }
  int x = left;
  for (const OsdMovement* o : osds) {
    const char* color = o->fill_after >= m.risks.full_ratio       ? "#c00"
                        : o->fill_after >= m.risks.nearfull_ratio ? "#e90"
                                                                  : "#36c";
    absl::StrAppendFormat(&h,
                          "<rect x='%d' y='%d' width='%d' height='%d' fill='#bbb'><title>osd.%d "
                          "before %.1f%%</title></rect>\n",
                          x, y(o->fill_before), bar, 10 + height - y(o->fill_before), o->osd,
                          100 * o->fill_before);
    absl::StrAppendFormat(&h,
                          "<rect x='%d' y='%d' width='%d' height='%d' fill='%s'><title>osd.%d %s "
                          "after %.1f%%</title></rect>\n",
                          x + bar, y(o->fill_after), bar, 10 + height - y(o->fill_after), color,
                          o->osd, Escape(o->host), 100 * o->fill_after);
    absl::StrAppendFormat(&h, "<text x='%d' y='%d' transform='rotate(60 %d %d)'>%d</text>\n", x,
                          height + 24, x, height + 24, o->osd);
    x += 2 * bar + gap;
  }
  h += "</svg>\n<p class=muted>Grey: fill before; blue: after (orange past nearfull, red past "
       "full). "
       "Dashed: nearfull, backfillfull, full ratios.</p>\n";
}

// `traffic`: a network matrix (sender -> receiver) instead of the placement
// one (old copy -> new copy).
void HeatMap(std::string& h, const DomainMatrix& d, bool bytes, int max_domains, bool traffic) {
  std::map<std::string, double> load;
  for (const DomainCell& c : d.cells) {
    const double v = bytes ? static_cast<double>(c.bytes) : c.shards;
    load[c.from] += v;
    load[c.to] += v;
  }
  std::vector<std::pair<double, std::string>> busiest;
  for (const auto& [name, v] : load) busiest.emplace_back(-v, name);
  std::sort(busiest.begin(), busiest.end());
  if (static_cast<int>(busiest.size()) > max_domains)
    busiest.resize(static_cast<std::size_t>(max_domains));
  std::vector<std::string> names;
  for (const auto& b : busiest) names.push_back(b.second);
  std::sort(names.begin(), names.end());
  std::map<std::string, int> index;
  for (std::size_t i = 0; i < names.size(); ++i) index[names[i]] = static_cast<int>(i);
  double peak = 0;
  for (const DomainCell& c : d.cells)
    peak = std::max(peak, bytes ? static_cast<double>(c.bytes) : c.shards);
  const int cell = 16, left = 110, top = 110;
  const int size = static_cast<int>(names.size()) * cell;
  absl::StrAppend(&h, "<h2>", Escape(d.type), " to ", Escape(d.type),
                  traffic ? " network traffic" : " placement of copies", "</h2>\n<svg width='",
                  left + size + 10, "' height='", top + size + 10, "' role='img'>\n");
  for (std::size_t i = 0; i < names.size(); ++i) {
    const int p = static_cast<int>(i) * cell;
    absl::StrAppendFormat(&h, "<text x='%d' y='%d' text-anchor='end'>%s</text>\n", left - 4,
                          top + p + 12, Escape(names[i]));
    absl::StrAppendFormat(&h, "<text x='%d' y='%d' transform='rotate(-60 %d %d)'>%s</text>\n",
                          left + p + 10, top - 4, left + p + 10, top - 4, Escape(names[i]));
  }
  for (const DomainCell& c : d.cells) {
    auto f = index.find(c.from);
    auto t = index.find(c.to);
    if (f == index.end() || t == index.end() || peak <= 0) continue;
    const double v = bytes ? static_cast<double>(c.bytes) : c.shards;
    const double alpha = 0.08 + 0.92 * v / peak;
    absl::StrAppendFormat(
        &h,
        "<rect x='%d' y='%d' width='%d' height='%d' fill='#c30' fill-opacity='%.3f'>"
        "<title>%s -> %s: %u shards, %s</title></rect>\n",
        left + t->second * cell, top + f->second * cell, cell - 1, cell - 1, alpha, Escape(c.from),
        Escape(c.to), c.shards, FormatBytes(static_cast<double>(c.bytes)));
  }
  absl::StrAppend(&h, "</svg>\n<p class=muted>Darkest cell: ",
                  bytes ? FormatBytes(peak) : absl::StrFormat("%.0f shards", peak),
                  traffic ? absl::StrCat(". Rows: the ", Escape(d.type),
                                         " that sends (the OSD pushing the backfill, or for EC an "
                                         "OSD whose shard it reads); columns: the one receiving. ")
                          : absl::StrCat(". Rows: the ", Escape(d.type),
                                         " of the copy a new copy replaces (not who sends it: see "
                                         "the network traffic); columns: where the new copy is. "),
                  names.size() < d.names.size() ? "Busiest domains only. " : "", "</p>\n");
}

void Curve(std::string& h, const HtmlSeries& s) {
  if (s.points.empty()) return;
  double xmax = 0, ymax = s.y_line;
  for (const auto& [x, y] : s.points) {
    xmax = std::max(xmax, x);
    ymax = std::max(ymax, y);
  }
  if (xmax <= 0) xmax = 1;
  if (ymax <= 0) ymax = 1;
  const int w = 700, hgt = 220, left = 60;
  auto px = [&](double x) { return left + x / xmax * w; };
  auto py = [&](double y) { return 10 + hgt - y / ymax * hgt; };
  absl::StrAppend(&h, "<h2>", Escape(s.title), "</h2>\n<svg width='", left + w + 20, "' height='",
                  hgt + 50,
                  "' role='img'>\n<polyline fill='none' stroke='#36c' stroke-width='2' points='");
  for (const auto& [x, y] : s.points) absl::StrAppendFormat(&h, "%.1f,%.1f ", px(x), py(y));
  h += "'/>\n";
  if (s.y_line >= 0) {
    absl::StrAppendFormat(
        &h, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#c00' stroke-dasharray='4 3'/>\n",
        left, left + w, py(s.y_line), py(s.y_line));
  }
  absl::StrAppendFormat(&h, "<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='#999'/>\n", left,
                        left + w, 10 + hgt, 10 + hgt);
  absl::StrAppendFormat(&h, "<text x='%d' y='%d'>%s (0 to %.4g)</text>\n", left, hgt + 40,
                        Escape(s.x_label), xmax);
  absl::StrAppendFormat(&h, "<text x='2' y='18'>%.3g</text><text x='2' y='%d'>0</text>\n", ymax,
                        hgt + 10);
  absl::StrAppendFormat(&h, "<text x='2' y='%d'>%s</text>\n", hgt / 2, Escape(s.y_label));
  h += "</svg>\n";
}

void Table(std::string& h, const HtmlTable& t) {
  absl::StrAppend(&h, "<h2>", Escape(t.title), "</h2>\n<table><tr>");
  for (const std::string& c : t.header) absl::StrAppend(&h, "<th>", Escape(c), "</th>");
  h += "</tr>\n";
  for (const auto& row : t.rows) {
    h += "<tr>";
    for (const std::string& c : row) absl::StrAppend(&h, "<td>", Escape(c), "</td>");
    h += "</tr>\n";
  }
  h += "</table>\n";
}

void AddSchedule(const PlanReport& r, HtmlExtras& extras) {
  const BackfillSchedule& s = *r.schedule;
  HtmlSeries curve;
  curve.title = absl::StrFormat(
      "Backfill at once: misplaced over time (simulated, osd_max_backfills %d, about %s)",
      r.backfill.max_backfills, FormatDuration(s.makespan_seconds));
  curve.x_label = "hours";
  curve.y_label = "misplaced";
  const bool ratio = r.movement.totals.objects_total > 0;
  for (const MisplacedPoint& p : s.misplaced) {
    curve.points.emplace_back(p.seconds / 3600,
                              ratio ? p.ratio : static_cast<double>(p.objects_misplaced));
  }
  if (ratio) curve.y_line = 0.05;  // target_max_misplaced_ratio
  extras.series.insert(extras.series.begin(), std::move(curve));
  HtmlTable hosts{
      "Busiest hosts during the backfill", {"host", "busy", "OSD busy (sum)", "OSDs"}, {}};
  for (std::size_t i = 0; i < s.hosts.size() && i < 15; ++i) {
    const HostBackfillLoad& l = s.hosts[i];
    hosts.rows.push_back({l.host, FormatDuration(l.busy_seconds),
                          FormatDuration(l.osd_busy_seconds), absl::StrCat(l.osds)});
  }
  HtmlTable osds{
      "Busiest OSDs", {"OSD", "busy", "transferring", "as primary", "as target", "bytes in"}, {}};
  for (std::size_t i = 0; i < s.osds.size() && i < 15; ++i) {
    const OsdBackfillLoad& l = s.osds[i];
    osds.rows.push_back({absl::StrCat("osd.", l.osd), FormatDuration(l.busy_seconds),
                         FormatDuration(l.transfer_seconds), absl::StrCat(l.jobs_as_primary),
                         absl::StrCat(l.jobs_as_target),
                         FormatBytes(static_cast<double>(l.bytes_in))});
  }
  if (!hosts.rows.empty()) extras.tables.insert(extras.tables.begin(), std::move(hosts));
  if (!osds.rows.empty()) extras.tables.push_back(std::move(osds));
}

// The fullest receiving OSD of a step or batch under --max-fill ("" when
// the limit is not checked or nothing with a known capacity receives data).
std::string FillCell(const FillPeak& p, bool checked, bool over) {
  if (!checked || p.osd == crush::kItemNone) return "";
  return absl::StrFormat("%.1f%% osd.%d%s", 100 * p.fill, p.osd, over ? " (over)" : "");
}

// The fill limit's verdict as the title's tail.
std::string FillTitle(double max_fill, bool checked, bool feasible) {
  if (max_fill <= 0) return "";
  if (!checked) return absl::StrFormat("; fill not checked (no osd df)");
  return absl::StrFormat(
      feasible ? "; every OSD under %.3g%% full" : "; CANNOT keep every OSD under %.3g%% full",
      100 * max_fill);
}

// The staged plan: a sawtooth of each step's misplaced ratio falling to 0
// over its simulated backfill (linear, for the eye), and the steps table.
void AddStagedPlan(const PlanReport& r, HtmlExtras& extras) {
  const StagedPlan& p = *r.staged;
  const bool bytes = r.movement.bytes_source != BytesSource::kUnknown;
  HtmlSeries saw;
  saw.title = absl::StrFormat(
      "Staged plan: %s (%d to %d, as the script's step_N) of at most %.3g%% "
      "misplaced (about %s)",
      Plural(p.steps.size(), "step"), p.steps.empty() ? 0 : p.steps.front().index,
      p.steps.empty() ? 0 : p.steps.back().index, 100 * p.max_misplaced,
      FormatDuration(p.total_seconds));
  saw.x_label = "hours";
  saw.y_label = "misplaced";
  saw.y_line = p.max_misplaced;
  double t = 0;
  for (const PlanStep& s : p.steps) {
    saw.points.emplace_back(t / 3600, 0);
    saw.points.emplace_back(t / 3600, s.misplaced_ratio);
    t += s.seconds;
    saw.points.emplace_back(t / 3600, 0);
  }
  if (p.total_seconds > 0) extras.series.push_back(std::move(saw));
  HtmlTable steps{
      absl::StrFormat("Staged plan steps (moves %.2fx the change at once%s)", p.overhead,
                      FillTitle(p.max_fill, p.fill_checked, p.fill_feasible)),
      {"step", "weights done", "PGs remapped", "misplaced", bytes ? "bytes" : "shards", "backfill",
       "peak fill", "commands"},
      {}};
  for (const PlanStep& s : p.steps) {
    std::string cmds = s.commands.empty() ? "" : s.commands.front();
    if (s.commands.size() > 1) absl::StrAppend(&cmds, " ... (", s.commands.size() - 1, " more)");
    steps.rows.push_back(
        {absl::StrCat(s.index), absl::StrFormat("%.0f%%", 100 * s.fraction),
         absl::StrCat(s.totals.pgs_remapped),
         absl::StrFormat("%.2f%%%s", 100 * s.misplaced_ratio, s.over_limit ? " (over)" : ""),
         bytes ? FormatBytes(static_cast<double>(s.totals.bytes_to_move))
               : absl::StrCat(s.totals.shards_moved),
         FormatDuration(s.seconds), FillCell(s.peak, p.fill_checked, s.over_fill), cmds});
  }
  for (const std::string& n : p.notes) steps.rows.push_back({"note", n, "", "", "", "", "", ""});
  extras.tables.insert(extras.tables.begin(), std::move(steps));
}

// The upmap way: what moves at once, then each batch of pin removals.
void AddUpmapPlan(const PlanReport& r, HtmlExtras& extras) {
  const UpmapPinPlan& u = *r.upmap_plan;
  const bool bytes = r.movement.bytes_source != BytesSource::kUnknown;
  HtmlTable t{
      absl::StrFormat(
          "Upmap way: %u PGs pinned where their data is, %u cannot be; batches of at most "
          "%.3g%% misplaced (about %s)%s",
          u.pins.size(), u.unpinnable.size(), 100 * u.max_misplaced,
          FormatDuration(u.total_seconds), FillTitle(u.max_fill, u.fill_checked, u.fill_feasible)),
      {"batch", "PGs", "misplaced", bytes ? "bytes" : "shards", "backfill", "peak fill"},
      {}};
  auto row = [&](const std::string& name, const UpmapBatch& b) {
    t.rows.push_back(
        {name, absl::StrCat(b.pgs.size()),
         absl::StrFormat("%.2f%%%s", 100 * b.misplaced_ratio, b.over_limit ? " (over)" : ""),
         bytes ? FormatBytes(static_cast<double>(b.bytes)) : absl::StrCat(b.shards),
         FormatDuration(b.seconds), FillCell(b.peak, u.fill_checked, b.over_fill)});
  };
  row("at once (not pinned)", u.immediate);
  for (std::size_t i = 0; i < u.batches.size(); ++i) row(absl::StrCat(i + 1), u.batches[i]);
  for (const FillProblem& f : u.fill_problems)
    t.rows.push_back({"over --max-fill", DescribeFillProblem(f), "", "", "", ""});
  extras.tables.insert(extras.tables.begin() + (r.staged ? 1 : 0), std::move(t));
}

}  // namespace

// The headline and the assumptions (plan_headline.h), first on the page:
// a two-column table whose rows carry data-key attributes named as the
// JSON's headline fields, so a test can compare them.
static void HeadlineSection(std::string& h, const PlanReport& r) {
  const PlanHeadline hl = ComputeHeadline(r);
  const PlanAssumptions a = ComputeAssumptions(r);
  auto row = [&h](const char* key, const std::string& label, const std::string& value) {
    absl::StrAppend(&h, "<tr data-key='", key, "'><th>", Escape(label), "</th><td>", Escape(value),
                    "</td></tr>\n");
  };
  h += "<section id=headline><h2>Headline</h2>\n<table class=kv>\n";
  row("moves", "Data to move",
      hl.bytes_known
          ? absl::StrFormat("%s, %s objects, %s of %u (%.1f%% of stored)",
                            FormatBytes(static_cast<double>(hl.bytes_to_move)),
                            absl::StrCat(hl.objects_to_move), Plural(hl.pgs_remapped, "PG"),
                            hl.pgs_total, 100 * hl.share_of_stored)
          : absl::StrFormat("%s of %u, %.1f%% of the copies (bytes unknown)",
                            Plural(hl.pgs_remapped, "PG"), hl.pgs_total, 100 * hl.share_of_stored));
  if (!hl.simulated) {
    row("duration", "Duration", "not simulated (--no-schedule)");
  } else if (hl.seconds_high <= 0) {
    row("duration", "Duration", "nothing to backfill");
  } else {
    row("duration", "Duration",
        absl::StrCat(hl.seconds_low == hl.seconds_high
                         ? FormatDuration(hl.seconds_low)
                         : absl::StrCat(FormatDuration(hl.seconds_low), " .. ",
                                        FormatDuration(hl.seconds_high)),
                     " (", hl.duration_basis, ")"));
    row("duration_assumption", "Assuming", hl.duration_assumption);
  }
  if (hl.peak_osd != crush::kItemNone) {
    row("peak", "Peak fill",
        absl::StrFormat("osd.%d at %.1f%% %s; backfillfull %.0f%%", hl.peak_osd, 100 * hl.peak_fill,
                        PeakWhen(hl.peak_seconds), 100 * hl.backfillfull_ratio));
  }
  row("upmaps", "Upmaps",
      absl::StrCat("the monitor would drop ", Plural(hl.upmaps_dropped, "entry", "entries"),
                   " and trim ", Plural(hl.upmap_items_rewritten, "item")));
  row("pgs", "PGs short of copies",
      absl::StrFormat("during: %u degraded/undersized, %u inactive; after: %u "
                      "degraded/undersized, %u inactive",
                      hl.pgs_degraded_during, hl.pgs_inactive_during, hl.pgs_degraded_after,
                      hl.pgs_inactive_after));
  if (hl.steps > 0) {
    row("steps", "Steps", StepsText(hl.steps));
  }
  if (!hl.first_command.empty()) {
    row("first_command", "Run first",
        absl::StrCat(hl.first_command, " (", hl.first_command_note, ")"));
  }
  h += "</table></section>\n<section id=assumptions><h2>Assumptions</h2>\n<table class=kv>\n";
  row("ceph_release", "Ceph release", a.ceph_release);
  if (!a.scheduler.empty()) {
    row("scheduler", "Recovery scheduler",
        absl::StrCat(a.scheduler, " (", a.scheduler_source, ")",
                     a.mclock_profile.empty() ? "" : ", profile " + a.mclock_profile));
  }
  row("max_backfills", "osd_max_backfills", absl::StrCat(a.max_backfills));
  for (const AssumedRate& rate : a.rates) {
    std::string v = absl::StrCat(FormatBytes(rate.bytes_per_second), "/s");
    if (rate.seconds_per_object > 0)
      absl::StrAppendFormat(&v, ", %.3g s/object", rate.seconds_per_object);
    if (rate.per_pg_seconds > 0) absl::StrAppendFormat(&v, ", %.3g s/PG", rate.per_pg_seconds);
    absl::StrAppend(&v, " per target (", rate.source, ")");
    row("rate", absl::StrCat("Backfill rate, ", rate.device_class), v);
  }
  if (!a.calibration.empty()) row("calibration", "Calibration file", a.calibration);
  if (a.backfill_retry_seconds > 0) {
    row("backfill_retry_seconds", "backfill_toofull retry",
        absl::StrFormat("every %.3g s (osd_backfill_retry_interval)", a.backfill_retry_seconds));
  }
  if (a.start_delay_seconds > 0 || a.end_delay_seconds > 0) {
    row("monitor_delays", "Monitor commits",
        absl::StrFormat("+%.3g s before the first backfill, +%.3g s after the last",
                        a.start_delay_seconds, a.end_delay_seconds));
  }
  row("bytes_source", "Bytes from",
      a.bytes_source == "pg dump" ? "per-PG stats (ceph pg dump)"
      : a.bytes_source == "df"    ? "pool totals (ceph df) spread evenly over PGs"
                                  : "none (no PG stats imported): counts only");
  row("epoch", "Epochs", absl::StrCat(a.epoch_before, " -> ", a.epoch_after));
  h += "</table></section>\n";
}

std::string ReportHtml(const PlanReport& r, HtmlExtras extras) {
  const Movement& m = r.movement;
  if (r.schedule) AddSchedule(r, extras);
  if (r.staged) AddStagedPlan(r, extras);
  if (r.upmap_plan) AddUpmapPlan(r, extras);
  if (r.safety) internal::AddSafetyTables(*r.safety, extras);
  std::string h = "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n<title>";
  absl::StrAppend(&h, Escape(extras.title), "</title>\n", kStyle, "</head><body>\n<h1>",
                  Escape(extras.title), "</h1>\n");
  HeadlineSection(h, r);
  if (!m.change.empty()) {
    h += "<h2>Change</h2>\n<pre>";
    for (const std::string& c : m.change) absl::StrAppend(&h, Escape(c), "\n");
    h += "</pre>\n";
  }
  if (!r.warnings.empty()) {
    h += "<h2>Warnings</h2>\n<ul>\n";
    for (const PlanWarning& w : r.warnings)
      absl::StrAppend(&h, "<li class=note>", Escape(FormatPlanWarning(w)), "</li>\n");
    h += "</ul>\n";
  }
  h += "<h2>What moves</h2>\n";
  PoolTable(h, m);
  if (m.totals.minimum_to_move > 0) {
    const bool bytes = m.bytes_source != BytesSource::kUnknown;
    absl::StrAppend(
        &h, "<p class=muted>Theoretical minimum: ",
        bytes ? FormatBytes(m.totals.minimum_to_move)
              : absl::StrFormat("%.0f shards", m.totals.minimum_to_move),
        m.totals.minimum_level.empty()
            ? ""
            : absl::StrCat(", at the ", Escape(m.totals.minimum_level), " level"),
        " (the data that must change buckets at the level where most must: each OSD's, host's, "
        "rack's ... expected share before vs after, from CRUSH weights and reweights).</p>\n");
  }
  for (const MovementCounters& c : m.pools) {
    if (c.amplification > 0 || c.amplification_note.empty()) continue;
    absl::StrAppend(&h, "<p class=muted>Amplification of ", Escape(c.pool_name), ": ",
                    Escape(c.amplification_note), ".</p>\n");
  }
  for (const std::string& n : m.risks.notes)
    absl::StrAppend(&h, "<p class=note>", Escape(n), "</p>\n");
  h += "<h2>OSDs before and after</h2>\n";
  FillChart(h, m, extras.max_osd_bars);
  for (const DomainMatrix& d : m.domains) {
    if (!d.cells.empty())
      HeatMap(h, d, m.bytes_source != BytesSource::kUnknown, extras.max_domains, false);
  }
  for (const DomainMatrix& d : m.traffic) {
    if (!d.cells.empty())
      HeatMap(h, d, m.bytes_source != BytesSource::kUnknown, extras.max_domains, true);
  }
  for (const HtmlSeries& s : extras.series) Curve(h, s);
  for (const HtmlTable& t : extras.tables) Table(h, t);
  h += "<p class=muted>Generated by crushkit.</p>\n</body></html>\n";
  return h;
}

}  // namespace crushkit::osdmap
