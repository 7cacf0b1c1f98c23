#include "osdmap/model/pg_table.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "absl/strings/str_cat.h"

#include "crush/choice_memo.h"
#include "crush/util/chunk_pipeline.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping_incremental.h"
#include "osdmap/model/pg_table_internal.h"
#include "osdmap/model/pg_table_replay.h"

namespace crushkit::osdmap {
namespace {

// PGs per unit of work: big enough that the shared counter is cold, small
// enough that two threads finish within a chunk of each other.
constexpr std::uint32_t kChunk = 2048;
// Small maps get smaller chunks, at least this big: at 2,048 a
// 14,336-PG map is 7 chunks, and the last thread to start an EC chunk
// (~5 us a PG) works alone for up to 10 ms.
constexpr std::uint32_t kMinChunk = 64;

using Chunk = internal::PgChunk;
using internal::ChunksOf;
using internal::NewPoolTable;
using internal::StoreMapping;

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

void MapOne(PgMapper& mapper, const Pool& pool, std::uint32_t ps, bool acting, PoolPgTable& t,
            PgMapping& m) {
  mapper.MapPg(pool, ps, &m);
  Store(m.up, t.width, ps, t.up, t.up_len);
  t.up_primary[ps] = m.up_primary;
  if (acting) {
    Store(m.acting, t.width, ps, t.acting, t.acting_len);
    t.acting_primary[ps] = m.acting_primary;
  }
}

}  // namespace

namespace internal {

std::vector<PgChunk> ChunksOf(const std::vector<const Pool*>& pools, int threads) {
  std::uint64_t total = 0;
  for (const Pool* p : pools) total += p->pg_num;
  const auto size = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(
      total / (16 * static_cast<std::uint64_t>(std::max(threads, 1))), kMinChunk, kChunk));
  std::vector<PgChunk> chunks;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    const std::uint32_t n = pools[i]->pg_num;
    for (std::uint64_t b = 0; b < n; b += size) {
      chunks.push_back({i, static_cast<std::uint32_t>(b),
                        static_cast<std::uint32_t>(std::min<std::uint64_t>(b + size, n))});
    }
  }
  return chunks;
}

PoolPgTable NewPoolTable(const ClusterState& state, const Pool& pool, bool acting) {
  PoolPgTable t;
  t.pool_id = pool.id;
  t.pg_num = pool.pg_num;
  t.width = PoolWidth(state, pool);
  const std::size_t slots =
      static_cast<std::size_t>(pool.pg_num) * static_cast<std::size_t>(t.width);
  t.up.assign(slots, crush::kItemNone);
  t.up_len.assign(pool.pg_num, 0);
  t.up_primary.assign(pool.pg_num, -1);
  if (acting) {
    t.acting.assign(slots, crush::kItemNone);
    t.acting_len.assign(pool.pg_num, 0);
    t.acting_primary.assign(pool.pg_num, -1);
  }
  return t;
}

void StoreMapping(const PgMapping& m, std::uint32_t ps, bool acting, PoolPgTable& t) {
  Store(m.up, t.width, ps, t.up, t.up_len);
  t.up_primary[ps] = m.up_primary;
  if (acting) {
    Store(m.acting, t.width, ps, t.acting, t.acting_len);
    t.acting_primary[ps] = m.acting_primary;
  }
}

namespace {

// CRUSHKIT_VERIFY_INCREMENTAL_LOG=FILE: one line per verified paired
// mapping appended to FILE ("incremental reused R mapped M mismatches X"),
// so a differential run can show how much was reused and checked. One
// write(2) per line with O_APPEND: lines of concurrent processes do not mix.
void LogVerifiedIncremental(std::uint64_t reused, std::uint64_t mapped, std::uint64_t mismatches) {
  const char* path = std::getenv("CRUSHKIT_VERIFY_INCREMENTAL_LOG");
  if (path == nullptr || *path == '\0') return;
  const std::string line = absl::StrCat("incremental reused ", reused, " mapped ", mapped,
                                        " mismatches ", mismatches, "\n");
  const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return;
  [[maybe_unused]] const ssize_t n = ::write(fd, line.data(), line.size());
  ::close(fd);
}

}  // namespace

void FinishVerified(bool verify, bool fatal, std::uint64_t reused, std::uint64_t mapped,
                    std::uint64_t mismatches, const std::string& first_mismatch) {
  if (verify) LogVerifiedIncremental(reused, mapped, mismatches);
  if (fatal && mismatches > 0) {
    // A bug in the incremental analysis: the differential suites must fail.
    std::fprintf(stderr,
                 "crushkit: CRUSHKIT_VERIFY_INCREMENTAL: the incremental mapping differs from the "
                 "full mapping in %llu PGs; first %s\n",
                 static_cast<unsigned long long>(mismatches), first_mismatch.c_str());
    std::exit(70);
  }
}

}  // namespace internal

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
  if (n <= 0) n = util::HardwareThreads();
  return std::min(n, 64);
}

PgTable MapAllPgs(const MappingSession& session, const MapAllOptions& options) {
  if (options.recorded != nullptr) {
    MapAllOptions plain = options;
    plain.recorded = nullptr;
    return MapAllPgsReplayed(*options.recorded, session, plain);
  }
  const ClusterState& state = session.state();
  PgTable table;
  std::vector<const Pool*> pools;
  for (const auto& [id, pool] : state.pools) {
    if (options.only_pool && *options.only_pool != id) continue;
    table.pools.push_back(NewPoolTable(state, pool, options.acting));
    pools.push_back(&pool);
  }
  const int threads = ResolveThreads(options.threads);
  const std::vector<Chunk> chunks = ChunksOf(pools, threads);
  const std::uint64_t total = table.total_pgs();
  std::atomic<std::uint64_t> done{0};
  std::mutex progress_mu;
  std::vector<std::unique_ptr<MappingSession::Worker>> workers(static_cast<std::size_t>(threads));
  util::ForEachChunk(chunks.size(), threads, [&](int slot, std::uint64_t i) {
    // Made on the thread that uses it, in parallel with the others.
    auto& w = workers[static_cast<std::size_t>(slot)];
    if (w == nullptr) w = session.NewWorker();
    const Chunk& c = chunks[i];
    PgMapping m;
    for (std::uint32_t ps = c.begin; ps < c.end; ++ps) {
      MapOne(w->mapper(), *pools[c.pool], ps, options.acting, table.pools[c.pool], m);
    }
    const std::uint64_t now = done.fetch_add(c.end - c.begin) + (c.end - c.begin);
    if (options.progress) {
      std::lock_guard<std::mutex> lock(progress_mu);
      options.progress(now, total);
    }
  });
  for (const auto& w : workers) {
    if (w != nullptr) table.diverged_from_ceph += w->placement().DivergedFromCeph();
  }
  return table;
}

std::uint64_t MapAllPgsInOrder(
    const MappingSession& session, const MapAllOptions& options,
    const std::function<void(const PoolPgTable&, std::uint32_t, std::string*)>& format,
    const std::function<void(const std::string&)>& write) {
  const ClusterState& state = session.state();
  std::vector<const Pool*> pools;
  std::vector<int> widths;
  std::uint64_t total = 0;
  for (const auto& [id, pool] : state.pools) {
    if (options.only_pool && *options.only_pool != id) continue;
    pools.push_back(&pool);
    widths.push_back(PoolWidth(state, pool));
    total += pool.pg_num;
  }
  const int threads = ResolveThreads(options.threads);
  const std::vector<Chunk> chunks = ChunksOf(pools, threads);
  std::atomic<std::uint64_t> done{0};
  std::mutex progress_mu;

  // Per thread slot: the mapper and one chunk's table, reused chunk after
  // chunk (small enough to stay in cache while it is formatted).
  struct Slot {
    std::unique_ptr<MappingSession::Worker> worker;
    PoolPgTable table;
    PgMapping m;
  };

  std::vector<Slot> slots(static_cast<std::size_t>(threads));
  const auto produce = [&](int slot, std::uint64_t i, std::string& out) {
    Slot& s = slots[static_cast<std::size_t>(slot)];
    // Made on the thread that uses it, in parallel with the others.
    if (s.worker == nullptr) s.worker = session.NewWorker();
    const Chunk& c = chunks[i];
    const Pool& pool = *pools[c.pool];
    PoolPgTable& t = s.table;
    t.pool_id = pool.id;
    t.pg_num = c.end - c.begin;
    t.width = widths[c.pool];
    const std::size_t slots_used =
        static_cast<std::size_t>(t.pg_num) * static_cast<std::size_t>(t.width);
    t.up.assign(slots_used, crush::kItemNone);
    t.up_len.assign(t.pg_num, 0);
    t.up_primary.assign(t.pg_num, -1);
    if (options.acting) {
      t.acting.assign(slots_used, crush::kItemNone);
      t.acting_len.assign(t.pg_num, 0);
      t.acting_primary.assign(t.pg_num, -1);
    }
    for (std::uint32_t ps = c.begin; ps < c.end; ++ps) {
      s.worker->mapper().MapPg(pool, ps, &s.m);
      StoreMapping(s.m, ps - c.begin, options.acting, t);
    }
    out.clear();
    format(t, c.begin, &out);
    const std::uint64_t now = done.fetch_add(t.pg_num) + t.pg_num;
    if (options.progress) {
      std::lock_guard<std::mutex> lock(progress_mu);
      options.progress(now, total);
    }
  };
  const auto consume = [&](std::uint64_t, const std::string& out) { write(out); };
  // A window of two chunks per thread: one being written while the next
  // are mapped.
  if (!util::ForEachChunkInOrder<std::string>(
          chunks.size(), threads, 2 * static_cast<std::uint64_t>(threads), produce, consume)) {
    std::string out;
    for (std::uint64_t i = 0; i < chunks.size(); ++i) {
      produce(0, i, out);
      consume(i, out);
    }
  }
  std::uint64_t diverged = 0;
  for (const Slot& s : slots) {
    if (s.worker != nullptr) diverged += s.worker->placement().DivergedFromCeph();
  }
  return diverged;
}

PgTable MapRawUpmapSets(const ClusterState& state, const crush::CrushMap& map,
                        std::span<const std::int64_t> pool_ids, int threads) {
  PgTable table;
  std::vector<const Pool*> pools;
  for (std::int64_t id : pool_ids) {
    const Pool& pool = state.pools.at(id);
    PoolPgTable t;
    t.pool_id = id;
    t.pg_num = pool.pg_num;
    t.width = PoolWidth(state, pool);
    t.raw_upmap.assign(static_cast<std::size_t>(pool.pg_num) * static_cast<std::size_t>(t.width),
                       crush::kItemNone);
    t.raw_upmap_len.assign(pool.pg_num, 0);
    table.pools.push_back(std::move(t));
    pools.push_back(&pool);
  }
  const int n = ResolveThreads(threads);
  const std::vector<Chunk> chunks = ChunksOf(pools, n);

  struct Worker {
    Worker(const crush::CrushMap& map, const ClusterState& state)
        : placement(map, state.ceph_release), mapper(state, placement) {}

    CrushPlacement placement;
    PgMapper mapper;
  };

  std::vector<std::unique_ptr<Worker>> workers(static_cast<std::size_t>(n));
  util::ForEachChunk(chunks.size(), n, [&](int slot, std::uint64_t i) {
    auto& w = workers[static_cast<std::size_t>(slot)];
    if (w == nullptr) w = std::make_unique<Worker>(map, state);
    const Chunk& c = chunks[i];
    PoolPgTable& t = table.pools[c.pool];
    OsdList raw;
    OsdList raw_upmap;
    for (std::uint32_t ps = c.begin; ps < c.end; ++ps) {
      w->mapper.PgToRawUpmap(PgId{t.pool_id, ps}, &raw, &raw_upmap);
      Store(raw_upmap, t.width, ps, t.raw_upmap, t.raw_upmap_len);
    }
  });
  for (const auto& w : workers) {
    if (w != nullptr) table.diverged_from_ceph += w->placement.DivergedFromCeph();
  }
  return table;
}

namespace {

// One pool of either state of a paired mapping; a pool missing on one side
// is mapped on the other alone.
struct PoolPair {
  const Pool* before = nullptr;
  const Pool* after = nullptr;
  PoolPgTable* table_before = nullptr;
  PoolPgTable* table_after = nullptr;
  bool whole = true;  // CrushChangeFilter::PoolWhole (both sides exist)
};

// The work of one MapAllPgsPaired() call: the pools paired in id order (their
// tables in `out`), the chunks, the change analysis and the counters.
struct PairedRun {
  PairedRun(const MappingSession& b, const MappingSession& a, const MapAllOptions& o)
      : before(b),
        after(a),
        options(o),
        shared(b.crush_map(), a.crush_map()),
        filter(b.state(), b.crush_map(), a.state(), a.crush_map(), &shared),
        fatal(VerifyIncrementalFromEnvironment()),
        verify(o.verify_incremental || fatal) {}

  const MappingSession& before;
  const MappingSession& after;
  const MapAllOptions& options;
  const crush::ChoiceMemo shared;
  const CrushChangeFilter filter;
  const bool fatal;
  const bool verify;
  std::map<std::int64_t, PoolPair> pairs;
  std::vector<PoolPair*> order;
  std::vector<Chunk> chunks;
  std::atomic<std::uint64_t> mapped_crush{0}, reused_crush{0}, mismatches{0}, done{0};
  std::mutex mu;  // first_mismatch, progress
  PgTablePair out;
};

// Pairs the pools, makes their tables and cuts the chunks.
void PreparePairs(PairedRun& run) {
  const std::optional<std::int64_t>& only = run.options.only_pool;
  for (const auto& [id, pool] : run.before.state().pools) {
    if (!only || *only == id) run.pairs[id].before = &pool;
  }
  for (const auto& [id, pool] : run.after.state().pools) {
    if (!only || *only == id) run.pairs[id].after = &pool;
  }
  const bool acting = run.options.acting;
  for (auto& [id, p] : run.pairs) {
    if (p.before)
      run.out.before.pools.push_back(NewPoolTable(run.before.state(), *p.before, acting));
    if (p.after) run.out.after.pools.push_back(NewPoolTable(run.after.state(), *p.after, acting));
  }
  std::size_t ib = 0, ia = 0;
  for (auto& [id, p] : run.pairs) {
    if (p.before) p.table_before = &run.out.before.pools[ib++];
    if (p.after) p.table_after = &run.out.after.pools[ia++];
    if (p.before && p.after) p.whole = run.filter.PoolWhole(p.after->id);
    const std::uint32_t n =
        std::max(p.before ? p.before->pg_num : 0u, p.after ? p.after->pg_num : 0u);
    for (std::uint64_t b = 0; b < n; b += kChunk) {
      run.chunks.push_back({run.order.size(), static_cast<std::uint32_t>(b),
                            static_cast<std::uint32_t>(std::min<std::uint64_t>(b + kChunk, n))});
    }
    run.order.push_back(&p);
  }
}

// One thread's mappers: `b` records the straw2 choices `a` replays.
struct PairedWorker {
  crush::ChoiceMemo memo;
  std::unique_ptr<MappingSession::Worker> b, a;
};

// Maps the PGs of one chunk on both states (the after mapping of a PG right
// after its before mapping: the memo holds one input).
void MapPairedChunk(PairedRun& run, PairedWorker& w, const Chunk& c) {
  const PoolPair& p = *run.order[c.pool];
  const bool acting = run.options.acting;
  PgMapping mb, ma, full;
  CrushResult crush;
  std::uint64_t mapped = 0, through_crush = 0, reused = 0;
  for (std::uint32_t ps = c.begin; ps < c.end; ++ps) {
    bool have_crush = false;
    if (p.before && ps < p.before->pg_num) {
      // A memo left from the previous PG must not vouch for this one.
      w.memo.Clear();
      w.b->mapper().MapPg(*p.before, ps, &mb, &crush);
      StoreMapping(mb, ps, acting, *p.table_before);
      have_crush = true;
      ++mapped;
    }
    if (!p.after || ps >= p.after->pg_num) continue;
    if (have_crush &&
        !run.filter.MayChange(p.whole, crush.visited, w.memo.partial_choices_hold())) {
      w.a->mapper().MapPgFromCrush(*p.after, ps, crush.osds, &ma);
      ++reused;
      if (run.verify) {
        w.a->mapper().MapPg(*p.after, ps, &full);
        if (!SamePgMapping(ma, full) && run.mismatches.fetch_add(1) == 0) {
          std::lock_guard<std::mutex> lock(run.mu);
          run.out.first_mismatch = DescribePgMappingDifference(PgId{p.after->id, ps}, ma, full);
        }
      }
    } else {
      w.a->mapper().MapPg(*p.after, ps, &ma);
      ++through_crush;
    }
    StoreMapping(ma, ps, acting, *p.table_after);
    ++mapped;
  }
  run.mapped_crush.fetch_add(through_crush, std::memory_order_relaxed);
  run.reused_crush.fetch_add(reused, std::memory_order_relaxed);
  const std::uint64_t now = run.done.fetch_add(mapped) + mapped;
  if (run.options.progress) {
    std::lock_guard<std::mutex> lock(run.mu);
    run.options.progress(now, run.out.before.total_pgs() + run.out.after.total_pgs());
  }
}

// The counters into run.out; the verify mode's log line and, under
// CRUSHKIT_VERIFY_INCREMENTAL, its fatal exit.
void FinishPaired(PairedRun& run) {
  PgTablePair& out = run.out;
  out.crush_mapped = run.mapped_crush.load();
  out.crush_reused = run.reused_crush.load();
  out.verify_mismatches = run.mismatches.load();
  internal::FinishVerified(run.verify, run.fatal, out.crush_reused, out.crush_mapped,
                           out.verify_mismatches, out.first_mismatch);
}

std::uint64_t PgsOf(const ClusterState& state) {
  std::uint64_t n = 0;
  for (const auto& [id, pool] : state.pools) n += pool.pg_num;
  return n;
}

// The recording MapAllPgsPaired() maps `before` through: options.recorded
// when it records before's state, else a new one when options.record asks.
std::shared_ptr<const RecordedMapping> RecordingFor(const MappingSession& before,
                                                    const MapAllOptions& options) {
  if (options.only_pool) return nullptr;
  const std::shared_ptr<const RecordedMapping>& given = options.recorded;
  if (given != nullptr && given->acting() == options.acting && given->Records(before.state())) {
    return given;
  }
  if (!options.record) return nullptr;
  MapAllOptions mo = options;
  if (options.progress) {
    // The recording is the first half of the paired mapping's progress.
    const std::uint64_t total = 2 * PgsOf(before.state());
    mo.progress = [&options, total](std::uint64_t done, std::uint64_t) {
      options.progress(done, total);
    };
  }
  return RecordedMapping::Record(before, mo);
}

// MapAllPgsPaired() through a recording of the before state: its table,
// and the after state mapped by MapAllPgsReplayed().
PgTablePair MapPairedThrough(std::shared_ptr<const RecordedMapping> recorded,
                             const MappingSession& after, const MapAllOptions& options) {
  PgTablePair out;
  out.before = recorded->table();
  MapAllOptions mo = options;
  mo.recorded = nullptr;
  if (options.progress) {
    const std::uint64_t before_pgs = out.before.total_pgs();
    const std::uint64_t total = before_pgs + PgsOf(after.state());
    mo.progress = [&options, before_pgs, total](std::uint64_t done, std::uint64_t) {
      options.progress(before_pgs + done, total);
    };
  }
  ReplayStats stats;
  out.after = MapAllPgsReplayed(*recorded, after, mo, &stats, nullptr,
                                options.record && !options.only_pool ? &out.held : nullptr);
  out.crush_reused = stats.crush_reused;
  out.crush_mapped = stats.crush_replayed + stats.crush_mapped;
  out.verify_mismatches = stats.verify_mismatches;
  out.first_mismatch = std::move(stats.first_mismatch);
  out.recorded = std::move(recorded);
  return out;
}

}  // namespace

PgTablePair MapAllPgsPaired(const MappingSession& before, const MappingSession& after,
                            const MapAllOptions& options) {
  if (std::shared_ptr<const RecordedMapping> recorded = RecordingFor(before, options)) {
    return MapPairedThrough(std::move(recorded), after, options);
  }
  PairedRun run(before, after, options);
  PreparePairs(run);
  const int threads = ResolveThreads(options.threads);
  std::vector<std::unique_ptr<PairedWorker>> workers(static_cast<std::size_t>(threads));
  util::ForEachChunk(run.chunks.size(), threads, [&](int slot, std::uint64_t i) {
    // Made on the thread that uses it, in parallel with the others.
    auto& made = workers[static_cast<std::size_t>(slot)];
    if (made == nullptr) {
      made = std::make_unique<PairedWorker>(
          PairedWorker{run.shared, before.NewWorker(), after.NewWorker()});
      made->b->placement().RecordChoicesInto(&made->memo);
      made->a->placement().ReplayChoicesFrom(&made->memo);
    }
    MapPairedChunk(run, *made, run.chunks[i]);
  });
  for (const auto& w : workers) {
    if (w == nullptr) continue;
    run.out.before.diverged_from_ceph += w->b->placement().DivergedFromCeph();
    run.out.after.diverged_from_ceph += w->a->placement().DivergedFromCeph();
  }
  FinishPaired(run);
  return std::move(run.out);
}

}  // namespace crushkit::osdmap
