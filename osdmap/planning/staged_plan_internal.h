// The staged plan's internals (staged_plan.h): the OSDs whose weights the
// steps walk and the Ceph commands of a step (staged_plan_weights.cc); a
// step's state mapped and measured (staged_plan_measure.cc). Not installed.
// Thread-safety: plain functions of their arguments.
#ifndef CRUSHKIT_OSDMAP_PLANNING_STAGED_PLAN_INTERNAL_H_
#define CRUSHKIT_OSDMAP_PLANNING_STAGED_PLAN_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "crush/types.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/planning/fill_limit.h"
#include "osdmap/planning/movement.h"
#include "osdmap/planning/staged_plan.h"

namespace crushkit::osdmap::internal {

// One OSD the steps walk, from its weights before the change to the change's.
struct Staged {
  std::int32_t osd = 0;
  std::string name;  // its CRUSH name, for `osd crush reweight`
  bool crush = false;
  crush::Weight crush_from = 0, crush_to = 0;
  bool reweight = false;
  crush::Weight reweight_from = 0, reweight_to = 0;
};

// The weight at fraction `f` (0..1) of the way from `from` to `to`
// (rounded to the 16.16 unit; `to` itself at f >= 1).
crush::Weight Interpolate(crush::Weight from, crush::Weight to, double f);

// Every OSD whose CRUSH weight or reweight the change sets: from its value
// in `before` (CRUSH weight 0 for a device new to the map) to its value in
// `target`. Devices the change unlinks, and reweights of OSDs it creates,
// are not walked.
std::vector<Staged> FindStaged(const ClusterState& before, const ClusterState& target);

// The commands that take the staged OSDs from fraction `from` to `to`
// (only those whose value changes).
std::vector<std::string> StepCommands(const std::vector<Staged>& staged, double from, double to);

// The staged OSDs' CRUSH weights and reweights in `state`.
std::vector<StepOsdWeight> StepWeights(const std::vector<Staged>& staged,
                                       const ClusterState& state);

// Appends the Ceph CLI lines of a step-0 operation to `out`. crushkit's own
// add-host becomes the host bucket plus a comment on deploying its OSDs
// (Ceph creates OSDs from a disk, not from a command); `osd up` (crushkit's)
// a comment.
void AppendCephCommands(const ChangeOp& op, const ClusterState& start,
                        std::vector<std::string>* out);

// A state of the plan and its PG table, shared: mapped here, or the
// planner's mapping of the change at once.
struct Mapped {
  std::shared_ptr<const ClusterState> state;
  std::shared_ptr<const PgTable> table;
  // Mappings made for it here whose result is crushkit's answer where
  // Ceph's is undefined (0 for the planner's).
  std::uint64_t diverged_from_ceph = 0;
  // Per pool (id order) a byte per PG, 1 where its mapping through the
  // recording took the recorded CRUSH result (MapAllPgsReplayed's `held`);
  // null when not mapped so here.
  std::shared_ptr<const std::vector<std::vector<std::uint8_t>>> held;
};

// The before state of the change at once, and its target.
Mapped BeforeOf(const MappedChange& m);
Mapped AfterOf(const MappedChange& m);

// The inputs of placement are equal: the same PG tables.
bool SamePlacement(const ClusterState& a, const ClusterState& b);

// `after` maps every PG exactly as `before` does, provably (no mapping
// needed): the same pools, upmaps and OSD states, and a crush map that only
// adds zero-weight straw2 items (crush/edit/zero_weight_additions.h) and
// devices that `before` does not place.
bool MapsAsBefore(const ClusterState& before, const ClusterState& after);

// `state` mapped in full (its upmaps first cleaned as the monitor does when
// `clean` and not options.keep_upmaps). `earlier`, when not null, is a
// state mapped here on the way to `state` (weights only raised since): the
// PGs whose recorded result did not hold there are replayed without that
// decision (MapAllPgsReplayed's `earlier_held`). Errors: the crush map
// build's, the cleanup's, the session's.
absl::StatusOr<Mapped> MapState(ClusterState state, const StagedPlanOptions& options,
                                bool clean = true, const Mapped* earlier = nullptr);

// Measures the step prev -> next and fills `step` (all but index/commands);
// *simulated tells whether step->seconds is set already. Tables mapped
// alike (one table) move nothing; the planner's pair of tables is the
// change at once.
absl::Status MeasureStep(const Mapped& prev, const Mapped& next, const Movement& at_once,
                         const ChangeAtOnce* mapped, const StagedPlanOptions& options,
                         PlanStep* step, Movement* movement, bool* simulated);

// Every OSD the tracker follows starts the step at its use after the
// earlier steps (the movement of one step carries the imported `ceph osd
// df` use), so the step's backfill_toofull check sees what the cluster holds
// by then.
void StartAtTrackedUse(const FillTracker& tracker, Movement* m);

// The step's backfill simulated into step->seconds (when options.simulate).
absl::Status Simulate(const Movement& movement, const StagedPlanOptions& options, PlanStep* step);

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_PLANNING_STAGED_PLAN_INTERNAL_H_
