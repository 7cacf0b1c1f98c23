// A weight change done in steps, each misplacing at most a share of the
// cluster's data: what an operator does by hand with `ceph osd crush
// reweight` and the balancer's target_max_misplaced_ratio (default 0.05).
//
// The change (a change file, osdmap/changes/change_ops.h) is split in two:
//  * step 0 applies everything that is not a weight: new buckets and hosts
//    (their new OSDs at CRUSH weight 0, as with osd_crush_initial_weight =
//    0), moves, rules, pool settings, upmaps. It usually moves nothing; when
//    it does (a bucket moved, a rule changed) that movement is not split.
//  * steps 1..n walk every staged OSD's CRUSH weight and reweight linearly
//    from its value before the change (0 for a new OSD) to where the change
//    puts it, a fraction at a time. Each step is measured by mapping every
//    PG with that step's weights and comparing with the previous step (whose
//    backfill is assumed done; its upmaps cleaned as the monitor would): its
//    misplaced ratio is objects to move / all object copies (as `ceph -s`;
//    shards when the state has no object counts). Step sizes are searched so
//    each step stays at or under the limit; a step that cannot be made small
//    enough (one PG alone is over the limit) is flagged. No state is mapped
//    twice: a step 0 that only adds zero-weight straw2 items is proven to
//    map as before (crush/edit/zero_weight_additions.h), and a last step equal to
//    the change at once reuses the planner's mapping (ChangeAtOnce).
// With a fill limit (StagedPlanOptions::max_fill, fill_limit.h) every step
// must also keep each OSD that receives data under it: its use after the
// earlier steps plus everything the step sends it, since copies land before
// those they replace are deleted. Steps are cut shorter for it; when that
// had to happen (or cannot help), the raised weights are also walked before
// the lowered ones and the reverse, and the walk with the fewest steps over
// the limit, then the fewest steps, is kept. A final state over the limit,
// or a step over it even at the smallest size, is reported (fill_problems).
// Every step's commands are Ceph CLI lines (`ceph osd crush reweight osd.N
// W`, `ceph osd reweight N R`) whose weights convert to exactly the 16.16
// values the step was measured with; parsing and applying them
// (ApplyChange) reproduces the step's state.
//
// Thread-safety: PlanStagedChange() runs its own mapping threads; inputs are
// read only; results are plain values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_STAGED_PLAN_H_
#define CRUSHKIT_OSDMAP_PLANNING_STAGED_PLAN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/types.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/planning/backfill_schedule.h"
#include "osdmap/planning/fill_limit.h"
#include "osdmap/planning/movement.h"

namespace crushkit::osdmap {

// One staged OSD's weights at the end of a step (16.16 values, as the
// commands set them).
struct StepOsdWeight {
  std::int32_t osd = 0;
  crush::Weight crush_weight = 0;
  crush::Weight reweight = 0;
};

struct PlanStep {
  int index = 0;                       // 0: the non-weight part of the change
  double fraction = 0;                 // share of the weight change done after this step
  std::vector<std::string> commands;   // Ceph CLI lines, "ceph ..." included
  MovementCounters totals;             // what this step moves (from the previous step)
  double misplaced_ratio = 0;          // its objects (shards) to move / all copies
  double seconds = 0;                  // its simulated backfill (0 when not simulated)
  bool over_limit = false;             // misplaces more than the limit
  std::vector<StepOsdWeight> weights;  // staged OSDs after this step
  // With a fill limit (StagedPlanOptions::max_fill): the fullest receiving
  // OSD at the step's worst moment (fill_limit.h: its use at the step's
  // start plus all it receives in the step); over_fill when at or over it.
  FillPeak peak;
  bool over_fill = false;
};

struct StagedPlan {
  double max_misplaced = 0.05;
  std::vector<PlanStep> steps;
  // Bytes (shards when bytes are unknown) moved by all steps, by the change
  // done at once, and their ratio (1 when the at-once change moves nothing).
  bool bytes_known = false;
  double moved_in_steps = 0;
  double moved_at_once = 0;
  double overhead = 1;
  double total_seconds = 0;               // sum of the steps' simulated times
  std::vector<std::int32_t> staged_osds;  // OSDs whose weights the steps walk
  std::vector<std::string> notes;         // one sentence each
  // The fill limit (0: none) and whether it could be checked (a limit and
  // `ceph osd df` capacities); fill_feasible: no step is over it and the
  // final state is under it. `order` says how the weights were walked: "all
  // weights together", or reordered ("raised weights first, then lowered" /
  // "lowered weights first, then raised") when that keeps the OSDs under
  // the limit with fewer or no violations. fill_problems: why the limit
  // cannot be kept (the final state's OSDs over it, else the steps over it).
  double max_fill = 0;
  bool fill_checked = false;
  bool fill_feasible = true;
  std::string order = "all weights together";
  std::vector<FillProblem> fill_problems;
  // Mappings of the plan's own (the planner's tables excluded) whose result
  // is crushkit's answer where Ceph's is undefined.
  std::uint64_t diverged_from_ceph = 0;
};

class KeptPgs;  // osdmap/model/pg_table_replay.h

struct StagedPlanOptions {
  double max_misplaced = 0.05;  // in (0, 1]
  MovementOptions movement;     // threads; domain types are not used
  bool simulate = true;         // simulate each step's backfill
  BackfillOptions backfill;
  bool keep_upmaps = false;  // else each step's upmaps are cleaned as the monitor does
  int max_steps = 200;       // more steps than this: an error
  // Every step keeps each receiving OSD under this fill (fill_limit.h):
  // steps are split further, and the raised and lowered weights walked one
  // after the other when that avoids going over; 0: no fill limit.
  double max_fill = 0;
  // Called after each mapping with (fraction reached, steps so far).
  std::function<void(double, int)> progress;
  // A recording of the before state (pg_table_replay.h) every step's state
  // is mapped through; null: the planner's (PgTablePair::recorded) or one
  // recorded here.
  std::shared_ptr<const RecordedMapping> recorded;
  // Set by PlanStagedChange itself (a given one is replaced): the PGs whose
  // recorded CRUSH result holds on the change's target (KeptPgs,
  // pg_table_replay.h), which the steps walking weights up then keep
  // without deciding again.
  std::shared_ptr<const KeptPgs> kept;
};

// The upmap entries of a state.
struct UpmapEntries {
  std::map<PgId, std::vector<std::int32_t>> pg_upmap;
  std::map<PgId, std::vector<std::pair<std::int32_t, std::int32_t>>> pg_upmap_items;
  std::map<PgId, std::int32_t> pg_upmap_primaries;
};

// The change at once as the planner mapped it, so no state is mapped twice:
// `mapped` holds `before` and the change applied with its upmaps cleaned
// (the step's target), each with its PG table. A step whose two tables are
// these two is the change at once: it reuses the planner's movement and
// `seconds`, its simulated backfill (nullopt: not simulated; the step
// simulates it). `after_upmaps` holds the changed state's upmap entries as
// the change left them, before the monitor's cleanup (step 0 is cleaned on
// its own: an entry the whole change invalidates may still be valid after
// step 0).
struct ChangeAtOnce {
  MappedChange mapped;
  std::optional<double> seconds;
  UpmapEntries after_upmaps;
};

// Plans `change` on `before` in steps. `at_once` is the movement of the
// whole change (before -> ApplyChange + cleanup), for the overhead ratio.
// Errors: kInvalidArgument for a limit outside (0, 1], for a change that
// ApplyChange refuses (its diagnostics), or when more than max_steps steps
// would be needed; the mapping and simulation errors of the planner.
// Cost: one all-PG mapping of `before` (recorded, unless options.recorded
// or the planner's tables hold a recording), then per step tried (about
// 1.3 per step) and for step 0 a mapping through that recording (only the
// straw2 draws the step changes), plus one ApplyChange.
absl::StatusOr<StagedPlan> PlanStagedChange(const ClusterState& before, const ChangeList& change,
                                            const Movement& at_once,
                                            const StagedPlanOptions& options);

// Same for a change the planner has mapped at once (`mapped`: its before
// state, target and tables, as PlanChange makes them): `before` and a last
// step equal to the target are not mapped again, and the change is not
// applied again. `at_once` is the movement of mapped.mapped.
absl::StatusOr<StagedPlan> PlanStagedChange(const ChangeAtOnce& mapped, const ChangeList& change,
                                            const Movement& at_once,
                                            const StagedPlanOptions& options);

// What a step's misplaced ratio is (and `ceph -s` shows): objects to move
// / all object copies; shards moved / all shards when the state has no
// object counts. Also the staged alternatives' measure (plan_compare.h).
double MisplacedRatio(const Movement& m);

// The shortest decimal text of a CRUSH weight that `ceph osd crush reweight`
// turns back into exactly `w` ((int)((float)x * 0x10000), as Ceph), and of
// an OSD reweight for `ceph osd reweight` ((int)(x * 0x10000) in double).
std::string CrushWeightText(crush::Weight w);
std::string ReweightText(crush::Weight w);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_STAGED_PLAN_H_
