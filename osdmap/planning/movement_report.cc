#include "osdmap/planning/movement_report.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

#include "osdmap/formats/proto_json.h"
#include "osdmap/planning/change_safety_report.h"
#include "osdmap/planning/plan_headline.h"
#include "osdmap/planning/report_internal.h"
#include "osdmap/proto/movement.pb.h"

namespace crushkit::osdmap {

void internal::CountersToProto(const MovementCounters& c, proto::Counters* p) {
  p->set_pool_id(c.pool_id);
  p->set_pool_name(c.pool_name);
  p->set_pgs(c.pgs);
  p->set_pgs_remapped(c.pgs_remapped);
  p->set_pgs_primary_changed(c.pgs_primary_changed);
  p->set_pgs_primary_only(c.pgs_primary_only);
  p->set_shards_moved(c.shards_moved);
  p->set_objects_to_move(c.objects_to_move);
  p->set_bytes_to_move(c.bytes_to_move);
  p->set_pgs_degraded_after(c.pgs_degraded_after);
  p->set_pgs_inactive_after(c.pgs_inactive_after);
  p->set_shards_total(c.shards_total);
  p->set_objects_total(c.objects_total);
  p->set_bytes_total(c.bytes_total);
  p->set_minimum_to_move(c.minimum_to_move);
  p->set_amplification(c.amplification);
  p->set_size_before(c.size_before);
  p->set_size_after(c.size_after);
  p->set_pg_num_before(c.pg_num_before);
  p->set_pg_num_after(c.pg_num_after);
  p->set_pgs_degraded_before(c.pgs_degraded_before);
  p->set_pgs_inactive_before(c.pgs_inactive_before);
  p->set_minimum_level(c.minimum_level);
  p->set_amplification_note(c.amplification_note);
}

std::string internal::FormatCount(double n) {
  if (n >= 1e9) return absl::StrFormat("%.2fG", n / 1e9);
  if (n >= 1e6) return absl::StrFormat("%.2fM", n / 1e6);
  if (n >= 1e4) return absl::StrFormat("%.1fk", n / 1e3);
  return absl::StrFormat("%.0f", n);
}

namespace {

using internal::FormatCount;

void ToProto(const MovementCounters& c, proto::Counters* p) { internal::CountersToProto(c, p); }

void ToProto(const OsdMovement& o, proto::OsdMovement* p) {
  p->set_osd(o.osd);
  p->set_host(o.host);
  p->set_domain(o.domain);
  p->set_device_class(o.device_class);
  p->set_pgs_before(o.pgs_before);
  p->set_pgs_after(o.pgs_after);
  p->set_pgs_in(o.pgs_in);
  p->set_pgs_out(o.pgs_out);
  p->set_bytes_in(o.bytes_in);
  p->set_bytes_out(o.bytes_out);
  p->set_capacity_bytes(o.capacity_bytes);
  p->set_used_before(o.used_before);
  p->set_used_after(o.used_after);
  p->set_fill_before(o.fill_before);
  p->set_fill_after(o.fill_after);
  p->set_capacity_from_osd_df(o.capacity_from_osd_df);
}

void ToProto(const MovementRisks& r, proto::Risks* p) {
  p->set_nearfull_ratio(r.nearfull_ratio);
  p->set_backfillfull_ratio(r.backfillfull_ratio);
  p->set_full_ratio(r.full_ratio);
  for (const OsdRisk& o : r.osds) {
    proto::OsdRisk* po = p->add_osds();
    po->set_osd(o.osd);
    po->set_fill_before(o.fill_before);
    po->set_fill_after(o.fill_after);
    po->set_level(o.level);
  }
  p->set_pgs_degraded_after(r.pgs_degraded_after);
  p->set_pgs_inactive_after(r.pgs_inactive_after);
  p->set_upmaps_dropped(r.upmaps_dropped);
  p->set_upmap_items_rewritten(r.upmap_items_rewritten);
  for (const std::string& n : r.notes) p->add_notes(n);
}

void ToProto(const PlanWarning& w, proto::Warning* p) {
  p->set_kind(w.kind == PlanWarning::Kind::kNewBucket ? "new_bucket" : "detached");
  p->set_message(w.message);
  p->set_where(w.where);
  p->set_bucket(w.bucket);
  p->set_suggestion(w.suggestion);
  for (const std::string& b : w.buckets) p->add_buckets(b);
  for (const std::int32_t o : w.osds) p->add_osds(o);
  p->set_crush_weight(w.crush_weight);
  p->set_capacity_bytes(w.capacity_bytes);
  p->set_used_bytes(w.used_bytes);
  p->set_capacity_from_osd_df(w.capacity_from_osd_df);
}

void ToProto(const DomainMatrix& d, proto::DomainMatrix* pd) {
  pd->set_type(d.type);
  for (const std::string& n : d.names) pd->add_names(n);
  for (const DomainCell& c : d.cells) {
    proto::DomainCell* pc = pd->add_cells();
    pc->set_from(c.from);
    pc->set_to(c.to);
    pc->set_shards(c.shards);
    pc->set_bytes(c.bytes);
  }
}

void ToProto(const Movement& m, proto::MovementReport* p) {
  for (const MovementCounters& c : m.pools) ToProto(c, p->add_pools());
  ToProto(m.totals, p->mutable_totals());
  for (const OsdMovement& o : m.osds) ToProto(o, p->add_osds());
  for (const DomainMatrix& d : m.domains) ToProto(d, p->add_domains());
  for (const DomainMatrix& d : m.traffic) ToProto(d, p->add_traffic());
  for (const PgMove& mv : m.moves) {
    proto::PgMove* pm = p->add_pgs();
    pm->set_pg(FormatPgId(mv.pg));
    for (std::int32_t o : mv.before) pm->add_before(o);
    for (std::int32_t o : mv.after) pm->add_after(o);
    for (std::int32_t o : mv.targets) pm->add_targets(o);
    pm->set_pusher(mv.pusher);
    pm->set_bytes_per_target(mv.bytes_per_target);
    pm->set_objects_per_target(mv.objects_per_target);
    pm->set_degraded(mv.degraded);
  }
  ToProto(m.risks, p->mutable_risks());
  p->set_bytes_source(static_cast<proto::BytesSource>(m.bytes_source));
  for (const std::string& c : m.change) p->add_change(c);
  p->set_epoch_before(m.epoch_before);
  p->set_epoch_after(m.epoch_after);
}

// The cost model's figures and where each came from.
void CostToProto(const BackfillCostReport& c, proto::BackfillCostApplied* pc) {
  pc->set_scheduler(std::string(SchedulerName(c.scheduler)));
  pc->set_scheduler_source(c.scheduler_from_release ? "release" : "--recovery-scheduler");
  pc->set_mclock_profile(std::string(ProfileName(c.profile)));
  pc->set_calibration(c.calibration_source);
  pc->set_concurrency_slowdown(c.concurrency_slowdown);
  pc->set_concurrency_slowdown_calibrated(c.concurrency_slowdown_calibrated);
  pc->set_concurrency_slowdown_max_running(c.concurrency_slowdown_max_running);
  for (const AppliedClassCost& a : c.classes) {
    proto::BackfillClassCost* pa = pc->add_classes();
    pa->set_device_class(a.device_class);
    pa->set_per_pg_seconds(a.cost.per_pg_seconds);
    pa->set_seconds_per_object(a.cost.seconds_per_object);
    pa->set_bytes_per_second(a.cost.bytes_per_second);
    pa->set_per_pg_source(std::string(CostSourceName(a.per_pg_source)));
    pa->set_objects_source(std::string(CostSourceName(a.objects_source)));
    pa->set_bytes_source(std::string(CostSourceName(a.bytes_source)));
    pa->set_ec_hold_factor(a.cost.ec_hold_factor.value_or(1));
    pa->set_ec_source(std::string(CostSourceName(a.ec_source)));
  }
}

void ToProto(const PlanReport& r, proto::Schedule* p) {
  const BackfillSchedule& s = *r.schedule;
  constexpr std::size_t kTop = 20;
  p->set_makespan_seconds(s.makespan_seconds);
  p->set_max_backfills(r.backfill.max_backfills);
  p->set_bytes_total(s.bytes_total);
  p->set_preemptions(s.preemptions);
  if (r.request_orders) {
    const RequestOrderRange& o = *r.request_orders;
    proto::RequestOrders* po = p->mutable_request_orders();
    po->set_orders_asked(o.orders_asked);
    po->set_orders(o.orders);
    po->set_capped(o.capped);
    po->set_jobs(o.jobs);
    po->set_max_job_simulations(o.max_job_simulations);
    po->set_given_seconds(o.given_seconds);
    po->set_min_seconds(o.min_seconds);
    po->set_p10_seconds(o.p10_seconds);
    po->set_median_seconds(o.median_seconds);
    po->set_p90_seconds(o.p90_seconds);
    po->set_max_seconds(o.max_seconds);
  }
  for (const MisplacedPoint& m : s.misplaced) {
    proto::MisplacedPoint* pm = p->add_misplaced();
    pm->set_seconds(m.seconds);
    pm->set_objects_misplaced(m.objects_misplaced);
    pm->set_ratio(m.ratio);
  }
  for (std::size_t i = 0; i < s.osds.size() && i < kTop; ++i) {
    const OsdBackfillLoad& o = s.osds[i];
    proto::OsdLoad* po = p->add_busiest_osds();
    po->set_osd(o.osd);
    po->set_busy_seconds(o.busy_seconds);
    po->set_transfer_seconds(o.transfer_seconds);
    po->set_jobs_as_primary(o.jobs_as_primary);
    po->set_jobs_as_target(o.jobs_as_target);
    po->set_bytes_in(o.bytes_in);
  }
  for (std::size_t i = 0; i < s.hosts.size() && i < kTop; ++i) {
    const HostBackfillLoad& h = s.hosts[i];
    proto::HostLoad* ph = p->add_busiest_hosts();
    ph->set_host(h.host);
    ph->set_busy_seconds(h.busy_seconds);
    ph->set_osd_busy_seconds(h.osd_busy_seconds);
    ph->set_osds(h.osds);
  }
  for (std::size_t i = 0; i < s.longest_waits.size() && i < kTop; ++i) {
    const BackfillWait& w = s.longest_waits[i];
    proto::PgWait* pw = p->add_longest_waits();
    pw->set_pgid(FormatPgId(w.pg));
    pw->set_priority(w.priority);
    pw->set_wait_seconds(w.wait_seconds);
    pw->set_start_seconds(w.start_seconds);
    pw->set_end_seconds(w.end_seconds);
  }
  for (const auto& [cls, rate] : r.backfill.class_rates) {
    (*p->mutable_rates_bytes_per_second())[cls] = rate.bytes_per_second;
  }
  if (r.backfill_cost) CostToProto(*r.backfill_cost, p->mutable_cost());
}

std::string Percent(double part, double whole) {
  if (whole <= 0) return "-";
  return absl::StrFormat("%.1f%%", 100.0 * part / whole);
}

// One row of the pool table. A name longer than the column gets a line of
// its own, the figures on the next, so the columns stay aligned.
void AppendCounters(std::string* out, const MovementCounters& c, bool bytes, int name_width) {
  if (static_cast<int>(c.pool_name.size()) > name_width) {
    absl::StrAppend(out, c.pool_name, "\n");
    absl::StrAppend(out, std::string(static_cast<std::size_t>(name_width), ' '));
  } else {
    absl::StrAppendFormat(out, "%-*s", name_width, c.pool_name);
  }
  absl::StrAppendFormat(out, " %6u %7u %6s %7u %6s", c.pgs, c.pgs_remapped,
                        Percent(c.pgs_remapped, c.pgs), c.shards_moved,
                        Percent(c.shards_moved, c.shards_total));
  if (bytes) {
    absl::StrAppendFormat(
        out, " %8s %9s %6s", FormatCount(static_cast<double>(c.objects_to_move)),
        FormatBytes(static_cast<double>(c.bytes_to_move)),
        Percent(static_cast<double>(c.bytes_to_move), static_cast<double>(c.bytes_total)));
  }
  if (c.amplification > 0) {
    absl::StrAppendFormat(out, " %6.2fx", c.amplification);
  } else if (!c.amplification_note.empty()) {
    absl::StrAppend(out, "     n/a");
  } else {
    absl::StrAppend(out, "       -");
  }
  absl::StrAppend(out, "\n");
}

void AppendOsdList(std::string* out, const char* title, std::vector<const OsdMovement*> list,
                   bool incoming, bool bytes, int top) {
  std::sort(list.begin(), list.end(), [&](const OsdMovement* a, const OsdMovement* b) {
    const std::uint64_t va =
        bytes ? (incoming ? a->bytes_in : a->bytes_out) : (incoming ? a->pgs_in : a->pgs_out);
    const std::uint64_t vb =
        bytes ? (incoming ? b->bytes_in : b->bytes_out) : (incoming ? b->pgs_in : b->pgs_out);
    return va != vb ? va > vb : a->osd < b->osd;
  });
  if (list.empty()) return;
  absl::StrAppend(out, title, "\n");
  for (int i = 0; i < top && i < static_cast<int>(list.size()); ++i) {
    const OsdMovement& o = *list[static_cast<std::size_t>(i)];
    absl::StrAppendFormat(out, "  osd.%-6d %-14.14s %-4.4s %c%-5u PGs", o.osd, o.host,
                          o.device_class, incoming ? '+' : '-', incoming ? o.pgs_in : o.pgs_out);
    if (bytes) {
      absl::StrAppendFormat(out, " %10s  fill %3.0f%% -> %3.0f%%",
                            FormatBytes(static_cast<double>(incoming ? o.bytes_in : o.bytes_out)),
                            100 * o.fill_before, 100 * o.fill_after);
    }
    absl::StrAppend(out, "\n");
  }
}

}  // namespace

std::string FormatBytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  if (u == 0) return absl::StrFormat("%.0f B", bytes);
  if (bytes < 10) return absl::StrFormat("%.2f %s", bytes, kUnits[u]);
  if (bytes < 100) return absl::StrFormat("%.1f %s", bytes, kUnits[u]);
  return absl::StrFormat("%.0f %s", bytes, kUnits[u]);
}

std::string FormatDuration(double seconds) {
  if (!(seconds > 0)) return "0 s";
  if (seconds < 10) return absl::StrFormat("%.1f s", seconds);

  // Two units, the smaller rounded: 134 s is "2 min 14 s", not "about 2 min".
  struct Unit {
    double seconds;
    const char* one;
    const char* many;
  };

  static constexpr Unit kUnits[] = {
      {86400, "day", "days"}, {3600, "h", "h"}, {60, "min", "min"}, {1, "s", "s"}};
  auto name = [](const Unit& u, double n) { return n == 1 ? u.one : u.many; };
  for (std::size_t i = 0; i + 1 < std::size(kUnits); ++i) {
    const Unit& big = kUnits[i];
    const Unit& small = kUnits[i + 1];
    // Rounded first, so 3599.7 s is "1 h", not "60 min".
    const double total = std::round(seconds / small.seconds);
    const double per = big.seconds / small.seconds;
    if (total < per) continue;
    const double whole = std::floor(total / per), rest = total - whole * per;
    if (rest == 0) return absl::StrFormat("%.0f %s", whole, name(big, whole));
    return absl::StrFormat("%.0f %s %.0f %s", whole, name(big, whole), rest, name(small, rest));
  }
  return absl::StrFormat("%.0f s", std::round(seconds));
}

absl::StatusOr<std::string> ReportToJson(const PlanReport& r, bool with_pgs) {
  proto::MovementReport msg;
  ToProto(r.movement, &msg);
  if (!with_pgs) msg.clear_pgs();
  if (r.schedule) ToProto(r, msg.mutable_schedule());
  if (r.staged) internal::StagedPlanToProto(*r.staged, &msg);
  if (r.upmap_plan) internal::UpmapPlanToProto(*r.upmap_plan, msg.mutable_upmap_plan());
  for (const PlanWarning& w : r.warnings) ToProto(w, msg.add_warnings());
  if (r.safety) internal::SafetyToProto(*r.safety, msg.mutable_safety());
  internal::HeadlineToProto(ComputeHeadline(r), msg.mutable_headline());
  internal::AssumptionsToProto(ComputeAssumptions(r), msg.mutable_assumptions());
  absl::StatusOr<std::string> out = ProtoToJsonApart(&msg, "upmap_plan", "batches");
  if (!out.ok())
    return absl::InternalError(absl::StrCat("cannot print the report: ", out.status().message()));
  return out;
}

std::string PgMovesCsv(const Movement& m) {
  std::string out = "pg,before,after,targets,pusher,bytes_per_target,objects_per_target,degraded\n";
  for (const PgMove& mv : m.moves) {
    absl::StrAppend(&out, FormatPgId(mv.pg), ",", absl::StrJoin(mv.before, " "), ",",
                    absl::StrJoin(mv.after, " "), ",", absl::StrJoin(mv.targets, " "), ",",
                    mv.pusher, ",", mv.bytes_per_target, ",", mv.objects_per_target, ",",
                    mv.degraded ? 1 : 0, "\n");
  }
  return out;
}

namespace {

void AppendSchedule(std::string& out, const PlanReport& r, int top) {
  const BackfillSchedule& s = *r.schedule;
  if (s.makespan_seconds <= 0) return;
  absl::StrAppend(&out, "\nbackfill at once (simulated, osd_max_backfills ",
                  r.backfill.max_backfills, "): about ", FormatDuration(s.makespan_seconds));
  if (!s.misplaced.empty() && s.misplaced.front().ratio > 0) {
    absl::StrAppendFormat(&out, "; misplaced %.1f%% at the start", 100 * s.misplaced.front().ratio);
    for (const MisplacedPoint& p : s.misplaced) {
      if (p.ratio <= 0.05 && s.misplaced.front().ratio > 0.05) {
        absl::StrAppend(&out, ", under 5% after ", FormatDuration(p.seconds));
        break;
      }
    }
  }
  if (r.backfill_cost) {
    // The per-class figures are in the assumptions block at the top.
    absl::StrAppend(&out,
                    "\n  per-PG hold = fixed + objects x per object + bytes / rate (figures under "
                    "assumptions;\n  --backfill-rate CLASS=BYTES,Nobj,Ns; --calibration FILE)\n");
  } else {
    absl::StrAppend(&out, "\n  assumed rates per target OSD:");
    for (const auto& [cls, rate] : r.backfill.class_rates) {
      absl::StrAppend(&out, " ", cls, " ", FormatBytes(rate.bytes_per_second), "/s");
    }
    absl::StrAppend(&out, " (--backfill-rate CLASS=RATE)\n");
  }
  if (!s.hosts.empty()) {
    absl::StrAppend(&out, "  busiest hosts:");
    for (int i = 0; i < top && i < static_cast<int>(s.hosts.size()); ++i) {
      absl::StrAppend(&out, " ", s.hosts[static_cast<std::size_t>(i)].host, " ",
                      FormatDuration(s.hosts[static_cast<std::size_t>(i)].busy_seconds), ";");
    }
    absl::StrAppend(&out, "\n");
  }
  if (!s.osds.empty()) {
    absl::StrAppend(&out, "  busiest OSDs:");
    for (int i = 0; i < top && i < static_cast<int>(s.osds.size()); ++i) {
      absl::StrAppend(&out, " osd.", s.osds[static_cast<std::size_t>(i)].osd, " ",
                      FormatDuration(s.osds[static_cast<std::size_t>(i)].busy_seconds), ";");
    }
    absl::StrAppend(&out, "\n");
  }
}

// The change's operations (the first 8) and the planner's warnings.
void AppendChangeLines(std::string& out, const PlanReport& r) {
  const Movement& m = r.movement;
  for (std::size_t i = 0; i < m.change.size() && i < 8; ++i) {
    absl::StrAppend(&out, i == 0 ? "change: " : "        ", m.change[i], "\n");
  }
  if (m.change.size() > 8) absl::StrAppend(&out, "        ... (", m.change.size() - 8, " more)\n");
  for (const PlanWarning& w : r.warnings)
    absl::StrAppend(&out, "warning: ", FormatPlanWarning(w), "\n");
}

// One row per pool, then the totals when there are several pools.
void AppendPoolTable(std::string& out, const Movement& m, bool bytes) {
  // The pool column as wide as its longest name, from "total"'s 5 up to 29
  // (a longer name gets a line of its own): 100 columns at most.
  int name_width = 5;
  for (const MovementCounters& c : m.pools)
    name_width = std::max(name_width, static_cast<int>(c.pool_name.size()));
  name_width = std::min(name_width, 29);
  absl::StrAppendFormat(&out, "\n%-*s %6s %14s %14s", name_width, "pool", "pgs", "remapped",
                        "shards moved");
  if (bytes) absl::StrAppendFormat(&out, " %8s %16s", "objects", "bytes to move");
  absl::StrAppend(&out, "    ampl\n");
  for (const MovementCounters& c : m.pools) AppendCounters(&out, c, bytes, name_width);
  if (m.pools.size() > 1) AppendCounters(&out, m.totals, bytes, name_width);
}

// Primary changes on a line of their own: no data moves for them, but
// reads go to the new primary and it sources the PG's backfill.
void AppendPrimaryChanges(std::string& out, const Movement& m) {
  if (m.totals.pgs_primary_changed == 0) return;
  std::vector<std::string> pools;
  for (const MovementCounters& c : m.pools) {
    if (c.pgs_primary_changed > 0)
      pools.push_back(absl::StrCat(c.pool_name, " ", c.pgs_primary_changed));
  }
  internal::AppendWrapped(
      out, "",
      absl::StrCat("primary changes: ", Plural(m.totals.pgs_primary_changed, "PG"),
                   " get a new acting primary (", m.totals.pgs_primary_only,
                   " of them without moving data: pg_upmap_primaries, primary affinity); reads "
                   "and backfill sources move with them",
                   m.pools.size() > 1 && pools.size() <= 3
                       ? absl::StrCat(" (", absl::StrJoin(pools, ", "), ")")
                       : ""),
      2);
}

// The theoretical minimum the amplification divides by.
void AppendMinimumToMove(std::string& out, const Movement& m, bool bytes) {
  if (m.totals.minimum_to_move <= 0) return;
  internal::AppendWrapped(
      out, "",
      absl::StrCat("theoretical minimum ",
                   bytes ? FormatBytes(m.totals.minimum_to_move)
                         : FormatCount(m.totals.minimum_to_move) + " shards",
                   m.totals.minimum_level.empty()
                       ? ""
                       : absl::StrCat(", at the ", m.totals.minimum_level, " level"),
                   " (ampl = moved / minimum; the minimum is the data that must change "
                   "buckets at the level where most must, from CRUSH weights x reweights)"),
      2);
}

// Each distinct reason once, with its pools: "ampl n/a (a, b): why".
void AppendAmplificationNotes(std::string& out, const Movement& m) {
  std::vector<std::pair<std::string, std::vector<std::string>>> reasons;
  for (const MovementCounters& c : m.pools) {
    if (c.amplification > 0 || c.amplification_note.empty()) continue;
    const std::string& note = c.amplification_note;
    const std::string why = note.rfind("n/a: ", 0) == 0 ? note.substr(5) : note;
    auto it =
        std::find_if(reasons.begin(), reasons.end(), [&](const auto& e) { return e.first == why; });
    if (it == reasons.end()) it = reasons.insert(reasons.end(), {why, {}});
    it->second.push_back(c.pool_name);
  }
  for (const auto& [why, pools] : reasons) {
    absl::StrAppend(&out, "ampl n/a (",
                    pools.size() <= 3
                        ? absl::StrJoin(pools, ", ")
                        : absl::StrCat(pools.front(), " and ", pools.size() - 1, " more pools"),
                    "): ", why, "\n");
  }
}

// The OSDs receiving and giving up the most.
void AppendOsdLists(std::string& out, const Movement& m, bool bytes, int top) {
  std::vector<const OsdMovement*> in, out_list;
  for (const OsdMovement& o : m.osds) {
    if (o.pgs_in > 0) in.push_back(&o);
    if (o.pgs_out > 0) out_list.push_back(&o);
  }
  if (!in.empty() || !out_list.empty()) absl::StrAppend(&out, "\n");
  AppendOsdList(&out, absl::StrCat("receiving most (", in.size(), " OSDs):").c_str(), in, true,
                bytes, top);
  AppendOsdList(&out, absl::StrCat("giving up most (", out_list.size(), " OSDs):").c_str(),
                out_list, false, bytes, top);
}

// Placement matrices, then the network traffic of the first domain type
// (the hosts): enough for a screen.
void AppendBusiestPairs(std::string& out, const Movement& m, bool bytes, int top) {
  std::vector<std::pair<const DomainMatrix*, const char*>> matrices;
  for (const DomainMatrix& d : m.domains) matrices.emplace_back(&d, "placement (old copy -> new)");
  if (!m.traffic.empty())
    matrices.emplace_back(&m.traffic.front(), "network traffic (sender -> receiver)");
  for (const auto& [dm, what] : matrices) {
    const DomainMatrix& d = *dm;
    if (d.cells.empty()) continue;
    absl::StrAppend(&out, "\nbusiest ", d.type, " ", what, ", ", d.cells.size(), " pairs of ",
                    d.names.size(), " ", d.type, "s:\n");
    for (int i = 0; i < top && i < static_cast<int>(d.cells.size()); ++i) {
      const DomainCell& c = d.cells[static_cast<std::size_t>(i)];
      absl::StrAppendFormat(&out, "  %-16.16s -> %-16.16s %6u shards", c.from, c.to, c.shards);
      if (bytes) absl::StrAppend(&out, "  ", FormatBytes(static_cast<double>(c.bytes)));
      absl::StrAppend(&out, "\n");
    }
  }
}

// OSDs projected past nearfull, dropped upmaps and the risk notes.
void AppendRisks(std::string& out, const MovementRisks& risks, int top) {
  absl::StrAppend(&out, "\nrisks:\n");
  if (!risks.osds.empty()) {
    absl::StrAppendFormat(&out,
                          "  %s projected past nearfull (%.2f):", Plural(risks.osds.size(), "OSD"),
                          risks.nearfull_ratio);
    for (int i = 0; i < top && i < static_cast<int>(risks.osds.size()); ++i) {
      const OsdRisk& o = risks.osds[static_cast<std::size_t>(i)];
      absl::StrAppendFormat(&out, " osd.%d %.0f%%->%.0f%% %s;", o.osd, 100 * o.fill_before,
                            100 * o.fill_after, o.level);
    }
    absl::StrAppend(&out, "\n");
    // A fill past 100% is not a state Ceph reaches: say what it means.
    const auto overfull = std::count_if(risks.osds.begin(), risks.osds.end(),
                                        [](const OsdRisk& o) { return o.fill_after > 1.0; });
    if (overfull > 0) {
      absl::StrAppendFormat(
          &out,
          "  %s past 100%%: the data meant for %s does not fit; Ceph refuses backfill into an "
          "OSD at backfillfull (%.0f%%), so those PGs would wait in backfill_toofull and the "
          "change would not finish as planned\n",
          Plural(static_cast<std::size_t>(overfull), "OSD"), overfull == 1 ? "it" : "them",
          100 * risks.backfillfull_ratio);
    }
  }
  if (risks.upmaps_dropped > 0 || risks.upmap_items_rewritten > 0) {
    absl::StrAppend(&out, "  upmaps the monitor would drop: ", risks.upmaps_dropped,
                    ", trim: ", risks.upmap_items_rewritten, "\n");
  }
  for (const std::string& n : risks.notes) absl::StrAppend(&out, "  ", n, "\n");
  if (risks.osds.empty() && risks.notes.empty() && risks.upmaps_dropped == 0 &&
      risks.upmap_items_rewritten == 0) {
    absl::StrAppend(&out, "  none found (no OSD past nearfull, every PG keeps its size)\n");
  }
}

// Every line within 100 columns: a longer one continues, indented 2 more.
std::string WrapLongLines(const std::string& out) {
  std::string wrapped;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (line.size() <= 100) {
      absl::StrAppend(&wrapped, line, "\n");
      continue;
    }
    const std::size_t indent = line.find_first_not_of(' ');
    internal::AppendWrapped(wrapped, std::string(indent, ' '), std::string(line.substr(indent)),
                            indent + 2);
  }
  wrapped.pop_back();  // StrSplit's last piece follows the final newline
  return wrapped;
}

}  // namespace

std::string ReportSummary(const PlanReport& r, int top) {
  const Movement& m = r.movement;
  std::string out;
  const bool bytes = m.bytes_source != BytesSource::kUnknown;
  absl::StrAppend(&out, FormatHeadline(ComputeHeadline(r)),
                  FormatAssumptions(ComputeAssumptions(r)), "\n");
  AppendChangeLines(out, r);
  AppendPoolTable(out, m, bytes);
  AppendPrimaryChanges(out, m);
  AppendMinimumToMove(out, m, bytes);
  AppendAmplificationNotes(out, m);
  AppendOsdLists(out, m, bytes, top);
  AppendBusiestPairs(out, m, bytes, top);
  if (r.schedule) AppendSchedule(out, r, top);
  if (r.staged) internal::AppendStagedPlan(out, *r.staged, bytes);
  if (r.upmap_plan) internal::AppendUpmapPlan(out, *r.upmap_plan, bytes);
  if (r.safety) internal::AppendSafety(out, *r.safety, top);
  AppendRisks(out, m.risks, top);
  return WrapLongLines(out);
}

}  // namespace crushkit::osdmap
