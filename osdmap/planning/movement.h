// What a change moves: every PG of two cluster states ("before" and
// "after") mapped on all cores, compared, and summed per pool, per OSD and
// per failure domain, with bytes from the states' PG statistics. The report
// behind `crushkit diff` and `crushkit plan`; osdmap/planning/movement_report.h prints
// it (terminal summary, protobuf JSON). Definitions of every counter are in
// osdmap/proto/movement.proto.
//
// Thread-safety: MapChange(), DiffStates() and the comparisons run their own
// threads and read their inputs only; results are plain values (a
// MappedChange is immutable and shared).
#ifndef CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_H_
#define CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/model/cluster_state.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/model/pg_table.h"

namespace crushkit::osdmap {

struct PgLogTails;  // osdmap/planning/backfill_pusher.h
struct PgStepUps;   // osdmap/planning/backfill_pusher.h

enum class BytesSource { kUnknown = 0, kPgStats = 1, kPoolTotals = 2 };

struct MovementCounters {
  std::int64_t pool_id = -1;
  std::string pool_name;
  std::uint32_t pgs = 0;
  std::uint32_t pgs_remapped = 0;
  std::uint32_t shards_moved = 0;
  std::uint64_t objects_to_move = 0;
  std::uint64_t bytes_to_move = 0;
  std::uint32_t pgs_degraded_after = 0;
  std::uint32_t pgs_inactive_after = 0;
  std::uint32_t pgs_degraded_before = 0;
  std::uint32_t pgs_inactive_before = 0;
  std::uint32_t shards_total = 0;
  std::uint64_t objects_total = 0;
  std::uint64_t bytes_total = 0;
  // The theoretical minimum (osdmap/planning/README.md, "Theoretical minimum"): the
  // data that must change buckets at the level where most must, in bytes
  // (shards when bytes are unknown); `minimum_level` names that level
  // ("osd", "host", "rack", ..., or "size" for copies a size increase adds).
  double minimum_to_move = 0;
  std::string minimum_level;
  // moved / minimum; 0 when it means nothing, and then, if anything moves,
  // `amplification_note` says why ("n/a: ...").
  double amplification = 0;
  std::string amplification_note;
  std::uint32_t size_before = 0;
  std::uint32_t size_after = 0;
  std::uint32_t pg_num_before = 0;
  std::uint32_t pg_num_after = 0;
  // PGs whose acting primary changes (reads go elsewhere, and the new
  // primary directs backfill), and those of them whose set does not change
  // (a pg_upmap_primaries entry, primary affinity: no data moves).
  std::uint32_t pgs_primary_changed = 0;
  std::uint32_t pgs_primary_only = 0;

  // Adds another pool's additive counters (not sizes or pg_num).
  void Add(const MovementCounters& o);
};

struct OsdMovement {
  std::int32_t osd = 0;
  std::string host;
  // The bucket above its host (its rack, or whatever type the map puts
  // there; after, else before), "" if none.
  std::string domain;
  std::string device_class;
  std::uint32_t pgs_before = 0;
  std::uint32_t pgs_after = 0;
  std::uint32_t pgs_in = 0;
  std::uint32_t pgs_out = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t capacity_bytes = 0;
  std::uint64_t used_before = 0;
  std::uint64_t used_after = 0;
  double fill_before = 0;
  double fill_after = 0;
  bool capacity_from_osd_df = false;
};

struct DomainCell {
  std::string from;
  std::string to;
  std::uint32_t shards = 0;
  std::uint64_t bytes = 0;
};

struct DomainMatrix {
  std::string type;
  std::vector<std::string> names;
  std::vector<DomainCell> cells;  // sorted by bytes (else shards), largest first
};

struct OsdRisk {
  std::int32_t osd = 0;
  double fill_before = 0;
  double fill_after = 0;
  std::string level;  // "nearfull", "backfillfull", "full"
};

struct MovementRisks {
  float nearfull_ratio = 0;
  float backfillfull_ratio = 0;
  float full_ratio = 0;
  std::vector<OsdRisk> osds;
  std::uint32_t pgs_degraded_after = 0;
  std::uint32_t pgs_inactive_after = 0;
  std::uint32_t upmaps_dropped = 0;
  std::uint32_t upmap_items_rewritten = 0;
  std::vector<std::string> notes;
};

// One remapped PG that needs data written: the backfill job it becomes.
// `targets` are the OSDs that newly receive a
// copy (replicated) or a shard (EC), each receiving `bytes_per_target`.
struct PgMove {
  PgId pg;
  // The before set's first OSD (its old primary; the matrices' "from").
  std::int32_t source = crush::kItemNone;
  // The OSD that reads and pushes the data while the PG backfills: the
  // primary peering picks after the change (osdmap/planning/backfill_pusher.h);
  // kItemNone when no holder is up.
  std::int32_t pusher = crush::kItemNone;
  std::vector<std::int32_t> targets;
  std::vector<std::int32_t> before;  // the PG's up set before and after
  std::vector<std::int32_t> after;
  std::uint64_t bytes_per_target = 0;
  std::uint64_t objects_per_target = 0;
  // Copies are missing meanwhile: the before set was short of the pool size
  // or holds an OSD that is down after the change (Ceph serves degraded
  // backfills first).
  bool degraded = false;
  // The before members that give their copy (replicated) or shard (EC) up:
  // Ceph deletes it once the PG is clean again, i.e. when its backfill ends
  // (fill_timeline.h). An OSD appears once per shard it gives up.
  std::vector<std::int32_t> leaving;
  // An erasure-coded pool's PG (its backfill reads shards from other OSDs to
  // rebuild each object: BackfillRate::ec_hold_factor).
  bool erasure = false;
};

struct Movement {
  std::vector<MovementCounters> pools;
  MovementCounters totals;
  std::vector<OsdMovement> osds;
  // Where copies are placed: each new copy paired with the copy it
  // replaces (the old holder's domain -> the new holder's), not traffic.
  std::vector<DomainMatrix> domains;
  // Network traffic while backfilling: bytes the pusher sends to each target
  // and, for EC, the shards it reads to rebuild them (holder -> pusher);
  // copies an OSD writes to itself are not traffic (osdmap/planning/README.md).
  std::vector<DomainMatrix> traffic;
  MovementRisks risks;
  BytesSource bytes_source = BytesSource::kUnknown;
  std::vector<std::string> change;
  std::uint32_t epoch_before = 0;
  std::uint32_t epoch_after = 0;
  // Every PG with a target, in pool and PG order (MovementOptions::keep_moves).
  std::vector<PgMove> moves;
};

struct MovementOptions {
  // Bucket types to build from -> to matrices for; types the maps do not
  // define are skipped.
  std::vector<std::string> domain_types = {"host", "rack"};
  int threads = 0;          // 0: one per CPU
  bool keep_moves = false;  // fill Movement::moves (the backfill jobs)
  // Every holder's log tail (osdmap/planning/backfill_pusher.h), for the pusher of
  // replicated PGs whose new up primary holds nothing; nullptr: the lowest
  // up holder. Not owned; must outlive the comparison.
  const PgLogTails* log_tails = nullptr;
  // The up sets a change of several commands passes through
  // (MapPusherSteps), for the same pusher rule: the first changed interval's
  // primary wins the last one's ties. nullptr: the change at once. Not
  // owned; must outlive the comparison.
  const PgStepUps* pusher_steps = nullptr;
  // Progress of the two all-PG mappings, (done, total) over both.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  // A recording of the before state (osdmap/model/pg_table_replay.h) that
  // the paired mapping takes instead of mapping it again (MapAllOptions::
  // recorded: ignored unless it records this before state), and whether
  // to record one when none is given (MapAllOptions::record), handed back
  // in PgTablePair::recorded for more after states (a staged plan's steps).
  std::shared_ptr<const RecordedMapping> recorded;
  bool record = false;
};

// The movement between two states whose PGs are already mapped (MapAllPgs
// of each state; acting sets are not used), e.g. when one mapping serves
// several comparisons. REQUIRES: CheckComparable(); each table maps its own
// state. Cost: O(PGs x size).
Movement CompareMappedStates(const ClusterState& before, const ClusterState& after,
                             const PgTable& table_before, const PgTable& table_after,
                             const MovementOptions& options = {});

// Checks that `after` can be compared with `before`: the same cluster (fsids
// equal when both are known) and the same pool ids. Errors:
// kInvalidArgument naming what differs.
absl::Status CheckComparable(const ClusterState& before, const ClusterState& after);

// CheckComparable(), then a mapping session on each state; a session's
// error names its side ("before: ...", "after: ...").
struct SessionPair {
  std::unique_ptr<MappingSession> before;
  std::unique_ptr<MappingSession> after;
};

absl::StatusOr<SessionPair> OpenSessionPair(ClusterState before, ClusterState after);

// Same, with `after_map` (when not null) already built from after.crush:
// `after`'s session takes it instead of building it again.
absl::StatusOr<SessionPair> OpenSessionPair(ClusterState before, ClusterState after,
                                            std::shared_ptr<const crush::CrushMap> after_map);

// How PGs are compared (CompareMappedStates, CompareChange, DiffStates):
// matched by id; when pg_num differs, every PG of the finer side is
// compared with the PG of the other side it folds to (a split child starts
// on its parent's OSDs and carries an even share of its bytes). Bytes come
// from before's pg_stats, else its pool_usage, else are unknown
// (BytesSource). Cost: O(PGs x size), on options.threads threads (the
// result does not depend on their number).
//
// A change's two states, each validated with its crush map built (a
// MappingSession each), and every PG of both mapped (up sets; tables.before
// and tables.after): the one value the planner hands from the diff to the
// backfill schedule, the staged plan and the upmap way. Immutable once made
// (MapChange); copies share it, and any number of threads may map through
// it at once (MappingSession::NewWorker).
struct MappedChange {
  std::shared_ptr<const MappingSession> before;
  std::shared_ptr<const MappingSession> after;
  std::shared_ptr<const PgTablePair> tables;
};

// CheckComparable(), both states' mapping sessions (OpenSessionPair; the
// crush maps built), then every PG of both mapped (MapAllPgsPaired, up
// sets; options.threads and options.progress). `after_map`: as
// OpenSessionPair. Errors: as OpenSessionPair.
absl::StatusOr<MappedChange> MapChange(ClusterState before, ClusterState after,
                                       const MovementOptions& options = {},
                                       std::shared_ptr<const crush::CrushMap> after_map = nullptr);

// MapChange's last steps for sessions already open (CheckComparable()
// passed): every PG of both mapped.
MappedChange MapSessions(SessionPair sessions, const MovementOptions& options = {});

// CompareMappedStates() of a mapped change.
Movement CompareChange(const MappedChange& change, const MovementOptions& options = {});

// MapChange() then CompareChange(). Errors: kInvalidArgument from
// CheckComparable, or the crush map build error of the state named
// "before: " / "after: ".
absl::StatusOr<Movement> DiffStates(ClusterState before, ClusterState after,
                                    const MovementOptions& options = {});

// `state` with its crush map replaced by `crush_bytes` (Ceph's binary
// encoding), as `osdmaptool --import-crush` does: upmaps are left as they
// are. Errors: the decoder's (crush/codec.h).
absl::StatusOr<ClusterState> WithCrushMap(const ClusterState& state, std::string crush_bytes);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_H_
