// Private to upmap_balancer.cc (implemented in upmap_balancer_pool.cc and
// upmap_balancer_search.cc): one pool's share of the balance. Holds the
// pool's per-OSD counts and targets, every PG's upmapped set and the PGs of
// each OSD, updated incrementally as moves are made; a move is written into
// the working state's pg_upmap_items and confirmed by mapping that one PG.
// Not thread-safe; the state, mapper and verifier must outlive it. The
// constructor only reads the state and touches no mapper, so balancers of
// different pools may be built concurrently, each with its own verifier.
#ifndef CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_POOL_H_
#define CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_POOL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "osdmap/balancer/upmap_balancer.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_mapping.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/model/upmap_verify.h"

namespace crushkit::osdmap::internal {

// An OSD id as an index into the balancer's per-OSD vectors.
constexpr std::size_t Idx(std::int32_t osd) { return static_cast<std::size_t>(osd); }

// One PG's weight in the balance for each PG of `pool` (1 per shard, or
// bytes per shard). Empty if bytes are asked for and the state has none
// for this pool.
std::vector<double> PgUnits(const ClusterState& state, const Pool& pool, BalanceBy by);

// Stats of count - target over the OSDs with a target or a count.
DeviationStats ComputeStats(const std::vector<double>& counts, const std::vector<double>& targets);

class PoolBalancer {
 public:
  // Starts from `sets`, the pool's PGs as MapRawUpmapSets() maps them on
  // `state`; `mapper` (which reads `state` live) re-maps a PG after each
  // move. `units` from PgUnits(). `threshold` is in the same unit.
  PoolBalancer(ClusterState& state, const Pool& pool, const PoolPgTable& sets, PgMapper& mapper,
               UpmapVerifier& verifier, std::vector<double> units, double max_deviation_pgs,
               std::uint64_t seed);

  PoolBalancer(const PoolBalancer&) = delete;
  PoolBalancer& operator=(const PoolBalancer&) = delete;

  // How far the worst OSD is past the threshold, in thresholds (<= 1: balanced).
  double Badness() const;
  // Makes one move that lowers the sum of squared deviations. Returns false
  // (and changes nothing) if there is none.
  bool Step();

  bool usable() const { return usable_; }

  double threshold() const { return threshold_; }

  const std::vector<double>& counts() const { return counts_; }

  const std::vector<double>& targets() const { return targets_; }

  // Moves undone because the re-mapped set was not the predicted one.
  int mismatches() const { return mismatches_; }

  struct Move {
    std::uint32_t ps = 0;
    int pos = -1;
    std::int32_t from = -1;  // the OSD leaving the set
    std::int32_t to = -1;    // the OSD entering it
  };

  // The last move Step() or MovePg() made; moves made so far.
  const Move& last_move() const { return last_move_; }

  int applied() const { return applied_; }

  // Largest |count - target| over the OSDs that are targets (up, in) or
  // hold PGs: what Ceph's calc_pg_upmaps compares with max_deviation.
  double MaxAbsDeviation() const;

  // For the bytes phase (upmap_balancer_bytes.h), which moves PGs itself.
  double Dev(std::int32_t osd) const {
    return counts_[static_cast<std::size_t>(osd)] - targets_[static_cast<std::size_t>(osd)];
  }

  bool CanTarget(std::int32_t osd) const { return eligible_[static_cast<std::size_t>(osd)]; }

  // PGs whose set holds `osd`; whether a PG may be moved at all.
  const std::vector<std::uint32_t>& PgsOf(std::int32_t osd) const {
    return pgs_of_[static_cast<std::size_t>(osd)];
  }

  bool Movable(std::uint32_t ps) const { return usable_ && !frozen_[ps]; }

  int PositionOf(std::uint32_t ps, std::int32_t osd) const;
  // Whether position `pos` of PG `ps` may go to `to`: the PG is movable,
  // its pg_upmap_items have room for the pair (or one to rewrite), and the
  // new set keeps the rule.
  bool CanMove(std::uint32_t ps, int pos, std::int32_t to);
  // Makes that move as Step() makes its own (written into the state,
  // confirmed by mapping the PG). False if the mapping disagreed (then
  // undone and the PG frozen).
  bool MovePg(std::uint32_t ps, int pos, std::int32_t from, std::int32_t to);

 private:
  // The constructor's halves. SetTargets: the rule, failure domains and
  // each OSD's target as calc_pg_upmaps() computes it; false when the pool
  // cannot be balanced. LoadSets: the PGs' raw upmapped sets, per-OSD PG
  // lists (shuffled when seed != 0) and counts.
  bool SetTargets(double max_deviation_pgs);
  void LoadSets(const PoolPgTable& sets, std::uint64_t seed);
  // Whether replacing position `pos` of PG `ps` by `to` keeps the rule.
  bool Fits(std::uint32_t ps, int pos, std::int32_t to);
  // Whether moving a PG of weight `unit` from `from` to `to` lowers the sum
  // of squared deviations and moves an OSD past the threshold.
  bool Useful(std::int32_t from, std::int32_t to, double unit) const;
  // The best pair (x -> osd) to drop: the PG's slot goes back to x.
  std::optional<Move> FindDropOnto(std::int32_t osd);
  // A PG of `osd` moved to the first (least full) OSD of `under` that fits.
  std::optional<Move> FindRemapFrom(std::int32_t osd, std::span<const std::int32_t> under);
  // The best pair (osd -> y) to drop, giving an underfull `osd` a PG back.
  std::optional<Move> FindDropFrom(std::int32_t osd);
  // The first move in (over-full desc, under-full asc) order.
  std::optional<Move> Search(std::span<const std::int32_t> over,
                             std::span<const std::int32_t> under);
  std::optional<Move> FindMove();
  // Writes the move into the state's pg_upmap_items, re-maps the PG and
  // keeps the move if the set came out as predicted.
  bool Apply(const Move& m);
  std::span<const std::int32_t> Set(std::uint32_t ps) const;
  void Store(std::uint32_t ps, const OsdList& set);

  ClusterState& state_;
  const Pool pool_;
  PgMapper& mapper_;
  UpmapVerifier& verifier_;
  bool usable_ = false;
  int rule_ = -1;
  int domain_type_ = 0;        // failure-domain type of the rule (0: none)
  std::vector<double> units_;  // per PG
  double threshold_ = 1;
  std::vector<double> counts_;        // per OSD id
  std::vector<double> targets_;       // per OSD id
  std::vector<bool> eligible_;        // up, in, in the rule weight map
  std::vector<std::int32_t> domain_;  // per OSD: its failure-domain bucket (0: none)
  // Per PG: the upmapped raw set, in set_osds_[ps * width_ ...] (set_len_
  // entries); frozen PGs are not stored.
  int width_ = 0;
  std::vector<std::int32_t> set_osds_;
  std::vector<std::uint8_t> set_len_;
  int mismatches_ = 0;
  int applied_ = 0;
  Move last_move_;
  std::vector<bool> frozen_;  // per PG: never touched (pg_upmap, holes, re-map mismatch)
  std::vector<std::vector<std::uint32_t>> pgs_of_;  // per OSD: PGs whose set holds it
};

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_POOL_H_
