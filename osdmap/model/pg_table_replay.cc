#include "osdmap/model/pg_table_replay.h"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <memory>
#include <mutex>
#include <utility>

#include "crush/choice_memo.h"
#include "crush/util/chunk_pipeline.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping_incremental.h"
#include "osdmap/model/pg_table_internal.h"

namespace crushkit::osdmap {
namespace {

using internal::PgChunk;

// One recording thread's log and mapper.
struct RecordWorker {
  std::unique_ptr<MappingSession::Worker> worker;
  crush::ChoiceLog log;
};

RecordedMapping::PoolRecord NewRecordPool(const Pool& pool, std::uint32_t chunk_pgs) {
  RecordedMapping::PoolRecord p;
  p.pool_id = pool.id;
  p.pg_num = pool.pg_num;
  p.width = std::max<int>(1, static_cast<int>(pool.size));
  p.crush.assign(static_cast<std::size_t>(pool.pg_num) * static_cast<std::size_t>(p.width),
                 crush::kItemNone);
  p.crush_len.assign(pool.pg_num, 0);
  p.visited.assign(pool.pg_num, ~std::uint64_t{0});
  p.chunk_pgs = chunk_pgs;
  p.arenas.resize((std::size_t{pool.pg_num} + chunk_pgs - 1) / chunk_pgs);
  p.choice_at.assign(pool.pg_num, 0);
  p.choice_n.assign(pool.pg_num, 0);
  return p;
}

// Per chunk: the choose_args key of its first PG, and whether another PG
// had another (then the pool is not replayed).
struct ChunkKey {
  std::int64_t key = crush::kNoChooseArgsKey;
  bool mixed = false;
};

// Records PG `ps`: its CRUSH result, signature and choices into `p`.
void RecordPg(const crush::ChoiceLog& log, const CrushResult& crush, std::uint32_t ps, bool first,
              RecordedMapping::PoolRecord& p, ChunkKey& key) {
  if (crush.osds.size() <= p.width) {
    std::int32_t* dst =
        p.crush.data() + static_cast<std::size_t>(ps) * static_cast<std::size_t>(p.width);
    for (int i = 0; i < crush.osds.size(); ++i) dst[i] = crush.osds[i];
    p.crush_len[ps] = static_cast<std::uint8_t>(crush.osds.size());
    // A record missing a choice cannot vouch for the PG
    // (crush::RecordedChoicesHold): all ones, as if it visited everything.
    p.visited[ps] = log.complete() ? crush.visited : ~std::uint64_t{0};
  }
  if (first) key.key = log.args_key();
  if (log.args_key() != key.key) key.mixed = true;
  const std::span<const crush::RecordedChoice> made = log.choices();
  std::vector<crush::RecordedChoice>& arena = p.arenas[ps / p.chunk_pgs];
  p.choice_at[ps] = static_cast<std::uint32_t>(arena.size());
  p.choice_n[ps] = static_cast<std::uint16_t>(made.size());
  arena.insert(arena.end(), made.begin(), made.end());
}

// Each pool's choose_args key (one for all its PGs, else not replayable).
void SetPoolKeys(const std::vector<PgChunk>& chunks, const std::vector<ChunkKey>& keys,
                 std::vector<RecordedMapping::PoolRecord>& pools) {
  std::vector<bool> keyed(pools.size(), false);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    RecordedMapping::PoolRecord& p = pools[chunks[i].pool];
    if (!keyed[chunks[i].pool]) {
      p.args_key = keys[i].key;
      keyed[chunks[i].pool] = true;
    }
    if (keys[i].mixed || keys[i].key != p.args_key) p.replayable = false;
  }
}

}  // namespace

std::shared_ptr<const RecordedMapping> RecordedMapping::Record(
    std::shared_ptr<const MappingSession> session, const MapAllOptions& options) {
  std::shared_ptr<RecordedMapping> out(new RecordedMapping());
  out->session_ = std::move(session);
  out->acting_ = options.acting;
  const ClusterState& state = out->session_->state();
  std::vector<const Pool*> pools;
  for (const auto& [id, pool] : state.pools) pools.push_back(&pool);
  const int threads = ResolveThreads(options.threads);
  const std::vector<PgChunk> chunks = internal::ChunksOf(pools, threads);
  // ChunksOf cuts every pool at multiples of one size.
  std::uint32_t chunk_pgs = 1;
  for (const PgChunk& c : chunks) chunk_pgs = std::max(chunk_pgs, c.end - c.begin);
  for (const Pool* pool : pools) {
    out->table_.pools.push_back(internal::NewPoolTable(state, *pool, options.acting));
    out->pools_.push_back(NewRecordPool(*pool, chunk_pgs));
  }
  std::vector<ChunkKey> keys(chunks.size());
  std::vector<std::unique_ptr<RecordWorker>> workers(static_cast<std::size_t>(threads));
  const std::uint64_t total = out->table_.total_pgs();
  std::atomic<std::uint64_t> done{0};
  std::mutex progress_mu;
  util::ForEachChunk(chunks.size(), threads, [&](int slot, std::uint64_t i) {
    auto& w = workers[static_cast<std::size_t>(slot)];
    if (w == nullptr) {
      w = std::make_unique<RecordWorker>();
      w->worker = out->session_->NewWorker();
      w->worker->placement().RecordChoicesInto(&w->log);
    }
    const PgChunk& c = chunks[i];
    PgMapping m;
    CrushResult crush;
    PoolRecord& record = out->pools_[c.pool];
    // About 9 choices a PG for a 3-level replicated descent.
    record.arenas[c.begin / chunk_pgs].reserve(std::size_t{c.end - c.begin} * 12);
    for (std::uint32_t ps = c.begin; ps < c.end; ++ps) {
      w->worker->mapper().MapPg(*pools[c.pool], ps, &m, &crush);
      internal::StoreMapping(m, ps, options.acting, out->table_.pools[c.pool]);
      RecordPg(w->log, crush, ps, ps == c.begin, record, keys[i]);
    }
    // The record is kept for many mappings: no slack (a copy of ~150 KB).
    record.arenas[c.begin / chunk_pgs].shrink_to_fit();
    const std::uint64_t now = done.fetch_add(c.end - c.begin) + (c.end - c.begin);
    if (options.progress) {
      std::lock_guard<std::mutex> lock(progress_mu);
      options.progress(now, total);
    }
  });
  for (const auto& w : workers) {
    if (w != nullptr) out->table_.diverged_from_ceph += w->worker->placement().DivergedFromCeph();
  }
  SetPoolKeys(chunks, keys, out->pools_);
  return out;
}

std::shared_ptr<const RecordedMapping> RecordedMapping::Record(const MappingSession& session,
                                                               const MapAllOptions& options) {
  absl::StatusOr<std::unique_ptr<MappingSession>> copy =
      MappingSession::Create(session.state(), session.shared_crush_map());
  // The state was validated when `session` was made: this cannot fail.
  if (!copy.ok()) return nullptr;
  return Record(std::shared_ptr<const MappingSession>(*std::move(copy)), options);
}

bool RecordedMapping::Records(const ClusterState& state) const {
  const ClusterState& a = session_->state();
  return a.crush == state.crush && a.osds == state.osds && a.pools == state.pools &&
         a.pg_upmap == state.pg_upmap && a.pg_upmap_items == state.pg_upmap_items &&
         a.pg_upmap_primaries == state.pg_upmap_primaries && a.pg_temp == state.pg_temp &&
         a.primary_temp == state.primary_temp && a.ceph_release == state.ceph_release &&
         a.max_osd() == state.max_osd();
}

std::size_t RecordedMapping::bytes() const {
  std::size_t n = 0;
  for (const PoolRecord& p : pools_) {
    n += p.crush.size() * sizeof(std::int32_t) + p.crush_len.size() +
         p.visited.size() * sizeof(std::uint64_t) + p.choice_at.size() * sizeof(std::uint32_t) +
         p.choice_n.size() * sizeof(std::uint16_t);
    for (const auto& arena : p.arenas) n += arena.capacity() * sizeof(crush::RecordedChoice);
  }
  return n;
}

std::uint64_t RecordedMapping::choices() const {
  std::uint64_t n = 0;
  for (const PoolRecord& p : pools_) {
    for (const auto& arena : p.arenas) n += arena.size();
  }
  return n;
}

const RecordedMapping::PoolRecord* RecordedMapping::Find(std::int64_t pool_id) const {
  for (const PoolRecord& p : pools_) {
    if (p.pool_id == pool_id) return &p;
  }
  return nullptr;
}

namespace {

// The work of one MapAllPgsReplayed() call.
struct ReplayRun {
  ReplayRun(const RecordedMapping& r, const MappingSession& a, const MapAllOptions& o)
      : recorded(r),
        after(a),
        options(o),
        delta(r.session().crush_map(), a.crush_map()),
        filter(r.session().state(), r.session().crush_map(), a.state(), a.crush_map(), delta),
        fatal(VerifyIncrementalFromEnvironment()),
        verify(o.verify_incremental || fatal) {}

  const RecordedMapping& recorded;
  const MappingSession& after;
  const MapAllOptions& options;
  const crush::ChoiceDelta delta;
  const CrushChangeFilter filter;
  const bool fatal;
  const bool verify;
  std::vector<const Pool*> pools;
  std::vector<const RecordedMapping::PoolRecord*> records;  // parallel to pools; may be null
  std::vector<bool> whole;                                  // CrushChangeFilter::PoolWhole
  // Parallel to pools: KeptPgs' bytes for the pool, or null.
  std::vector<const std::vector<std::uint8_t>*> kept;
  // Parallel to pools: the target's table kept PGs copy their rows from
  // (KeptPgs::RowsForPool), or null; and a byte per PG whose upmap entries
  // differ between the after state and the target (empty: none differ).
  std::vector<const PoolPgTable*> kept_rows;
  std::vector<std::vector<std::uint8_t>> upmaps_differ;
  // MapAllPgsReplayed's `held`, parallel to pools, or null; and its
  // `earlier_held` (same shape), or null.
  std::vector<std::vector<std::uint8_t>>* held = nullptr;
  const std::vector<std::vector<std::uint8_t>>* earlier_held = nullptr;
  std::atomic<std::uint64_t> reused{0}, replayed{0}, mapped{0}, mismatches{0}, done{0};
  std::mutex mu;  // first_mismatch, progress
  std::string first_mismatch;
  PgTable table;
};

// One thread's mapper on the after state (and, to verify, a plain one).
struct ReplayWorker {
  std::unique_ptr<MappingSession::Worker> a, full;
};

// True iff the recorded CRUSH result of PG `ps` (recorded) is its result
// on the after state: the change cannot touch its descent, or touches only
// buckets where every recorded choice keeps its winner.
bool RecordedResultHolds(ReplayRun& run, ReplayWorker& w, std::size_t k, std::uint32_t ps) {
  const RecordedMapping::PoolRecord& rec = *run.records[k];
  const std::uint64_t visited = rec.visited[ps];
  if (!run.filter.MayChange(run.whole[k], visited)) return true;
  if (!rec.replayable || run.filter.MayChange(run.whole[k], visited, true)) return false;
  const Pool& pool = *run.pools[k];
  return w.a->placement().RecordedChoicesHold(
      run.delta, rec.Choices(ps), PgMapper::RawPgToPps(pool, ps), rec.args_key, pool.id);
}

// Copies kept PG `ps`'s row from the target's table (run.kept_rows[k])
// into the run's table when its upmaps are the target's; false otherwise.
bool CopyKeptRow(ReplayRun& run, std::size_t k, std::uint32_t ps) {
  const PoolPgTable* from = run.kept_rows[k];
  const std::vector<std::uint8_t>& differ = run.upmaps_differ[k];
  if (from == nullptr || (!differ.empty() && differ[ps] != 0)) return false;
  PoolPgTable& to = run.table.pools[k];
  // The PG's list is as long in both states: the row fits (checked all the
  // same, a row never spills into the next).
  if (from->up_len[ps] > to.width) return false;
  const std::span<const std::int32_t> up = from->Up(ps);
  std::copy(
      up.begin(), up.end(),
      to.up.begin() + static_cast<std::ptrdiff_t>(ps) * static_cast<std::ptrdiff_t>(to.width));
  to.up_len[ps] = from->up_len[ps];
  to.up_primary[ps] = from->up_primary[ps];
  return true;
}

// PG `ps` of pools[k] through the record: the recorded CRUSH result when
// the change cannot touch it, else CRUSH replaying its choices. Returns
// true when the PG's row was copied into the run's table (CopyKeptRow)
// and `m` is not set.
bool MapReplayedPg(ReplayRun& run, ReplayWorker& w, std::size_t k, std::uint32_t ps, PgMapping& m,
                   OsdList& crush, std::uint64_t counts[3]) {
  const Pool& pool = *run.pools[k];
  const RecordedMapping::PoolRecord* rec = run.records[k];
  const std::vector<std::uint8_t>* kept = run.kept[k];
  const bool is_kept = rec != nullptr && ps < rec->pg_num && kept != nullptr && ps < kept->size() &&
                       (*kept)[ps] != 0;
  if (is_kept && CopyKeptRow(run, k, ps)) {
    ++counts[0];
    return true;
  }
  const bool may_hold = run.earlier_held == nullptr || (*run.earlier_held)[k][ps] != 0;
  if (rec != nullptr && ps < rec->pg_num &&
      (is_kept || (may_hold && RecordedResultHolds(run, w, k, ps)))) {
    crush.clear();
    const std::int32_t* src =
        rec->crush.data() + static_cast<std::size_t>(ps) * static_cast<std::size_t>(rec->width);
    for (int i = 0; i < rec->crush_len[ps]; ++i) crush.push_back(src[i]);
    w.a->mapper().MapPgFromCrush(pool, ps, crush, &m);
    ++counts[0];
    return false;
  }
  CrushPlacement& placement = w.a->placement();
  if (rec != nullptr && ps < rec->pg_num && rec->replayable) {
    placement.ReplayChoices(&run.delta, rec->Choices(ps), PgMapper::RawPgToPps(pool, ps),
                            rec->args_key);
    w.a->mapper().MapPg(pool, ps, &m);
    placement.ClearMemo();
    ++counts[1];
    return false;
  }
  w.a->mapper().MapPg(pool, ps, &m);
  ++counts[2];
  return false;
}

// The verify mode's check of a copied row: PG `ps`'s up set and primary
// in the run's table against its full mapping.
void VerifyCopiedRow(ReplayRun& run, ReplayWorker& w, std::size_t k, std::uint32_t ps,
                     PgMapping& full) {
  w.full->mapper().MapPg(*run.pools[k], ps, &full);
  const PoolPgTable& t = run.table.pools[k];
  const std::span<const std::int32_t> up = t.Up(ps);
  const std::span<const std::int32_t> want = full.up.span();
  if (std::equal(up.begin(), up.end(), want.begin(), want.end()) &&
      t.up_primary[ps] == full.up_primary) {
    return;
  }
  if (run.mismatches.fetch_add(1) != 0) return;
  PgMapping copied = full;
  copied.up.assign(up);
  copied.up_primary = t.up_primary[ps];
  std::lock_guard<std::mutex> lock(run.mu);
  run.first_mismatch = DescribePgMappingDifference(PgId{run.pools[k]->id, ps}, copied, full);
}

void MapReplayedChunk(ReplayRun& run, ReplayWorker& w, const PgChunk& c) {
  PgMapping m, full;
  OsdList crush;
  std::uint64_t counts[3] = {0, 0, 0};
  std::uint8_t* held = run.held != nullptr ? (*run.held)[c.pool].data() : nullptr;
  for (std::uint32_t ps = c.begin; ps < c.end; ++ps) {
    const std::uint64_t reused = counts[0];
    const bool copied = MapReplayedPg(run, w, c.pool, ps, m, crush, counts);
    if (held != nullptr && counts[0] != reused) held[ps] = 1;
    if (copied) {
      if (run.verify) VerifyCopiedRow(run, w, c.pool, ps, full);
      continue;
    }
    if (run.verify) {
      w.full->mapper().MapPg(*run.pools[c.pool], ps, &full);
      if (!SamePgMapping(m, full) && run.mismatches.fetch_add(1) == 0) {
        std::lock_guard<std::mutex> lock(run.mu);
        run.first_mismatch = DescribePgMappingDifference(PgId{run.pools[c.pool]->id, ps}, m, full);
      }
    }
    internal::StoreMapping(m, ps, run.options.acting, run.table.pools[c.pool]);
  }
  run.reused.fetch_add(counts[0], std::memory_order_relaxed);
  run.replayed.fetch_add(counts[1], std::memory_order_relaxed);
  run.mapped.fetch_add(counts[2], std::memory_order_relaxed);
  const std::uint64_t now = run.done.fetch_add(c.end - c.begin) + (c.end - c.begin);
  if (run.options.progress) {
    std::lock_guard<std::mutex> lock(run.mu);
    run.options.progress(now, run.table.total_pgs());
  }
}

// The after state's pools (options.only_pool) with their records, and
// their tables when `tables`.
void AddPools(ReplayRun& run, const KeptPgs* kept, bool tables) {
  const ClusterState& state = run.after.state();
  for (const auto& [id, pool] : state.pools) {
    if (run.options.only_pool && *run.options.only_pool != id) continue;
    if (tables) run.table.pools.push_back(internal::NewPoolTable(state, pool, run.options.acting));
    run.pools.push_back(&pool);
    const bool known = run.recorded.session().state().FindPool(id) != nullptr;
    run.records.push_back(known ? run.recorded.Find(id) : nullptr);
    run.whole.push_back(!known || run.filter.PoolWhole(id));
    run.kept.push_back(kept != nullptr ? kept->ForPool(id) : nullptr);
  }
}

// Marks in run.upmaps_differ the PGs of run.pools whose entries in the
// upmap maps `a` and `b` differ (present in one only, or unequal).
template <typename UpmapMap>
void MarkUpmapsDiffering(const UpmapMap& a, const UpmapMap& b, ReplayRun& run) {
  auto mark = [&run](const PgId& pg) {
    for (std::size_t k = 0; k < run.pools.size(); ++k) {
      if (run.pools[k]->id != pg.pool || pg.ps >= run.pools[k]->pg_num) continue;
      std::vector<std::uint8_t>& differ = run.upmaps_differ[k];
      if (differ.empty()) differ.assign(run.pools[k]->pg_num, 0);
      differ[pg.ps] = 1;
    }
  };
  for (const auto& [pg, v] : a) {
    const auto it = b.find(pg);
    if (it == b.end() || !(it->second == v)) mark(pg);
  }
  for (const auto& [pg, v] : b) {
    if (!a.contains(pg)) mark(pg);
  }
}

// The target's rows the kept PGs copy (KeptPgs::RowsForPool), and the PGs
// whose upmaps keep them from it; none with options.acting (the rows hold
// up sets only).
void AddKeptRows(ReplayRun& run, const KeptPgs* kept) {
  run.kept_rows.assign(run.pools.size(), nullptr);
  run.upmaps_differ.assign(run.pools.size(), {});
  if (kept == nullptr || run.options.acting) return;
  for (std::size_t k = 0; k < run.pools.size(); ++k) {
    if (run.kept[k] != nullptr) run.kept_rows[k] = kept->RowsForPool(run.pools[k]->id);
  }
  const ClusterState& a = run.after.state();
  const ClusterState& t = kept->target();
  MarkUpmapsDiffering(a.pg_upmap, t.pg_upmap, run);
  MarkUpmapsDiffering(a.pg_upmap_items, t.pg_upmap_items, run);
  MarkUpmapsDiffering(a.pg_upmap_primaries, t.pg_upmap_primaries, run);
}

// The bucket of `r` with `t`'s id gives item `id` weight `w`.
bool RecordedWeighs(const crush::MapModel& r, const crush::Bucket& t, crush::ItemId id,
                    crush::Weight w) {
  const crush::Bucket* b = r.FindBucket(t.id);
  if (b == nullptr || b->alg != t.alg) return false;
  for (std::size_t i = 0; i < b->items.size(); ++i) {
    if (b->items[i] == id) return i < b->item_weights.size() && b->item_weights[i] == w;
  }
  return false;
}

// `s` is `t` but for straw2 item weights, each lower than in `t` and on an
// item `t` weighs otherwise than `r` (KeptPgs::Covers); no choose_args.
bool WeightsBelowTarget(const crush::MapModel& r, const crush::MapModel& s,
                        const crush::MapModel& t) {
  if (!r.choose_args.empty() || !s.choose_args.empty() || !t.choose_args.empty() ||
      s.rules != t.rules || s.rule_exists != t.rule_exists || s.max_devices != t.max_devices ||
      !(s.tunables == t.tunables) || s.class_map != t.class_map ||
      s.class_buckets != t.class_buckets || s.buckets.size() != t.buckets.size()) {
    return false;
  }
  for (std::size_t i = 0; i < t.buckets.size(); ++i) {
    const crush::Bucket& sb = s.buckets[i];
    const crush::Bucket& tb = t.buckets[i];
    if (sb.alg != crush::BucketAlg::kStraw2 || tb.alg != crush::BucketAlg::kStraw2) {
      if (!(sb == tb)) return false;
      continue;
    }
    if (sb.id != tb.id || sb.type != tb.type || sb.hash != tb.hash || sb.items != tb.items ||
        sb.item_weights.size() != tb.item_weights.size()) {
      return false;
    }
    for (std::size_t j = 0; j < tb.item_weights.size(); ++j) {
      if (sb.item_weights[j] == tb.item_weights[j]) continue;
      if (sb.item_weights[j] > tb.item_weights[j] ||
          RecordedWeighs(r, tb, tb.items[j], tb.item_weights[j])) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

std::shared_ptr<const KeptPgs> KeptPgs::Find(std::shared_ptr<const RecordedMapping> recorded,
                                             std::shared_ptr<const MappingSession> target,
                                             const MapAllOptions& options,
                                             std::shared_ptr<const PgTable> target_rows) {
  std::shared_ptr<KeptPgs> out(new KeptPgs());
  out->rows_ = std::move(target_rows);
  MapAllOptions mo;
  mo.threads = options.threads;
  mo.acting = false;
  ReplayRun run(*recorded, *target, mo);
  AddPools(run, nullptr, /*tables=*/false);
  for (const Pool* pool : run.pools) {
    out->pool_ids_.push_back(pool->id);
    out->kept_.emplace_back(pool->pg_num, 0);
  }
  const int threads = ResolveThreads(mo.threads);
  const std::vector<PgChunk> chunks = internal::ChunksOf(run.pools, threads);
  std::vector<std::unique_ptr<ReplayWorker>> workers(static_cast<std::size_t>(threads));
  util::ForEachChunk(chunks.size(), threads, [&](int slot, std::uint64_t i) {
    auto& w = workers[static_cast<std::size_t>(slot)];
    if (w == nullptr)
      w = std::make_unique<ReplayWorker>(ReplayWorker{target->NewWorker(), nullptr});
    const PgChunk& c = chunks[i];
    const RecordedMapping::PoolRecord* rec = run.records[c.pool];
    std::vector<std::uint8_t>& kept = out->kept_[c.pool];
    for (std::uint32_t ps = c.begin; ps < c.end; ++ps) {
      if (rec != nullptr && ps < rec->pg_num && RecordedResultHolds(run, *w, c.pool, ps)) {
        kept[ps] = 1;
      }
    }
  });
  out->recorded_ = std::move(recorded);
  out->target_ = std::move(target);
  return out;
}

bool KeptPgs::Covers(const RecordedMapping& recorded, const ClusterState& state) const {
  if (&recorded != recorded_.get()) return false;
  const ClusterState& t = target_->state();
  if (state.osds != t.osds || state.pools != t.pools || state.ceph_release != t.ceph_release) {
    return false;
  }
  return WeightsBelowTarget(recorded.session().state().crush, state.crush, t.crush);
}

const std::vector<std::uint8_t>* KeptPgs::ForPool(std::int64_t pool_id) const {
  for (std::size_t i = 0; i < pool_ids_.size(); ++i) {
    if (pool_ids_[i] == pool_id) return &kept_[i];
  }
  return nullptr;
}

std::shared_ptr<const KeptPgs> KeptPgs::FromHeld(std::shared_ptr<const RecordedMapping> recorded,
                                                 std::shared_ptr<const MappingSession> target,
                                                 std::vector<std::vector<std::uint8_t>> held,
                                                 std::shared_ptr<const PgTable> target_rows) {
  std::shared_ptr<KeptPgs> out(new KeptPgs());
  std::size_t k = 0;
  for (const auto& [id, pool] : target->state().pools) {
    if (k >= held.size() || held[k].size() != pool.pg_num) return nullptr;
    out->pool_ids_.push_back(id);
    ++k;
  }
  if (k != held.size()) return nullptr;
  out->kept_ = std::move(held);
  out->recorded_ = std::move(recorded);
  out->target_ = std::move(target);
  out->rows_ = std::move(target_rows);
  return out;
}

const PoolPgTable* KeptPgs::RowsForPool(std::int64_t pool_id) const {
  if (rows_ == nullptr) return nullptr;
  const PoolPgTable* t = rows_->Find(pool_id);
  const Pool* pool = target_->state().FindPool(pool_id);
  if (t == nullptr || pool == nullptr || t->pg_num != pool->pg_num ||
      t->up_len.size() != pool->pg_num) {
    return nullptr;
  }
  return t;
}

std::uint64_t KeptPgs::count() const {
  std::uint64_t n = 0;
  for (const auto& k : kept_) n += static_cast<std::uint64_t>(std::count(k.begin(), k.end(), 1));
  return n;
}

PgTable MapAllPgsReplayed(const RecordedMapping& recorded, const MappingSession& after,
                          const MapAllOptions& options, ReplayStats* stats, const KeptPgs* kept,
                          std::vector<std::vector<std::uint8_t>>* held,
                          const std::vector<std::vector<std::uint8_t>>* earlier_held) {
  ReplayRun run(recorded, after, options);
  if (kept != nullptr && !kept->Covers(recorded, after.state())) kept = nullptr;
  AddPools(run, kept, /*tables=*/true);
  AddKeptRows(run, kept);
  if (held != nullptr) {
    held->clear();
    for (const Pool* pool : run.pools) held->emplace_back(pool->pg_num, 0);
    run.held = held;
  }
  if (earlier_held != nullptr && earlier_held->size() == run.pools.size()) {
    bool fits = true;
    for (std::size_t k = 0; k < run.pools.size(); ++k) {
      fits = fits && (*earlier_held)[k].size() == run.pools[k]->pg_num;
    }
    if (fits) run.earlier_held = earlier_held;
  }
  const int threads = ResolveThreads(options.threads);
  const std::vector<PgChunk> chunks = internal::ChunksOf(run.pools, threads);
  std::vector<std::unique_ptr<ReplayWorker>> workers(static_cast<std::size_t>(threads));
  util::ForEachChunk(chunks.size(), threads, [&](int slot, std::uint64_t i) {
    auto& w = workers[static_cast<std::size_t>(slot)];
    if (w == nullptr) {
      w = std::make_unique<ReplayWorker>(
          ReplayWorker{after.NewWorker(), run.verify ? after.NewWorker() : nullptr});
    }
    MapReplayedChunk(run, *w, chunks[i]);
  });
  for (const auto& w : workers) {
    if (w != nullptr) run.table.diverged_from_ceph += w->a->placement().DivergedFromCeph();
  }
  internal::FinishVerified(run.verify, run.fatal, run.reused.load(),
                           run.replayed.load() + run.mapped.load(), run.mismatches.load(),
                           run.first_mismatch);
  if (stats != nullptr) {
    stats->crush_reused = run.reused.load();
    stats->crush_replayed = run.replayed.load();
    stats->crush_mapped = run.mapped.load();
    stats->verify_mismatches = run.mismatches.load();
    stats->first_mismatch = run.first_mismatch;
  }
  return std::move(run.table);
}

}  // namespace crushkit::osdmap
