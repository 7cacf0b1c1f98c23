#include "osdmap/planning/plan_headline.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include "osdmap/planning/backfill_orders.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/report_internal.h"
#include "osdmap/proto/movement.pb.h"

namespace crushkit::osdmap {
namespace {

// "model" when the three figures agree, else each named.
std::string CostSources(const AppliedClassCost& a, const std::string& calibration) {
  auto name = [&](CostSource s) {
    std::string n = CostSourceName(s);
    if (s == CostSource::kCalibration && !calibration.empty())
      absl::StrAppend(&n, " ", calibration);
    return n;
  };
  if (a.per_pg_source == a.objects_source && a.objects_source == a.bytes_source) {
    return name(a.bytes_source);
  }
  return absl::StrCat("per PG: ", name(a.per_pg_source), ", objects: ", name(a.objects_source),
                      ", bytes: ", name(a.bytes_source));
}

std::string RateText(const AssumedRate& r) {
  std::string out = absl::StrCat(FormatBytes(r.bytes_per_second), "/s");
  if (r.seconds_per_object > 0)
    absl::StrAppendFormat(&out, ", %.3g s/object", r.seconds_per_object);
  if (r.per_pg_seconds > 0) absl::StrAppendFormat(&out, ", %.3g s/PG", r.per_pg_seconds);
  if (r.ec_hold_factor != 1 || r.ec_hold_factor_source != "model") {
    absl::StrAppendFormat(&out, ", EC PGs x%.3g (%s)", r.ec_hold_factor, r.ec_hold_factor_source);
  }
  return out;
}

}  // namespace

void internal::AppendWrapped(std::string& out, const std::string& prefix, const std::string& text,
                             std::size_t indent) {
  constexpr std::size_t kWidth = 100;
  std::string line = prefix;
  // No word on `line` yet (a short first word must not count as the indent).
  bool fresh = true;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!fresh && line.size() + 1 + word.size() > kWidth) {
      absl::StrAppend(&out, line, "\n");
      line = std::string(indent, ' ');
    } else if (!fresh || (!prefix.empty() && prefix.back() != ' ')) {
      line += ' ';
    }
    line += word;
    fresh = false;
    start = end + 1;
  }
  absl::StrAppend(&out, line, "\n");
}

std::string StepsText(std::uint32_t steps, std::uint32_t first) {
  if (steps == 1) return absl::StrCat("1 step (step ", first, ")");
  return absl::StrCat(Plural(steps, "step"), ", numbered ", first, " to ", first + steps - 1);
}

std::string PeakWhen(double seconds) {
  return seconds > 0 ? absl::StrCat("after ", FormatDuration(seconds))
                     : "at the start (before any backfill)";
}

std::string Plural(std::uint64_t n, const std::string& singular, const std::string& plural) {
  if (n == 1) return absl::StrCat(n, " ", singular);
  return absl::StrCat(n, " ", plural.empty() ? singular + "s" : plural);
}

namespace {

// The duration: the ways simulated (at once, the staged plan, the upmap
// way), fastest to slowest.
void SetDuration(PlanHeadline& h, const PlanReport& r) {
  std::vector<std::pair<double, std::string>> ways;
  if (r.schedule && r.schedule->makespan_seconds > 0) {
    ways.emplace_back(r.schedule->makespan_seconds, "at once");
  }
  if (r.staged && r.staged->total_seconds > 0) {
    ways.emplace_back(r.staged->total_seconds,
                      absl::StrCat(Plural(r.staged->steps.size(), "step"), " one after another"));
  }
  if (r.upmap_plan && r.upmap_plan->total_seconds > 0) {
    ways.emplace_back(r.upmap_plan->total_seconds, "the upmap way");
  }
  std::stable_sort(ways.begin(), ways.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (!ways.empty()) {
    h.simulated = true;
    h.seconds_low = ways.front().first;
    h.seconds_high = ways.back().first;
    h.duration_basis = ways.size() == 1
                           ? ways.front().second
                           : absl::StrCat(ways.front().second, " .. ", ways.back().second);
    h.duration_assumption =
        absl::StrCat("the rates below, osd_max_backfills ", r.backfill.max_backfills,
                     ", no client load, no failures",
                     r.staged && r.staged->total_seconds > 0 ? ", no waits between steps" : "");
  } else if (r.schedule) {
    h.simulated = true;
    h.duration_basis = "nothing to backfill";
  }
  if (r.schedule && r.schedule->makespan_seconds > 0 && r.request_orders) {
    const std::string orders = FormatRequestOrderRange(*r.request_orders);
    if (!orders.empty()) h.duration_orders = absl::StrCat("at once: ", orders);
  }
}

// The peak fill during the move. A peak is only a fill when the OSD's
// capacity and use are known (PG stats, or its `ceph osd df`); otherwise it
// is 0% of a guess.
void SetPeakFill(PlanHeadline& h, const PlanReport& r) {
  auto fill_known = [&](std::int32_t osd) {
    for (const OsdFillPeak& p : r.safety->fill->osds) {
      if (p.osd == osd) return p.capacity_bytes > 0 && (h.bytes_known || p.capacity_from_osd_df);
    }
    return h.bytes_known;
  };
  if (r.safety && r.safety->fill && r.safety->fill->riskiest_osd != crush::kItemNone &&
      fill_known(r.safety->fill->riskiest_osd)) {
    h.peak_osd = r.safety->fill->riskiest_osd;
    h.peak_fill = r.safety->fill->riskiest_fill;
    h.peak_seconds = r.safety->fill->riskiest_seconds;
  }
}

// The steps, and the first command to run: the staged plan's first, else
// the change's first operation.
void SetFirstCommand(PlanHeadline& h, const PlanReport& r) {
  if (r.staged) {
    h.steps = static_cast<std::uint32_t>(r.staged->steps.size());
    if (!r.staged->steps.empty())
      h.first_step = static_cast<std::uint32_t>(std::max(0, r.staged->steps.front().index));
    for (const PlanStep& s : r.staged->steps) {
      auto it = std::find_if(s.commands.begin(), s.commands.end(),
                             [](const std::string& c) { return !c.starts_with("#"); });
      if (it == s.commands.end()) continue;
      h.first_command = *it;
      h.first_command_note = absl::StrCat("step ", s.index, " of the staged plan: sh SCRIPT step_",
                                          s.index, " with --commands SCRIPT");
      break;
    }
  }
  const Movement& m = r.movement;
  if (h.first_command.empty() && r.change_is_operations && !m.change.empty()) {
    h.first_command = m.change.front();
    h.first_command_note = r.staged ? "the change's first operation"
                                    : "the change's first operation, then the rest at once; "
                                      "--max-misplaced plans steps";
  }
}

}  // namespace

PlanHeadline ComputeHeadline(const PlanReport& r) {
  const Movement& m = r.movement;
  const MovementCounters& t = m.totals;
  PlanHeadline h;
  h.bytes_known = m.bytes_source != BytesSource::kUnknown;
  h.bytes_to_move = t.bytes_to_move;
  h.objects_to_move = t.objects_to_move;
  h.pgs_remapped = t.pgs_remapped;
  h.pgs_total = t.pgs;
  if (h.bytes_known && t.bytes_total > 0) {
    h.share_of_stored = static_cast<double>(t.bytes_to_move) / static_cast<double>(t.bytes_total);
  } else if (!h.bytes_known && t.shards_total > 0) {
    h.share_of_stored = static_cast<double>(t.shards_moved) / t.shards_total;
  }
  SetDuration(h, r);
  SetPeakFill(h, r);
  h.backfillfull_ratio = r.safety ? r.safety->backfillfull_ratio : m.risks.backfillfull_ratio;
  h.upmaps_dropped = m.risks.upmaps_dropped;
  h.upmap_items_rewritten = m.risks.upmap_items_rewritten;
  h.pgs_degraded_during = r.pgs_degraded_during;
  h.pgs_inactive_during = t.pgs_inactive_before;
  h.pgs_degraded_after = t.pgs_degraded_after;
  h.pgs_inactive_after = t.pgs_inactive_after;
  SetFirstCommand(h, r);
  return h;
}

PlanAssumptions ComputeAssumptions(const PlanReport& r) {
  PlanAssumptions a;
  a.ceph_release = std::string(crush::CephReleaseName(r.ceph_release));
  a.max_backfills = r.backfill.max_backfills;
  a.backfill_retry_seconds = r.backfill.backfill_retry_seconds;
  a.reservation_order = r.backfill.hold_and_wait ? "hold and wait" : "all at once";
  a.stray_delete_delay_seconds = r.backfill.stray_delete_delay_seconds;
  a.epoch_before = r.movement.epoch_before;
  a.epoch_after = r.movement.epoch_after;
  a.pushers_note = r.pushers_note;
  switch (r.movement.bytes_source) {
    case BytesSource::kPgStats:
      a.bytes_source = "pg dump";
      break;
    case BytesSource::kPoolTotals:
      a.bytes_source = "df";
      break;
    case BytesSource::kUnknown:
      a.bytes_source = "none";
      break;
  }
  if (r.backfill_cost) {
    const BackfillCostReport& c = *r.backfill_cost;
    a.scheduler = SchedulerName(c.scheduler);
    a.scheduler_source = c.scheduler_from_release ? "the state's release" : "--recovery-scheduler";
    if (c.scheduler == RecoveryScheduler::kMclock) a.mclock_profile = ProfileName(c.profile);
    a.calibration = c.calibration_source;
    a.start_delay_seconds = c.start_delay_seconds;
    a.end_delay_seconds = c.end_delay_seconds;
    a.concurrency_slowdown = c.concurrency_slowdown;
    if (c.concurrency_slowdown_calibrated) {
      a.concurrency_slowdown_source = absl::StrCat("calibration ", c.calibration_source);
    } else if (c.concurrency_slowdown > 0) {
      a.concurrency_slowdown_source = "option";
    }
    a.concurrency_slowdown_max_running = c.concurrency_slowdown_max_running;
    if (r.schedule) a.backfills_at_once_max = r.schedule->max_running;
    const std::uint32_t range = a.concurrency_slowdown_max_running;
    if (a.concurrency_slowdown > 0 && range > 0 && a.backfills_at_once_max > range) {
      a.concurrency_slowdown_note = absl::StrFormat(
          "k = %.3g fitted with up to %u backfills at once; this plan runs up to %u: the slowdown "
          "is held at its fitted value (each backfill at %.2f of its pace while %u or more run), "
          "not extrapolated (how the cluster slows beyond %u at once was not measured)",
          a.concurrency_slowdown, range, a.backfills_at_once_max,
          1 / (1 + a.concurrency_slowdown * (range - 1)), range, range);
    }
    for (const AppliedClassCost& cls : c.classes) {
      a.rates.push_back(
          {.device_class = cls.device_class,
           .bytes_per_second = cls.cost.bytes_per_second,
           .seconds_per_object = cls.cost.seconds_per_object,
           .per_pg_seconds = cls.cost.per_pg_seconds,
           .source = CostSources(cls, c.calibration_source),
           .ec_hold_factor = cls.cost.ec_hold_factor.value_or(1),
           .ec_hold_factor_source = cls.ec_source == CostSource::kCalibration
                                        ? absl::StrCat("calibration ", c.calibration_source)
                                        : std::string(CostSourceName(cls.ec_source))});
    }
  } else {
    const auto defaults = DefaultBackfillRates();
    for (const auto& [cls, rate] : r.backfill.class_rates) {
      auto d = defaults.find(cls);
      const bool is_default = d != defaults.end() &&
                              d->second.bytes_per_second == rate.bytes_per_second &&
                              d->second.objects_per_second == rate.objects_per_second;
      a.rates.push_back(
          {.device_class = cls,
           .bytes_per_second = rate.bytes_per_second,
           .seconds_per_object = rate.objects_per_second > 0 ? 1 / rate.objects_per_second : 0,
           .per_pg_seconds = rate.per_pg_seconds,
           .source = is_default ? "default" : "--backfill-rate"});
    }
  }
  return a;
}

std::string FormatHeadline(const PlanHeadline& h) {
  std::string out = "headline:\n";
  if (h.bytes_known) {
    absl::StrAppendFormat(&out, "  moves      %s, %s objects, %s of %u (%.1f%% of stored)\n",
                          FormatBytes(static_cast<double>(h.bytes_to_move)),
                          internal::FormatCount(static_cast<double>(h.objects_to_move)),
                          Plural(h.pgs_remapped, "PG"), h.pgs_total, 100 * h.share_of_stored);
  } else {
    absl::StrAppendFormat(&out, "  moves      %s of %u, %.1f%% of the copies (bytes unknown)\n",
                          Plural(h.pgs_remapped, "PG"), h.pgs_total, 100 * h.share_of_stored);
  }
  if (!h.simulated) {
    absl::StrAppend(&out, "  duration   not simulated (--no-schedule)\n");
  } else if (h.seconds_high <= 0) {
    absl::StrAppend(&out, "  duration   nothing to backfill\n");
  } else {
    const std::string range =
        h.seconds_low == h.seconds_high
            ? FormatDuration(h.seconds_low)
            : absl::StrCat(FormatDuration(h.seconds_low), " .. ", FormatDuration(h.seconds_high));
    absl::StrAppend(&out, "  duration   ", range, " (", h.duration_basis, ")\n");
    if (!h.duration_orders.empty()) {
      internal::AppendWrapped(out, "             ", h.duration_orders, 15);
    }
    internal::AppendWrapped(out, "             if: ", h.duration_assumption, 17);
  }
  if (h.peak_osd != crush::kItemNone) {
    absl::StrAppendFormat(&out, "  peak fill  osd.%d at %.1f%% %s", h.peak_osd, 100 * h.peak_fill,
                          PeakWhen(h.peak_seconds));
    if (h.backfillfull_ratio > 0) {
      absl::StrAppendFormat(&out, "; %s backfillfull %.0f%%",
                            h.peak_fill >= h.backfillfull_ratio ? "OVER" : "under",
                            100 * h.backfillfull_ratio);
    }
    absl::StrAppend(&out, "\n");
  } else {
    absl::StrAppend(&out,
                    "  peak fill  unknown (needs PG stats or `ceph osd df`, and the schedule)\n");
  }
  absl::StrAppend(&out, "  upmaps     the monitor would drop ",
                  Plural(h.upmaps_dropped, "entry", "entries"), " and trim ",
                  Plural(h.upmap_items_rewritten, "item"), "\n");
  absl::StrAppendFormat(&out,
                        "  PGs        during: %u degraded/undersized, %u inactive; "
                        "after: %u degraded/undersized, %u inactive\n",
                        h.pgs_degraded_during, h.pgs_inactive_during, h.pgs_degraded_after,
                        h.pgs_inactive_after);
  if (h.steps > 0) {
    absl::StrAppend(&out, "  steps      ", StepsText(h.steps, h.first_step), "\n");
  }
  if (!h.first_command.empty()) {
    absl::StrAppend(&out, "  run first  ", h.first_command, "\n             (",
                    h.first_command_note, ")\n");
  }
  return out;
}

std::string FormatAssumptions(const PlanAssumptions& a) {
  std::string out = absl::StrCat("assumptions: Ceph ", a.ceph_release);
  if (!a.scheduler.empty()) {
    absl::StrAppend(&out, ", ", a.scheduler, " scheduler (", a.scheduler_source, ")");
    if (!a.mclock_profile.empty()) absl::StrAppend(&out, ", profile ", a.mclock_profile);
  }
  const std::string bytes = a.bytes_source == "pg dump" ? "per-PG stats (ceph pg dump)"
                            : a.bytes_source == "df"    ? "pool totals (ceph df) spread over PGs"
                                                        : "none (no PG stats): counts only";
  absl::StrAppend(&out, "; osd_max_backfills ", a.max_backfills, "\n  bytes from ", bytes,
                  "; epoch ", a.epoch_before, " -> ", a.epoch_after, "\n");
  if (!a.reservation_order.empty()) {
    std::string order =
        a.reservation_order == "all at once"
            ? "all at once: a PG starts when its primary's local slot and every target's remote "
              "slot are free (priority, then request order), holding nothing while it waits"
            : "hold and wait: a PG holds its primary's local slot while it asks its targets one "
              "at a time";
    if (a.stray_delete_delay_seconds >= 0) {
      absl::StrAppendFormat(&order,
                            "; an old copy's deletion %.3g s after its PG ends preempts the "
                            "backfill holding that OSD's local slot",
                            a.stray_delete_delay_seconds);
    }
    internal::AppendWrapped(out, "  reservations ", order, 4);
  }
  if (!a.concurrency_slowdown_source.empty()) {
    internal::AppendWrapped(
        out, "  concurrency slowdown ",
        absl::StrFormat("k %.3g (%s): every backfill at 1 / (1 + k (n - 1)) of its pace while n "
                        "run in the cluster%s",
                        a.concurrency_slowdown, a.concurrency_slowdown_source,
                        a.concurrency_slowdown_max_running > 0
                            ? absl::StrFormat(", n up to %u", a.concurrency_slowdown_max_running)
                            : std::string()),
        4);
  }
  if (!a.concurrency_slowdown_note.empty()) {
    internal::AppendWrapped(out, "  NOTE ", a.concurrency_slowdown_note, 4);
  }
  if (!a.pushers_note.empty()) internal::AppendWrapped(out, "  NOTE ", a.pushers_note, 4);
  absl::StrAppend(&out, "  backfill per target OSD");
  if (a.backfill_retry_seconds > 0) {
    absl::StrAppendFormat(&out, " (toofull retry %.3g s", a.backfill_retry_seconds);
    if (a.start_delay_seconds > 0 || a.end_delay_seconds > 0) {
      absl::StrAppendFormat(&out, "; monitor commits +%.3g s, +%.3g s", a.start_delay_seconds,
                            a.end_delay_seconds);
    }
    absl::StrAppend(&out, ")");
  }
  absl::StrAppend(&out, ", by class:\n");
  for (const AssumedRate& r : a.rates) {
    absl::StrAppendFormat(&out, "    %-6s %s (%s)\n", r.device_class, RateText(r), r.source);
  }
  return out;
}

void internal::HeadlineToProto(const PlanHeadline& h, proto::Headline* p) {
  p->set_bytes_known(h.bytes_known);
  p->set_bytes_to_move(h.bytes_to_move);
  p->set_objects_to_move(h.objects_to_move);
  p->set_pgs_remapped(h.pgs_remapped);
  p->set_pgs_total(h.pgs_total);
  p->set_share_of_stored(h.share_of_stored);
  p->set_simulated(h.simulated);
  p->set_seconds_low(h.seconds_low);
  p->set_seconds_high(h.seconds_high);
  p->set_duration_basis(h.duration_basis);
  p->set_duration_assumption(h.duration_assumption);
  p->set_duration_orders(h.duration_orders);
  p->set_peak_osd(h.peak_osd);
  p->set_peak_fill(h.peak_fill);
  p->set_peak_seconds(h.peak_seconds);
  p->set_backfillfull_ratio(h.backfillfull_ratio);
  p->set_upmaps_dropped(h.upmaps_dropped);
  p->set_upmap_items_rewritten(h.upmap_items_rewritten);
  p->set_pgs_degraded_during(h.pgs_degraded_during);
  p->set_pgs_inactive_during(h.pgs_inactive_during);
  p->set_pgs_degraded_after(h.pgs_degraded_after);
  p->set_pgs_inactive_after(h.pgs_inactive_after);
  p->set_steps(h.steps);
  p->set_first_step(h.first_step);
  p->set_first_command(h.first_command);
  p->set_first_command_note(h.first_command_note);
}

void internal::AssumptionsToProto(const PlanAssumptions& a, proto::Assumptions* p) {
  p->set_ceph_release(a.ceph_release);
  p->set_scheduler(a.scheduler);
  p->set_scheduler_source(a.scheduler_source);
  p->set_mclock_profile(a.mclock_profile);
  p->set_max_backfills(a.max_backfills);
  for (const AssumedRate& r : a.rates) {
    proto::AssumedRate* pr = p->add_rates();
    pr->set_device_class(r.device_class);
    pr->set_bytes_per_second(r.bytes_per_second);
    pr->set_seconds_per_object(r.seconds_per_object);
    pr->set_per_pg_seconds(r.per_pg_seconds);
    pr->set_source(r.source);
    pr->set_ec_hold_factor(r.ec_hold_factor);
    pr->set_ec_hold_factor_source(r.ec_hold_factor_source);
  }
  p->set_calibration(a.calibration);
  p->set_bytes_source(a.bytes_source);
  p->set_backfill_retry_seconds(a.backfill_retry_seconds);
  p->set_start_delay_seconds(a.start_delay_seconds);
  p->set_end_delay_seconds(a.end_delay_seconds);
  p->set_reservation_order(a.reservation_order);
  p->set_stray_delete_delay_seconds(a.stray_delete_delay_seconds);
  p->set_concurrency_slowdown(a.concurrency_slowdown);
  p->set_concurrency_slowdown_source(a.concurrency_slowdown_source);
  p->set_concurrency_slowdown_max_running(a.concurrency_slowdown_max_running);
  p->set_backfills_at_once_max(a.backfills_at_once_max);
  p->set_concurrency_slowdown_note(a.concurrency_slowdown_note);
  p->set_pushers_note(a.pushers_note);
  p->set_epoch_before(a.epoch_before);
  p->set_epoch_after(a.epoch_after);
}

}  // namespace crushkit::osdmap
