// Which change is best: several alternative changes of one cluster planned
// side by side (`crushkit plan STATE A.ops B.ops ...`, issue 40) and ranked
// by a stated criterion. Each alternative goes through the planner's own
// entry point (PlanChange, planner.h: apply, the monitor's upmap cleanup,
// movement, simulated backfill, safety), so a figure here is the figure
// `crushkit plan` prints for that alternative alone.
//
// An alternative is one change, or a sequence of stages (a drain order:
// each stage is applied to the state the previous one leaves and planned
// from it), or one change staged under a misplaced limit (a --steps sweep:
// the staged plan of staged_plan.h). Its figures:
//   * moved: bytes (shards when the state has no PG sizes), PGs remapped,
//     objects, summed over stages (a staged plan: over its steps);
//   * the floor (the theoretical minimum of movement.h, summed over stages)
//     and the amplification, moved / floor;
//   * duration: the simulated backfill (backfill_schedule.h), summed over
//     stages or steps;
//   * peak fill: the highest fill any OSD reaches while the change
//     backfills (fill_timeline.h; a staged plan: the fullest receiving OSD
//     of any step, fill_limit.h), the highest over stages;
//   * balance after: the fullest OSD's fill and the largest PG-count
//     deviation from the CRUSH-weight target (Ceph's balancer definition:
//     per pool, an OSD's share of the rule weight map times its reweight,
//     times size x pg_num) in the final state;
//   * MAX AVAIL per pool (pool_max_avail.h, `ceph df`'s formula) before, at
//     its lowest during the change and after it.
// Figures that need what the state lacks (PG sizes, `ceph osd df`
// capacities) are unknown (-1) and rank last.
//
// Generated alternatives answer the common questions: PlaceHosts (which
// existing failure domain, or a new one, gets new hosts), DrainOrder (which
// order of draining hosts peaks lowest), StepSweep (the change at once and
// staged in 2..N steps, CompareStepSweep).
//
// Thread-safety: ComparePlans() runs its own threads (alternatives planned
// concurrently, each with its own mapping threads) and reads its inputs
// only; results are plain values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_PLAN_COMPARE_H_
#define CRUSHKIT_OSDMAP_PLANNING_PLAN_COMPARE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/changes/change_ops.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/planning/plan_report.h"
#include "osdmap/planning/planner.h"

namespace crushkit::osdmap {

struct PlanAlternative {
  std::string name;  // "add-rack.ops", "rack2", "node3, node7"
  // Applied in order, each to the state the previous one leaves (upmaps
  // cleaned as the monitor does); at least one.
  std::vector<ChangeList> stages;
  // Set: the (single-stage) change planned in steps of at most this share
  // misplaced (PlanOptions::max_misplaced) and measured by its steps.
  std::optional<double> max_misplaced;
};

// What the alternatives are ranked by; every criterion ranks the lowest
// first (kMaxAvail: the largest lowest-pool MAX AVAIL after, i.e. the least
// negative change), ties broken by bytes moved, then peak fill, then input
// order.
enum class RankBy {
  kMoved,          // bytes moved (shards without PG sizes)
  kDuration,       // simulated backfill time
  kPeakFill,       // highest fill of any OSD during the change
  kFullest,        // the fullest OSD's fill after the change
  kDeviation,      // the largest PG-count deviation after the change
  kAmplification,  // moved / floor
  kMaxAvail,       // the lowest pool's MAX AVAIL change (after - before), largest first
};

// "moved", "duration", "peak-fill", "fullest", "deviation", "amplification",
// "max-avail". Errors: kInvalidArgument listing these.
absl::StatusOr<RankBy> ParseRankBy(std::string_view text);
std::string RankByName(RankBy r);
// One sentence: what the rank means ("bytes moved, least first").
std::string RankByMeaning(RankBy r);

// Which question a comparison answers, for its default criterion.
enum class CompareQuestion {
  kChanges,     // change files side by side, a --steps sweep
  kPlaceHosts,  // where to put new hosts
  kDrainOrder,  // in which order to drain hosts
};

// What each question ranks by unless asked otherwise: data moved; for
// placing hosts the fullest OSD after (where the new capacity relieves the
// cluster most); for a drain order the peak fill (the question asked).
RankBy DefaultRankBy(CompareQuestion q);

struct AlternativePoolAvail {
  std::int64_t pool_id = 0;
  std::string pool_name;
  std::uint64_t before = 0;  // `ceph df` MAX AVAIL before the change, bytes
  std::uint64_t lowest = 0;  // the lowest during it (a staged plan: = after)
  std::uint64_t after = 0;
};

struct AlternativeResult {
  std::string name;
  std::size_t input_index = 0;  // position in ComparePlans' input
  int rank = 0;                 // 1: best; 0 when it failed
  // Empty when planned; else why not (ApplyChange's located diagnostics,
  // the planner's error). Failed alternatives rank after all others.
  std::string error;
  std::vector<std::string> change;  // its operations ("stage 2: drain node3" for stages)
  int stages = 1;
  int steps = 0;  // a staged plan's steps (0: at once)
  bool bytes_known = false;
  BytesSource bytes_source = BytesSource::kUnknown;
  std::uint64_t bytes_to_move = 0;
  std::uint64_t objects_to_move = 0;
  std::uint32_t pgs_remapped = 0;
  std::uint32_t shards_moved = 0;
  double moved = 0;  // bytes, else shards: what kMoved ranks
  // Of the first stage at once: objects (shards) to move / all copies.
  double misplaced_ratio = 0;
  double minimum_to_move = 0;
  double amplification = 0;  // 0: n/a (amplification_note says why)
  std::string amplification_note;
  double duration_seconds = -1;  // -1: not simulated
  double peak_fill = -1;         // -1: unknown (no capacities or no schedule)
  std::int32_t peak_osd = -1;
  double fullest_after = -1;  // -1: unknown (no capacities)
  std::int32_t fullest_osd = -1;
  double max_deviation = -1;  // PGs; -1: no pool has a target
  std::int32_t max_deviation_osd = -1;
  std::vector<AlternativePoolAvail> pools;  // empty without `ceph osd df`
  std::uint32_t pgs_degraded_after = 0;
  std::uint32_t pgs_inactive_after = 0;
  std::vector<std::string> warnings;  // the planner's warnings, formatted
};

struct PlanComparison {
  RankBy rank_by = RankBy::kMoved;
  std::vector<AlternativeResult> alternatives;  // best first, failed last
  BytesSource bytes_source = BytesSource::kUnknown;
  std::uint32_t osds = 0;  // OSDs of the state
  std::uint64_t pgs = 0;   // PGs of the state
  // CompareOptions::keep_best: the best alternative's whole report (its
  // last stage's, for stages), for the HTML page.
  std::optional<PlanReport> best_report;
};

struct CompareOptions {
  // How each alternative is planned: backfill model, schedule, upmap
  // cleanup, domain types. max_misplaced, upmap_remapped and the progress
  // callbacks are not used (PlanAlternative::max_misplaced stages).
  PlanOptions plan;
  RankBy rank_by = RankBy::kMoved;
  // 0: one per CPU. Alternatives are planned this many at a time, the
  // threads shared among them; the result does not depend on it.
  int threads = 0;
  bool keep_best = false;
  // Called after each alternative with (planned so far, total), from any
  // thread but never concurrently. May be empty.
  std::function<void(int, int)> progress;
};

// Plans every alternative on `before` and ranks them. An alternative that
// cannot be planned (a change that does not apply) is reported with its
// error, not fatal. Errors: kInvalidArgument for no alternatives or an
// alternative without stages; a staged alternative with more than one
// stage. Cost: each alternative's PlanChange per stage (two all-PG
// mappings, the backfill simulation), on options.threads threads.
absl::StatusOr<PlanComparison> ComparePlans(const ClusterState& before,
                                            const std::vector<PlanAlternative>& alternatives,
                                            const CompareOptions& options = {});

// --place-hosts: `hosts` holds add-host operations (other operations are
// kept as they are, in every alternative). One alternative per existing
// bucket of the type that holds the state's hosts (e.g. each rack; its
// name), each add-host placed there (its location words replaced), plus
// one that first adds a new bucket of that type under the first one's
// parent ("new rack rack3"). Errors: kInvalidArgument when `hosts` has no
// add-host or the state's hosts have no parent bucket type.
absl::StatusOr<std::vector<PlanAlternative>> PlaceHostsAlternatives(const ClusterState& state,
                                                                    const ChangeList& hosts);

// --drain-order: every order of draining `hosts` (one stage each, `drain
// HOST`) when there are at most 4 (24 orders); more hosts: each host first,
// the rest in the order given. Errors: kInvalidArgument for fewer than two
// hosts or a name that is not a bucket of the state (with the closest
// name).
absl::StatusOr<std::vector<PlanAlternative>> DrainOrderAlternatives(
    const ClusterState& state, const std::vector<std::string>& hosts);

// --steps N: `change` at once, then staged so that it takes about 2..N
// steps: the k-step alternative's misplaced limit is the change's
// misplaced ratio at once (MisplacedRatio) over k; each result says how
// many steps its plan took. All of them ranked as ComparePlans ranks.
// Errors: kInvalidArgument for N outside 2..20, a change of several stages,
// or one that misplaces nothing (nothing to stage); the change at once
// failing to plan (its error).
// Cost: the change at once, then one staged plan per k (about k + 1
// all-PG mappings each).
absl::StatusOr<PlanComparison> CompareStepSweep(const ClusterState& before,
                                                const PlanAlternative& change, int max_steps,
                                                const CompareOptions& options = {});

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_PLAN_COMPARE_H_
