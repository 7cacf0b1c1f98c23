// Private to osdmap/model (not installed): the pieces of the all-PG mapper
// (pg_table.cc) that its recorded path (pg_table_replay.cc) shares.
// Thread-safety: plain functions of their arguments.
#ifndef CRUSHKIT_OSDMAP_MODEL_PG_TABLE_INTERNAL_H_
#define CRUSHKIT_OSDMAP_MODEL_PG_TABLE_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_mapping.h"
#include "osdmap/model/pg_table.h"

namespace crushkit::osdmap::internal {

// PGs [begin, end) of pools[pool] (an index into the caller's pool list).
struct PgChunk {
  std::size_t pool;
  std::uint32_t begin;
  std::uint32_t end;
};

// Chunks covering PGs 0..pg_num-1 of pools[i], i in order: 2,048 PGs, or
// fewer when that gives each of `threads` threads under 16 chunks.
std::vector<PgChunk> ChunksOf(const std::vector<const Pool*>& pools, int threads);

// The empty table of `pool` in `state` (acting lists when `acting`).
PoolPgTable NewPoolTable(const ClusterState& state, const Pool& pool, bool acting);

// Stores `m` as PG `ps` of `t`.
void StoreMapping(const PgMapping& m, std::uint32_t ps, bool acting, PoolPgTable& t);

// CRUSHKIT_VERIFY_INCREMENTAL_LOG's line for a verified mapping, and under
// CRUSHKIT_VERIFY_INCREMENTAL (`fatal`) with mismatches the message on
// stderr and exit status 70.
void FinishVerified(bool verify, bool fatal, std::uint64_t reused, std::uint64_t mapped,
                    std::uint64_t mismatches, const std::string& first_mismatch);

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_MODEL_PG_TABLE_INTERNAL_H_
