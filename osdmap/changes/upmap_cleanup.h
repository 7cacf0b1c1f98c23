// The monitor's upmap cleanup (Ceph 16.2 OSDMap::get_upmap_pgs ->
// check_pg_upmaps -> clean_pg_upmaps), which the monitor runs on every new
// epoch and `osdmaptool --upmap-cleanup` runs offline: after a CRUSH map,
// weight or pool change, pg_upmap / pg_upmap_items entries the new map makes
// invalid are cancelled, and pg_upmap_items pairs that no longer do anything
// are trimmed. A change planner must apply it after every simulated change,
// or it predicts placements the monitor would silently undo.
//
// For every PG with a pg_upmap or pg_upmap_items entry, in pg order (the
// first failing check decides; see UpmapCancelReason):
//   1. the pool is gone, ps >= pg_num_pending, or the
//      PG is pending merge (a source or its target)   -> cancel
//   2. verify_upmap() of the upmapped raw set fails     -> cancel
//   3. an upmapped OSD is not in the rule weight map    -> cancel
//   4. an upmapped OSD has rule weight x reweight == 0  -> cancel
//   5. pg_upmap equals the raw CRUSH set, or its length
//      differs from the pool size                       -> cancel
//   6. pg_upmap_items pairs whose `from` is not in the raw set or whose `to`
//      is marked out are dropped: all dropped -> cancel, some -> rewrite.
// Cancelling drops both the PG's pg_upmap and its pg_upmap_items. pg_upmap
// entries with an out target are not cleaned (_apply_upmap ignores them and
// the raw set passes).
//
// pg_upmap_primaries (the read balancer's, Reef and later): Reef's cleanup
// leaves them alone (a TODO in its clean_pg_upmaps; _apply_upmap ignores an
// entry that no longer applies). From Tentacle (state.ceph_release), PGs
// with one are checked too (checks 1-6 above; a cancelled PG loses its
// primary entry as well), and then:
//   7. the primary is not in the raw CRUSH set (before upmaps), or is its
//      first OSD already                               -> drop the primary
//   8. a PG of check 1 (gone or merging) drops every primary entry of its
//      pool (rm_all_upmap_prims: the PGs mapped to some OSD)
// Measured against osdmaptool 18.2.7 (nothing cleaned) and 20.2.4 on maps
// with random pg_upmap_primaries (tests/osdmap_differential).
// Down-but-in OSDs never matter: the checks look at the set before down
// OSDs are removed.
//
// Not modelled: the monitor's chunking (mon_clean_pg_upmaps_per_chunk),
// which changes no result.
// Thread-compatible: CheckPgUpmaps reads, ApplyUpmapCleanup/CleanPgUpmaps
// write the state they are given.
#ifndef CRUSHKIT_OSDMAP_CHANGES_UPMAP_CLEANUP_H_
#define CRUSHKIT_OSDMAP_CHANGES_UPMAP_CLEANUP_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/map.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/model/pg_mapping.h"

namespace crushkit::osdmap {

// Why a PG's upmap entries were cancelled (the check that failed first).
enum class UpmapCancelReason : std::uint8_t {
  kPgGone,               // pool deleted, ps >= pg_num_pending, or a PG pending merge
  kRuleMissing,          // the pool's crush_rule is not a rule id
  kSameFailureDomain,    // two OSDs under one failure-domain bucket
  kTooManyBuckets,       // a choose step would need more buckets than it picks
  kOutsideTakeRoot,      // an OSD (or a hole) outside the rule's take root
  kOsdNotInRule,         // an OSD missing from the rule weight map (moved out, gone, hole)
  kOsdZeroWeight,        // an OSD whose rule weight x reweight is 0 (out or CRUSH weight 0)
  kRedundantPgUpmap,     // pg_upmap equals the raw CRUSH set
  kPgUpmapSizeMismatch,  // pg_upmap length != pool size (tracker 51842)
  kNoOpPgUpmapItems,     // every pg_upmap_items pair was dropped
};

// A short lowercase name ("same failure domain", ...), for reports.
std::string_view UpmapCancelReasonName(UpmapCancelReason reason);

using UpmapItems = std::vector<std::pair<std::int32_t, std::int32_t>>;

// What a cleanup does (Ceph's pending increment): cancelled PGs, with the
// entries that go, and pg_upmap_items rewritten with their surviving pairs.
// A PG is in at most one of `cancelled` and `trimmed_items`.
struct UpmapCleanup {
  std::map<PgId, UpmapCancelReason> cancelled;
  // Cancelled PGs that had a pg_upmap / pg_upmap_items entry (Ceph's
  // old_pg_upmap / old_pg_upmap_items), in pg order.
  std::vector<PgId> removed_pg_upmap;
  std::vector<PgId> removed_pg_upmap_items;
  // new_pg_upmap_items: the pairs kept, in their original order.
  std::map<PgId, UpmapItems> trimmed_items;
  // old_pg_upmap_primary (Tentacle and later): pg_upmap_primaries entries
  // removed, those of cancelled PGs included, in pg order.
  std::vector<PgId> removed_pg_upmap_primaries;
  // Mappings of the check whose result is crushkit's answer where Ceph's is
  // undefined (CrushPlacement::DivergedFromCeph); not part of the cleanup.
  std::uint64_t diverged_from_ceph = 0;

  // check_pg_upmaps()'s any_change.
  bool changed() const {
    return !cancelled.empty() || !trimmed_items.empty() || !removed_pg_upmap_primaries.empty();
  }

  // Entries removed plus entries rewritten: "N upmaps dropped" in a report.
  int entries_changed() const {
    return static_cast<int>(removed_pg_upmap.size() + removed_pg_upmap_items.size() +
                            trimmed_items.size() + removed_pg_upmap_primaries.size());
  }

  bool operator==(const UpmapCleanup&) const = default;
};

// OSDMap::check_pg_upmaps() over every upmapped PG of `state`, using
// `mapper` for the raw CRUSH sets. Does not modify anything.
// REQUIRES: ValidateState(state); `mapper` maps `state` over a crush map
// built from state.crush (as MappingSession or osdmaptool's mapping do).
// Errors: kInvalidArgument if a rule takes a missing bucket (Ceph asserts),
// kResourceExhausted as RuleWeightOsdMap.
// Cost: one CRUSH mapping per upmapped PG, one rule weight map per rule,
// memoized tree lookups (UpmapVerifier).
absl::StatusOr<UpmapCleanup> CheckPgUpmaps(const ClusterState& state, PgMapper& mapper);

// Same, building the crush map from state.crush first (errors from
// CrushMap::Build are prefixed "crush map: ").
absl::StatusOr<UpmapCleanup> CheckPgUpmaps(const ClusterState& state);

// OSDMap::clean_pg_upmaps(inc) followed by apply_incremental(inc) for the
// upmap part: erases the cancelled PGs' pg_upmap and pg_upmap_items entries
// and the removed pg_upmap_primaries, and stores the trimmed items. Leaves state.epoch alone (the
// monitor folds the cleanup into the epoch it is committing; osdmaptool bumps it).
void ApplyUpmapCleanup(const UpmapCleanup& cleanup, ClusterState& state);

// CheckPgUpmaps + ApplyUpmapCleanup: cleans `state` in place as the monitor
// would and returns what it did. On error the state is unchanged.
absl::StatusOr<UpmapCleanup> CleanPgUpmaps(ClusterState& state);

// Same on `map`, already built from state.crush (not built again; the
// cleanup leaves the crush map alone, so the caller can keep mapping the
// cleaned state on it). REQUIRES: `map` is crush::CrushMap::Build(state.crush).
absl::StatusOr<UpmapCleanup> CleanPgUpmaps(ClusterState& state, const crush::CrushMap& map);

// One Ceph CLI command each, without a trailing newline, PG ids as Ceph
// prints them (FormatPgId: pool.hexseed), OSD ids as plain numbers:
// "ceph osd pg-upmap-items 1.2f 12 4 30 7", "ceph osd pg-upmap 1.2f 4 7 9",
// "ceph osd rm-pg-upmap 1.2f", "ceph osd rm-pg-upmap-items 1.2f". Shared by
// the cleanup printer below and the upmap pinning plan (upmap_pinning.h);
// change_ops.h parses all four.
std::string FormatPgUpmapItemsCommand(const PgId& pg, const UpmapItems& items);
std::string FormatPgUpmapCommand(const PgId& pg, const std::vector<std::int32_t>& osds);
std::string FormatRmPgUpmapCommand(const PgId& pg);
std::string FormatRmPgUpmapItemsCommand(const PgId& pg);

// osdmaptool's print_inc_upmaps() for a cleanup, one command per line:
// `ceph osd rm-pg-upmap PG`, `ceph osd rm-pg-upmap-items PG`, then
// `ceph osd pg-upmap-items PG FROM TO [FROM TO...]`, then
// `ceph osd rm-pg-upmap-primary PG`, each group in pg order.
std::string FormatUpmapCleanupCommands(const UpmapCleanup& cleanup);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_CHANGES_UPMAP_CLEANUP_H_
