// PG -> raw -> up -> acting, exactly as Ceph's OSDMap (src/osd/OSDMap.cc):
// object names to PGs, pps, the pool's CRUSH rule, nonexistent-OSD removal,
// pg_upmap / pg_upmap_items / pg_upmap_primaries, down-OSD removal, primary
// affinity, and pg_temp / primary_temp.
//
// The raw CRUSH step is behind RawPlacement so the pipeline can be tested
// without a crush map (see crush_placement.h for the real one).
// A PgMapper is NOT thread-safe (it owns the CRUSH workspace through its
// RawPlacement); use one per thread. Mapping never allocates.
#ifndef CRUSHKIT_OSDMAP_MODEL_PG_MAPPING_H_
#define CRUSHKIT_OSDMAP_MODEL_PG_MAPPING_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crush/types.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_id.h"

namespace crushkit::osdmap {

// The raw CRUSH step of OSDMap::_pg_to_raw_osds().
class RawPlacement {
 public:
  virtual ~RawPlacement() = default;
  // CrushWrapper::find_rule(): the rule for (ruleset, pool type, size), or -1.
  virtual int FindRule(int ruleset, int type, int size) const = 0;
  // CrushWrapper::do_rule() with choose_args index `pool`: writes at most
  // out.size() items and returns how many (>= 0). `weights` has max_osd
  // entries (16.16 reweights).
  virtual int DoRule(int rule, std::uint32_t x, std::span<const crush::Weight> weights,
                     std::int64_t pool, std::span<std::int32_t> out) = 0;

  // The buckets the last DoRule() call descended into
  // (crush::Workspace::visited_buckets()); all ones when unknown.
  virtual std::uint64_t LastVisitedBuckets() const { return ~std::uint64_t{0}; }

  // DoRule() calls so far whose result is crushkit's documented answer
  // where Ceph's is undefined (crush::Workspace::diverged_from_ceph); 0
  // when the placement cannot tell.
  virtual std::uint64_t DivergedFromCeph() const { return 0; }
};

// A fixed-capacity OSD list (no allocation). Holes are crush::kItemNone.
class OsdList {
 public:
  int size() const { return size_; }

  bool empty() const { return size_ == 0; }

  std::int32_t operator[](int i) const { return v_[static_cast<std::size_t>(i)]; }

  std::int32_t& operator[](int i) { return v_[static_cast<std::size_t>(i)]; }

  void clear() { size_ = 0; }

  void resize(int n) { size_ = n; }

  void push_back(std::int32_t o) { v_[static_cast<std::size_t>(size_++)] = o; }

  std::span<const std::int32_t> span() const {
    return {v_.data(), static_cast<std::size_t>(size_)};
  }

  std::span<std::int32_t> full() { return {v_.data(), v_.size()}; }

  void assign(std::span<const std::int32_t> s) {
    size_ = static_cast<int>(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) v_[i] = s[i];
  }

  std::vector<std::int32_t> ToVector() const { return {span().begin(), span().end()}; }

  bool operator==(const OsdList& o) const {
    return size_ == o.size_ && std::equal(v_.begin(), v_.begin() + size_, o.v_.begin());
  }

 private:
  std::array<std::int32_t, kMaxPgOsds> v_{};
  int size_ = 0;
};

// Everything OSDMap computes for one PG. `raw` is pg_to_raw_osds(): the
// CRUSH result after nonexistent-OSD removal, before upmaps.
struct PgMapping {
  OsdList raw;
  OsdList up;
  OsdList acting;
  int raw_primary = -1;
  int up_primary = -1;
  int acting_primary = -1;
};

// The CRUSH step of one PG alone: the rule's result before nonexistent-OSD
// removal, and the buckets its descent visited
// (RawPlacement::LastVisitedBuckets; 0 when the pool has no rule). Kept to
// re-map a changed state incrementally (osdmap/model/pg_mapping_incremental.h).
struct CrushResult {
  OsdList osds;
  std::uint64_t visited = 0;
};

// Ceph's vector printing: "[1,2,3]" (holes print as 2147483647).
std::string FormatOsdList(std::span<const std::int32_t> osds);

// What a PgMapper copies and what it reads live. At construction it
// snapshots, from `state`: max_osd(), every OSD's reweight (osds[i].weight,
// the weight vector CRUSH sees) and whether any OSD has a primary affinity
// other than the default (when none does, affinity is skipped). Everything
// else is read from `state` on each call: pools, OSD existence and up/down,
// the primary affinity values, pg_upmap, pg_upmap_items,
// pg_upmap_primaries, pg_temp and primary_temp; the CRUSH rules and map are
// whatever `placement` maps on (CrushPlacement keeps a reference to its
// CrushMap). So after changing `state`, a mapper that already exists sees
// new pools, upmaps, temps and up/down/existence, but keeps the old max_osd
// and reweights (and skips affinity if it started with none): build a new
// PgMapper after changing those. A mapper made with StateUse::kFixed, for a
// state that does not change while it lives (a MappingSession's), snapshots
// OSD existence and up/down too: a byte per OSD, which stays in cache while
// every PG is mapped, where the 12-byte OsdInfo per OSD does not (its reads
// were ~4% of `plan`'s CPU on the 10k cluster).
enum class StateUse { kLive, kFixed };

class PgMapper {
 public:
  // Both referents must outlive the mapper. REQUIRES: ValidateState(state);
  // with kFixed, `state` does not change while the mapper lives.
  // Cost: O(max_osd) to build the reweight vector.
  PgMapper(const ClusterState& state, RawPlacement& placement, StateUse use = StateUse::kLive);

  PgMapper(const PgMapper&) = delete;
  PgMapper& operator=(const PgMapper&) = delete;

  // OSDMap::object_locator_to_pg() for a plain name: the raw (unfolded) PG.
  // Returns false if the pool does not exist.
  bool ObjectToRawPg(std::int64_t pool, std::string_view name, std::string_view nspace,
                     PgId* pg) const;

  // pg_pool_t::raw_pg_to_pps().
  static std::uint32_t RawPgToPps(const Pool& pool, std::uint32_t ps);

  // OSDMap::pg_to_raw_osds(): raw CRUSH result after nonexistent-OSD
  // removal, and its first non-hole as primary. Empty / -1 if no pool.
  void PgToRawOsds(const PgId& pg, OsdList* raw, int* primary);

  // OSDMap::pg_to_up_acting_osds() as Pacific runs it (a seed >= pg_num is
  // mapped like any other; upmap and temp entries are looked up under the
  // folded pg), plus out->raw = pg_to_raw_osds() (before upmaps).
  void PgToUpActing(const PgId& pg, PgMapping* out);

  // OSDMap::pg_to_raw_upmap(): `raw` as PgToRawOsds(), and `raw_upmap` =
  // `raw` with the upmap entries of the folded pg applied, before down OSDs
  // are removed (what the monitor's upmap cleanup checks). Both empty if the
  // pool does not exist.
  void PgToRawUpmap(const PgId& pg, OsdList* raw, OsdList* raw_upmap);

  // PgToRawUpmap()'s `raw_upmap` from the CRUSH step's result `crush` (as
  // MapPgFromCrush() takes it) instead of computing it.
  // REQUIRES: pool is state.pools[pool.id].
  void RawUpmapFromCrush(const Pool& pool, std::uint32_t ps, const OsdList& crush,
                         OsdList* raw_upmap) const;

  // Same as PgToUpActing for a known pool (the map-pgs fast path). With
  // `crush`, also keeps the CRUSH step's result there.
  // REQUIRES: pool is state.pools[pg.pool].
  void MapPg(const Pool& pool, std::uint32_t ps, PgMapping* out, CrushResult* crush = nullptr);

  // MapPg() with the CRUSH step's result given instead of computed: `crush`
  // as MapPg() kept it, here or on another state whose CRUSH inputs for
  // this PG are the same (pg_mapping_incremental.h decides that). Every
  // step after CRUSH (nonexistent OSDs, upmaps, up/down, affinity, temps)
  // runs on this mapper's state. REQUIRES: pool is state.pools[pg.pool].
  void MapPgFromCrush(const Pool& pool, std::uint32_t ps, const OsdList& crush, PgMapping* out);

  // The placement's RawPlacement::DivergedFromCeph() so far (every mapping
  // through it, this mapper's and others').
  std::uint64_t diverged_from_ceph() const { return placement_.DivergedFromCeph(); }

 private:
  void PgToRawOsdsInternal(const Pool& pool, const PgId& pg, OsdList* raw, std::uint32_t* pps);
  // Returns whether the pool has a rule (DoRule ran).
  bool CrushStep(const Pool& pool, std::uint32_t pps, OsdList* raw);
  void RemoveNonexistent(const Pool& pool, OsdList* raw) const;
  template <typename Exists>
  static void RemoveNonexistentBy(const Pool& pool, OsdList* raw, Exists exists);
  void FinishMapPg(const Pool& pool, std::uint32_t ps, std::uint32_t pps, PgMapping* out) const;
  void ApplyUpmap(const Pool& pool, const PgId& folded, OsdList* raw) const;
  void RawToUp(const Pool& pool, const OsdList& raw, OsdList* up) const;
  void ApplyPrimaryAffinity(std::uint32_t pps, const Pool& pool, OsdList* osds, int* primary) const;
  void GetTempOsds(const Pool& pool, const PgId& folded, OsdList* temp, int* temp_primary) const;

  bool IsOut(std::int32_t osd) const {
    return osd >= 0 && osd < max_osd_ && weights_[static_cast<std::size_t>(osd)] == 0;
  }

  const ClusterState& state_;
  RawPlacement& placement_;
  int max_osd_;
  std::vector<crush::Weight> weights_;
  // kFixed: each OSD's kOsdExists | kOsdUp bits (max_osd_ entries); empty
  // for kLive.
  std::vector<std::uint8_t> osd_state_;
  bool IsUp(std::int32_t osd) const;
  bool any_affinity_;
};

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_PG_MAPPING_H_
