// The balancer's summary and JSON report.
#include "osdmap/balancer/upmap_balancer_report.h"

#include <array>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

#include "osdmap/formats/proto_json.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/proto/balance.pb.h"

namespace crushkit::osdmap {
namespace {

constexpr int kMaxPoolLines = 20;

std::string Amount(double v, BalanceBy by) {
  if (by == BalanceBy::kPgs) return absl::StrFormat("%.1f", v);
  static constexpr std::array<const char*, 6> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double a = std::fabs(v);
  std::size_t u = 0;
  while (a >= 1024 && u + 1 < kUnits.size()) {
    a /= 1024;
    ++u;
  }
  return absl::StrFormat("%s%.1f %s", v < 0 ? "-" : "", a, kUnits[u]);
}

std::string Osd(std::int32_t osd) { return osd < 0 ? "-" : absl::StrCat("osd.", osd); }

std::string Row(const std::string& name, const DeviationStats& b, const DeviationStats& a,
                BalanceBy by) {
  return absl::StrFormat("%-24s %10s -> %-10s %-9s %10s -> %-10s", name,
                         Amount(b.max_deviation, by), Amount(a.max_deviation, by), Osd(a.max_osd),
                         Amount(b.stddev, by), Amount(a.stddev, by));
}

void ToProto(const DeviationStats& s, proto::Deviation* out) {
  out->set_max_deviation(s.max_deviation);
  out->set_max_osd(s.max_osd);
  out->set_min_deviation(s.min_deviation);
  out->set_min_osd(s.min_osd);
  out->set_stddev(s.stddev);
  out->set_osds(s.osds);
}

void ToProto(const UpmapItems& items, google::protobuf::RepeatedPtrField<proto::UpmapPair>* out) {
  for (const auto& [from, to] : items) {
    proto::UpmapPair* p = out->Add();
    p->set_from(from);
    p->set_to(to);
  }
}

std::string Pct(double v) { return absl::StrFormat("%.1f", v); }

void ToProto(const FillSpread& s, proto::FillSpread* out) {
  out->set_osds(s.osds);
  out->set_fullest_pct(s.fullest_pct);
  out->set_fullest_osd(s.fullest_osd);
  out->set_emptiest_pct(s.emptiest_pct);
  out->set_emptiest_osd(s.emptiest_osd);
  out->set_spread(s.spread());
}

// By bytes: the classes' fill, then the pools' PG deviation and MAX AVAIL.
std::string BytesSummary(const BalanceResult& r, int max_changes, double max_deviation) {
  const BytesBalance& b = r.bytes;
  std::string out = absl::StrFormat(
      "balance by bytes: %d moves (max %d), %d PGs changed, %d cleanup entries; every pool "
      "within %g PGs of its targets, each class's spread to %g points\n",
      r.moves, max_changes, static_cast<int>(r.changes.size()), r.cleanup.entries_changed(),
      max_deviation, b.max_spread);
  absl::StrAppend(&out, b.capacity_from_osd_df
                            ? "fill: %USE from `ceph osd df`, shifted by the PG shards moved\n"
                            : "fill: no `ceph osd df`: capacity = CRUSH weight as TiB, use = PG "
                              "shards held\n");
  absl::StrAppend(&out,
                  absl::StrFormat("%-10s %5s  %-22s %-22s %-14s %6s  %s\n", "class", "OSDs",
                                  "fullest %USE", "emptiest %USE", "spread", "moves", "stopped"));
  for (const ClassBalance& c : b.classes) {
    absl::StrAppend(
        &out,
        absl::StrFormat("%-10s %5d  %-22s %-22s %-14s %6d  %s\n",
                        c.device_class.empty() ? "(none)" : c.device_class, c.after.osds,
                        absl::StrCat(Pct(c.before.fullest_pct), " -> ", Pct(c.after.fullest_pct),
                                     " ", Osd(c.after.fullest_osd)),
                        absl::StrCat(Pct(c.before.emptiest_pct), " -> ", Pct(c.after.emptiest_pct),
                                     " ", Osd(c.after.emptiest_osd)),
                        absl::StrCat(Pct(c.before.spread()), " -> ", Pct(c.after.spread())),
                        c.moves, c.stop_reason));
  }
  for (const ClassBalance& c : b.classes) {
    if (!c.detail.empty()) {
      absl::StrAppend(&out, "  ", c.device_class.empty() ? "(none)" : c.device_class, ": ",
                      c.detail, "\n");
    }
  }
  absl::StrAppend(&out, absl::StrFormat("%-24s %-14s %-32s %7s  %s\n", "pool", "PG deviation",
                                        "MAX AVAIL", "changes", "stopped"));
  int shown = 0;
  for (std::size_t i = 0; i < r.pools.size() && i < b.pools.size(); ++i) {
    const PoolBalance& p = r.pools[i];
    const PoolBytesBalance& pb = b.pools[i];
    if (shown++ == kMaxPoolLines) {
      absl::StrAppend(&out, "... ", r.pools.size() - kMaxPoolLines, " more pools (see --json)\n");
      break;
    }
    std::string avail = absl::StrCat(Amount(static_cast<double>(pb.max_avail_before), r.by), " -> ",
                                     Amount(static_cast<double>(pb.max_avail_after), r.by));
    if (pb.max_avail_before > 0) {
      absl::StrAppend(&avail,
                      absl::StrFormat(" %+.1f%%", (static_cast<double>(pb.max_avail_after) /
                                                       static_cast<double>(pb.max_avail_before) -
                                                   1) *
                                                      100));
    }
    absl::StrAppend(
        &out, absl::StrFormat(
                  "%-24s %-14s %-32s %7d  %s\n", absl::StrCat(p.pool_id, " ", p.name).substr(0, 24),
                  absl::StrFormat("%.1f -> %.1f", pb.pg_deviation_before, pb.pg_deviation_after),
                  avail, p.changes, p.stop_reason));
  }
  return out;
}

}  // namespace

std::string FormatBalanceSummary(const BalanceResult& r, int max_changes, double max_deviation) {
  if (r.by == BalanceBy::kBytes) return BytesSummary(r, max_changes, max_deviation);
  const char* unit = r.by == BalanceBy::kPgs ? "pgs" : "bytes";
  std::string out = absl::StrFormat(
      "balance by %s: %d moves (max %d, deviation %g), %d PGs changed, %d cleanup entries\n", unit,
      r.moves, max_changes, max_deviation, static_cast<int>(r.changes.size()),
      r.cleanup.entries_changed());
  absl::StrAppend(&out, absl::StrFormat("%-24s %24s %-9s %24s  %7s  %s\n", "pool", "max deviation",
                                        "(osd)", "stddev", "changes", "stopped"));
  int shown = 0;
  for (const PoolBalance& p : r.pools) {
    if (shown++ == kMaxPoolLines) {
      absl::StrAppend(&out, "... ", r.pools.size() - kMaxPoolLines, " more pools (see --json)\n");
      break;
    }
    absl::StrAppend(
        &out, Row(absl::StrCat(p.pool_id, " ", p.name).substr(0, 24), p.before, p.after, r.by),
        absl::StrFormat("  %7d  %s\n", p.changes, p.stop_reason));
  }
  absl::StrAppend(&out, Row("overall", r.overall_before, r.overall_after, r.by), "\n");
  return out;
}

namespace {

void FillUpmapReport(const BalanceResult& r, proto::BalanceReport& report) {
  report.set_by(r.by == BalanceBy::kPgs ? proto::PGS : proto::BYTES);
  report.set_moves(r.moves);
  report.set_cleanup_entries(r.cleanup.entries_changed());
  ToProto(r.overall_before, report.mutable_overall_before());
  ToProto(r.overall_after, report.mutable_overall_after());
  for (const PoolBalance& p : r.pools) {
    proto::PoolBalanceReport* pr = report.add_pools();
    pr->set_pool_id(p.pool_id);
    pr->set_pool_name(p.name);
    pr->set_threshold(p.threshold);
    ToProto(p.before, pr->mutable_before());
    ToProto(p.after, pr->mutable_after());
    pr->set_changes(p.changes);
    pr->set_stop_reason(p.stop_reason);
    pr->set_mismatches(p.mismatches);
  }
  for (const UpmapChange& c : r.changes) {
    proto::UpmapItemsChange* pc = report.add_changes();
    pc->set_pgid(FormatPgId(c.pg));
    ToProto(c.old_items, pc->mutable_old_items());
    ToProto(c.new_items, pc->mutable_new_items());
  }
  if (r.by == BalanceBy::kBytes) {
    proto::BytesBalanceReport* b = report.mutable_bytes();
    b->set_capacity_from_osd_df(r.bytes.capacity_from_osd_df);
    b->set_max_spread(r.bytes.max_spread);
    for (const ClassBalance& c : r.bytes.classes) {
      proto::ClassBalanceReport* pc = b->add_classes();
      pc->set_device_class(c.device_class);
      ToProto(c.before, pc->mutable_before());
      ToProto(c.after, pc->mutable_after());
      pc->set_moves(c.moves);
      pc->set_stop_reason(c.stop_reason);
      pc->set_detail(c.detail);
    }
    for (const PoolBytesBalance& p : r.bytes.pools) {
      proto::PoolBytesReport* pp = b->add_pools();
      pp->set_pool_id(p.pool_id);
      pp->set_pool_name(p.name);
      pp->set_max_avail_before(p.max_avail_before);
      pp->set_max_avail_after(p.max_avail_after);
      pp->set_limiting_osd_before(p.limiting_osd_before);
      pp->set_limiting_osd_after(p.limiting_osd_after);
      pp->set_pg_deviation_before(p.pg_deviation_before);
      pp->set_pg_deviation_after(p.pg_deviation_after);
    }
  }
  for (absl::string_view line : absl::StrSplit(FormatBalanceCommands(r), '\n', absl::SkipEmpty())) {
    report.add_commands(std::string(line));
  }
}

std::string ScoreText(const ReadBalanceScore& s) {
  return s.rc >= 0 ? absl::StrFormat("%.2f", s.info.acting_adj_score) : "-";
}

// Why a pool kept its primaries (or the score's warning), "" otherwise.
std::string ReadNote(const PoolReadBalance& p) {
  if (!p.score_before.info.err_msg.empty()) return p.score_before.info.err_msg;
  if (p.rc < 0) return "no PG maps to an OSD, or no OSD may be primary";
  if (p.rc == 0) return "no change lowers the score";
  return "";
}

const char* ScoreTypeName(const ReadBalanceScore& s) {
  return s.info.score_type == ReadBalanceScoreType::kSizeOptimal ? "osd size aware"
                                                                 : "fair distribution";
}

}  // namespace

std::string FormatReadBalanceSummary(const ReadBalanceResult& r) {
  int changed = 0;
  for (const PoolReadBalance& p : r.pools) changed += p.rc > 0 ? 1 : 0;
  std::string out = absl::StrFormat(
      "read balance: %d PGs given a new primary in %d of %d pools (pg-upmap-primary: reads "
      "move, no data does)\n",
      static_cast<int>(r.new_pg_upmap_primary.size()), changed, static_cast<int>(r.pools.size()));
  absl::StrAppend(&out, absl::StrFormat("%-24s %12s    %-6s %7s  %s\n", "pool", "score before",
                                        "after", "changes", "note"));
  int shown = 0;
  for (const PoolReadBalance& p : r.pools) {
    if (shown++ == kMaxPoolLines) {
      absl::StrAppend(&out, "... ", r.pools.size() - kMaxPoolLines, " more pools (see --json)\n");
      break;
    }
    absl::StrAppend(&out,
                    absl::StrFormat("%-24s %12s -> %-6s %7d  %s\n",
                                    absl::StrCat(p.pool_id, " ", p.name).substr(0, 24),
                                    ScoreText(p.score_before), ScoreText(p.score_after),
                                    static_cast<int>(p.new_pg_upmap_primary.size()), ReadNote(p)));
  }
  return out;
}

absl::StatusOr<std::string> BalanceReportJson(const BalanceResult* upmap,
                                              const ReadBalanceResult* read) {
  proto::BalanceReport report;
  if (upmap != nullptr) FillUpmapReport(*upmap, report);
  report.set_mode(upmap != nullptr && read != nullptr ? "upmap-read"
                  : read != nullptr                   ? "read"
                                                      : "upmap");
  if (read != nullptr) {
    for (const PoolReadBalance& p : read->pools) {
      proto::PoolReadBalanceReport* pr = report.add_read_pools();
      pr->set_pool_id(p.pool_id);
      pr->set_pool_name(p.name);
      pr->set_score_type(ScoreTypeName(p.score_before));
      pr->set_score_before_valid(p.score_before.rc >= 0);
      pr->set_score_before(p.score_before.rc >= 0 ? p.score_before.info.acting_adj_score : 0);
      pr->set_score_after_valid(p.score_after.rc >= 0);
      pr->set_score_after(p.score_after.rc >= 0 ? p.score_after.info.acting_adj_score : 0);
      pr->set_changes(static_cast<int>(p.new_pg_upmap_primary.size()));
      pr->set_note(ReadNote(p));
    }
    for (const auto& [pg, osd] : read->new_pg_upmap_primary) {
      proto::PgUpmapPrimaryChange* c = report.add_primary_changes();
      c->set_pgid(FormatPgId(pg));
      c->set_primary(osd);
    }
    for (absl::string_view line : absl::StrSplit(
             FormatPgUpmapPrimaryCommands(read->new_pg_upmap_primary), '\n', absl::SkipEmpty())) {
      report.add_commands(std::string(line));
    }
  }
  return ProtoToJson(report, /*print_defaults=*/true);
}

absl::StatusOr<std::string> BalanceReportJson(const BalanceResult& r) {
  return BalanceReportJson(&r, nullptr);
}

}  // namespace crushkit::osdmap
