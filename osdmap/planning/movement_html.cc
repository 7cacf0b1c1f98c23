#include "osdmap/planning/movement_html.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include "osdmap/planning/change_safety_report.h"
#include "osdmap/planning/movement_html_internal.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/plan_headline.h"

namespace crushkit::osdmap {
namespace {

using internal::HtmlEscape;

// Screen: one column at most 1200 px wide; anything wider (a heat map, a
// long table) scrolls inside its own box, never the page. Print: every
// scroll box opens up and colours print, so a PDF carries every value.
constexpr const char* kStyle = R"(<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px auto;padding:0 16px;color:#222;max-width:1200px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 10px;text-align:right;border-bottom:1px solid #eee}
th{background:#f5f5f5}td:first-child,th:first-child{text-align:left}
table.kv th{text-align:left;background:none;white-space:nowrap;vertical-align:top}table.kv td{text-align:left}
table.pools td{white-space:nowrap}
.note{color:#a40}.muted{color:#666}pre{white-space:pre-wrap;overflow-wrap:anywhere}
.tw,.scroll{max-width:100%;overflow-x:auto}.scroll{max-height:260px;overflow-y:auto;border:1px solid #eee}
.chart{width:100%}.chart-box{position:relative;width:100%;margin:4px 0 10px}
table.data{font-size:12px;margin:0}table.data td,table.data th{padding:1px 8px}
table.heat{font-size:11px}table.heat td.v{padding:2px 4px;min-width:26px;text-align:center;border:1px solid #fff}
table.heat th{padding:2px 4px;white-space:nowrap;font-weight:normal}table.heat th.col{writing-mode:vertical-rl;transform:rotate(180deg);text-align:left}
table.heat .tot{font-weight:bold;background:#f5f5f5}
.scale{font-size:12px;color:#555}.scale .grad{display:inline-block;width:160px;height:10px;vertical-align:middle;background:linear-gradient(90deg,rgba(204,51,0,.08),rgba(204,51,0,1))}
@media print{body{max-width:none;margin:0}.tw,.scroll{overflow:visible;max-height:none;border:0}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}h2{break-after:avoid}.chart-box{break-inside:avoid}
table.heat{font-size:8px}}
</style>)";

std::string Pct(double part, double whole) {
  return whole > 0 ? absl::StrFormat("%.1f%%", 100 * part / whole) : "-";
}

void PoolTable(std::string& h, const Movement& m) {
  const bool bytes = m.bytes_source != BytesSource::kUnknown;
  h += "<div class=tw><table class=pools><tr><th>pool</th><th>PGs</th><th>remapped</th><th>shards "
       "moved</th>";
  if (bytes) h += "<th>objects to move</th><th>bytes to move</th><th>of stored</th>";
  h += "<th>primary changes</th><th>degraded after</th><th>inactive after</th>"
       "<th>amplification</th></tr>\n";
  auto row = [&](const MovementCounters& c) {
    absl::StrAppend(&h, "<tr><td>", HtmlEscape(c.pool_name), "</td><td>", c.pgs, "</td><td>",
                    c.pgs_remapped, " (", Pct(c.pgs_remapped, c.pgs), ")</td><td>", c.shards_moved,
                    " (", Pct(c.shards_moved, c.shards_total), ")</td>");
    if (bytes) {
      absl::StrAppend(&h, "<td>", c.objects_to_move, "</td><td>",
                      FormatBytes(static_cast<double>(c.bytes_to_move)), "</td><td>",
                      Pct(static_cast<double>(c.bytes_to_move), static_cast<double>(c.bytes_total)),
                      "</td>");
    }
    // New acting primaries: reads and backfill sources move, data may not
    // (those "without data" keep their OSDs).
    absl::StrAppend(&h, "<td>", c.pgs_primary_changed,
                    c.pgs_primary_changed > 0
                        ? absl::StrCat(" (", c.pgs_primary_only, " without data)")
                        : std::string(),
                    "</td>");
    absl::StrAppend(&h, "<td>", c.pgs_degraded_after, "</td><td>", c.pgs_inactive_after,
                    "</td><td>",
                    c.amplification > 0             ? absl::StrFormat("%.2fx", c.amplification)
                    : !c.amplification_note.empty() ? "n/a"
                                                    : "-",
                    "</td></tr>\n");
  };
  for (const MovementCounters& c : m.pools) row(c);
  if (m.pools.size() > 1) row(m.totals);
  h += "</table></div>\n";
}

void Table(std::string& h, const HtmlTable& t) {
  absl::StrAppend(&h, "<h2>", HtmlEscape(t.title), "</h2>\n<div class=tw><table><tr>");
  for (const std::string& c : t.header) absl::StrAppend(&h, "<th>", HtmlEscape(c), "</th>");
  h += "</tr>\n";
  for (const auto& row : t.rows) {
    h += "<tr>";
    for (const std::string& c : row) absl::StrAppend(&h, "<td>", HtmlEscape(c), "</td>");
    h += "</tr>\n";
  }
  h += "</table></div>\n";
}

void AddSchedule(const PlanReport& r, HtmlExtras& extras) {
  const BackfillSchedule& s = *r.schedule;
  HtmlSeries curve;
  curve.title =
      absl::StrFormat("Backfill at once: misplaced over time (simulated, osd_max_backfills %d, %s)",
                      r.backfill.max_backfills, FormatDuration(s.makespan_seconds));
  const bool ratio = r.movement.totals.objects_total > 0;
  curve.y_label = ratio ? "misplaced (% of object copies)" : "misplaced (object copies)";
  // A new string, not = "%": gcc 12 -O3 flags assigning a one-character
  // literal as an overlapping copy (-Wrestrict false positive, gcc bug 105329).
  curve.y_unit = std::string(ratio ? "%" : "");
  for (const MisplacedPoint& p : s.misplaced) {
    curve.points.emplace_back(p.seconds,
                              ratio ? 100 * p.ratio : static_cast<double>(p.objects_misplaced));
  }
  if (ratio) {
    curve.y_line = 5;
    curve.y_line_label = "target_max_misplaced_ratio 5%";
  }
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

// The staged plan: a sawtooth of each step's misplaced ratio, and the
// steps table.
void AddStagedPlan(const PlanReport& r, HtmlExtras& extras) {
  const StagedPlan& p = *r.staged;
  const bool bytes = r.movement.bytes_source != BytesSource::kUnknown;
  HtmlSeries saw;
  saw.title = absl::StrFormat(
      "Staged plan: %s (%d to %d, as the script's step_N) of at most %.3g%% "
      "misplaced (%s)",
      Plural(p.steps.size(), "step"), p.steps.empty() ? 0 : p.steps.front().index,
      p.steps.empty() ? 0 : p.steps.back().index, 100 * p.max_misplaced,
      FormatDuration(p.total_seconds));
  saw.y_label = "misplaced (% of object copies)";
  saw.y_unit = std::string("%");  // not = "%": gcc bug 105329, as in AddSchedule
  saw.y_line = 100 * p.max_misplaced;
  saw.y_line_label = absl::StrFormat("--max-misplaced %.3g%%", 100 * p.max_misplaced);
  // Each step's misplaced share falls to 0 over its simulated backfill
  // (linear, for the eye); a marker where each step starts.
  double t = 0;
  for (const PlanStep& s : p.steps) {
    saw.markers.emplace_back(t, absl::StrCat("step ", s.index));
    saw.points.emplace_back(t, 0);
    saw.points.emplace_back(t, 100 * s.misplaced_ratio);
    t += s.seconds;
    saw.points.emplace_back(t, 0);
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

// One row of the headline or assumptions table: its data-key is the
// JSON's field name, so a test can compare them.
void KvRow(std::string& h, const char* key, const std::string& label, const std::string& value) {
  absl::StrAppend(&h, "<tr data-key='", key, "'><th>", HtmlEscape(label), "</th><td>",
                  HtmlEscape(value), "</td></tr>\n");
}

void AppendHeadlineRows(std::string& h, const PlanHeadline& hl) {
  KvRow(
      h, "moves", "Data to move",
      hl.bytes_known
          ? absl::StrFormat("%s, %s objects, %s of %u (%.1f%% of stored)",
                            FormatBytes(static_cast<double>(hl.bytes_to_move)),
                            absl::StrCat(hl.objects_to_move), Plural(hl.pgs_remapped, "PG"),
                            hl.pgs_total, 100 * hl.share_of_stored)
          : absl::StrFormat("%s of %u, %.1f%% of the copies (bytes unknown)",
                            Plural(hl.pgs_remapped, "PG"), hl.pgs_total, 100 * hl.share_of_stored));
  if (!hl.simulated) {
    KvRow(h, "duration", "Duration", "not simulated (--no-schedule)");
  } else if (hl.seconds_high <= 0) {
    KvRow(h, "duration", "Duration", "nothing to backfill");
  } else {
    KvRow(h, "duration", "Duration",
          absl::StrCat(hl.seconds_low == hl.seconds_high
                           ? FormatDuration(hl.seconds_low)
                           : absl::StrCat(FormatDuration(hl.seconds_low), " .. ",
                                          FormatDuration(hl.seconds_high)),
                       " (", hl.duration_basis, ")"));
    if (!hl.duration_orders.empty()) {
      KvRow(h, "duration_orders", "Over request orders", hl.duration_orders);
    }
    KvRow(h, "duration_assumption", "Assuming", hl.duration_assumption);
  }
  if (hl.peak_osd != crush::kItemNone) {
    KvRow(
        h, "peak", "Peak fill",
        absl::StrFormat("osd.%d at %.1f%% %s; backfillfull %.0f%%", hl.peak_osd, 100 * hl.peak_fill,
                        PeakWhen(hl.peak_seconds), 100 * hl.backfillfull_ratio));
  }
  KvRow(h, "upmaps", "Upmaps",
        absl::StrCat("the monitor would drop ", Plural(hl.upmaps_dropped, "entry", "entries"),
                     " and trim ", Plural(hl.upmap_items_rewritten, "item")));
  KvRow(h, "pgs", "PGs short of copies",
        absl::StrFormat("during: %u degraded/undersized, %u inactive; after: %u "
                        "degraded/undersized, %u inactive",
                        hl.pgs_degraded_during, hl.pgs_inactive_during, hl.pgs_degraded_after,
                        hl.pgs_inactive_after));
  if (hl.steps > 0) {
    KvRow(h, "steps", "Steps", StepsText(hl.steps, hl.first_step));
  }
  if (!hl.first_command.empty()) {
    KvRow(h, "first_command", "Run first",
          absl::StrCat(hl.first_command, " (", hl.first_command_note, ")"));
  }
}

void AppendAssumptionRows(std::string& h, const PlanAssumptions& a) {
  KvRow(h, "ceph_release", "Ceph release", a.ceph_release);
  if (!a.scheduler.empty()) {
    KvRow(h, "scheduler", "Recovery scheduler",
          absl::StrCat(a.scheduler, " (", a.scheduler_source, ")",
                       a.mclock_profile.empty() ? "" : ", profile " + a.mclock_profile));
  }
  KvRow(h, "max_backfills", "osd_max_backfills", absl::StrCat(a.max_backfills));
  for (const AssumedRate& rate : a.rates) {
    std::string v = absl::StrCat(FormatBytes(rate.bytes_per_second), "/s");
    if (rate.seconds_per_object > 0)
      absl::StrAppendFormat(&v, ", %.3g s/object", rate.seconds_per_object);
    if (rate.per_pg_seconds > 0) absl::StrAppendFormat(&v, ", %.3g s/PG", rate.per_pg_seconds);
    absl::StrAppend(&v, " per target (", rate.source, ")");
    if (rate.ec_hold_factor != 1 || rate.ec_hold_factor_source != "model") {
      absl::StrAppendFormat(&v, "; EC PGs x%.3g (%s)", rate.ec_hold_factor,
                            rate.ec_hold_factor_source);
    }
    KvRow(h, "rate", absl::StrCat("Backfill rate, ", rate.device_class), v);
  }
  if (!a.calibration.empty()) KvRow(h, "calibration", "Calibration file", a.calibration);
  if (!a.concurrency_slowdown_source.empty()) {
    KvRow(h, "concurrency_slowdown", "Concurrency slowdown",
          absl::StrFormat("k %.3g (%s): every backfill at 1 / (1 + k (n - 1)) of its pace while "
                          "n run in the cluster%s",
                          a.concurrency_slowdown, a.concurrency_slowdown_source,
                          a.concurrency_slowdown_max_running > 0
                              ? absl::StrFormat(", n up to %u", a.concurrency_slowdown_max_running)
                              : std::string()));
  }
  if (!a.concurrency_slowdown_note.empty()) {
    KvRow(h, "concurrency_slowdown_note", "Concurrency slowdown held", a.concurrency_slowdown_note);
  }
  if (a.backfill_retry_seconds > 0) {
    KvRow(h, "backfill_retry_seconds", "backfill_toofull retry",
          absl::StrFormat("every %.3g s (osd_backfill_retry_interval)", a.backfill_retry_seconds));
  }
  if (a.start_delay_seconds > 0 || a.end_delay_seconds > 0) {
    KvRow(h, "monitor_delays", "Monitor commits",
          absl::StrFormat("+%.3g s before the first backfill, +%.3g s after the last",
                          a.start_delay_seconds, a.end_delay_seconds));
  }
  KvRow(h, "bytes_source", "Bytes from",
        a.bytes_source == "pg dump" ? "per-PG stats (ceph pg dump)"
        : a.bytes_source == "df"    ? "pool totals (ceph df) spread evenly over PGs"
                                    : "none (no PG stats imported): counts only");
  KvRow(h, "epoch", "Epochs", absl::StrCat(a.epoch_before, " -> ", a.epoch_after));
}

// The headline and the assumptions (plan_headline.h), first on the page:
// two two-column tables whose rows carry data-key attributes named as the
// JSON's headline and assumptions fields.
void HeadlineSection(std::string& h, const PlanReport& r) {
  h += "<section id=headline><h2>Headline</h2>\n<table class=kv>\n";
  AppendHeadlineRows(h, ComputeHeadline(r));
  h += "</table></section>\n<section id=assumptions><h2>Assumptions</h2>\n<table class=kv>\n";
  AppendAssumptionRows(h, ComputeAssumptions(r));
  h += "</table></section>\n";
}

}  // namespace

std::string ReportHtml(const PlanReport& r, HtmlExtras extras) {
  const Movement& m = r.movement;
  if (r.schedule) AddSchedule(r, extras);
  if (r.staged) AddStagedPlan(r, extras);
  if (r.upmap_plan) AddUpmapPlan(r, extras);
  if (r.safety) internal::AddSafetyTables(*r.safety, extras);
  std::string h = "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n<title>";
  absl::StrAppend(&h, HtmlEscape(extras.title),
                  "</title>\n<meta name=viewport content='width=device-width'>\n", kStyle,
                  "</head><body>\n<h1>", HtmlEscape(extras.title), "</h1>\n");
  HeadlineSection(h, r);
  for (const HtmlTable& t : extras.top_tables) Table(h, t);
  if (!m.change.empty()) {
    h += "<h2>Change</h2>\n<pre>";
    for (const std::string& c : m.change) absl::StrAppend(&h, HtmlEscape(c), "\n");
    h += "</pre>\n";
  }
  if (!r.warnings.empty()) {
    h += "<h2>Warnings</h2>\n<ul>\n";
    for (const PlanWarning& w : r.warnings)
      absl::StrAppend(&h, "<li class=note>", HtmlEscape(FormatPlanWarning(w)), "</li>\n");
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
            : absl::StrCat(", at the ", HtmlEscape(m.totals.minimum_level), " level"),
        " (the data that must change buckets at the level where most must: each OSD's, host's, "
        "rack's ... expected share before vs after, from CRUSH weights and reweights).</p>\n");
  }
  for (const MovementCounters& c : m.pools) {
    if (c.amplification > 0 || c.amplification_note.empty()) continue;
    absl::StrAppend(&h, "<p class=muted>Amplification of ", HtmlEscape(c.pool_name), ": ",
                    HtmlEscape(c.amplification_note), ".</p>\n");
  }
  for (const std::string& n : m.risks.notes)
    absl::StrAppend(&h, "<p class=note>", HtmlEscape(n), "</p>\n");
  internal::OsdSection(h, r);
  const bool bytes = m.bytes_source != BytesSource::kUnknown;
  for (const DomainMatrix& d : m.domains) {
    if (!d.cells.empty()) internal::HeatMapSection(h, d, bytes, extras.max_domains, false);
  }
  for (const DomainMatrix& d : m.traffic) {
    if (!d.cells.empty()) internal::HeatMapSection(h, d, bytes, extras.max_domains, true);
  }
  int id = 0;
  for (const HtmlSeries& s : extras.series) internal::TimeSeriesSection(h, s, id++);
  internal::StepFillSection(h, r);
  for (const HtmlTable& t : extras.tables) Table(h, t);
  h += "<p class=muted>Generated by crushkit.</p>\n";
  h += internal::ChartScripts(extras.chart_library);
  h += "</body></html>\n";
  return h;
}

}  // namespace crushkit::osdmap
