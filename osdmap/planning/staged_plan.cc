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
#include "osdmap/planning/movement_report.h"

namespace crushkit::osdmap {

namespace {

// A step smaller than this share of the change is taken even when it
// misplaces too much: a single PG can be larger than the limit.
constexpr double kMinFraction = 1.0 / 1024;

// Ceph's conversions of a typed weight (ParseCrushWeight / AdjustItemWeightF,
// OSDMonitor "osd reweight").
crush::Weight CrushWeightOf(double x) {
  return static_cast<crush::Weight>(
      static_cast<int>(static_cast<float>(x) * static_cast<float>(0x10000)));
}

crush::Weight ReweightOf(double x) {
  return static_cast<crush::Weight>(static_cast<int>(static_cast<double>(0x10000) * x));
}

// Shortest fixed-point text whose conversion gives `w`; candidates are the
// value rounded at each precision and nudged up by one unit of it (the
// conversions truncate).
std::string ShortestText(crush::Weight w, crush::Weight (*convert)(double)) {
  const double v = static_cast<double>(w) / 0x10000;
  for (int digits = 0; digits <= 9; ++digits) {
    const double unit = std::pow(10.0, -digits);
    for (double candidate : {std::round(v / unit) * unit, std::round(v / unit) * unit + unit}) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*f", digits, candidate);
      double parsed = 0;
      if (absl::SimpleAtod(buf, &parsed) && convert(parsed) == w) return buf;
    }
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9f", v);
  return buf;
}

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

// One OSD the steps walk, from its weights before the change to the change's.
struct Staged {
  std::int32_t osd = 0;
  std::string name;  // its CRUSH name, for `osd crush reweight`
  bool crush = false;
  crush::Weight crush_from = 0, crush_to = 0;
  bool reweight = false;
  crush::Weight reweight_from = 0, reweight_to = 0;
};

// "osd.188-199" for consecutive ids, else "osd.3, osd.7, ...".
std::string FormatOsdRange(const std::vector<std::int32_t>& ids) {
  if (ids.empty()) return "no OSDs";
  bool consecutive = true;
  for (std::size_t i = 1; i < ids.size(); ++i)
    consecutive = consecutive && ids[i] == ids[i - 1] + 1;
  if (consecutive && ids.size() > 1) return absl::StrCat("osd.", ids.front(), "-", ids.back());
  std::vector<std::string> names;
  for (std::int32_t id : ids) names.push_back(absl::StrCat("osd.", id));
  return absl::StrJoin(names, ", ");
}

crush::Weight Interpolate(crush::Weight from, crush::Weight to, double f) {
  if (f >= 1) return to;
  const double d = static_cast<double>(to) - static_cast<double>(from);
  return static_cast<crush::Weight>(std::llround(static_cast<double>(from) + f * d));
}

// Every OSD whose CRUSH weight or reweight the change sets: from its value
// in `before` (CRUSH weight 0 for a device new to the map) to its value in
// `target`. Devices the change unlinks, and reweights of OSDs it creates,
// are not walked.
std::vector<Staged> FindStaged(const ClusterState& before, const ClusterState& target) {
  std::vector<Staged> out;
  const std::vector<std::optional<crush::Weight>> w0 = DeviceCrushWeights(before.crush);
  const std::vector<std::optional<crush::Weight>> w1 = DeviceCrushWeights(target.crush);
  auto at = [](const std::vector<std::optional<crush::Weight>>& w, std::size_t i) {
    return i < w.size() ? w[i] : std::nullopt;
  };
  const std::size_t n = std::max(before.osds.size(), target.osds.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto id = static_cast<std::int32_t>(i);
    Staged s;
    s.osd = id;
    auto name = target.crush.item_names.find(id);
    s.name = name != target.crush.item_names.end() ? name->second : absl::StrCat("osd.", id);
    const std::optional<crush::Weight> c1 = at(w1, i);
    const crush::Weight c0 = at(w0, i).value_or(0);
    if (c1 && name != target.crush.item_names.end() && c0 != *c1) {
      s.crush = true;
      s.crush_from = c0;
      s.crush_to = *c1;
    }
    if (i < before.osds.size() && i < target.osds.size() && before.Exists(id) &&
        target.Exists(id) && before.osds[i].weight != target.osds[i].weight) {
      s.reweight = true;
      s.reweight_from = before.osds[i].weight;
      s.reweight_to = target.osds[i].weight;
    }
    if (s.crush || s.reweight) out.push_back(std::move(s));
  }
  return out;
}

// The commands that take the staged OSDs from fraction `from` to `to`
// (only those whose value changes).
std::vector<std::string> StepCommands(const std::vector<Staged>& staged, double from, double to) {
  std::vector<std::string> out;
  for (const Staged& s : staged) {
    if (s.crush) {
      const crush::Weight w = Interpolate(s.crush_from, s.crush_to, to);
      if (w != Interpolate(s.crush_from, s.crush_to, from)) {
        out.push_back(absl::StrCat("ceph osd crush reweight ", s.name, " ", CrushWeightText(w)));
      }
    }
    if (s.reweight) {
      const crush::Weight r = Interpolate(s.reweight_from, s.reweight_to, to);
      if (r != Interpolate(s.reweight_from, s.reweight_to, from)) {
        out.push_back(absl::StrCat("ceph osd reweight ", s.osd, " ", ReweightText(r)));
      }
    }
  }
  return out;
}

std::vector<StepOsdWeight> StepWeights(const std::vector<Staged>& staged,
                                       const ClusterState& state) {
  std::vector<StepOsdWeight> out;
  const std::vector<std::optional<crush::Weight>> weights = DeviceCrushWeights(state.crush);
  for (const Staged& s : staged) {
    StepOsdWeight w;
    w.osd = s.osd;
    const auto d = static_cast<std::size_t>(s.osd);
    w.crush_weight = d < weights.size() ? weights[d].value_or(0) : 0;
    w.reweight = d < state.osds.size() ? state.osds[d].weight : 0;
    out.push_back(w);
  }
  return out;
}

// Ceph CLI lines for a step-0 operation. crushkit's own add-host becomes
// the host bucket plus a comment on deploying its OSDs (Ceph creates OSDs
// from a disk, not from a command); `osd up` (crushkit's) a comment.
void AppendCephCommands(const ChangeOp& op, const ClusterState& start,
                        std::vector<std::string>* out) {
  if (op.kind == ChangeOpKind::kAddHost) {
    std::string loc;
    for (const LocationWord& l : op.location)
      absl::StrAppend(&loc, " ", l.type.text, "=", l.name.text);
    out->push_back(absl::StrCat("ceph osd crush add-bucket ", op.name.text, " host", loc));
    std::vector<std::int32_t> ids;
    if (absl::StatusOr<crush::ItemId> host = crush::FindItem(start.crush, op.name.text);
        host.ok()) {
      if (const crush::Bucket* b = start.crush.FindBucket(*host)) ids = b->items;
    }
    out->push_back(
        absl::StrCat("# deploy ", op.osd_count, " OSDs on ", op.name.text,
                     op.device_class.present() ? " (class " + op.device_class.text + ")" : "",
                     " with `ceph config set osd osd_crush_initial_weight 0` set: they "
                     "join at CRUSH weight 0 as ",
                     FormatOsdRange(ids)));
    return;
  }
  if (op.kind == ChangeOpKind::kMarkUp) {
    out->push_back("# " + DescribeChangeOp(op) + " (start the OSDs)");
    return;
  }
  out->push_back("ceph " + DescribeChangeOp(op));
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
    st.crush_bytes = crush::EncodeCrushMap(st.crush);
  }
  return st;
}

// A state of the plan and its PG table, shared: mapped here, or the
// planner's mapping of the change at once.
struct Mapped {
  std::shared_ptr<const ClusterState> state;
  std::shared_ptr<const PgTable> table;
  // Mappings made for it here whose result is crushkit's answer where
  // Ceph's is undefined (0 for the planner's).
  std::uint64_t diverged_from_ceph = 0;
};

// The before state of the change at once, and its target.
Mapped BeforeOf(const MappedChange& m) {
  return Mapped{std::shared_ptr<const ClusterState>(m.before, &m.before->state()),
                std::shared_ptr<const PgTable>(m.tables, &m.tables->before), 0};
}

Mapped AfterOf(const MappedChange& m) {
  return Mapped{std::shared_ptr<const ClusterState>(m.after, &m.after->state()),
                std::shared_ptr<const PgTable>(m.tables, &m.tables->after), 0};
}

// The inputs of placement are equal: the same PG tables.
bool SamePlacement(const ClusterState& a, const ClusterState& b) {
  return a.crush == b.crush && a.osds == b.osds && a.pools == b.pools && a.pg_upmap == b.pg_upmap &&
         a.pg_upmap_items == b.pg_upmap_items && a.pg_upmap_primaries == b.pg_upmap_primaries;
}

// `after` maps every PG exactly as `before` does, provably (no mapping
// needed): the same pools, upmaps and OSD states, and a crush map that only
// adds zero-weight straw2 items (crush/edit/zero_weight_additions.h) and devices
// that `before` does not place.
bool MapsAsBefore(const ClusterState& before, const ClusterState& after) {
  if (before.pools != after.pools || before.pg_upmap != after.pg_upmap ||
      before.pg_upmap_items != after.pg_upmap_items ||
      before.pg_upmap_primaries != after.pg_upmap_primaries ||
      after.osds.size() < before.osds.size() ||
      !std::equal(before.osds.begin(), before.osds.end(), after.osds.begin())) {
    return false;
  }
  const std::vector<std::optional<crush::Weight>> placed = DeviceCrushWeights(before.crush);
  for (std::size_t i = before.osds.size(); i < placed.size(); ++i) {
    if (placed[i]) return false;  // a device `before` places but did not have
  }
  return crush::OnlyAddsZeroWeightItems(before.crush, after.crush);
}

absl::StatusOr<Mapped> MapState(ClusterState state, const StagedPlanOptions& options,
                                bool clean = true) {
  absl::StatusOr<std::unique_ptr<MappingSession>> session;
  std::uint64_t diverged = 0;
  if (clean && !options.keep_upmaps) {
    // One crush map for the cleanup and the mapping.
    absl::StatusOr<crush::CrushMap> built = crush::CrushMap::Build(state.crush);
    if (!built.ok()) {
      return absl::Status(built.status().code(),
                          absl::StrCat("crush map: ", built.status().message()));
    }
    auto map = std::make_shared<const crush::CrushMap>(*std::move(built));
    absl::StatusOr<UpmapCleanup> cleaned = CleanPgUpmaps(state, *map);
    if (!cleaned.ok()) return cleaned.status();
    diverged = cleaned->diverged_from_ceph;
    session = MappingSession::Create(std::move(state), std::move(map));
  } else {
    session = MappingSession::Create(std::move(state));
  }
  if (!session.ok()) return session.status();
  MapAllOptions mo;
  mo.threads = options.movement.threads;
  mo.acting = false;
  std::shared_ptr<const MappingSession> shared = *std::move(session);
  auto table = std::make_shared<const PgTable>(MapAllPgs(*shared, mo));
  diverged += table->diverged_from_ceph;
  return Mapped{std::shared_ptr<const ClusterState>(shared, &shared->state()), std::move(table),
                diverged};
}

// What a step whose two states map alike moves: nothing; its totals are
// those of `at_once` without the moves, in before's state.
MovementCounters Unmoved(const Movement& at_once) {
  MovementCounters c = at_once.totals;
  c.pgs_remapped = c.shards_moved = 0;
  c.objects_to_move = c.bytes_to_move = 0;
  c.pgs_degraded_after = c.pgs_degraded_before;
  c.pgs_inactive_after = c.pgs_inactive_before;
  c.minimum_to_move = c.amplification = 0;
  return c;
}

// Measures the step prev -> next and fills `step` (all but index/commands);
// *simulated tells whether step->seconds is set already. Tables mapped
// alike (one table) move nothing; the planner's pair of tables is the
// change at once.
absl::Status MeasureStep(const Mapped& prev, const Mapped& next, const Movement& at_once,
                         const ChangeAtOnce* mapped, const StagedPlanOptions& options,
                         PlanStep* step, Movement* movement, bool* simulated) {
  *simulated = false;
  if (prev.table == next.table) {
    step->totals = Unmoved(at_once);
    step->misplaced_ratio = 0;
    *movement = Movement{};
    *simulated = true;
    return absl::OkStatus();
  }
  if (mapped != nullptr && prev.table.get() == &mapped->mapped.tables->before &&
      next.table.get() == &mapped->mapped.tables->after && mapped->seconds.has_value()) {
    step->totals = at_once.totals;
    step->misplaced_ratio = MisplacedRatio(at_once);
    step->seconds = *mapped->seconds;
    *movement = Movement{};
    movement->totals = at_once.totals;
    movement->bytes_source = at_once.bytes_source;
    movement->osds = at_once.osds;
    *simulated = true;
    return absl::OkStatus();
  }
  MovementOptions mo = options.movement;
  mo.domain_types.clear();
  mo.keep_moves = options.simulate;
  *movement = CompareMappedStates(*prev.state, *next.state, *prev.table, *next.table, mo);
  step->totals = movement->totals;
  step->misplaced_ratio = MisplacedRatio(*movement);
  return absl::OkStatus();
}

// Every OSD the tracker follows starts the step at its use after the
// earlier steps (the movement of one step carries the imported `ceph osd
// df` use), so the step's backfill_toofull check sees what the cluster holds
// by then.
void StartAtTrackedUse(const FillTracker& tracker, Movement* m) {
  for (OsdMovement& o : m->osds) {
    std::uint64_t used = 0, capacity = 0;
    if (!tracker.Space(o.osd, &used, &capacity)) continue;
    o.used_before = used;
    o.fill_before = static_cast<double>(used) / static_cast<double>(capacity);
  }
}

absl::Status Simulate(const Movement& movement, const StagedPlanOptions& options, PlanStep* step) {
  if (!options.simulate) return absl::OkStatus();
  absl::StatusOr<BackfillSchedule> s = SimulateMovementBackfill(movement, options.backfill);
  if (!s.ok())
    return absl::Status(s.status().code(),
                        absl::StrCat("backfill simulation: ", s.status().message()));
  step->seconds = s->makespan_seconds;
  return absl::OkStatus();
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
      CRUSH_ASSIGN_OR_RETURN(ClusterState state, StateAt(*prev.state, phase, next));
      Mapped mapped_next;
      if (mapped != nullptr && next >= 1 && SamePlacement(state, mapped->mapped.after->state())) {
        // The last step lands on the change at once: its table is mapped already.
        mapped_next = AfterOf(mapped->mapped);
      } else {
        CRUSH_ASSIGN_OR_RETURN(mapped_next, MapState(std::move(state), options));
        walk->diverged_from_ceph += mapped_next.diverged_from_ceph;
      }
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
      step.index = static_cast<int>(walk->steps.size()) + first_index;
      step.fraction = (static_cast<double>(p) + next) / phases;
      step.commands = StepCommands(phase, f, next);
      step.over_limit = r > limit;
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
                                   " (a PG's copy lands before the copies it replaces are "
                                   "deleted)")});
        enforce_fill = false;
      }
      if (!simulated) {
        StartAtTrackedUse(tracker, &m);
        CRUSH_RETURN_IF_ERROR(Simulate(m, options, &step));
      }
      walk->moved += Moved(m, bytes_known);
      tracker.Apply(m.osds);
      walk->steps.push_back(std::move(step));
      stride = (next - f) * (r > 0 ? std::clamp(0.9 * limit / r, 0.5, 2.0) : 2.0);
      f = lo = next;
      hi = 2;
      prev = std::move(mapped_next);
      if (static_cast<int>(walk->steps.size()) > options.max_steps) {
        return absl::InvalidArgumentError(absl::StrCat(
            "more than ", options.max_steps, " steps would be needed to keep each under ",
            limit * 100, "% misplaced",
            walk->fill_splits > 0 ? absl::StrCat(" and every OSD under ", tracker.limit() * 100,
                                                 "% full; raise --max-misplaced or --max-fill")
                                  : "; raise --max-misplaced"));
      }
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

std::string CrushWeightText(crush::Weight w) { return ShortestText(w, CrushWeightOf); }

std::string ReweightText(crush::Weight w) { return ShortestText(w, ReweightOf); }

namespace {

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
  const std::vector<FillProblem> final_over = tracker.active()
                                                  ? FinalStateOverLimit(at_once, options.max_fill)
                                                  : std::vector<FillProblem>{};
  std::vector<FillProblem> step0_problems;

  // Step 0: everything but the weights.
  ChangeList structural = change;
  structural.ops.clear();
  for (const ChangeOp& op : change.ops) {
    // Weight ops are what the steps walk; new OSDs join empty.
    const internal::ChangeOpSpec& spec = internal::SpecOf(op.kind);
    if (spec.weight_only) continue;
    structural.ops.push_back(spec.join_empty != nullptr ? spec.join_empty(op) : op);
  }
  std::optional<ClusterState> applied;
  if (mapped == nullptr) {
    absl::StatusOr<ClusterState> a = ApplyChange(before, change);
    if (!a.ok()) return a.status();
    applied = *std::move(a);
  }
  const ClusterState* target = mapped != nullptr ? &mapped->mapped.after->state() : &*applied;
  const std::vector<Staged> staged = FindStaged(before, *target);
  for (const Staged& s : staged) plan.staged_osds.push_back(s.osd);
  Mapped prev;
  if (mapped != nullptr) {
    prev = BeforeOf(mapped->mapped);
  } else {
    CRUSH_ASSIGN_OR_RETURN(prev, MapState(before, options, /*clean=*/false));
    plan.diverged_from_ceph += prev.diverged_from_ceph;
  }
  if (!structural.ops.empty()) {
    // The change with every staged OSD still at its weights of `before`
    // (what the step-0 commands make, new OSDs at 0), and the change's
    // upmaps as the monitor cleans them for this state.
    CRUSH_ASSIGN_OR_RETURN(ClusterState start_clean, StateAt(*target, staged, 0));
    if (mapped != nullptr) {
      start_clean.pg_upmap = mapped->after_upmaps.pg_upmap;
      start_clean.pg_upmap_items = mapped->after_upmaps.pg_upmap_items;
      start_clean.pg_upmap_primaries = mapped->after_upmaps.pg_upmap_primaries;
    }
    if (!options.keep_upmaps) {
      absl::StatusOr<UpmapCleanup> cleaned = CleanPgUpmaps(start_clean);
      if (!cleaned.ok()) return cleaned.status();
    }
    // Step 0 usually adds hosts at weight 0: proven to map as before, it
    // shares before's table.
    const Mapped before_view = prev;
    Mapped here;
    if (MapsAsBefore(*prev.state, start_clean)) {
      here = Mapped{std::make_shared<const ClusterState>(std::move(start_clean)), prev.table, 0};
    } else {
      CRUSH_ASSIGN_OR_RETURN(here, MapState(std::move(start_clean), options, /*clean=*/false));
      plan.diverged_from_ceph += here.diverged_from_ceph;
    }
    PlanStep step;
    step.index = 0;
    for (const ChangeOp& op : structural.ops) AppendCephCommands(op, *here.state, &step.commands);
    Movement m;
    bool simulated = false;
    CRUSH_RETURN_IF_ERROR(
        MeasureStep(before_view, here, at_once, mapped, options, &step, &m, &simulated));
    if (!simulated) CRUSH_RETURN_IF_ERROR(Simulate(m, options, &step));
    step.over_limit = step.misplaced_ratio > options.max_misplaced;
    step.weights = StepWeights(staged, *here.state);
    step.peak = tracker.WorstTarget(m.osds);
    step.over_fill = tracker.Over(step.peak);
    if (step.over_fill) {
      step0_problems.push_back(FillProblem{
          .step = 0,
          .where = "step 0",
          .osd = step.peak.osd,
          .fill = step.peak.fill,
          .limit = tracker.limit(),
          .start_fill = step.peak.start_fill,
          .reason = "step 0 (the change's operations other than weights) is not split"});
    }
    tracker.Apply(m.osds);
    plan.moved_in_steps += Moved(m, plan.bytes_known);
    if (Moved(m, plan.bytes_known) > 0) {
      plan.notes.push_back(
          absl::StrCat("step 0 (the change's operations other than weights) moves data by itself (",
                       step.totals.pgs_remapped, " PGs); it is not split"));
    }
    plan.steps.push_back(std::move(step));
    prev = std::move(here);
  }
  if (staged.empty()) {
    plan.notes.push_back("the change sets no weights, so there is nothing to split");
  }

  const int first_index = 1;  // step 0 is the structural step, if any
  // With the final state over the limit no walk can keep it: measure only.
  const bool enforce = final_over.empty();
  std::shared_ptr<const ClusterState> last_state = prev.state;
  Walk chosen;
  if (!staged.empty()) {
    // All weights together first; when the fill limit had to cut steps
    // short (or could not be kept), also the raised weights before the
    // lowered ones (making room on the OSDs that give data to the raised
    // ones before the lowered ones send them theirs) and the reverse.
    chosen.order = "all weights together";
    chosen.phases = {staged};
    absl::Status together = WalkWeights(staged, at_once, options, mapped, first_index, prev,
                                        tracker, enforce, plan.bytes_known, &chosen);
    plan.diverged_from_ceph += chosen.diverged_from_ceph;
    std::vector<Staged> raised, lowered;
    for (const Staged& s : staged) (Raises(s) ? raised : lowered).push_back(s);
    const bool try_orders = tracker.active() && final_over.empty() && !raised.empty() &&
                            !lowered.empty() &&
                            (!together.ok() || chosen.fill_splits > 0 || !chosen.problems.empty());
    if (try_orders) {
      for (int k = 0; k < 2; ++k) {
        Walk w;
        w.order =
            k == 0 ? "raised weights first, then lowered" : "lowered weights first, then raised";
        w.phases = k == 0 ? std::vector<std::vector<Staged>>{raised, lowered}
                          : std::vector<std::vector<Staged>>{lowered, raised};
        absl::Status s = WalkWeights(staged, at_once, options, mapped, first_index, prev, tracker,
                                     enforce, plan.bytes_known, &w);
        plan.diverged_from_ceph += w.diverged_from_ceph;
        if (!s.ok()) continue;
        if (!together.ok() || BetterWalk(w, chosen)) {
          chosen = std::move(w);
          together = absl::OkStatus();
        }
      }
    }
    CRUSH_RETURN_IF_ERROR(together);
    plan.order = chosen.order;
    plan.moved_in_steps += chosen.moved;
    for (PlanStep& s : chosen.steps) plan.steps.push_back(std::move(s));
    last_state = chosen.last.state;
    if (chosen.phases.size() > 1) {
      plan.notes.push_back(absl::StrCat("the weights are walked in two phases (", chosen.order,
                                        ") to keep every OSD under ", 100 * options.max_fill,
                                        "% full"));
    }
  }
  for (const PlanStep& s : plan.steps) {
    plan.total_seconds += s.seconds;
    if (s.over_limit && s.index > 0) {
      plan.notes.push_back(absl::StrCat("step ", s.index, " misplaces ", s.misplaced_ratio * 100,
                                        "% although it is as small as the search goes (single PGs "
                                        "larger than the limit)"));
    }
  }
  if (tracker.active()) {
    if (!final_over.empty()) {
      plan.fill_problems = final_over;
    } else {
      plan.fill_problems = step0_problems;
      plan.fill_problems.insert(plan.fill_problems.end(), chosen.problems.begin(),
                                chosen.problems.end());
    }
    plan.fill_feasible = plan.fill_problems.empty();
    for (std::size_t i = 0; i < plan.fill_problems.size() && i < 3; ++i) {
      plan.notes.push_back(
          absl::StrCat("over --max-fill: ", DescribeFillProblem(plan.fill_problems[i])));
    }
    if (plan.fill_problems.size() > 3) {
      plan.notes.push_back(
          absl::StrCat("over --max-fill: ", plan.fill_problems.size() - 3, " more (--json)"));
    }
  } else if (options.max_fill > 0) {
    plan.notes.push_back(
        "fill not checked: the state has no `ceph osd df` capacities (crushkit import --osd-df)");
  }
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
