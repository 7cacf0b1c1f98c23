// The "upmap way" of a change (CERN's upmap-remapped technique): apply the
// change, but pin every PG it remaps back onto the OSDs it had before with
// upmap entries, so nothing moves at first; then remove the pins batch by
// batch, each batch small enough to keep the misplaced ratio under the
// throttle, so data reaches its final place at a pace the operator controls.
//
// For a change before -> after (`after` already upmap-cleaned, as the
// monitor leaves it), PlanUpmapPinning() computes:
//  1. Pins. Every PG 0..pg_num-1 of a pool both states have whose up set
//     differs (replicated pools: as a set of OSDs; erasure-coded pools:
//     position by position, a hole in `before` matching anything) gets an
//     entry that makes it map to its before up set again, built as
//     upmap-remapped builds it: pg_upmap_items pairs from the OSDs of the PG's
//     raw CRUSH result in `after` (PgMapper::PgToRawUpmap) to the OSDs of its
//     before up set, replacing whatever pg_upmap / pg_upmap_items the PG has
//     in `after`. Items follow OSDMap::_apply_upmap: pairs apply in order, a
//     pair whose target is already in the set or marked out is skipped, so a
//     swap (EC shards trading places) cannot be expressed. The candidates, in
//     order: pairs to the before up set; pairs to the before set as
//     _apply_upmap left it, down OSDs still in (a replicated PG that held an
//     OSD down in both states, whose up set is one short); a full pg_upmap
//     of either (EC: holes filled with the after OSD of that position).
//     Every candidate is checked by mapping the PG with it in a copy of
//     `after`; the first that gives the before up set is taken. Positions
//     that were holes in an EC PG's before up set get no pair: the after OSD
//     stays there and that shard is rebuilt at once (the PG was degraded;
//     reported in UpmapPinPlan::immediate).
//     All pins together then go through the monitor's cleanup
//     (upmap_cleanup.h CheckPgUpmaps: failure domain, rule weight, pair
//     trimming); a PG whose pin it would cancel or trim tries its remaining
//     candidates (cleanup again), and is unpinnable when none is left.
//     A PG that cannot be pinned is listed with the reason. The usual ones:
//     the before set holds an OSD that is out, down, destroyed or gone in
//     `after`; the pin would put an OSD the rule gives CRUSH weight 0 (a
//     drained OSD: Ceph cancels upmaps to it, OSDMap::check_pg_upmaps);
//     the pool's pg_num changed (PGs split or merge; nothing is pinned).
//  2. Batches. Pins are removed in PG order (pool, ps), greedily: a batch
//     takes PGs while its misplaced objects (sum over its PGs' moves of
//     objects_per_target x targets; shards when the movement has no object
//     counts) stay <= max_misplaced x the cluster's object copies
//     (Movement::totals.objects_total, or shards_total). A PG larger than the
//     limit alone forms its own batch, flagged over_limit. With a fill limit
//     (max_fill, fill_limit.h) a PG that would take one of its targets to the
//     limit (its use after the earlier batches plus everything the batch sends
//     it) waits for a later batch, after the batches that free room there;
//     when no waiting PG fits, the first one goes alone, flagged over_fill.
//     Each batch is simulated with SimulateBackfill (backfill_schedule.h).
//  3. Commands, in Ceph's CLI syntax (change_ops.h parses them): per pin the
//     commands that set it, per batch the commands that restore the PGs'
//     entries of `after`.
// What moves at once (the moves of PGs that are not pinned) is reported as
// UpmapPinPlan::immediate.
//
// Applying the plan on a live cluster: `ceph osd set norebalance`, apply
// the change, run the pin commands, unset norebalance; then run one batch's
// commands whenever the cluster is back to active+clean. The commands of one
// pin run in separate epochs, so a PG may be briefly remapped between them
// (norebalance keeps that from starting backfill).
//
// Thread-safety: PlanUpmapPinning() runs its own mapping threads and reads
// its inputs only; ApplyPins() is a pure function; results are plain values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_UPMAP_PINNING_H_
#define CRUSHKIT_OSDMAP_PLANNING_UPMAP_PINNING_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/planning/backfill_schedule.h"
#include "osdmap/planning/fill_limit.h"
#include "osdmap/planning/movement.h"

namespace crushkit::osdmap {

// One PG held on its before up set. Exactly one of `items` and `pg_upmap` is
// non-empty; the pin replaces the PG's entries of `after`.
struct UpmapPin {
  PgId pg;
  std::vector<std::pair<std::int32_t, std::int32_t>> items;  // pg_upmap_items
  std::vector<std::int32_t> pg_upmap;                        // full pg_upmap
  // The PG has a pg_upmap (an items pin) or pg_upmap_items (a pg_upmap pin)
  // in `after` that the pin removes, since _apply_upmap would apply it too.
  bool removes_pg_upmap = false;
  bool removes_pg_upmap_items = false;
  // Sets the pin: "ceph osd rm-pg-upmap PG" first when removes_pg_upmap,
  // "ceph osd rm-pg-upmap-items PG" first when removes_pg_upmap_items, then
  // "ceph osd pg-upmap-items PG F T ..." or "ceph osd pg-upmap PG O ...".
  std::vector<std::string> commands;
  // Removes it: restores the PG's entries of `after` (the "rm-" command of
  // the pin's kind when `after` had none, else the command setting `after`'s
  // entry back, and the one re-setting the entry of the other kind the pin
  // removed).
  std::vector<std::string> unpin_commands;
};

struct UnpinnablePg {
  PgId pg;
  std::string reason;  // lowercase, e.g. "osd.12 is out in after (reweight 0)"
};

// A group of PGs whose pins are removed together, or (UpmapPinPlan::immediate)
// the PGs that move as soon as the change and the pins are applied.
struct UpmapBatch {
  std::vector<PgId> pgs;      // in PG order
  std::uint32_t shards = 0;   // sum of the PGs' move targets
  std::uint64_t objects = 0;  // sum of objects_per_target x targets
  std::uint64_t bytes = 0;    // sum of bytes_per_target x targets
  // objects / Movement::totals.objects_total (shards / shards_total when
  // the movement has no object counts); 0 when the denominator is 0.
  double misplaced_ratio = 0;
  double seconds = 0;  // simulated backfill makespan of the batch's moves
  // A single PG larger than the limit (batches), or more than the limit
  // moving at once (immediate).
  bool over_limit = false;
  // Unpin commands of its PGs, in PG order (none for `immediate`).
  std::vector<std::string> commands;
  // With a fill limit: the fullest receiving OSD at the batch's worst moment
  // (fill_limit.h), and whether it is at or over the limit.
  FillPeak peak;
  bool over_fill = false;
};

struct UpmapPinPlan {
  // Mappings of the plan (tables given excluded) whose result is crushkit's
  // answer where Ceph's is undefined (CrushPlacement::DivergedFromCeph).
  std::uint64_t diverged_from_ceph = 0;
  std::vector<UpmapPin> pins;            // in PG order
  std::vector<UnpinnablePg> unpinnable;  // in PG order
  std::vector<UpmapBatch> batches;
  // Moves of PGs without a pin (unpinnable PGs, EC positions that were holes
  // before, pools whose pg_num changed): they backfill right away.
  UpmapBatch immediate;
  double max_misplaced = 0.05;
  // Whether the limit counts objects (false: shards, when the movement has
  // no object counts).
  bool limit_in_objects = true;
  // immediate.seconds plus every batch's seconds (batches run one after
  // another, each once the previous one is clean).
  double total_seconds = 0;
  // The fill limit (0: none), whether it could be checked (`ceph osd df`
  // capacities), whether every batch and the moves at once stay under it,
  // and why not (the final state's OSDs over it, else the batches over it).
  double max_fill = 0;
  bool fill_checked = false;
  bool fill_feasible = true;
  std::vector<FillProblem> fill_problems;
};

// Plans the upmap way of before -> after (see the file comment). `at_once`
// is the movement of before -> after made with MovementOptions::keep_moves
// (its moves give the batches' sizes and backfill jobs, its OSD list the
// device classes and hosts). `backfill` configures the simulation; its
// objects_total is taken from `at_once` when 0.
// REQUIRES: CheckComparable(before, after).
// Errors: kInvalidArgument if max_misplaced is not in (0, 1] or a state does
// not validate / build (prefixed "before: " / "after: "); the cleanup's and
// the simulation's errors.
// Cost: one paired all-PG mapping of both states (pg_table.h, all cores);
// then, on the calling thread, for the remapped PGs only: two CRUSH
// mappings each (before's raw set; after's, kept for the candidates' checks
// and the cleanup's), and a cleanup check of every upmapped PG (one more pass
// per round of retried candidates, rarely more than one); one backfill
// simulation per batch. Measured: 10,000 OSDs, 1,280,000 PGs, 95,727 pins
// in 7 s on two shared cores. Memory: two PG tables and two copies of
// `after` plus one of `before`.
// max_fill > 0 keeps every receiving OSD under that fill (see step 2; OSDs
// without `ceph osd df` capacity are not checked).
absl::StatusOr<UpmapPinPlan> PlanUpmapPinning(const ClusterState& before, const ClusterState& after,
                                              const Movement& at_once, double max_misplaced,
                                              const BackfillOptions& backfill = {},
                                              double max_fill = 0);

// Same for a change already mapped (the planner's mapping of the change at
// once: mapped.before and mapped.after are `before` and `after`): neither
// state is mapped again nor its crush map built again.
absl::StatusOr<UpmapPinPlan> PlanUpmapPinning(const MappedChange& mapped, const Movement& at_once,
                                              double max_misplaced,
                                              const BackfillOptions& backfill = {},
                                              double max_fill = 0);

// `after` with every pin of `plan` applied (each PG's pg_upmap /
// pg_upmap_items replaced as the pin's commands replace them).
// Errors: kInvalidArgument if a pin names a pool `after` lacks or a seed >=
// its pg_num, or sets both or neither of items and pg_upmap.
// Cost: O(pins log entries) plus one copy of `after`.
absl::StatusOr<ClusterState> ApplyPins(const ClusterState& after, const UpmapPinPlan& plan);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_UPMAP_PINNING_H_
