// The staged plan's states and their measurement (staged_plan_internal.h):
// a step's state mapped (or shared with the planner's), and what a step
// moves and how long its backfill takes.
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"

#include "crush/edit/zero_weight_additions.h"
#include "osdmap/changes/upmap_cleanup.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_table_replay.h"
#include "osdmap/planning/staged_plan_internal.h"

namespace crushkit::osdmap::internal {
namespace {

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

}  // namespace

// The before state of the change at once, and its target.
Mapped BeforeOf(const MappedChange& m) {
  return Mapped{std::shared_ptr<const ClusterState>(m.before, &m.before->state()),
                std::shared_ptr<const PgTable>(m.tables, &m.tables->before), 0, nullptr};
}

Mapped AfterOf(const MappedChange& m) {
  return Mapped{std::shared_ptr<const ClusterState>(m.after, &m.after->state()),
                std::shared_ptr<const PgTable>(m.tables, &m.tables->after), 0, nullptr};
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

absl::StatusOr<Mapped> MapState(ClusterState state, const StagedPlanOptions& options, bool clean,
                                const Mapped* earlier) {
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
  // The steps replay the before state's choices.
  std::shared_ptr<std::vector<std::vector<std::uint8_t>>> held;
  if (options.recorded != nullptr)
    held = std::make_shared<std::vector<std::vector<std::uint8_t>>>();
  auto table = std::make_shared<const PgTable>(
      options.recorded != nullptr
          ? MapAllPgsReplayed(*options.recorded, *shared, mo, nullptr, options.kept.get(),
                              held.get(), earlier != nullptr ? earlier->held.get() : nullptr)
          : MapAllPgs(*shared, mo));
  diverged += table->diverged_from_ceph;
  return Mapped{std::shared_ptr<const ClusterState>(shared, &shared->state()), std::move(table),
                diverged, std::move(held)};
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

}  // namespace crushkit::osdmap::internal
