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
// 126 of 129 backfilling PGs (backfill_pusher_test.cc). The misses are
// find_best_info's "prefer the longer tail": holders' logs need not end at
// the same entry (a replica that joined by backfill keeps the log it was
// given), and the holder with the oldest log_tail wins. The pg dump shows
// only the primary's log bounds; `pg query` shows every holder's. With them
// (the overload taking log_tail) the rule named the pusher of every
// replicated PG of the loopback runs that recorded them (issue 35,
// tools/dev/README.md); without them it falls back to the lowest id.
// Two refinements from the 21 "Fresh runs" and Tentacle's backfill_toofull
// run: a peer's tail `pg query` shows as 0'0 is stale (the replica trimmed
// with the primary since), and a change of several commands leaves the
// first changed interval's primary in charge (a pg_temp), which wins the
// ties of the last interval (ReplicatedBackfillPusherInSteps).
// Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_PLANNING_BACKFILL_PUSHER_H_
#define CRUSHKIT_OSDMAP_PLANNING_BACKFILL_PUSHER_H_

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

#include "crush/types.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_id.h"

namespace crushkit::osdmap {

struct PgLogTails;

// The OSD that pushes a replicated PG's backfill: `after_up[0]` (the up
// primary; Ceph orders a replicated up set primary first) when it is among
// `before` (the OSDs that hold the PG), else the lowest OSD id of `before`
// for which `is_up` is true. crush::kItemNone when no holder is up (the PG
// cannot backfill) or `after_up` is empty. Holes (kItemNone, negative ids)
// are skipped. Cost: O(|before| + |after_up|).
std::int32_t ReplicatedBackfillPusher(std::span<const std::int32_t> before,
                                      std::span<const std::int32_t> after_up,
                                      const std::function<bool(std::int32_t)>& is_up);

// A PG log position, Ceph's eversion_t (epoch'version), ordered as Ceph
// orders it.
struct LogVersion {
  std::uint32_t epoch = 0;
  std::uint64_t version = 0;
  auto operator<=>(const LogVersion&) const = default;
};

// The same with each holder's log_tail (`pg query`: info.log_tail of the
// primary, peer_info[].log_tail of the others): when the new up primary
// does not hold the PG, the up holder with the oldest log_tail pushes;
// among equal tails `current_primary` (the OSD that runs peering in the
// last interval: find_best_info's "prefer current primary") when it is one
// of them, else the lowest id. A tail of 0'0 while another holder's is
// newer counts as the newest given: peer_info keeps the tail of the PG's
// last peering, and 0'0 there means every write, and every trim, came
// after it (the replicas trimmed with the primary). When `log_tail` has no
// answer for some up holder, all tails count as equal.
std::int32_t ReplicatedBackfillPusher(
    std::span<const std::int32_t> before, std::span<const std::int32_t> after_up,
    const std::function<bool(std::int32_t)>& is_up,
    const std::function<std::optional<LogVersion>(std::int32_t)>& log_tail,
    std::int32_t current_primary = crush::kItemNone);

// A change of several commands applied one after another (each its own
// osdmap epoch, as an operator types them, e.g. a host's OSDs added one by
// one under nobackfill): `steps` holds the PG's up set after each command,
// the last the change's result. The first interval whose up set differs
// from `before` peers before the later maps are acted on and leaves a
// pg_temp headed by the primary it chose (unless its up set holds every
// copy already); that OSD then runs peering in the last interval, and wins
// find_best_info's ties there (measured: PG 2.17 [1,5,0] -> [5,4,0] ->
// [6,5,4] was pushed by osd.5 on both releases, not by the lowest id 0).
// One step is the overload above. kItemNone when `steps` is empty.
// `is_up` is the last state's for every step.
std::int32_t ReplicatedBackfillPusherInSteps(
    std::span<const std::int32_t> before, std::span<const std::vector<std::int32_t>> steps,
    const std::function<bool(std::int32_t)>& is_up,
    const std::function<std::optional<LogVersion>(std::int32_t)>& log_tail);

// The up sets a change of several commands passes through, for
// ReplicatedBackfillPusherInSteps: per replicated PG whose up set after
// some command but the last differs from before's, its up set after each
// command but the last (the last is the change's result).
struct PgStepUps {
  std::map<PgId, std::vector<std::vector<std::int32_t>>> ups;
  // Why a change of several commands was not mapped command by command
  // (over a cap below), for the plan's assumptions; "" otherwise.
  std::string not_mapped;

  // The PG's up sets before the last command; nullptr when it kept its
  // before set until the last command (or the change has one command).
  const std::vector<std::vector<std::int32_t>>* Find(const PgId& pg) const;
};

// Maps every replicated PG of `before` and of `before` with each proper
// prefix of `change`'s operations applied (each command its own osdmap
// epoch, as typed). Nothing (an empty map) for one operation, more than
// kMaxPusherSteps (a change file of many commands is not planned command by
// command) or more than kMaxPusherStepPgs PGs x operations (a large
// cluster's plan does not pay a full mapping per command: its pushers are
// the change's at once, and `not_mapped` says so); a pool whose pg_num a
// prefix changes is left out.
// Errors: a prefix that cannot be applied or mapped (ApplyChangeBuilt's,
// MappingSession's). Cost: one all-PG mapping per command (the last
// excluded) plus before's, on `threads` threads (0: one per CPU).
inline constexpr std::size_t kMaxPusherSteps = 16;
inline constexpr std::uint64_t kMaxPusherStepPgs = 1'000'000;
absl::StatusOr<PgStepUps> MapPusherSteps(const ClusterState& before, const ChangeList& change,
                                         int threads = 0);

// The pusher of replicated PG `pg` moving from `before` to `after_up`: the
// overloads above with `tails` (when not null) and the PG's steps in
// `steps` (when not null and it has some). What the movement comparison
// calls.
std::int32_t ReplicatedPusherOf(const PgId& pg, std::span<const std::int32_t> before,
                                std::span<const std::int32_t> after_up,
                                const std::function<bool(std::int32_t)>& is_up,
                                const PgLogTails* tails, const PgStepUps* steps);

// The OSD that pushes an erasure-coded PG's backfill: the first real OSD,
// in shard order, of the acting set peering wants: position i keeps
// `after_up[i]` where it equals `before[i]`, else `before[i]` (the shard's
// holder) when that OSD is up, else nobody (the shard is rebuilt onto
// after_up[i], which holds nothing yet). kItemNone when no position has one.
std::int32_t ErasureBackfillPusher(std::span<const std::int32_t> before,
                                   std::span<const std::int32_t> after_up,
                                   const std::function<bool(std::int32_t)>& is_up);

// Position `i` of that acting set (calc_ec_acting): `after_up[i]` when it
// equals `before[i]` and is up, else `before[i]` when that OSD is up, else
// kItemNone. Positions past the end of a span are empty. The EC pusher is
// the first real member; the others are where it reads shards from.
std::int32_t ErasureActingMember(std::span<const std::int32_t> before,
                                 std::span<const std::int32_t> after_up, std::size_t i,
                                 const std::function<bool(std::int32_t)>& is_up);

// Log tails: every holder's PG log tail, as planner input for the pusher rule
// (osdmap/planning/backfill_pusher.h): when a PG's new up primary holds nothing,
// peering (PeeringState::find_best_info) makes the holder with the longest
// log, the oldest log_tail, the acting primary that pushes. The pg dump shows
// only the primary's log bounds; `ceph pg PGID query` shows every holder's
// (info.log_tail for the primary, peer_info[].log_tail for the others).
// Measured on the loopback clusters: without the tails the rule missed 1-3
// replicated PGs per change; with them it named every pusher (issue 35).
//
// Accepted JSON (parsed through protobuf's Struct), all giving the same map:
//  * an object PG -> {OSD -> "epoch'version"}: {"2.17": {"5": "46'50"}}, what
//    tools/dev/loopback-change.py records as `log_tails`;
//  * an object with such a map under "log_tails" (the runner's result.json);
//  * one `ceph pg PGID query --format json` output, or an array of them: the
//    PG from info.pgid, the primary from acting_primary (else the first of
//    acting) with info.log_tail, and each peer_info[] entry's peer ("3", or
//    "3(1)" for an EC shard: the OSD is the number) with its log_tail.
struct PgLogTails {
  // PG -> OSD -> that holder's log_tail.
  std::map<PgId, std::map<std::int32_t, LogVersion>> tails;

  // The tail of `osd`'s copy of `pg`; nullopt when not given.
  std::optional<LogVersion> Find(const PgId& pg, std::int32_t osd) const;
};

// "46'50" (Ceph's eversion_t as it prints): epoch, an apostrophe, version.
// Errors (kInvalidArgument, quoting the text): anything else, or a number
// out of range (epoch 32 bits, version 64).
absl::StatusOr<LogVersion> ParseLogVersion(absl::string_view text);

// One of the JSON forms above. Errors (kInvalidArgument, naming the PG and
// OSD where there is one): not JSON, none of the forms, a bad PG id, OSD id
// (0..2^24) or log version. An empty object gives an empty map.
// Cost: O(input).
absl::StatusOr<PgLogTails> ParseLogTailsJson(absl::string_view json);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_BACKFILL_PUSHER_H_
