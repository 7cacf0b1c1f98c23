// Which OSD pushes a PG's data during a backfill: the primary that peering
// picks for the interval after the change (PeeringState::choose_acting), not
// the PG's old primary. Measured on a real 16.2 cluster, assuming the old
// primary misplaced 17-38% of replicated backfills and the load on the
// wrong OSDs (issue 35).
//
// The rule, from PeeringState (find_best_info, calc_replicated_acting,
// calc_ec_acting), for a PG whose copies are all clean before the change:
//  * Replicated: the new up primary pushes when it already holds the PG
//    (its log is complete and contiguous with the authoritative one).
//    Otherwise the primary is the authoritative log shard: among the OSDs
//    that hold the PG and are up, every info has the same last_update and
//    a contiguous log, so find_best_info keeps the first one it iterates,
//    the lowest OSD id ("prefer current primary" cannot apply: the new
//    primary holds nothing).
//  * Erasure-coded: the acting set is built position by position (the up
//    OSD where it holds its shard, else the OSD that held the shard
//    before), and the acting primary is its first real OSD, which reads
//    the shards it needs and pushes the rebuilt shard.
// Checked on real 16.2 clusters (tools/dev/loopback-change.py): right for
// 126 of 129 backfilling PGs (backfill_pusher_test.cc). The known miss: when
// the new up primary still holds a stale copy from an earlier interval (an
// OSD marked in again before its strays were purged), find_best_info prefers
// the holder whose longer log reaches that copy, which needs each replica's
// log bounds; the rule then still names a holder, often another one.
// Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_BACKFILL_PUSHER_H_
#define CRUSHKIT_OSDMAP_BACKFILL_PUSHER_H_

#include <cstdint>
#include <functional>
#include <span>

namespace crushkit::osdmap {

// The OSD that pushes a replicated PG's backfill: `after_up[0]` (the up
// primary; Ceph orders a replicated up set primary first) when it is among
// `before` (the OSDs that hold the PG), else the lowest OSD id of `before`
// for which `is_up` is true. crush::kItemNone when no holder is up (the PG
// cannot backfill) or `after_up` is empty. Holes (kItemNone, negative ids)
// are skipped. Cost: O(|before| + |after_up|).
std::int32_t ReplicatedBackfillPusher(std::span<const std::int32_t> before,
                                      std::span<const std::int32_t> after_up,
                                      const std::function<bool(std::int32_t)>& is_up);

// The OSD that pushes an erasure-coded PG's backfill: the first real OSD,
// in shard order, of the acting set peering wants: position i keeps
// `after_up[i]` where it equals `before[i]`, else `before[i]` (the shard's
// holder) when that OSD is up, else nobody (the shard is rebuilt onto
// after_up[i], which holds nothing yet). kItemNone when no position has one.
std::int32_t ErasureBackfillPusher(std::span<const std::int32_t> before,
                                   std::span<const std::int32_t> after_up,
                                   const std::function<bool(std::int32_t)>& is_up);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_BACKFILL_PUSHER_H_
