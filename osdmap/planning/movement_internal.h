// Pieces of osdmap/planning/movement.cc, each with one job: PG sizes, failure-domain
// matrices, capacity and fill, the theoretical minimum and risks; the
// comparison with its moves' detail chosen (the planner). Private to the
// movement report and the planner; not installed.
#ifndef CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_INTERNAL_H_
#define CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_INTERNAL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "crush/model.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/planning/movement.h"

namespace crushkit::osdmap::internal {

struct PgSize {
  std::uint64_t objects = 0;
  std::uint64_t bytes = 0;  // num_bytes + num_omap_bytes (logical)
};

// Per-PG sizes of a state: its pg_stats, else its pool_usage spread evenly
// over pg_num, else zero (BytesSource::kUnknown).
class PgSizer {
 public:
  explicit PgSizer(const ClusterState& state);

  BytesSource source() const { return source_; }

  PgSize Size(const Pool& pool, std::uint32_t ps) const;

  // Size() of one pool's PGs asked in increasing order mostly: the next
  // pg_stats entry is where the last one left off. Cost: O(1) per PG in
  // order, O(log PGs) otherwise (Size() is O(log PGs) always).
  class Cursor {
   public:
    Cursor(const PgSizer& sizer, const Pool& pool);
    PgSize Size(std::uint32_t ps);

   private:
    const PgSizer& sizer_;
    const Pool& pool_;
    // lower_bound of {pool, expect_} in pg_stats while expect_ is valid.
    std::map<PgId, PgStat>::const_iterator next_;
    std::uint32_t expect_ = 0;
    bool positioned_ = false;
  };

 private:
  const ClusterState& state_;
  BytesSource source_;
};

// OSD -> ancestor bucket of one type, for the before and after maps; sums
// the from -> to cells of moved shards.
class DomainIndex {
 public:
  // nullopt if neither map defines `type`.
  static std::optional<DomainIndex> Make(const ClusterState& before, const ClusterState& after,
                                         const std::string& type);
  // Cost: O(1) (one matrix cell), O(log cells) above kMaxDenseCells.
  void Add(std::int32_t from, std::int32_t to, std::uint64_t bytes);
  // Adds the cells of `other`, a copy of this index filled elsewhere (one
  // thread's share of a comparison).
  void Merge(const DomainIndex& other);
  DomainMatrix Finish();

 private:
  struct Counts {
    std::uint32_t shards = 0;
    std::uint64_t bytes = 0;
  };

  // Domains + "(new)" + "(none)" squared up to this many cells are one
  // dense matrix (4 MiB: 510 domains); more go in a map.
  static constexpr std::size_t kMaxDenseCells = std::size_t{1} << 18;

  // The cell of (from, to) domain indexes, -2 and -1 included.
  Counts& Cell(int from, int to);

  std::string type_;
  std::vector<std::string> names_;                // domain index -> name
  std::vector<int> before_, after_;               // OSD id -> domain index (-1: none)
  std::size_t side_ = 0;                          // names_.size() + 2
  std::vector<Counts> dense_;                     // side_ x side_ once a cell is added
  std::map<std::pair<int, int>, Counts> sparse_;  // above kMaxDenseCells
};

// One remapped PG's backfill, as the traffic matrices see it.
struct BackfillFlow {
  std::span<const std::int32_t> before;    // the PG's set before (holders)
  std::span<const std::int32_t> after;     // its up set after
  std::span<const std::int32_t> targets;   // OSDs receiving a copy or shard
  std::int32_t pusher = crush::kItemNone;  // osdmap/planning/backfill_pusher.h
  int ec_k = 0;                            // data shards; 0 for a replicated pool
  std::uint64_t shard_bytes = 0;           // bytes per copy or shard
};

// Adds `flow`'s network bytes to `traffic` (from = sender, to = receiver):
// the pusher sends each target its copy or shard; for EC it first reads
// k - 1 shards from the other members of the acting set peering wants,
// lowest shard positions first (ECBackend reads the fewest shards it can, and
// a rebuild of several lost shards of a PG shares one read). Nothing is added
// without a pusher, or for an OSD sending to itself.
void AddBackfillTraffic(const BackfillFlow& flow, DomainIndex& traffic);

// Ancestors in the non-shadow tree of a map (each item's first parent by
// bucket slot). Built once; lookups walk up at most the tree height.
class Ancestry {
 public:
  explicit Ancestry(const crush::MapModel& map);
  // The name of the ancestor of `item` of type `type_id`, or nullptr.
  const std::string* Find(std::int32_t item, int type_id) const;
  // The name of the bucket directly above that ancestor (e.g. the rack
  // above an OSD's host), or nullptr.
  const std::string* FindAbove(std::int32_t item, int type_id) const;
  // The type id named `type`, if the map defines it.
  std::optional<int> TypeId(const std::string& type) const;

  const std::map<std::int32_t, std::int32_t>& parents() const { return parent_; }

 private:
  // The id of the ancestor of `item` of type `type_id`, or nullopt.
  std::optional<std::int32_t> AncestorOfType(std::int32_t item, int type_id) const;
  // The name of bucket `id`, or nullptr.
  const std::string* NameOf(std::int32_t id) const;

  const crush::MapModel& map_;
  std::map<std::int32_t, std::int32_t> parent_;
};

// Each OSD's expected share (summing to 1) of the pool's data: the rule
// weight map (rule_weights.h, CrushWrapper::get_rule_weight_osd_map) times
// the OSD's reweight; OSDs that do not exist or are out get nothing.
std::map<std::int32_t, double> ExpectedShares(const ClusterState& state, const Pool& pool);

// Each bucket's expected share at each level of the tree: level (a bucket
// type name, or "osd") -> bucket name -> Σ the shares of the OSDs under it
// (through each OSD's first parent). An OSD without an ancestor of a level
// the map uses counts under "(none)" there.
using LevelShares = std::map<std::string, std::map<std::string, double>>;
LevelShares SharesByLevel(const crush::MapModel& map, const std::map<std::int32_t, double>& shares);

// The floor as a fraction of the data: the largest, over levels, of Σ over
// that level's buckets of the growth of their share. `level` receives the
// level it comes from ("" when 0). Growth below 1e-6 of the data is float
// noise (Ceph's rule weights are floats) and counts as 0.
double MinimumShareMoved(const LevelShares& before, const LevelShares& after, std::string* level);

// A pool's floor as a share of its data, and the level it comes from:
// MinimumShareMoved of both states' expected shares. From the states alone
// (not the PGs), so it is computed while the PGs are compared.
struct PoolFloor {
  double share = 0;
  std::string level;
};

PoolFloor ComputePoolFloor(const ClusterState& before, const ClusterState& after,
                           const Pool& pool_before, const Pool& pool_after);

// Sets c->minimum_to_move (`floor` x the pool's data), minimum_level,
// amplification and, when the amplification means nothing,
// amplification_note.
void SetMinimum(const ClusterState& before, const ClusterState& after, const Pool& pool_before,
                const Pool& pool_after, const PoolFloor& floor, bool bytes_known,
                MovementCounters* c);

// Totals over `pools` (after MovementCounters::Add): the amplification of
// the pools that have a floor, and the note when none has.
void SetTotalAmplification(const std::vector<MovementCounters>& pools, bool bytes_known,
                           MovementCounters* totals);

// Host, class, capacity and fill of every OSD in `osds`.
void FillCapacity(const ClusterState& before, const ClusterState& after, bool bytes_known,
                  std::vector<OsdMovement>* osds);

MovementRisks AssessRisks(const ClusterState& after, const Movement& m);

// What Movement::moves carries: nothing, what the backfill schedule and the
// fill timeline read (every field but `before` and `after`: the planner's
// moves when no PG list is printed), or everything (keep_moves).
enum class MoveDetail { kNone, kForSchedule, kFull };

// CompareMappedStates (movement.h) with the moves as `detail` says
// (options.keep_moves is not read).
Movement CompareMapped(const ClusterState& before, const ClusterState& after,
                       const PgTable& table_before, const PgTable& table_after,
                       const MovementOptions& options, MoveDetail detail);

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_PLANNING_MOVEMENT_INTERNAL_H_
