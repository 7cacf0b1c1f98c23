#include "osdmap/planning/staged_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "crush/codec.h"
#include "crush/edit/edit.h"
#include "crush/edit/zero_weight_additions.h"
#include "crush/status_macros.h"
#include "osdmap/changes/apply_change.h"
#include "osdmap/changes/change_op_table.h"
#include "osdmap/changes/upmap_cleanup.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/model/pg_table_replay.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/staged_plan_internal.h"

namespace crushkit::osdmap {

namespace {

using internal::AfterOf;
using internal::AppendCephCommands;
using internal::BeforeOf;
using internal::FindStaged;
using internal::Interpolate;
using internal::Mapped;
using internal::MapsAsBefore;
using internal::MapState;
using internal::MeasureStep;
using internal::SamePlacement;
using internal::Simulate;
using internal::Staged;
using internal::StartAtTrackedUse;
using internal::StepCommands;
using internal::StepWeights;

// A step smaller than this share of the change is taken even when it
// misplaces too much: a single PG can be larger than the limit.
constexpr double kMinFraction = 1.0 / 1024;

}  // namespace

double MisplacedRatio(const Movement& m) {
  const MovementCounters& t = m.totals;
  if (m.bytes_source != BytesSource::kUnknown && t.objects_total > 0) {
    return static_cast<double>(t.objects_to_move) / static_cast<double>(t.objects_total);
  }
  return t.shards_total > 0 ? static_cast<double>(t.shards_moved) / t.shards_total : 0.0;
}

namespace {

double Moved(const Movement& m, bool bytes_known) {
  return bytes_known ? static_cast<double>(m.totals.bytes_to_move) : m.totals.shards_moved;
}

// `base` (the previous step's state, as the monitor left it: upmaps
// cleaned) with every staged OSD at fraction `f` of its way: what the step's
// commands (StepCommands) do when Ceph applies them, made directly (one copy
// of the state, not one per command as ApplyChange keeps for undo);
// staged_plan_test replays the commands and compares.
absl::StatusOr<ClusterState> StateAt(const ClusterState& base, const std::vector<Staged>& staged,
                                     double f) {
  ClusterState st = base;
  bool crush_changed = false;
  for (const Staged& s : staged) {
    if (s.crush) {
      absl::StatusOr<int> changed =
          crush::AdjustItemWeight(st.crush, s.osd, Interpolate(s.crush_from, s.crush_to, f));
      if (!changed.ok()) return changed.status();
      crush_changed = true;
    }
    if (s.reweight)
      st.osds[static_cast<std::size_t>(s.osd)].weight =
          Interpolate(s.reweight_from, s.reweight_to, f);
  }
  ++st.epoch;
  if (crush_changed) {
    crush::FinalizeMaxDevices(st.crush);
  }
  return st;
}

// Whether a staged OSD's walk raises its effective weight (CRUSH weight x
// reweight): data flows to it; else it gives data away.
bool Raises(const Staged& s) {
  const double c0 = s.crush ? s.crush_from : 1, c1 = s.crush ? s.crush_to : 1;
  const double r0 = s.reweight ? s.reweight_from : 1, r1 = s.reweight ? s.reweight_to : 1;
  return c1 * r1 > c0 * r0;
}

// One way of walking the weights: the staged OSDs in phases, each phase
// walked from 0 to 1 while the earlier ones are done and the later ones
// untouched.
struct Walk {
  std::string order;
  std::vector<std::vector<Staged>> phases;
  std::vector<PlanStep> steps;
  double moved = 0;
  Mapped last;
  int fill_splits = 0;                   // step ends pulled back for the fill limit
  std::uint64_t diverged_from_ceph = 0;  // Mapped::diverged_from_ceph of its tries
  std::vector<FillProblem> problems;
};

// The state at fraction `next` of `phase` from `prev`, mapped (or the
// planner's table of the change at once, when the step lands on it).
absl::StatusOr<Mapped> MapNext(const Mapped& prev, const std::vector<Staged>& phase, double next,
                               const StagedPlanOptions& options, const ChangeAtOnce* mapped,
                               Walk* walk) {
  CRUSH_ASSIGN_OR_RETURN(ClusterState state, StateAt(*prev.state, phase, next));
  if (mapped != nullptr && next >= 1 && SamePlacement(state, mapped->mapped.after->state())) {
    return AfterOf(mapped->mapped);
  }
  CRUSH_ASSIGN_OR_RETURN(Mapped out, MapState(std::move(state), options, /*clean=*/true, &prev));
  walk->diverged_from_ceph += out.diverged_from_ceph;
  return out;
}

// A measured step the search accepts, completed (index, fraction, commands,
// weights, fill; simulated unless done), applied to the tracker and appended
// to walk->steps. Errors: more steps than options.max_steps.
absl::Status AcceptStep(const std::vector<Staged>& staged, const std::vector<Staged>& phase,
                        std::size_t p, double f, double next, const Mapped& mapped_next,
                        const StagedPlanOptions& options, int first_index, const FillPeak& peak,
                        bool over_fill, bool simulated, bool bytes_known, PlanStep step, Movement m,
                        FillTracker& tracker, Walk* walk) {
  const auto phases = static_cast<double>(walk->phases.size());
  step.index = static_cast<int>(walk->steps.size()) + first_index;
  step.fraction = (static_cast<double>(p) + next) / phases;
  step.commands = StepCommands(phase, f, next);
  step.over_limit = step.misplaced_ratio > options.max_misplaced;
  step.weights = StepWeights(staged, *mapped_next.state);
  step.peak = peak;
  step.over_fill = over_fill;
  if (over_fill) {
    walk->problems.push_back(FillProblem{
        .step = step.index,
        .where = absl::StrCat("step ", step.index),
        .osd = peak.osd,
        .fill = peak.fill,
        .limit = tracker.limit(),
        .start_fill = peak.start_fill,
        .reason = absl::StrCat("even the smallest step sends it ",
                               FormatBytes(static_cast<double>(peak.incoming)),
                               " (a PG's copy lands before the copies it replaces are deleted)")});
  }
  if (!simulated) {
    StartAtTrackedUse(tracker, &m);
    CRUSH_RETURN_IF_ERROR(Simulate(m, options, &step));
  }
  walk->moved += Moved(m, bytes_known);
  tracker.Apply(m.osds);
  walk->steps.push_back(std::move(step));
  if (static_cast<int>(walk->steps.size()) > options.max_steps) {
    return absl::InvalidArgumentError(absl::StrCat(
        "more than ", options.max_steps, " steps would be needed to keep each under ",
        options.max_misplaced * 100, "% misplaced",
        walk->fill_splits > 0 ? absl::StrCat(" and every OSD under ", tracker.limit() * 100,
                                             "% full; raise --max-misplaced or --max-fill")
                              : "; raise --max-misplaced"));
  }
  return absl::OkStatus();
}

// Steps 1..n: from `start` (the state after step 0) each phase's fraction
// grows while each step stays under the misplaced limit and, when the
// tracker is active, keeps every receiving OSD under the fill limit; each
// accepted step is appended to walk->steps.
absl::Status WalkWeights(const std::vector<Staged>& staged, const Movement& at_once,
                         const StagedPlanOptions& options, const ChangeAtOnce* mapped,
                         int first_index, const Mapped& start, FillTracker tracker, bool enforce,
                         bool bytes_known, Walk* walk) {
  const double limit = options.max_misplaced;
  const double whole = MisplacedRatio(at_once);
  Mapped prev = start;
  // After a step that is over the fill limit even at the smallest size, the
  // rest of the walk is only measured: narrowing further cannot help it.
  bool enforce_fill = enforce && tracker.active();
  int tries = 0;
  const auto phases = static_cast<double>(walk->phases.size());
  for (std::size_t p = 0; p < walk->phases.size(); ++p) {
    const std::vector<Staged>& phase = walk->phases[p];
    double f = 0;  // the fraction of this phase reached by the accepted steps
    double stride = whole > 0 ? std::min(1.0, 0.9 * limit * phases / whole) : 1.0;
    // The search for the next step's end brackets it: up to `lo` nothing
    // moves (or what moves fits), from `hi` on too much moves.
    double lo = f, hi = 2;
    while (f < 1) {
      double next;
      if (hi <= 1) {
        next = lo + (hi - lo) / 2;  // bisect the bracket
      } else {
        const double width = std::max(stride, kMinFraction);
        // A remainder under a third of a step goes with this one.
        next = lo + width >= 1 - width / 3 ? 1.0 : lo + width;
      }
      CRUSH_ASSIGN_OR_RETURN(Mapped mapped_next, MapNext(prev, phase, next, options, mapped, walk));
      PlanStep step;
      Movement m;
      bool simulated = false;
      CRUSH_RETURN_IF_ERROR(
          MeasureStep(prev, mapped_next, at_once, mapped, options, &step, &m, &simulated));
      const double r = step.misplaced_ratio;
      const FillPeak peak = tracker.WorstTarget(m.osds);
      const bool over_fill = tracker.Over(peak);
      if (options.progress) {
        options.progress((static_cast<double>(p) + next) / phases,
                         static_cast<int>(walk->steps.size()));
      }
      if (++tries > 16 * options.max_steps) {
        return absl::InternalError("the staged plan's step search does not converge");
      }
      // Too much: narrow from above, unless the bracket is as narrow as the
      // search goes (a single PG larger than the limit moves there: take it).
      if ((r > limit || (over_fill && enforce_fill)) && next - lo > kMinFraction) {
        hi = next;
        if (r > limit) {
          stride = (next - f) * std::max(0.2, 0.9 * limit / r);
        } else {
          ++walk->fill_splits;
          stride = (next - f) / 2;
        }
        continue;
      }
      // Nothing moves yet: a longer step may still fit (no empty steps).
      if (r == 0 && next < 1) {
        lo = next;
        stride *= 2;
        continue;
      }
      if (over_fill) enforce_fill = false;
      CRUSH_RETURN_IF_ERROR(AcceptStep(staged, phase, p, f, next, mapped_next, options, first_index,
                                       peak, over_fill, simulated, bytes_known, std::move(step),
                                       std::move(m), tracker, walk));
      stride = (next - f) * (r > 0 ? std::clamp(0.9 * limit / r, 0.5, 2.0) : 2.0);
      f = lo = next;
      hi = 2;
      prev = std::move(mapped_next);
    }
  }
  walk->last = std::move(prev);
  return absl::OkStatus();
}

// Fewer steps over the fill limit, then fewer steps, then less moved.
bool BetterWalk(const Walk& a, const Walk& b) {
  if (a.problems.size() != b.problems.size()) return a.problems.size() < b.problems.size();
  if (a.steps.size() != b.steps.size()) return a.steps.size() < b.steps.size();
  return a.moved < b.moved;
}

}  // namespace

namespace {

// Step 0's operations: the change without the weight operations the steps
// walk, new OSDs joining empty.
ChangeList StructuralOps(const ChangeList& change) {
  ChangeList structural = change;
  structural.ops.clear();
  for (const ChangeOp& op : change.ops) {
    const internal::ChangeOpSpec& spec = internal::SpecOf(op.kind);
    if (spec.weight_only) continue;
    structural.ops.push_back(spec.join_empty != nullptr ? spec.join_empty(op) : op);
  }
  return structural;
}

// What the steps of one plan share.
struct StepContext {
  const Movement& at_once;
  const StagedPlanOptions& options;
  const ChangeAtOnce* mapped;  // nullptr: the change was not mapped at once
  const ClusterState& target;  // the change applied at once
  const std::vector<Staged>& staged;
};

// Step 0 (the structural operations) from `prev`, appended to plan->steps;
// returns its state and table.
absl::StatusOr<Mapped> PlanStepZero(const StepContext& ctx, const ChangeList& structural,
                                    const Mapped& prev, FillTracker& tracker,
                                    std::vector<FillProblem>* problems, StagedPlan* plan) {
  // The change with every staged OSD still at its weights of `before`
  // (what the step-0 commands make, new OSDs at 0), and the change's
  // upmaps as the monitor cleans them for this state.
  CRUSH_ASSIGN_OR_RETURN(ClusterState start_clean, StateAt(ctx.target, ctx.staged, 0));
  if (ctx.mapped != nullptr) {
    start_clean.pg_upmap = ctx.mapped->after_upmaps.pg_upmap;
    start_clean.pg_upmap_items = ctx.mapped->after_upmaps.pg_upmap_items;
    start_clean.pg_upmap_primaries = ctx.mapped->after_upmaps.pg_upmap_primaries;
  }
  if (!ctx.options.keep_upmaps) {
    absl::StatusOr<UpmapCleanup> cleaned = CleanPgUpmaps(start_clean);
    if (!cleaned.ok()) return cleaned.status();
  }
  // Step 0 usually adds hosts at weight 0: proven to map as before, it
  // shares before's table.
  Mapped here;
  if (MapsAsBefore(*prev.state, start_clean)) {
    here = Mapped{std::make_shared<const ClusterState>(std::move(start_clean)), prev.table, 0,
                  prev.held};
  } else {
    CRUSH_ASSIGN_OR_RETURN(here, MapState(std::move(start_clean), ctx.options, /*clean=*/false));
    plan->diverged_from_ceph += here.diverged_from_ceph;
  }
  PlanStep step;
  step.index = 0;
  for (const ChangeOp& op : structural.ops) AppendCephCommands(op, *here.state, &step.commands);
  Movement m;
  bool simulated = false;
  CRUSH_RETURN_IF_ERROR(
      MeasureStep(prev, here, ctx.at_once, ctx.mapped, ctx.options, &step, &m, &simulated));
  if (!simulated) CRUSH_RETURN_IF_ERROR(Simulate(m, ctx.options, &step));
  step.over_limit = step.misplaced_ratio > ctx.options.max_misplaced;
  step.weights = StepWeights(ctx.staged, *here.state);
  step.peak = tracker.WorstTarget(m.osds);
  step.over_fill = tracker.Over(step.peak);
  if (step.over_fill) {
    problems->push_back(
        FillProblem{.step = 0,
                    .where = "step 0",
                    .osd = step.peak.osd,
                    .fill = step.peak.fill,
                    .limit = tracker.limit(),
                    .start_fill = step.peak.start_fill,
                    .reason = "step 0 (the change's operations other than weights) is not split"});
  }
  tracker.Apply(m.osds);
  plan->moved_in_steps += Moved(m, plan->bytes_known);
  if (Moved(m, plan->bytes_known) > 0) {
    plan->notes.push_back(
        absl::StrCat("step 0 (the change's operations other than weights) moves data by itself (",
                     step.totals.pgs_remapped, " PGs); it is not split"));
  }
  plan->steps.push_back(std::move(step));
  return here;
}

// Steps 1..n from `prev`: all weights together first; when the fill limit
// had to cut steps short (or could not be kept), also the raised weights
// before the lowered ones (making room on the OSDs that give data to the
// raised ones before the lowered ones send them theirs) and the reverse.
// The best walk's steps are appended to plan->steps.
absl::StatusOr<Walk> WalkBest(const StepContext& ctx, const Mapped& prev,
                              const FillTracker& tracker, bool enforce, bool final_ok,
                              StagedPlan* plan) {
  const int first_index = 1;  // step 0 is the structural step, if any
  const std::vector<Staged>& staged = ctx.staged;
  Walk chosen;
  chosen.order = "all weights together";
  chosen.phases = {staged};
  absl::Status together = WalkWeights(staged, ctx.at_once, ctx.options, ctx.mapped, first_index,
                                      prev, tracker, enforce, plan->bytes_known, &chosen);
  plan->diverged_from_ceph += chosen.diverged_from_ceph;
  std::vector<Staged> raised, lowered;
  for (const Staged& s : staged) (Raises(s) ? raised : lowered).push_back(s);
  const bool try_orders = tracker.active() && final_ok && !raised.empty() && !lowered.empty() &&
                          (!together.ok() || chosen.fill_splits > 0 || !chosen.problems.empty());
  for (int k = 0; try_orders && k < 2; ++k) {
    Walk w;
    w.order = k == 0 ? "raised weights first, then lowered" : "lowered weights first, then raised";
    w.phases = k == 0 ? std::vector<std::vector<Staged>>{raised, lowered}
                      : std::vector<std::vector<Staged>>{lowered, raised};
    absl::Status s = WalkWeights(staged, ctx.at_once, ctx.options, ctx.mapped, first_index, prev,
                                 tracker, enforce, plan->bytes_known, &w);
    plan->diverged_from_ceph += w.diverged_from_ceph;
    if (!s.ok()) continue;
    if (!together.ok() || BetterWalk(w, chosen)) {
      chosen = std::move(w);
      together = absl::OkStatus();
    }
  }
  CRUSH_RETURN_IF_ERROR(together);
  plan->order = chosen.order;
  plan->moved_in_steps += chosen.moved;
  for (PlanStep& s : chosen.steps) plan->steps.push_back(std::move(s));
  chosen.steps.clear();
  if (chosen.phases.size() > 1) {
    plan->notes.push_back(absl::StrCat("the weights are walked in two phases (", chosen.order,
                                       ") to keep every OSD under ", 100 * ctx.options.max_fill,
                                       "% full"));
  }
  return chosen;
}

// The plan's fill verdict and its notes on it.
void SetFillProblems(const FillTracker& tracker, const StagedPlanOptions& options,
                     std::vector<FillProblem> final_over, std::vector<FillProblem> step0,
                     const std::vector<FillProblem>& walked, StagedPlan* plan) {
  if (!tracker.active()) {
    if (options.max_fill > 0) {
      plan->notes.push_back(
          "fill not checked: the state has no `ceph osd df` capacities (crushkit import --osd-df)");
    }
    return;
  }
  if (!final_over.empty()) {
    plan->fill_problems = std::move(final_over);
  } else {
    plan->fill_problems = std::move(step0);
    plan->fill_problems.insert(plan->fill_problems.end(), walked.begin(), walked.end());
  }
  plan->fill_feasible = plan->fill_problems.empty();
  for (std::size_t i = 0; i < plan->fill_problems.size() && i < 3; ++i) {
    plan->notes.push_back(
        absl::StrCat("over --max-fill: ", DescribeFillProblem(plan->fill_problems[i])));
  }
  if (plan->fill_problems.size() > 3) {
    plan->notes.push_back(
        absl::StrCat("over --max-fill: ", plan->fill_problems.size() - 3, " more (--json)"));
  }
}

// The total time and the notes on steps over the limit.
void SumSteps(StagedPlan* plan) {
  for (const PlanStep& s : plan->steps) {
    plan->total_seconds += s.seconds;
    if (s.over_limit && s.index > 0) {
      plan->notes.push_back(absl::StrCat("step ", s.index, " misplaces ", s.misplaced_ratio * 100,
                                         "% although it is as small as the search goes (single "
                                         "PGs larger than the limit)"));
    }
  }
}

// `state`'s mapping session: the planner's (`mapped`, when it mapped the
// change) or a new one.
absl::StatusOr<std::shared_ptr<const MappingSession>> SessionOf(
    const ClusterState& state, std::shared_ptr<const MappingSession> mapped) {
  if (mapped != nullptr) return mapped;
  return MappingSession::Create(state);
}

// The recording of `before` the steps are mapped through: options', the
// planner's, or a new one (one all-PG mapping).
absl::StatusOr<std::shared_ptr<const RecordedMapping>> RecordingOf(const ClusterState& before,
                                                                   const StagedPlanOptions& options,
                                                                   const ChangeAtOnce* mapped) {
  if (options.recorded != nullptr && options.recorded->Records(before)) return options.recorded;
  if (mapped != nullptr && mapped->mapped.tables->recorded != nullptr) {
    return mapped->mapped.tables->recorded;
  }
  CRUSH_ASSIGN_OR_RETURN(std::shared_ptr<const MappingSession> session,
                         SessionOf(before, mapped != nullptr ? mapped->mapped.before : nullptr));
  MapAllOptions mo;
  mo.threads = options.movement.threads;
  mo.acting = false;
  return RecordedMapping::Record(std::move(session), mo);
}

// The PGs the walk's steps may take as kept (KeptPgs, decided on `target`
// through options.recorded), or null: only the steps of a walk that raises
// CRUSH weights alone lie between the recording and the target as
// KeptPgs::Covers() asks.
absl::StatusOr<std::shared_ptr<const KeptPgs>> KeptOnTheWay(const std::vector<Staged>& staged,
                                                            const ClusterState& target,
                                                            const StagedPlanOptions& options,
                                                            const ChangeAtOnce* mapped) {
  const bool raises_crush_weights = std::all_of(staged.begin(), staged.end(), [](const Staged& s) {
    return s.crush && !s.reweight && s.crush_to >= s.crush_from;
  });
  if (staged.empty() || !raises_crush_weights) return nullptr;
  CRUSH_ASSIGN_OR_RETURN(std::shared_ptr<const MappingSession> target_session,
                         SessionOf(target, mapped != nullptr ? mapped->mapped.after : nullptr));
  // The kept PGs copy their rows from the planner's table of the target,
  // and are the PGs its mapping of the target through this recording
  // found holding (when it was asked to keep them: MovementOptions::record).
  std::shared_ptr<const PgTable> rows = mapped != nullptr ? AfterOf(mapped->mapped).table : nullptr;
  if (mapped != nullptr && mapped->mapped.tables->recorded == options.recorded &&
      !mapped->mapped.tables->held.empty()) {
    if (std::shared_ptr<const KeptPgs> kept = KeptPgs::FromHeld(
            options.recorded, target_session, mapped->mapped.tables->held, rows)) {
      return kept;
    }
  }
  MapAllOptions mo;
  mo.threads = options.movement.threads;
  return KeptPgs::Find(options.recorded, std::move(target_session), mo, std::move(rows));
}

// PlanStagedChange() of a change mapped at once by the planner (`mapped`)
// or not (nullptr: the change is applied and `before` mapped here).
absl::StatusOr<StagedPlan> PlanSteps(const ClusterState& before, const ChangeList& change,
                                     const Movement& at_once, const StagedPlanOptions& options,
                                     const ChangeAtOnce* mapped) {
  if (!(options.max_misplaced > 0 && options.max_misplaced <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max-misplaced must be above 0% and at most 100%, not ",
                     options.max_misplaced * 100, "%"));
  }
  StagedPlan plan;
  plan.max_misplaced = options.max_misplaced;
  plan.bytes_known = at_once.bytes_source != BytesSource::kUnknown;
  plan.moved_at_once = Moved(at_once, plan.bytes_known);
  FillTracker tracker(at_once, options.max_fill);
  plan.max_fill = options.max_fill;
  plan.fill_checked = tracker.active();
  std::vector<FillProblem> final_over = tracker.active()
                                            ? FinalStateOverLimit(at_once, options.max_fill)
                                            : std::vector<FillProblem>{};
  std::vector<FillProblem> step0_problems;
  const ChangeList structural = StructuralOps(change);
  std::optional<ClusterState> applied;
  if (mapped == nullptr) {
    absl::StatusOr<ClusterState> a = ApplyChange(before, change);
    if (!a.ok()) return a.status();
    applied = *std::move(a);
  }
  const ClusterState* target = mapped != nullptr ? &mapped->mapped.after->state() : &*applied;
  const std::vector<Staged> staged = FindStaged(before, *target);
  for (const Staged& s : staged) plan.staged_osds.push_back(s.osd);
  StagedPlanOptions recorded_options = options;
  CRUSH_ASSIGN_OR_RETURN(recorded_options.recorded, RecordingOf(before, options, mapped));
  CRUSH_ASSIGN_OR_RETURN(recorded_options.kept,
                         KeptOnTheWay(staged, *target, recorded_options, mapped));
  const StepContext ctx{at_once, recorded_options, mapped, *target, staged};
  Mapped prev;
  if (mapped != nullptr) {
    prev = BeforeOf(mapped->mapped);
  } else {
    const RecordedMapping& r = *recorded_options.recorded;
    prev = Mapped{std::make_shared<const ClusterState>(before),
                  std::shared_ptr<const PgTable>(recorded_options.recorded, &r.table()),
                  r.table().diverged_from_ceph, nullptr};
    plan.diverged_from_ceph += prev.diverged_from_ceph;
  }
  if (!structural.ops.empty()) {
    CRUSH_ASSIGN_OR_RETURN(prev,
                           PlanStepZero(ctx, structural, prev, tracker, &step0_problems, &plan));
  }
  if (staged.empty()) {
    plan.notes.push_back("the change sets no weights, so there is nothing to split");
  }
  std::shared_ptr<const ClusterState> last_state = prev.state;
  Walk chosen;
  if (!staged.empty()) {
    // With the final state over the limit no walk can keep it: measure only.
    CRUSH_ASSIGN_OR_RETURN(chosen, WalkBest(ctx, prev, tracker, /*enforce=*/final_over.empty(),
                                            final_over.empty(), &plan));
    last_state = chosen.last.state;
  }
  SumSteps(&plan);
  SetFillProblems(tracker, options, std::move(final_over), std::move(step0_problems),
                  chosen.problems, &plan);
  plan.overhead = plan.moved_at_once > 0 ? plan.moved_in_steps / plan.moved_at_once : 1.0;
  if (last_state->crush != target->crush || last_state->osds != target->osds) {
    plan.notes.push_back(
        "the last step's state differs from the change applied at once (an OSD removed from the "
        "crush map or an operation Ceph applies differently in pieces); compare them with "
        "`crushkit diff`");
  }
  return plan;
}

}  // namespace

absl::StatusOr<StagedPlan> PlanStagedChange(const ClusterState& before, const ChangeList& change,
                                            const Movement& at_once,
                                            const StagedPlanOptions& options) {
  return PlanSteps(before, change, at_once, options, nullptr);
}

absl::StatusOr<StagedPlan> PlanStagedChange(const ChangeAtOnce& mapped, const ChangeList& change,
                                            const Movement& at_once,
                                            const StagedPlanOptions& options) {
  return PlanSteps(mapped.mapped.before->state(), change, at_once, options, &mapped);
}

}  // namespace crushkit::osdmap
