// Exact incremental re-mapping: which PGs of a changed state can get
// another CRUSH result, so that only those go through CRUSH again and the
// rest take the result of the state before the change.
//
// A PG's CRUSH step (PgMapper::MapPg's `crush`) is a function of its pps,
// the pool's rule and size, the tunables, max_devices, the reweights of the
// devices it reaches and the contents of the buckets its descent visits
// (crush::Workspace::visited_buckets: every bucket it drew from, retries
// and rejected descents included, as a 64-bit signature). A
// CrushChangeFilter compares two states' CRUSH inputs once and marks
// changed every bucket whose items, item weights, algorithm, hash, type,
// choose_args entries (in any index) or items' types differ, and every
// bucket holding a device whose reweight differs. A PG whose signature
// meets none of their bits keeps its CRUSH result, bit for bit; all other
// steps (nonexistent OSDs, upmaps, up/down, primary affinity, temps) are
// recomputed on the new state anyway (PgMapper::MapPgFromCrush), so OSD
// states and upmaps need no analysis. A changed max_devices or max_osd
// marks every bucket holding a device on the other side of the old and the
// new limit (mapper.c rejects an item >= max_devices, is_out() one past the
// weight vector). A changed rule, pool (pps inputs, size, type, rule),
// tunables, choose_args index set or Ceph release re-maps the pool, or
// everything.
//
// With the paired mapping's crush::ChoiceMemo, a bucket the memo shares
// partially (items appended or a few weights changed, e.g. the root when a
// rack is added) is not marked: a PG whose descent visited it keeps its
// CRUSH result when the memo says every draw there keeps its winner on
// the new map (ChoiceMemo::partial_choices_hold), since the descent then
// makes the same choices everywhere.
//
// Proof by test: MapAllOptions::verify_incremental (or the environment
// variable CRUSHKIT_VERIFY_INCREMENTAL=1) also maps every reused PG in full
// and compares (pg_table.h).
//
// Thread-safety: a CrushChangeFilter is a plain value (const use from any
// thread).
#ifndef CRUSHKIT_OSDMAP_MODEL_PG_MAPPING_INCREMENTAL_H_
#define CRUSHKIT_OSDMAP_MODEL_PG_MAPPING_INCREMENTAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "crush/choice_memo.h"
#include "crush/map.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_mapping.h"

namespace crushkit::osdmap {

class CrushChangeFilter {
 public:
  // Compares the CRUSH inputs of `before` (built as `before_map`) and
  // `after` (`after_map`). Neither is referenced afterwards.
  // REQUIRES: ValidateState() of both; each map built from its state.
  // Cost: linear in both maps and OSD tables.
  // With `memo` (built for (before_map, after_map); nullptr: none), the
  // slots it shares partially go to partial_mask() instead of mask() when
  // nothing else about them changed (their items' types, their devices'
  // reweights and validity).
  CrushChangeFilter(const ClusterState& before, const crush::CrushMap& before_map,
                    const ClusterState& after, const crush::CrushMap& after_map,
                    const crush::ChoiceMemo* memo = nullptr);

  // The same for a ChoiceLog replay: the slots `delta` (built for
  // (before_map, after_map)) replays as changed go to partial_mask(), for
  // PGs whose recorded choices crush::RecordedChoicesHold().
  CrushChangeFilter(const ClusterState& before, const crush::CrushMap& before_map,
                    const ClusterState& after, const crush::CrushMap& after_map,
                    const crush::ChoiceDelta& delta);

  // True iff every PG of pool `pool_id` (of `after`) must go through CRUSH
  // again: the pool is new or its CRUSH inputs changed, or everything did.
  bool PoolWhole(std::int64_t pool_id) const;

  // Signature bits of the changed buckets, in before_map's
  // crush::BucketVisitBits().
  std::uint64_t mask() const { return mask_; }

  // True iff a PG whose CRUSH step on `before` visited `visited` may map
  // differently through CRUSH on `after`; `pool_whole` is
  // PoolWhole(its pool).
  bool MayChange(bool pool_whole, std::uint64_t visited) const {
    return pool_whole || (visited & (mask_ | partial_mask_)) != 0;
  }

  // The same for a PG mapped on `before` recording into the memo given at
  // construction: `partial_hold` is its ChoiceMemo::partial_choices_hold()
  // right after (with a ChoiceDelta: crush::RecordedChoicesHold() of its
  // complete record). A descent whose signature is all ones (a hopeless proof,
  // the budget, MSR) may have drawn where the memo did not look.
  bool MayChange(bool pool_whole, std::uint64_t visited, bool partial_hold) const {
    if (pool_whole || (visited & mask_) != 0) return true;
    return (visited & partial_mask_) != 0 && (!partial_hold || visited == ~std::uint64_t{0});
  }

  // Signature bits of the partially shared buckets (see the constructor).
  std::uint64_t partial_mask() const { return partial_mask_; }

  // True iff nothing can be reused (every pool is whole).
  bool all() const { return all_; }

 private:
  // The constructors' work; partial(slot): the slot may go to partial_mask_.
  template <class Partial>
  void Compare(const ClusterState& before, const crush::CrushMap& before_map,
               const ClusterState& after, const crush::CrushMap& after_map, Partial&& partial);

  bool all_ = false;
  std::uint64_t mask_ = 0;
  std::uint64_t partial_mask_ = 0;
  std::vector<std::int64_t> whole_pools_;  // ascending
};

// True iff the two mappings of one PG are equal in every field MapPg sets.
bool SamePgMapping(const PgMapping& a, const PgMapping& b);

// "1.2f: up [1,2,3] vs [1,2,4]" style description of how two mappings of
// `pg` differ (the first field that does).
std::string DescribePgMappingDifference(const PgId& pg, const PgMapping& incremental,
                                        const PgMapping& full);

// CRUSHKIT_VERIFY_INCREMENTAL is set to something other than "" or "0".
bool VerifyIncrementalFromEnvironment();

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_PG_MAPPING_INCREMENTAL_H_
