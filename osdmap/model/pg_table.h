// The parallel all-PG mapper: every PG of every pool of a state mapped to its
// up and acting sets (or, for the upmap balancer, its upmapped raw sets) on
// all cores, into flat per-pool arrays. One home for "map the whole cluster"
// (map-pgs, diff, plan, balance): one PgMapper and CRUSH
// workspace per thread for the whole run, PGs handed out in chunks from one
// atomic counter so threads stay evenly loaded, nothing allocated per PG.
//
// Thread-safety: MapAllPgs() starts and joins its own threads; a PgTable is a
// plain value afterwards (concurrent const access is safe).
#ifndef CRUSHKIT_OSDMAP_MODEL_PG_TABLE_H_
#define CRUSHKIT_OSDMAP_MODEL_PG_TABLE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "crush/map.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_mapping.h"

namespace crushkit::osdmap {

// One pool's PGs 0..pg_num-1. Set i occupies [i * width, i * width + len[i])
// of `up` (and of `acting`, when mapped; of `raw_upmap` for
// MapRawUpmapSets(), which leaves the others empty); holes are
// crush::kItemNone.
struct PoolPgTable {
  std::int64_t pool_id = 0;
  std::uint32_t pg_num = 0;
  int width = 0;  // the pool size, or the longest pg_upmap list if longer
  std::vector<std::int32_t> up;
  std::vector<std::uint8_t> up_len;
  std::vector<std::int32_t> up_primary;
  std::vector<std::int32_t> acting;  // empty unless MapAllOptions::acting
  std::vector<std::uint8_t> acting_len;
  std::vector<std::int32_t> acting_primary;
  std::vector<std::int32_t> raw_upmap;  // MapRawUpmapSets() only
  std::vector<std::uint8_t> raw_upmap_len;

  std::span<const std::int32_t> Up(std::uint32_t ps) const {
    return {up.data() + static_cast<std::size_t>(ps) * static_cast<std::size_t>(width), up_len[ps]};
  }

  std::span<const std::int32_t> Acting(std::uint32_t ps) const {
    return {acting.data() + static_cast<std::size_t>(ps) * static_cast<std::size_t>(width),
            acting_len[ps]};
  }

  std::span<const std::int32_t> RawUpmap(std::uint32_t ps) const {
    return {raw_upmap.data() + static_cast<std::size_t>(ps) * static_cast<std::size_t>(width),
            raw_upmap_len[ps]};
  }
};

struct PgTable {
  std::vector<PoolPgTable> pools;  // in pool id order
  // PGs whose CRUSH result is crushkit's documented answer where Ceph's is
  // undefined (CrushPlacement::DivergedFromCeph): tools say so on stderr.
  std::uint64_t diverged_from_ceph = 0;

  // The pool's table, or nullptr.
  const PoolPgTable* Find(std::int64_t pool_id) const;
  std::uint64_t total_pgs() const;
};

class RecordedMapping;  // osdmap/model/pg_table_replay.h

struct MapAllOptions {
  int threads = 0;                        // 0: one per CPU (capped at 64)
  bool acting = true;                     // also keep acting sets and primaries
  std::optional<std::int64_t> only_pool;  // map just this pool
  // Called now and then with (PGs mapped so far, total), from any worker
  // thread but never concurrently. May be empty.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  // MapAllPgsPaired(): also map every PG whose after-CRUSH result is reused
  // through CRUSH and count differences (PgTablePair::verify_mismatches).
  // The environment variable CRUSHKIT_VERIFY_INCREMENTAL=1 turns this on
  // for every call and makes a difference fatal: a message on stderr and
  // exit status 70 (for the differential suites).
  bool verify_incremental = false;
  // A recording of the before state (pg_table_replay.h): MapAllPgs() maps
  // through it (the recorded PG choices replayed), and MapAllPgsPaired()
  // takes its table as the before table when it records `before`'s state
  // (RecordedMapping::Records) with the same acting option and no
  // only_pool; otherwise it is ignored. Same results either way.
  std::shared_ptr<const RecordedMapping> recorded;
  // MapAllPgsPaired(): record the before state (RecordedMapping::Record)
  // and hand it back in PgTablePair::recorded, for more after states to be
  // mapped through it. Ignored with only_pool.
  bool record = false;
};

// Maps every PG of every pool of `session`'s state (pgs 0..pg_num-1, as
// osdmaptool --test-map-pgs does). The result is the same for any thread
// count. Cost: one CRUSH mapping per PG, divided over the threads; memory
// 4 bytes per OSD slot plus 5 per PG, for each kept list (up, acting).
PgTable MapAllPgs(const MappingSession& session, const MapAllOptions& options = {});

// MapAllPgs() streamed, for output in PG order without a table of the whole
// cluster (map-pgs): the PGs are mapped in chunks (pools in id order, PGs
// ascending) on options.threads threads, and the thread that mapped a chunk
// passes it at once to format(chunk, first_ps, out): `chunk` holds the
// chunk's PGs as rows 0..chunk.pg_num-1 (row i is PG first_ps + i of pool
// chunk.pool_id; acting as options.acting says), `out` is empty. The calling
// thread passes each `out` to write(), in chunk order, while later chunks are
// mapped. format() runs on several threads at once and may only write `out`.
// The mappings equal MapAllPgs()'s for any thread count; progress as there.
// Returns PgTable::diverged_from_ceph's count. Memory: a few chunks (about
// 2,048 PGs each) per thread, not the whole table.
std::uint64_t MapAllPgsInOrder(
    const MappingSession& session, const MapAllOptions& options,
    const std::function<void(const PoolPgTable& chunk, std::uint32_t first_ps, std::string* out)>&
        format,
    const std::function<void(const std::string& out)>& write);

// OSDMap::pg_to_raw_upmap() of every PG of `pools` (in that order; each
// must be a pool of `state`): the CRUSH result after nonexistent-OSD removal
// with pg_upmap / pg_upmap_items applied and down OSDs kept, the sets the
// upmap balancer starts from. Mapped as MapAllPgs() maps (`threads` as
// MapAllOptions::threads; the result does not depend on it) into each
// table's raw_upmap; up and acting stay empty. `map` is
// crush::CrushMap::Build(state.crush); both must outlive the call and stay
// unchanged during it. REQUIRES: ValidateState(state).
// Cost: one CRUSH mapping per PG, divided over the threads; memory 4 bytes
// per OSD slot plus 1 per PG.
PgTable MapRawUpmapSets(const ClusterState& state, const crush::CrushMap& map,
                        std::span<const std::int64_t> pools, int threads = 0);

// Both states of a change mapped together, PG by PG: each PG is mapped on
// `before` and at once on `after` by the same thread. A PG whose CRUSH
// descent on `before` visited no bucket the change touches (and whose pool,
// rule, tunables and reweights are unchanged; pg_mapping_incremental.h)
// keeps its CRUSH result: only the steps after CRUSH run on `after`. So
// does one whose draws in the buckets `after` only appends to or reweights
// a few items of (the root when a rack is added) all keep their winner
// (crush::ChoiceMemo::partial_choices_hold).
// Others are mapped on `after` replaying the straw2 choices of buckets the
// two crush maps share (crush/choice_memo.h) instead of hashing them again.
// Same tables as two MapAllPgs() calls, bit for bit; cheaper when the maps
// are alike (an OSD marked out or down, upmaps: no CRUSH work on `after`;
// one host reweighted: ~40% less CPU). `progress` counts PGs of both
// states. With a recording of `before` (MapAllOptions::recorded, a live
// or made when MapAllOptions::record asks;
// pg_table_replay.h) its table is `before`'s and `after` is mapped through
// it (MapAllPgsReplayed): no CRUSH work on `before` at all.
struct PgTablePair {
  PgTable before;
  PgTable after;
  // PGs of `after` that went through CRUSH, and that reused before's result.
  std::uint64_t crush_mapped = 0;
  std::uint64_t crush_reused = 0;
  // MapAllOptions::verify_incremental: reused PGs whose full mapping
  // differs (0 unless the incremental analysis is wrong), and the first.
  std::uint64_t verify_mismatches = 0;
  std::string first_mismatch;
  // The before state's recording, when MapAllOptions::recorded served or
  // MapAllOptions::record made it (else null).
  std::shared_ptr<const RecordedMapping> recorded;
  // With MapAllOptions::record: per pool of `after` (id order) a byte per
  // PG, 1 where it took its recorded CRUSH result (MapAllPgsReplayed's
  // `held`, for KeptPgs::FromHeld); else empty.
  std::vector<std::vector<std::uint8_t>> held;
};

PgTablePair MapAllPgsPaired(const MappingSession& before, const MappingSession& after,
                            const MapAllOptions& options = {});

// The thread count MapAllOptions::threads = n asks for.
int ResolveThreads(int n);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_PG_TABLE_H_
