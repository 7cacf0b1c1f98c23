#include "osdmap/planning/change_safety_report.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/plan_headline.h"

namespace crushkit::osdmap::internal {
namespace {

constexpr std::size_t kMaxListed = 20;

std::string OsdName(std::int32_t osd) {
  return osd == crush::kItemNone ? std::string("-") : absl::StrCat("osd.", osd);
}

// A fill range over request orders, "70.8-71.6%", or "65.4%" when both ends
// print alike.
std::string PercentRange(double low, double high) {
  const std::string a = absl::StrFormat("%.1f", 100 * low);
  const std::string b = absl::StrFormat("%.1f", 100 * high);
  return a == b ? absl::StrCat(a, "%") : absl::StrCat(a, "-", b, "%");
}

}  // namespace

void SafetyToProto(const ChangeSafety& s, proto::Safety* p) {
  for (const PoolAvailChange& c : s.pools) {
    proto::PoolAvail* a = p->add_pools();
    a->set_pool(c.pool_id);
    a->set_name(c.pool_name);
    a->set_max_avail_before(c.before);
    a->set_max_avail_peak(c.peak);
    a->set_max_avail_after(c.after);
    a->set_limiting_osd_before(c.limiting_before);
    a->set_limiting_osd_peak(c.limiting_peak);
    a->set_limiting_osd_after(c.limiting_after);
  }
  p->set_riskiest_osd(crush::kItemNone);
  if (s.fill) {
    for (std::size_t i = 0; i < s.fill->osds.size() && i < kMaxListed; ++i) {
      const OsdFillPeak& f = s.fill->osds[i];
      proto::OsdPeak* o = p->add_peak_osds();
      o->set_osd(f.osd);
      o->set_fill_before(f.fill_before);
      o->set_fill_peak(f.fill_peak);
      o->set_fill_after(f.fill_after);
      o->set_peak_seconds(f.peak_seconds);
      o->set_used_peak_bytes(f.used_peak);
      o->set_capacity_bytes(f.capacity_bytes);
      if (s.fill->request_orders > 0) {
        o->set_fill_peak_min(f.fill_peak_min);
        o->set_fill_peak_max(f.fill_peak_max);
      }
    }
    p->set_riskiest_osd(s.fill->riskiest_osd);
    p->set_riskiest_fill(s.fill->riskiest_fill);
    p->set_riskiest_seconds(s.fill->riskiest_seconds);
    if (s.fill->request_orders > 0) {
      p->set_peak_request_orders(static_cast<std::uint32_t>(s.fill->request_orders));
      p->set_riskiest_fill_min(s.fill->riskiest_fill_min);
      p->set_riskiest_fill_max(s.fill->riskiest_fill_max);
    }
  }
  p->set_backfillfull_ratio(s.backfillfull_ratio);
  p->set_pgs_toofull(static_cast<std::uint32_t>(s.stalls.size()));
  p->set_pgs_never_starting(s.pgs_never_starting);
  for (std::size_t i = 0; i < s.stalls.size() && i < kMaxListed; ++i) {
    const BackfillStall& st = s.stalls[i];
    proto::ToofullStall* t = p->add_toofull_stalls();
    t->set_pgid(FormatPgId(st.pg));
    t->set_osd(st.osd);
    t->set_refusals(st.refusals);
    t->set_first_seconds(st.first_seconds);
    t->set_seconds(st.seconds);
    t->set_never_starts(st.never_starts);
  }
  for (const std::string& n : s.notes) p->add_notes(n);
}

void AppendSafety(std::string& out, const ChangeSafety& s, int top) {
  absl::StrAppend(&out, "\nsafety:\n");
  if (!s.pools.empty()) {
    // The name column fits the longest name, up to 40 (the line stays
    // within 100 columns).
    int name_width = 4;
    for (const PoolAvailChange& c : s.pools) {
      name_width =
          std::max(name_width, static_cast<int>(std::min<std::size_t>(c.pool_name.size(), 40)));
    }
    absl::StrAppend(&out,
                    "  MAX AVAIL per pool as `ceph df` computes it, and the OSD that limits it:\n");
    absl::StrAppendFormat(&out, "  %-*s %12s %12s %12s  %s\n", name_width, "pool", "before",
                          s.fill ? "lowest" : "", "after", "OSD");
    for (const PoolAvailChange& c : s.pools) {
      absl::StrAppendFormat(&out, "  %-*.*s %12s %12s %12s  %s", name_width, name_width,
                            c.pool_name, FormatBytes(static_cast<double>(c.before)),
                            s.fill ? FormatBytes(static_cast<double>(c.peak)) : "",
                            FormatBytes(static_cast<double>(c.after)), OsdName(c.limiting_before));
      if (s.fill && c.limiting_peak != c.limiting_before) {
        absl::StrAppend(&out, " -> ", OsdName(c.limiting_peak));
      }
      if (c.limiting_after != (s.fill ? c.limiting_peak : c.limiting_before)) {
        absl::StrAppend(&out, " -> ", OsdName(c.limiting_after));
      }
      absl::StrAppend(&out, "\n");
    }
    // What the figures leave out (the osdmaps, ChangeSafety::osdmaps) goes
    // under them.
    for (const std::string& n : s.notes) {
      if (n.starts_with("MAX AVAIL")) absl::StrAppend(&out, "  ", n, "\n");
    }
  }
  if (s.fill && !s.fill->osds.empty()) {
    const FillTimeline& f = *s.fill;
    absl::StrAppendFormat(&out, "  fullest during the move: osd.%d %.1f%% %s", f.riskiest_osd,
                          100 * f.riskiest_fill, PeakWhen(f.riskiest_seconds));
    if (f.request_orders > 0) {
      absl::StrAppend(&out, " (", PercentRange(f.riskiest_fill_min, f.riskiest_fill_max), " over ",
                      f.request_orders, " request orders)");
    }
    absl::StrAppend(&out, " (a copy lands before its source is deleted)\n  peak fill:");
    for (int i = 0; i < top && i < static_cast<int>(f.osds.size()); ++i) {
      const OsdFillPeak& o = f.osds[static_cast<std::size_t>(i)];
      absl::StrAppendFormat(&out, " osd.%d %.0f%%->%.0f%%->%.0f%% at %s", o.osd,
                            100 * o.fill_before, 100 * o.fill_peak, 100 * o.fill_after,
                            FormatDuration(o.peak_seconds));
      if (f.request_orders > 0) {
        absl::StrAppend(&out, " (peak ", PercentRange(o.fill_peak_min, o.fill_peak_max), ")");
      }
      absl::StrAppend(&out, ";");
    }
    absl::StrAppend(&out, "\n");
  }
  if (!s.stalls.empty()) {
    absl::StrAppendFormat(&out, "  backfill_toofull (targets refuse above %.0f%%): %u PGs stall",
                          100 * s.backfillfull_ratio, s.stalls.size());
    if (s.pgs_never_starting > 0) absl::StrAppend(&out, ", ", s.pgs_never_starting, " never start");
    absl::StrAppend(&out, ":");
    for (int i = 0; i < top && i < static_cast<int>(s.stalls.size()); ++i) {
      const BackfillStall& st = s.stalls[static_cast<std::size_t>(i)];
      absl::StrAppend(&out, " ", FormatPgId(st.pg), " on osd.", st.osd, " ",
                      st.never_starts ? "for good" : FormatDuration(st.seconds), ";");
    }
    absl::StrAppend(&out, "\n");
  } else if (s.fill) {
    absl::StrAppendFormat(&out,
                          "  no PG stalls in backfill_toofull (targets refuse above %.0f%%)\n",
                          100 * s.backfillfull_ratio);
  }
  for (const std::string& n : s.notes) {
    if (s.pools.empty() || !n.starts_with("MAX AVAIL")) absl::StrAppend(&out, "  ", n, "\n");
  }
}

void AddSafetyTables(const ChangeSafety& s, HtmlExtras& extras) {
  constexpr std::size_t kRows = 15;
  HtmlTable pools{"Is it safe: MAX AVAIL per pool (as ceph df computes it)",
                  {"pool", "before", "lowest during the move", "after", "bounded by"},
                  {}};
  for (const PoolAvailChange& c : s.pools) {
    pools.rows.push_back({c.pool_name, FormatBytes(static_cast<double>(c.before)),
                          s.fill ? FormatBytes(static_cast<double>(c.peak)) : "-",
                          FormatBytes(static_cast<double>(c.after)),
                          absl::StrCat(OsdName(c.limiting_before), " / ", OsdName(c.limiting_peak),
                                       " / ", OsdName(c.limiting_after))});
  }
  if (!pools.rows.empty()) extras.tables.push_back(std::move(pools));
  if (s.fill) {
    const int orders = s.fill->request_orders;
    HtmlTable peaks{"Peak fill during the move (a copy lands before its source is deleted)",
                    {"OSD", "before", "peak", "after", "peak at"},
                    {}};
    if (orders > 0) {
      peaks.header.push_back(absl::StrCat("peak over ", orders, " request orders"));
    }
    for (std::size_t i = 0; i < s.fill->osds.size() && i < kRows; ++i) {
      const OsdFillPeak& o = s.fill->osds[i];
      peaks.rows.push_back(
          {absl::StrCat("osd.", o.osd), absl::StrFormat("%.1f%%", 100 * o.fill_before),
           absl::StrFormat("%.1f%%", 100 * o.fill_peak),
           absl::StrFormat("%.1f%%", 100 * o.fill_after), FormatDuration(o.peak_seconds)});
      if (orders > 0) {
        peaks.rows.back().push_back(
            absl::StrFormat("%.1f-%.1f%%", 100 * o.fill_peak_min, 100 * o.fill_peak_max));
      }
    }
    if (!peaks.rows.empty()) extras.tables.push_back(std::move(peaks));
  }
  HtmlTable stalls{absl::StrFormat("backfill_toofull stalls (targets refuse above %.0f%%)",
                                   100 * s.backfillfull_ratio),
                   {"PG", "refused by", "refusals", "first at", "stalled for"},
                   {}};
  for (std::size_t i = 0; i < s.stalls.size() && i < kRows; ++i) {
    const BackfillStall& st = s.stalls[i];
    stalls.rows.push_back({FormatPgId(st.pg), OsdName(st.osd), absl::StrCat(st.refusals),
                           FormatDuration(st.first_seconds),
                           st.never_starts ? "never starts" : FormatDuration(st.seconds)});
  }
  if (!stalls.rows.empty()) extras.tables.push_back(std::move(stalls));
}

}  // namespace crushkit::osdmap::internal
