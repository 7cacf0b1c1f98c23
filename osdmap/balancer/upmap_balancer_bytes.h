// Private to upmap_balancer.cc (implemented in upmap_balancer_bytes.cc): the
// second phase of BalanceBy::kBytes. Once every pool's PG counts are within
// the deviation (the PoolBalancers, in PG units, did that), it moves PG
// shards, or swaps two, so that each device class's fullest OSD comes down
// (and its emptiest up) in %USE = used / capacity, while no move takes any
// pool's PG count deviation (Ceph's, count - CRUSH-weight target) past the
// deviation on either side. Every move goes through a PoolBalancer, so it
// keeps the rule and is confirmed by mapping the PG again.
//
// Fill: `ceph osd df`'s kb_used over kb for OSDs with usage in the state; a
// state without any takes each OSD's capacity as its CRUSH weight in TiB and
// its use as the shards of the balanced pools it holds. A move shifts the
// shard's bytes (pg_stats num_bytes + num_omap_bytes, / k for EC).
// Not thread-safe; the PoolBalancers must outlive it. Deterministic.
#ifndef CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_BYTES_H_
#define CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "osdmap/balancer/upmap_balancer.h"
#include "osdmap/balancer/upmap_balancer_pool.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap::internal {

class BytesBalancer {
 public:
  // `pools[i]` (usable, PG units) balances the pool whose shards weigh
  // `shard_bytes[i][ps]` bytes. `max_deviation`: the PG count window (>= 1).
  // `max_spread`: a class is done once fullest - emptiest <= this many
  // percentage points.
  BytesBalancer(const ClusterState& state, std::vector<PoolBalancer*> pools,
                std::vector<std::vector<double>> shard_bytes, double max_deviation,
                double max_spread);

  BytesBalancer(const BytesBalancer&) = delete;
  BytesBalancer& operator=(const BytesBalancer&) = delete;

  // Makes the best move, or swap (two moves), in the class furthest past
  // max_spread, using at most `budget` moves. Returns the moves made; 0 when
  // no class can improve (each then has its stop reason).
  int Step(int budget);

  // Marks every class that is not done as stopped by the move budget.
  void BudgetSpent();

  // The classes with their fill before (at construction) and now, in class
  // name order.
  std::vector<ClassBalance> Classes() const;

  // The usage the fill starts from (the state's, or made from CRUSH
  // weights), and each OSD's bytes gained (negative: lost) since.
  const std::map<std::int32_t, OsdUsage>& base_usage() const { return base_usage_; }

  std::map<std::int32_t, std::int64_t> DeltaBytes() const;

  bool capacity_from_osd_df() const { return from_osd_df_; }

  // A move made by the PG count phase: pool index, PG, from, to.
  void Record(int pool, std::uint32_t ps, std::int32_t from, std::int32_t to);

 private:
  // One shard of a PG moving from `from` to `to`.
  struct Shard {
    int pool = 0;  // index into pools_
    std::uint32_t ps = 0;
    int pos = 0;
    double bytes = 0;
  };

  struct Candidate {
    double gain = 0;  // percentage points the anchored OSD gets closer
    Shard out;        // src -> dst
    std::int32_t src = -1;
    std::int32_t dst = -1;
    bool swap = false;
    Shard back;  // swap only: dst -> src
  };

  // Why a class could not improve, most specific last.
  enum class Block : std::uint8_t { kNone, kSinglePg, kFewPgs, kRule };

  struct ClassState {
    std::string name;
    std::vector<std::int32_t> osds;
    FillSpread before;
    int moves = 0;
    bool done = false;
    std::string stop_reason;
    std::string detail;
    std::int32_t top_stuck = -1;     // fullest OSD that found no move
    Block top_block = Block::kNone;  // and why
  };

  double Pct(std::int32_t osd) const;
  FillSpread Spread(const ClassState& c) const;
  // Shards of `osd` in pools that may move them, with their bytes.
  std::vector<Shard> ShardsOf(std::int32_t osd) const;
  // Whether pool `pool`'s counts allow one more shard on `to` and one fewer
  // on `from`.
  bool CountsAllow(int pool, std::int32_t from, std::int32_t to) const;
  // The best move or swap that brings `anchor` toward the middle: lowering
  // it (its shards to the emptiest OSDs of its class) or raising it (the
  // fullest OSDs' shards to it). Sets *why when there is none.
  bool Improve(const ClassState& c, std::int32_t anchor, bool lower, Block* why, int budget,
               int* moves);
  // Sets cands_ to the moves and swaps between `anchor` and each partner
  // that bring the anchor closer to the middle, unordered.
  void CollectCandidates(std::span<const std::int32_t> partners, std::int32_t anchor,
                         const std::vector<Shard>& anchor_shards, bool lower);
  // Whether the rule allows `cand` (both moves of a swap).
  bool FitsRule(const Candidate& cand) const;
  // Improve() over one group of partners: the candidates in order of gain
  // until one fits the counts and the rule.
  bool TryPartners(std::span<const std::int32_t> partners, std::int32_t anchor,
                   const std::vector<Shard>& anchor_shards, bool lower, int budget, int* moves,
                   Block* why);
  bool Make(const Candidate& cand, int* moves);
  std::string Describe(Block why, std::int32_t osd, bool lower) const;

  const ClusterState& state_;
  std::vector<PoolBalancer*> pools_;
  std::vector<std::vector<double>> shard_bytes_;
  double max_deviation_ = 1;
  double max_spread_ = 1;
  bool from_osd_df_ = false;
  std::map<std::int32_t, OsdUsage> base_usage_;
  std::vector<double> capacity_;  // bytes, per OSD id; 0: not counted
  std::vector<double> used_;      // bytes, per OSD id
  std::vector<double> used_start_;
  std::vector<ClassState> classes_;
  // TryPartners' candidates and their heap, kept for their capacity (tens
  // of thousands of candidates with 64 partners: reallocating them cost
  // more in page faults than the search).
  std::vector<Candidate> cands_;
  std::vector<std::pair<double, std::size_t>> order_;
};

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_BALANCER_UPMAP_BALANCER_BYTES_H_
