// The staged plan in the report: JSON messages (movement.proto Step,
// Staging), the terminal lines, and the runnable command script.
#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include "osdmap/model/pg_id.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/plan_headline.h"
#include "osdmap/planning/report_internal.h"

namespace crushkit::osdmap {

namespace {

constexpr double kUnit = 0x10000;

// How many command lines the terminal shows per step.
constexpr std::size_t kCommandsShown = 2;

std::string Moved(double v, bool bytes_known) {
  return bytes_known ? FormatBytes(v) : absl::StrCat(internal::FormatCount(v), " shards");
}

void PeakToProto(const FillPeak& f, proto::FillPeak* p) {
  p->set_osd(f.osd);
  p->set_fill(f.fill);
  p->set_start_fill(f.start_fill);
  p->set_incoming(f.incoming);
  p->set_capacity(f.capacity);
}

void ProblemToProto(const FillProblem& f, proto::FillProblem* p) {
  p->set_step(f.step);
  p->set_where(f.where);
  p->set_osd(f.osd);
  p->set_fill(f.fill);
  p->set_limit(f.limit);
  p->set_start_fill(f.start_fill);
  p->set_reason(f.reason);
}

// "  41.2% osd.3" (the step's fullest receiving OSD), "!" when over the
// limit; blank without a checked limit or with nothing received.
std::string PeakCell(const FillPeak& p, bool checked, bool over) {
  if (!checked || p.osd == crush::kItemNone) return absl::StrFormat("%14s", "-");
  return absl::StrFormat("%6.1f%%%s%-6s", 100 * p.fill, over ? "!" : " ",
                         absl::StrCat("osd.", p.osd));
}

// The fill limit's lines: checked or not, and every problem (at most 5).
void AppendFillProblems(std::string& out, double max_fill, bool checked, bool feasible,
                        const std::vector<FillProblem>& problems) {
  if (max_fill <= 0) return;
  if (!checked) {
    absl::StrAppendFormat(&out,
                          "  fill: not checked against %.3g%% (no `ceph osd df` in the state)\n",
                          100 * max_fill);
    return;
  }
  if (feasible) {
    absl::StrAppendFormat(&out, "  fill: every receiving OSD stays under %.3g%% at every moment\n",
                          100 * max_fill);
    return;
  }
  absl::StrAppendFormat(&out, "  fill: IMPOSSIBLE to keep every OSD under %.3g%%:\n",
                        100 * max_fill);
  for (std::size_t i = 0; i < problems.size() && i < 5; ++i) {
    absl::StrAppend(&out, "    ", DescribeFillProblem(problems[i]), "\n");
  }
  if (problems.size() > 5)
    absl::StrAppend(&out, "    ... ", problems.size() - 5, " more (--json)\n");
}

}  // namespace

void internal::StagedPlanToProto(const StagedPlan& plan, proto::MovementReport* msg) {
  for (const PlanStep& s : plan.steps) {
    proto::Step* p = msg->add_steps();
    p->set_index(static_cast<std::uint32_t>(s.index));
    p->set_fraction(s.fraction);
    for (const std::string& c : s.commands) p->add_commands(c);
    CountersToProto(s.totals, p->mutable_totals());
    p->set_misplaced_ratio(s.misplaced_ratio);
    p->set_seconds(s.seconds);
    p->set_over_limit(s.over_limit);
    for (const StepOsdWeight& w : s.weights) {
      proto::StepWeight* pw = p->add_weights();
      pw->set_osd(w.osd);
      pw->set_crush_weight(w.crush_weight / kUnit);
      pw->set_reweight(w.reweight / kUnit);
    }
    if (plan.fill_checked) PeakToProto(s.peak, p->mutable_peak_fill());
    p->set_over_fill(s.over_fill);
  }
  proto::Staging* st = msg->mutable_staging();
  st->set_max_misplaced(plan.max_misplaced);
  st->set_steps(static_cast<std::uint32_t>(plan.steps.size()));
  st->set_moved_in_steps(plan.moved_in_steps);
  st->set_moved_at_once(plan.moved_at_once);
  st->set_overhead(plan.overhead);
  st->set_total_seconds(plan.total_seconds);
  for (std::int32_t o : plan.staged_osds) st->add_staged_osds(o);
  for (const std::string& n : plan.notes) st->add_notes(n);
  st->set_max_fill(plan.max_fill);
  st->set_fill_checked(plan.fill_checked);
  st->set_fill_feasible(plan.fill_feasible);
  st->set_order(plan.order);
  for (const FillProblem& f : plan.fill_problems) ProblemToProto(f, st->add_fill_problems());
}

void internal::AppendStagedPlan(std::string& out, const StagedPlan& plan, bool bytes_known) {
  std::string head = absl::StrFormat("staged plan, at most %.3g%% misplaced per step: %s",
                                     100 * plan.max_misplaced, Plural(plan.steps.size(), "step"));
  if (!plan.steps.empty()) {
    absl::StrAppend(&head, " (", plan.steps.front().index, " to ", plan.steps.back().index,
                    ", as the script's step_N)");
  }
  if (plan.total_seconds > 0)
    absl::StrAppend(&head, ", about ", FormatDuration(plan.total_seconds), " of backfill");
  absl::StrAppendFormat(&head, "; moves %.2fx what the change at once moves (%s vs %s)",
                        plan.overhead, Moved(plan.moved_in_steps, bytes_known),
                        Moved(plan.moved_at_once, bytes_known));
  out += "\n";
  internal::AppendWrapped(out, "", head, 2);
  if (plan.fill_checked && plan.order != "all weights together") {
    absl::StrAppend(&out, "  order: ", plan.order, "\n");
  }
  absl::StrAppendFormat(&out, "  %4s %8s %9s %9s %12s %9s%s\n", "step", "done", "remapped",
                        "misplaced", bytes_known ? "bytes" : "shards", "backfill",
                        plan.fill_checked ? "      peak fill" : "");
  for (const PlanStep& s : plan.steps) {
    const double moved =
        bytes_known ? static_cast<double>(s.totals.bytes_to_move) : s.totals.shards_moved;
    absl::StrAppendFormat(
        &out, "  %4d %7.0f%% %9u %8.2f%%%s %12s %9s%s\n", s.index, 100 * s.fraction,
        s.totals.pgs_remapped, 100 * s.misplaced_ratio, s.over_limit ? "!" : " ",
        bytes_known ? FormatBytes(moved) : internal::FormatCount(moved), FormatDuration(s.seconds),
        plan.fill_checked ? absl::StrCat(" ", PeakCell(s.peak, true, s.over_fill)) : "");
    for (std::size_t i = 0; i < s.commands.size() && i < kCommandsShown; ++i) {
      absl::StrAppend(&out, "         ", s.commands[i], "\n");
    }
    if (s.commands.size() > kCommandsShown) {
      absl::StrAppend(&out, "         ... ", s.commands.size() - kCommandsShown,
                      " more (--commands FILE)\n");
    }
  }
  AppendFillProblems(out, plan.max_fill, plan.fill_checked, plan.fill_feasible, plan.fill_problems);
  for (const std::string& n : plan.notes) {
    if (n.starts_with("over --max-fill: ")) continue;  // listed above
    absl::StrAppend(&out, "  note: ", n, "\n");
  }
}

namespace {

void BatchToProto(const UpmapBatch& b, std::uint32_t index, proto::UpmapBatch* p) {
  p->set_index(index);
  for (const PgId& pg : b.pgs) p->add_pgids(FormatPgId(pg));
  p->set_shards(b.shards);
  p->set_objects(b.objects);
  p->set_bytes(b.bytes);
  p->set_misplaced_ratio(b.misplaced_ratio);
  p->set_seconds(b.seconds);
  p->set_over_limit(b.over_limit);
  for (const std::string& c : b.commands) p->add_commands(c);
  PeakToProto(b.peak, p->mutable_peak_fill());
  p->set_over_fill(b.over_fill);
}

}  // namespace

void internal::UpmapPlanToProto(const UpmapPinPlan& plan, proto::UpmapPlan* p) {
  p->set_max_misplaced(plan.max_misplaced);
  // The pins as the command lines that set them: the JSON's largest part
  // (the unpin commands are the batches').
  p->set_pinned(static_cast<std::uint32_t>(plan.pins.size()));
  for (const UpmapPin& pin : plan.pins) {
    for (const std::string& c : pin.commands) p->add_pin_commands(c);
  }
  for (const UnpinnablePg& u : plan.unpinnable) {
    proto::UnpinnablePg* pu = p->add_unpinnable();
    pu->set_pgid(FormatPgId(u.pg));
    pu->set_reason(u.reason);
  }
  for (std::size_t i = 0; i < plan.batches.size(); ++i) {
    BatchToProto(plan.batches[i], static_cast<std::uint32_t>(i + 1), p->add_batches());
  }
  BatchToProto(plan.immediate, 0, p->mutable_immediate());
  p->set_total_seconds(plan.total_seconds);
  p->set_limit_in_objects(plan.limit_in_objects);
  p->set_max_fill(plan.max_fill);
  p->set_fill_checked(plan.fill_checked);
  p->set_fill_feasible(plan.fill_feasible);
  for (const FillProblem& f : plan.fill_problems) ProblemToProto(f, p->add_fill_problems());
}

void internal::AppendUpmapPlan(std::string& out, const UpmapPinPlan& plan, bool bytes_known) {
  absl::StrAppendFormat(
      &out, "\nupmap way (upmap-remapped): %u PGs pinned where they are, %u cannot be; ",
      plan.pins.size(), plan.unpinnable.size());
  absl::StrAppendFormat(&out, "%u batches of at most %.3g%% misplaced", plan.batches.size(),
                        100 * plan.max_misplaced);
  if (plan.total_seconds > 0)
    absl::StrAppend(&out, ", about ", FormatDuration(plan.total_seconds), " of backfill");
  absl::StrAppend(&out, "\n");
  const UpmapBatch& now = plan.immediate;
  if (!now.pgs.empty()) {
    absl::StrAppendFormat(&out, "  moves at once (not pinned): %u PGs, %.2f%% misplaced, %s\n",
                          now.pgs.size(), 100 * now.misplaced_ratio,
                          bytes_known ? FormatBytes(static_cast<double>(now.bytes))
                                      : absl::StrCat(now.shards, " shards"));
  }
  std::map<std::string, int> reasons;
  for (const UnpinnablePg& u : plan.unpinnable) ++reasons[u.reason];
  int shown = 0;
  for (const auto& [reason, n] : reasons) {
    if (++shown > 3) break;
    absl::StrAppend(&out, "  cannot pin ", n, " PGs: ", reason, "\n");
  }
  if (reasons.size() > 3)
    absl::StrAppend(&out, "  ... ", reasons.size() - 3, " more reasons (--json)\n");
  for (std::size_t i = 0; i < plan.batches.size() && i < 3; ++i) {
    const UpmapBatch& b = plan.batches[i];
    absl::StrAppendFormat(&out, "  batch %u: %u PGs, %.2f%% misplaced%s, %s", i + 1, b.pgs.size(),
                          100 * b.misplaced_ratio, b.over_limit ? " (over: one PG)" : "",
                          FormatDuration(b.seconds));
    if (plan.fill_checked && b.peak.osd != crush::kItemNone) {
      absl::StrAppendFormat(&out, ", peak fill %.1f%% on osd.%d%s", 100 * b.peak.fill, b.peak.osd,
                            b.over_fill ? " (over)" : "");
    }
    out += "\n";
  }
  if (plan.batches.size() > 3)
    absl::StrAppend(&out, "  ... ", plan.batches.size() - 3, " more batches (--commands FILE)\n");
  AppendFillProblems(out, plan.max_fill, plan.fill_checked, plan.fill_feasible, plan.fill_problems);
}

namespace {

// One shell function holding `lines` (indented; ':' keeps it non-empty).
void AppendFunction(std::string& out, const std::string& name,
                    const std::vector<std::string>& lines) {
  absl::StrAppend(&out, name, "() {\n");
  for (const std::string& c : lines) absl::StrAppend(&out, "  ", c, "\n");
  out += "  :\n}\n";
}

// A plan that cannot keep the fill limit says so before anything runs.
void AppendFillWarning(std::string& out, const char* what, double max_fill, bool checked,
                       bool feasible, const std::vector<FillProblem>& problems) {
  if (max_fill <= 0 || !checked) return;
  if (feasible) {
    absl::StrAppendFormat(&out, "# %s: every OSD receiving data stays under %.3g%% full\n", what,
                          100 * max_fill);
    return;
  }
  absl::StrAppendFormat(&out, "#\n# WARNING: %s cannot keep every OSD under %.3g%% full:\n", what,
                        100 * max_fill);
  for (const FillProblem& p : problems) {
    std::string line = DescribeFillProblem(p);
    std::replace(line.begin(), line.end(), '\n', ' ');
    absl::StrAppend(&out, "#   ", line, "\n");
  }
}

// The planner's warnings and the fill limits' verdicts, as comments.
void AppendScriptWarnings(std::string& out, const PlanReport& r) {
  if (!r.warnings.empty()) {
    out += "#\n# WARNING: read these before running any step:\n";
    for (const PlanWarning& w : r.warnings) {
      // One comment line per warning; a newline in a name cannot end the comment.
      std::string line = FormatPlanWarning(w);
      std::replace(line.begin(), line.end(), '\n', ' ');
      absl::StrAppend(&out, "#   warning: ", line, "\n");
    }
  }
  if (r.staged) {
    AppendFillWarning(out, "the staged plan", r.staged->max_fill, r.staged->fill_checked,
                      r.staged->fill_feasible, r.staged->fill_problems);
  }
  if (r.upmap_plan) {
    AppendFillWarning(out, "the upmap way", r.upmap_plan->max_fill, r.upmap_plan->fill_checked,
                      r.upmap_plan->fill_feasible, r.upmap_plan->fill_problems);
  }
}

// One function per step of the staged plan (step_N), its name added to
// `names`.
void AppendStepFunctions(std::string& out, const StagedPlan& plan, bool bytes_known,
                         std::vector<std::string>& names) {
  for (const PlanStep& s : plan.steps) {
    const double moved =
        bytes_known ? static_cast<double>(s.totals.bytes_to_move) : s.totals.shards_moved;
    absl::StrAppendFormat(
        &out,
        "\n# step %d (steps %d to %d): %.0f%% of the weight change, %.2f%% misplaced, %s to move",
        s.index, plan.steps.front().index, plan.steps.back().index, 100 * s.fraction,
        100 * s.misplaced_ratio, Moved(moved, bytes_known));
    if (s.seconds > 0) absl::StrAppend(&out, ", about ", FormatDuration(s.seconds), " of backfill");
    if (plan.fill_checked && s.peak.osd != crush::kItemNone) {
      absl::StrAppendFormat(&out, "; peak fill %.1f%% on osd.%d (limit %.3g%%)%s",
                            100 * s.peak.fill, s.peak.osd, 100 * plan.max_fill,
                            s.over_fill ? " OVER" : "");
    }
    out += "\n";
    names.push_back(absl::StrCat("step_", s.index));
    AppendFunction(out, names.back(), s.commands);
  }
}

// The upmap way: upmap_pins, then one function per batch (upmap_batch_N),
// their names added to `names`.
void AppendUpmapFunctions(std::string& out, const UpmapPinPlan& u,
                          std::vector<std::string>& names) {
  absl::StrAppend(&out,
                  "\n# The upmap way, instead of the steps: ceph osd set norebalance; apply the\n"
                  "# change at once; upmap_pins (",
                  u.pins.size(),
                  " PGs); ceph osd unset norebalance;\n"
                  "# then upmap_batch_1 .. upmap_batch_",
                  u.batches.size(), ", each once the cluster is clean.\n");
  std::vector<std::string> pins;
  for (const UpmapPin& pin : u.pins)
    pins.insert(pins.end(), pin.commands.begin(), pin.commands.end());
  names.push_back("upmap_pins");
  AppendFunction(out, names.back(), pins);
  for (std::size_t i = 0; i < u.batches.size(); ++i) {
    const UpmapBatch& b = u.batches[i];
    absl::StrAppendFormat(&out, "# batch %u of %u: %u PGs, %.2f%% misplaced", i + 1,
                          u.batches.size(), b.pgs.size(), 100 * b.misplaced_ratio);
    if (u.fill_checked && b.peak.osd != crush::kItemNone) {
      absl::StrAppendFormat(&out, "; peak fill %.1f%% on osd.%d (limit %.3g%%)%s",
                            100 * b.peak.fill, b.peak.osd, 100 * u.max_fill,
                            b.over_fill ? " OVER" : "");
    }
    out += "\n";
    names.push_back(absl::StrCat("upmap_batch_", i + 1));
    AppendFunction(out, names.back(), b.commands);
  }
}

}  // namespace

std::string PlanCommandsScript(const PlanReport& r) {
  std::string out =
      "#!/bin/sh\n"
      "# Generated by crushkit plan. Each plan step is a function; run one at a time\n"
      "# (sh THIS_FILE step_1) and wait until `ceph -s` shows no misplaced objects\n"
      "# before the next.\n"
      "set -e\n";
  AppendScriptWarnings(out, r);
  std::vector<std::string> names;
  if (r.staged) {
    AppendStepFunctions(out, *r.staged, r.movement.bytes_source != BytesSource::kUnknown, names);
  }
  if (r.upmap_plan) AppendUpmapFunctions(out, *r.upmap_plan, names);
  absl::StrAppend(&out, "\nif [ $# -ne 1 ]; then\n  echo \"usage: sh $0 STEP (one of: ",
                  names.size() <= 12 ? absl::StrJoin(names, " ")
                                     : absl::StrCat(names.front(), " ... ", names.back()),
                  ")\" >&2\n  exit 2\nfi\n\"$1\"\n");
  return out;
}

}  // namespace crushkit::osdmap
