#include "osdmap/planning/plan_compare_report.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

#include "osdmap/formats/proto_json.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/report_internal.h"
#include "osdmap/proto/movement.pb.h"

namespace crushkit::osdmap {

namespace {

// Columns of the terminal table; a longer name goes on a line of its own.
constexpr std::size_t kNameWidth = 22;
constexpr std::size_t kWidth = 100;

std::string Moved(const AlternativeResult& a) {
  return a.bytes_known ? FormatBytes(static_cast<double>(a.bytes_to_move))
                       : absl::StrCat(internal::FormatCount(a.shards_moved), " sh");
}

std::string Fill(double f) { return f < 0 ? "?" : absl::StrFormat("%.1f%%", 100 * f); }

std::string Duration(double s) { return s < 0 ? "-" : FormatDuration(s); }

std::string Amplification(const AlternativeResult& a) {
  if (a.amplification > 0) return absl::StrFormat("%.2fx", a.amplification);
  return a.amplification_note.empty() ? "-" : "n/a";
}

std::string Deviation(const AlternativeResult& a) {
  return a.max_deviation < 0 ? "?" : absl::StrFormat("%.1f", a.max_deviation);
}

std::string SignedBytes(std::int64_t d) {
  const std::string b = FormatBytes(static_cast<double>(d < 0 ? -d : d));
  return d < 0 ? "-" + b : "+" + b;
}

std::int64_t Change(const AlternativePoolAvail& p) {
  return static_cast<std::int64_t>(p.after) - static_cast<std::int64_t>(p.before);
}

std::string Osd(std::int32_t osd) { return osd < 0 ? "" : absl::StrCat("osd.", osd); }

std::string Criterion(const PlanComparison& c, bool rank_by_default) {
  return absl::StrCat(RankByName(c.rank_by), " (", RankByMeaning(c.rank_by),
                      rank_by_default ? "; the default, --rank-by to choose" : "", ")");
}

// Pool names in pool id order over every alternative.
std::vector<std::pair<std::int64_t, std::string>> PoolNames(const PlanComparison& c) {
  std::vector<std::pair<std::int64_t, std::string>> out;
  for (const AlternativeResult& a : c.alternatives) {
    for (const AlternativePoolAvail& p : a.pools) {
      if (std::none_of(out.begin(), out.end(), [&](const auto& e) { return e.first == p.pool_id; }))
        out.emplace_back(p.pool_id, p.pool_name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

const AlternativePoolAvail* FindPool(const AlternativeResult& a, std::int64_t id) {
  for (const AlternativePoolAvail& p : a.pools) {
    if (p.pool_id == id) return &p;
  }
  return nullptr;
}

std::string Cut(absl::string_view line, std::size_t width) {
  if (line.size() <= width) return std::string(line);
  return absl::StrCat(line.substr(0, width - 3), "...");
}

// One alternative's row of the table (its name on a line of its own when
// long), or the first lines of its error.
void AppendAlternativeRow(std::string& out, const AlternativeResult& a) {
  const std::string rank = a.rank > 0 ? absl::StrCat(a.rank) : "-";
  if (!a.error.empty()) {
    absl::StrAppendFormat(&out, "%2s  %s: could not be planned:\n", rank, Cut(a.name, kWidth - 30));
    int shown = 0;
    for (absl::string_view l : absl::StrSplit(a.error, '\n', absl::SkipEmpty())) {
      if (++shown > 6) break;
      absl::StrAppend(&out, "      ", Cut(l, kWidth - 6), "\n");
    }
    return;
  }
  std::string name = a.name;
  if (name.size() > kNameWidth) {
    absl::StrAppendFormat(&out, "%2s  %s\n", rank, Cut(name, kWidth - 4));
    name.clear();
  }
  absl::StrAppendFormat(&out, "%2s  %-*s %10s %7s %6s %13s %7s %8s %8s\n", name.empty() ? "" : rank,
                        static_cast<int>(kNameWidth), name, Moved(a),
                        internal::FormatCount(a.pgs_remapped), Amplification(a),
                        Duration(a.duration_seconds), Fill(a.peak_fill), Fill(a.fullest_after),
                        Deviation(a));
}

// Per pool, each ranked alternative's MAX AVAIL change.
void AppendMaxAvailChanges(std::string& out, const PlanComparison& c) {
  const auto pools = PoolNames(c);
  if (pools.empty()) return;
  absl::StrAppend(&out, "\nMAX AVAIL after - before, per pool (#: rank):\n");
  for (const auto& [id, pool_name] : pools) {
    std::uint64_t before = 0;
    for (const AlternativeResult& a : c.alternatives) {
      if (const AlternativePoolAvail* p = FindPool(a, id)) before = p->before;
    }
    absl::StrAppend(&out, "  ", Cut(pool_name, kWidth - 30), " (before ",
                    FormatBytes(static_cast<double>(before)), ")\n");
    std::string line = "   ";
    for (const AlternativeResult& a : c.alternatives) {
      const AlternativePoolAvail* p = FindPool(a, id);
      if (p == nullptr || a.rank == 0) continue;
      const std::string cell = absl::StrFormat(" #%d %s", a.rank, SignedBytes(Change(*p)));
      if (line.size() + cell.size() > kWidth) {
        absl::StrAppend(&out, line, "\n");
        line = "   ";
      }
      absl::StrAppend(&line, cell);
    }
    absl::StrAppend(&out, line, "\n");
  }
}

// What the best alternative peaks at and leaves, and its warnings.
void AppendBest(std::string& out, const AlternativeResult& b) {
  absl::StrAppend(&out, "\n", Cut(absl::StrCat("best: ", b.name), kWidth), "\n");
  if (b.peak_osd >= 0) {
    absl::StrAppend(&out, "  peaks at ", Fill(b.peak_fill), " on ", Osd(b.peak_osd));
    if (b.fullest_osd >= 0)
      absl::StrAppend(&out, "; fullest after: ", Osd(b.fullest_osd), " ", Fill(b.fullest_after));
    absl::StrAppend(&out, "\n");
  }
  if (b.max_deviation_osd >= 0) {
    absl::StrAppend(&out, "  largest PG deviation after: ", Osd(b.max_deviation_osd), " ",
                    Deviation(b), " PGs from its CRUSH target\n");
  }
  for (const std::string& w : b.warnings) absl::StrAppend(&out, "  ", Cut(w, kWidth - 2), "\n");
  absl::StrAppend(&out, "  (its full report: crushkit plan STATE with that change alone)\n");
}

}  // namespace

std::string ComparisonSummary(const PlanComparison& c, bool rank_by_default) {
  std::string out;
  const bool bytes = c.bytes_source != BytesSource::kUnknown;
  absl::StrAppend(&out, "comparison: ", c.alternatives.size(), " alternatives on ", c.osds,
                  " OSDs, ", c.pgs, " PGs",
                  bytes ? "" : " (no PG sizes: data moved in shards, fill unknown)", "\n");
  absl::StrAppend(&out, Cut(absl::StrCat("ranked by ", Criterion(c, rank_by_default)), kWidth),
                  "\n\n");
  absl::StrAppendFormat(&out, " #  %-*s %10s %7s %6s %13s %7s %8s %8s\n",
                        static_cast<int>(kNameWidth), "alternative", "moved", "PGs", "ampl",
                        "duration", "peak", "fullest", "max dev");
  for (const AlternativeResult& a : c.alternatives) AppendAlternativeRow(out, a);
  absl::StrAppend(&out,
                  "\nmoved: data to move (shards 'sh' without PG sizes), summed over stages or "
                  "steps; PGs: remapped;\nampl: moved / the floor; peak: the fullest OSD while "
                  "backfilling; fullest: after;\nmax dev: the largest |PGs - CRUSH target| of an "
                  "OSD after\n");
  AppendMaxAvailChanges(out, c);
  if (!c.alternatives.empty() && c.alternatives.front().rank == 1) {
    AppendBest(out, c.alternatives.front());
  }
  return out;
}

namespace {

void ToProto(const AlternativeResult& a, proto::Alternative* p) {
  p->set_rank(static_cast<std::uint32_t>(a.rank));
  p->set_name(a.name);
  p->set_error(a.error);
  for (const std::string& c : a.change) p->add_change(c);
  p->set_stages(static_cast<std::uint32_t>(a.stages));
  p->set_steps(static_cast<std::uint32_t>(a.steps));
  p->set_bytes_to_move(a.bytes_to_move);
  p->set_objects_to_move(a.objects_to_move);
  p->set_pgs_remapped(a.pgs_remapped);
  p->set_shards_moved(a.shards_moved);
  p->set_minimum_to_move(a.minimum_to_move);
  p->set_amplification(a.amplification);
  p->set_amplification_note(a.amplification_note);
  p->set_duration_seconds(a.duration_seconds);
  p->set_peak_fill(a.peak_fill);
  p->set_peak_osd(a.peak_osd);
  p->set_fullest_fill_after(a.fullest_after);
  p->set_fullest_osd_after(a.fullest_osd);
  p->set_max_pg_deviation(a.max_deviation);
  p->set_max_deviation_osd(a.max_deviation_osd);
  for (const AlternativePoolAvail& pool : a.pools) {
    proto::AlternativePoolAvail* pp = p->add_pools();
    pp->set_pool(pool.pool_id);
    pp->set_name(pool.pool_name);
    pp->set_max_avail_before(pool.before);
    pp->set_max_avail_lowest(pool.lowest);
    pp->set_max_avail_after(pool.after);
    pp->set_max_avail_change(Change(pool));
  }
  p->set_pgs_degraded_after(a.pgs_degraded_after);
  p->set_pgs_inactive_after(a.pgs_inactive_after);
  for (const std::string& w : a.warnings) p->add_warnings(w);
}

}  // namespace

absl::StatusOr<std::string> ComparisonToJson(const PlanComparison& c, bool rank_by_default) {
  proto::Comparison msg;
  msg.set_rank_by(std::string(RankByName(c.rank_by)));
  msg.set_criterion(std::string(RankByMeaning(c.rank_by)));
  msg.set_rank_by_default(rank_by_default);
  msg.set_bytes_source(static_cast<proto::BytesSource>(c.bytes_source));
  msg.set_osds(c.osds);
  msg.set_pgs(c.pgs);
  for (const AlternativeResult& a : c.alternatives) ToProto(a, msg.add_alternatives());
  absl::StatusOr<std::string> out = ProtoToJson(msg, /*print_defaults=*/true);
  if (!out.ok()) {
    return absl::InternalError(
        absl::StrCat("cannot print the comparison: ", out.status().message()));
  }
  return out;
}

HtmlTable ComparisonTable(const PlanComparison& c, bool rank_by_default) {
  HtmlTable t;
  t.title = absl::StrCat("Alternatives compared (", c.alternatives.size(), "), ranked by ",
                         Criterion(c, rank_by_default), "; the report below is #1's");
  t.header = {"#",
              "alternative",
              "moved",
              "PGs remapped",
              "amplification",
              "duration",
              "peak fill (OSD)",
              "fullest after (OSD)",
              "max PG deviation (OSD)"};
  const auto pools = PoolNames(c);
  for (const auto& [id, name] : pools) t.header.push_back(absl::StrCat("MAX AVAIL ", name));
  for (const AlternativeResult& a : c.alternatives) {
    std::vector<std::string> row = {a.rank > 0 ? absl::StrCat(a.rank) : "-", a.name};
    if (!a.error.empty()) {
      row.push_back(absl::StrCat("could not be planned: ", a.error));
      row.resize(t.header.size());
      t.rows.push_back(std::move(row));
      continue;
    }
    auto with_osd = [](const std::string& v, std::int32_t osd) {
      return osd < 0 ? v : absl::StrCat(v, " (", Osd(osd), ")");
    };
    row.push_back(Moved(a));
    row.push_back(absl::StrCat(a.pgs_remapped));
    row.push_back(Amplification(a));
    row.push_back(Duration(a.duration_seconds));
    row.push_back(with_osd(Fill(a.peak_fill), a.peak_osd));
    row.push_back(with_osd(Fill(a.fullest_after), a.fullest_osd));
    row.push_back(with_osd(Deviation(a), a.max_deviation_osd));
    for (const auto& [id, name] : pools) {
      const AlternativePoolAvail* p = FindPool(a, id);
      row.push_back(p == nullptr ? "?"
                                 : absl::StrCat(FormatBytes(static_cast<double>(p->after)), " (",
                                                SignedBytes(Change(*p)), ")"));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string ComparisonHtml(const PlanComparison& c, bool rank_by_default, HtmlExtras extras) {
  extras.top_tables.insert(extras.top_tables.begin(), ComparisonTable(c, rank_by_default));
  return ReportHtml(*c.best_report, std::move(extras));
}

}  // namespace crushkit::osdmap
