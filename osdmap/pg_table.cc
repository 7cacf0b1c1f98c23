#include "osdmap/pg_table.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

namespace crushkit::osdmap {
namespace {

// PGs per unit of work: big enough that the shared counter is cold, small
// enough that two threads finish within a chunk of each other.
constexpr std::uint32_t kChunk = 2048;

struct Chunk {
  std::size_t pool;  // index into PgTable::pools
  std::uint32_t begin;
  std::uint32_t end;
};

int PoolWidth(const ClusterState& state, const Pool& pool) {
  int width = static_cast<int>(pool.size);
  // A full pg_upmap list replaces the CRUSH result whatever its length.
  auto it = state.pg_upmap.lower_bound(PgId{pool.id, 0});
  for (; it != state.pg_upmap.end() && it->first.pool == pool.id; ++it) {
    width = std::max(width, static_cast<int>(it->second.size()));
  }
  return std::max(width, 1);
}

void Store(const OsdList& list, int width, std::uint32_t ps, std::vector<std::int32_t>& slots,
           std::vector<std::uint8_t>& lens) {
  const int n = std::min(list.size(), width);
  std::int32_t* dst = slots.data() + static_cast<std::size_t>(ps) * static_cast<std::size_t>(width);
  for (int i = 0; i < n; ++i) dst[i] = list[i];
  lens[ps] = static_cast<std::uint8_t>(n);
}

void MapChunk(PgMapper& mapper, const Pool& pool, const Chunk& c, bool acting, PoolPgTable& t) {
  PgMapping m;
  for (std::uint32_t ps = c.begin; ps < c.end; ++ps) {
    mapper.MapPg(pool, ps, &m);
    Store(m.up, t.width, ps, t.up, t.up_len);
    t.up_primary[ps] = m.up_primary;
    if (acting) {
      Store(m.acting, t.width, ps, t.acting, t.acting_len);
      t.acting_primary[ps] = m.acting_primary;
    }
  }
}

}  // namespace

const PoolPgTable* PgTable::Find(std::int64_t pool_id) const {
  for (const PoolPgTable& p : pools) {
    if (p.pool_id == pool_id) return &p;
  }
  return nullptr;
}

std::uint64_t PgTable::total_pgs() const {
  std::uint64_t n = 0;
  for (const PoolPgTable& p : pools) n += p.pg_num;
  return n;
}

int ResolveThreads(int n) {
  if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::min(n, 64);
}

PgTable MapAllPgs(const MappingSession& session, const MapAllOptions& options) {
  const ClusterState& state = session.state();
  PgTable table;
  std::vector<const Pool*> pools;
  std::vector<Chunk> chunks;
  for (const auto& [id, pool] : state.pools) {
    if (options.only_pool && *options.only_pool != id) continue;
    PoolPgTable t;
    t.pool_id = id;
    t.pg_num = pool.pg_num;
    t.width = PoolWidth(state, pool);
    const std::size_t slots = static_cast<std::size_t>(pool.pg_num) * static_cast<std::size_t>(t.width);
    t.up.assign(slots, crush::kItemNone);
    t.up_len.assign(pool.pg_num, 0);
    t.up_primary.assign(pool.pg_num, -1);
    if (options.acting) {
      t.acting.assign(slots, crush::kItemNone);
      t.acting_len.assign(pool.pg_num, 0);
      t.acting_primary.assign(pool.pg_num, -1);
    }
    for (std::uint64_t b = 0; b < pool.pg_num; b += kChunk) {
      chunks.push_back({table.pools.size(), static_cast<std::uint32_t>(b),
                        static_cast<std::uint32_t>(std::min<std::uint64_t>(b + kChunk, pool.pg_num))});
    }
    table.pools.push_back(std::move(t));
    pools.push_back(&pool);
  }

  const std::uint64_t total = table.total_pgs();
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> done{0};
  std::mutex progress_mu;
  auto work = [&]() {
    auto worker = session.NewWorker();
    for (std::size_t i = next.fetch_add(1); i < chunks.size(); i = next.fetch_add(1)) {
      const Chunk& c = chunks[i];
      MapChunk(worker->mapper(), *pools[c.pool], c, options.acting, table.pools[c.pool]);
      const std::uint64_t now = done.fetch_add(c.end - c.begin) + (c.end - c.begin);
      if (options.progress) {
        std::lock_guard<std::mutex> lock(progress_mu);
        options.progress(now, total);
      }
    }
  };
  const int threads =
      std::min<int>(ResolveThreads(options.threads), static_cast<int>(std::max<std::size_t>(chunks.size(), 1)));
  std::vector<std::thread> running;
  for (int t = 1; t < threads; ++t) running.emplace_back(work);
  work();
  for (std::thread& th : running) th.join();
  return table;
}

}  // namespace crushkit::osdmap
