#include "osdmap/planning/movement.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <span>

#include "crush/util/chunk_pipeline.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/planning/backfill_pusher.h"
#include "osdmap/planning/movement_internal.h"

namespace crushkit::osdmap {
namespace {

// The PG's acting primary (its up primary when acting sets were not mapped),
// pg_upmap_primaries and primary affinity included.
std::int32_t PgPrimary(const PoolPgTable& t, std::uint32_t ps) {
  if (!t.acting_primary.empty()) return t.acting_primary[ps];
  return t.up_primary.empty() ? crush::kItemNone : t.up_primary[ps];
}

using internal::DomainIndex;
using internal::PgSize;

constexpr std::int32_t kNone = crush::kItemNone;

// A PG's before and after sets compared. Replicated pools compare sets:
// `arrived` are the after members not in before, `left` the before members
// not in after (both ascending). EC pools compare positions: a position whose
// OSD changed to a real OSD is a shard that arrives there.
struct PgDelta {
  bool remapped = false;
  // (from, to) per moved shard; from is kNone when nobody held it.
  std::array<std::pair<std::int32_t, std::int32_t>, kMaxPgOsds> moves;
  int num_moves = 0;
};

// The set's distinct OSDs, ascending: a rule with several take/emit blocks
// can list one OSD twice ([11,5,11]), which holds one copy.
void SortedCopy(std::span<const std::int32_t> in, std::array<std::int32_t, kMaxPgOsds>& out,
                int* n) {
  *n = 0;
  for (std::int32_t o : in) {
    if (crush::IsDevice(o)) out[static_cast<std::size_t>((*n)++)] = o;
  }
  std::sort(out.begin(), out.begin() + *n);
  *n = static_cast<int>(std::unique(out.begin(), out.begin() + *n) - out.begin());
}

// True if `o` appears in set[0, i) (an OSD listed twice counts once).
bool SeenBefore(std::span<const std::int32_t> set, std::size_t i) {
  return std::find(set.begin(), set.begin() + static_cast<std::ptrdiff_t>(i), set[i]) !=
         set.begin() + static_cast<std::ptrdiff_t>(i);
}

void CompareReplicated(std::span<const std::int32_t> before, std::span<const std::int32_t> after,
                       PgDelta* d) {
  // Only [0, n) of each is read: left unset, not zeroed per PG (128 bytes
  // each, a measurable share of the comparison).
  std::array<std::int32_t, kMaxPgOsds> b, a;
  int nb = 0, na = 0;
  SortedCopy(before, b, &nb);
  SortedCopy(after, a, &na);
  std::array<std::int32_t, kMaxPgOsds> left, arrived;
  int nl = 0, nr = 0;
  int i = 0, j = 0;
  while (i < nb || j < na) {
    if (j >= na || (i < nb && b[static_cast<std::size_t>(i)] < a[static_cast<std::size_t>(j)])) {
      left[static_cast<std::size_t>(nl++)] = b[static_cast<std::size_t>(i++)];
    } else if (i >= nb || a[static_cast<std::size_t>(j)] < b[static_cast<std::size_t>(i)]) {
      arrived[static_cast<std::size_t>(nr++)] = a[static_cast<std::size_t>(j++)];
    } else {
      ++i;
      ++j;
    }
  }
  d->remapped = nl > 0 || nr > 0;
  // Leaving and arriving OSDs are paired in ascending order; extra arrivals
  // are backfilled from the before primary (the PG's only reader).
  const std::int32_t primary = !before.empty() && crush::IsDevice(before[0]) ? before[0] : kNone;
  d->num_moves = nr;
  for (int k = 0; k < nr; ++k) {
    d->moves[static_cast<std::size_t>(k)] = {k < nl ? left[static_cast<std::size_t>(k)] : primary,
                                             arrived[static_cast<std::size_t>(k)]};
  }
}

void ComparePositions(std::span<const std::int32_t> before, std::span<const std::int32_t> after,
                      PgDelta* d) {
  d->remapped = false;
  d->num_moves = 0;
  const std::size_t n = std::max(before.size(), after.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t b = i < before.size() ? before[i] : kNone;
    const std::int32_t a = i < after.size() ? after[i] : kNone;
    if (a == b) continue;
    d->remapped = true;
    if (crush::IsDevice(a))
      d->moves[static_cast<std::size_t>(d->num_moves++)] = {crush::IsDevice(b) ? b : kNone, a};
  }
}

int CountOsds(std::span<const std::int32_t> set) {
  int n = 0;
  for (std::int32_t o : set) n += crush::IsDevice(o) ? 1 : 0;
  return n;
}

// Per-OSD sums, indexed by OSD id: what every PG adds (16 bytes an OSD, so
// the PG loop's random accesses stay in cache) apart from what only moving
// PGs add.
struct OsdCounts {
  std::uint32_t pgs_before = 0;
  std::uint32_t pgs_after = 0;
  std::uint64_t used_before = 0;
};

struct OsdMoves {
  std::uint32_t pgs_in = 0;
  std::uint32_t pgs_out = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
};

struct OsdTotals {
  std::vector<OsdCounts> counts;
  std::vector<OsdMoves> moves;

  explicit OsdTotals(std::size_t osds = 0) : counts(osds), moves(osds) {}

  OsdCounts& Counts(std::int32_t o) {
    Grow(o);
    return counts[static_cast<std::size_t>(o)];
  }

  OsdMoves& Moves(std::int32_t o) {
    Grow(o);
    return moves[static_cast<std::size_t>(o)];
  }

  // Whether any PG counted OSD i (before, after, in or out).
  bool Seen(std::size_t i) const {
    return i < counts.size() && (counts[i].pgs_before > 0 || counts[i].pgs_after > 0 ||
                                 moves[i].pgs_in > 0 || moves[i].pgs_out > 0);
  }

  // Adds another thread's per-OSD sums (integers: the order does not matter).
  void Merge(const OsdTotals& o) {
    if (o.counts.size() > counts.size()) Grow(static_cast<std::int32_t>(o.counts.size() - 1));
    for (std::size_t i = 0; i < o.counts.size(); ++i) {
      counts[i].pgs_before += o.counts[i].pgs_before;
      counts[i].pgs_after += o.counts[i].pgs_after;
      counts[i].used_before += o.counts[i].used_before;
      moves[i].pgs_in += o.moves[i].pgs_in;
      moves[i].pgs_out += o.moves[i].pgs_out;
      moves[i].bytes_in += o.moves[i].bytes_in;
      moves[i].bytes_out += o.moves[i].bytes_out;
    }
  }

 private:
  // An id above max_osd (no existing OSD) grows the tables.
  void Grow(std::int32_t o) {
    const auto i = static_cast<std::size_t>(o);
    if (i < counts.size()) return;
    counts.resize(i + 1);
    moves.resize(i + 1);
  }
};

struct PoolInputs {
  const Pool* before = nullptr;
  const Pool* after = nullptr;
  const PoolPgTable* table_before = nullptr;
  const PoolPgTable* table_after = nullptr;
  const ClusterState* state_after = nullptr;
  const PgLogTails* log_tails = nullptr;    // MovementOptions::log_tails
  const PgStepUps* pusher_steps = nullptr;  // MovementOptions::pusher_steps
  bool move_sets = true;                    // PgMove::before and after (MoveDetail)
  internal::PoolFloor floor;                // computed beside the PGs' comparison
  // A split child starts on its parent's OSDs with an even share of its
  // data: PGs of the finer side per before PG (empty without a split).
  std::vector<std::uint32_t> family;
};

// What one thread sums over the PGs it compares (integers, so the sums do
// not depend on which thread took which PGs): merged after.
struct CompareSums {
  OsdTotals osds;
  std::vector<DomainIndex> domains;
  // Network traffic matrices (pusher -> target), one per domain type.
  std::vector<DomainIndex> traffic;
};

// Copies are missing while the change backfills: the before set was short,
// or one of its OSDs is down afterwards.
bool Degraded(std::span<const std::int32_t> before, const Pool& pool, const ClusterState& after) {
  if (CountOsds(before) < static_cast<int>(pool.size)) return true;
  for (std::int32_t o : before) {
    if (crush::IsDevice(o) && !after.IsUp(o)) return true;
  }
  return false;
}

// The inputs of one pool's comparison (PoolInputs::family included).
PoolInputs MakePoolInputs(const Pool& pb, const Pool& pa, const PoolPgTable* tb,
                          const PoolPgTable* ta, const ClusterState& after,
                          const PgLogTails* log_tails) {
  PoolInputs in{&pb, &pa, tb, ta, &after, log_tails, nullptr, true, {}, {}};
  const std::uint32_t fine = std::max(pb.pg_num, pa.pg_num);
  if (fine > pb.pg_num && pb.pg_num > 0) {
    in.family.assign(pb.pg_num, 0);
    for (std::uint32_t p = 0; p < fine; ++p) ++in.family[p < pb.pg_num ? p : pb.FoldPs(p)];
  }
  return in;
}

// A pool's counters that do not come from its PGs (ids, sizes, pg_num).
MovementCounters PoolHeader(const Pool& pb, const Pool& pa) {
  MovementCounters c;
  c.pool_id = pa.id;
  c.pool_name = pa.name;
  c.size_before = pb.size;
  c.size_after = pa.size;
  c.pg_num_before = pb.pg_num;
  c.pg_num_after = pa.pg_num;
  c.pgs = std::max(pb.pg_num, pa.pg_num);
  return c;
}

// One PG's counts that do not depend on its moving: degraded and inactive
// before and after, totals, the OSDs' PG counts and use before.
void CountPg(const Pool& pb, const Pool& pa, bool ec, std::span<const std::int32_t> b,
             std::span<const std::int32_t> a, const PgSize& size, std::uint64_t shard_bytes,
             OsdTotals& osds, MovementCounters& c) {
  const int up_after = CountOsds(a);
  if (up_after < static_cast<int>(pa.size)) ++c.pgs_degraded_after;
  if (up_after < static_cast<int>(pa.min_size)) ++c.pgs_inactive_after;
  const int up_before = CountOsds(b);
  if (up_before < static_cast<int>(pb.size)) ++c.pgs_degraded_before;
  if (up_before < static_cast<int>(pb.min_size)) ++c.pgs_inactive_before;
  c.shards_total += pa.size;
  c.objects_total += size.objects * pa.size;
  c.bytes_total += shard_bytes * pa.size;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (crush::IsDevice(b[i]) && (ec || !SeenBefore(b, i))) {
      OsdCounts& m = osds.Counts(b[i]);
      ++m.pgs_before;
      m.used_before += shard_bytes;
    }
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (crush::IsDevice(a[i]) && (ec || !SeenBefore(a, i))) ++osds.Counts(a[i]).pgs_after;
  }
}

// The OSD that pushes a remapped PG's data to its targets (kNone: none).
std::int32_t PusherOf(const PoolInputs& in, bool ec, std::uint32_t p,
                      std::span<const std::int32_t> b, std::span<const std::int32_t> a,
                      const PgDelta& d) {
  if (d.num_moves == 0) return kNone;
  auto is_up = [&](std::int32_t o) { return in.state_after->IsUp(o); };
  if (ec) return ErasureBackfillPusher(b, a, is_up);
  if (in.log_tails == nullptr && in.pusher_steps == nullptr) {
    return ReplicatedBackfillPusher(b, a, is_up);
  }
  return ReplicatedPusherOf(PgId{in.after->id, p}, b, a, is_up, in.log_tails, in.pusher_steps);
}

// A moving PG's entry in Movement::moves (leaving filled by AddLeaving).
PgMove& RecordMove(const PoolInputs& in, std::uint32_t p, std::span<const std::int32_t> b,
                   std::span<const std::int32_t> a, const PgDelta& d, std::int32_t pusher,
                   const PgSize& size, std::uint64_t shard_bytes, std::vector<PgMove>& moves) {
  PgMove& mv = moves.emplace_back();
  mv.pg = PgId{in.after->id, p};
  mv.source = !b.empty() ? b[0] : kNone;
  mv.pusher = pusher;
  if (in.move_sets) {
    mv.before.assign(b.begin(), b.end());
    mv.after.assign(a.begin(), a.end());
  }
  mv.targets.resize(static_cast<std::size_t>(d.num_moves));
  for (std::size_t i = 0; i < mv.targets.size(); ++i) mv.targets[i] = d.moves[i].second;
  mv.bytes_per_target = shard_bytes;
  mv.objects_per_target = size.objects;
  mv.degraded = Degraded(b, *in.after, *in.state_after);
  return mv;
}

// A moving PG's shards: counters, receiving OSDs, the domain matrices and
// the network traffic.
void AddShards(std::span<const std::int32_t> b, std::span<const std::int32_t> a, const PgDelta& d,
               std::int32_t pusher, int ec_k, const PgSize& size, std::uint64_t shard_bytes,
               CompareSums& sums, MovementCounters& c) {
  std::array<std::int32_t, kMaxPgOsds> targets;  // [0, num_moves) set
  for (int i = 0; i < d.num_moves; ++i) {
    const auto [from, to] = d.moves[static_cast<std::size_t>(i)];
    ++c.shards_moved;
    c.objects_to_move += size.objects;
    c.bytes_to_move += shard_bytes;
    OsdMoves& t = sums.osds.Moves(to);
    ++t.pgs_in;
    t.bytes_in += shard_bytes;
    for (DomainIndex& di : sums.domains) di.Add(from, to, shard_bytes);
    targets[static_cast<std::size_t>(i)] = to;
  }
  if (d.num_moves == 0) return;
  const internal::BackfillFlow flow{
      b,
      a,
      std::span<const std::int32_t>(targets.data(), static_cast<std::size_t>(d.num_moves)),
      pusher,
      ec_k,
      shard_bytes};
  for (DomainIndex& di : sums.traffic) internal::AddBackfillTraffic(flow, di);
}

// Every before member absent afterwards gives its copy up, paired or not.
void AddLeaving(bool ec, std::span<const std::int32_t> b, std::span<const std::int32_t> a,
                std::uint64_t shard_bytes, OsdTotals& osds, PgMove* move) {
  std::array<std::int32_t, kMaxPgOsds> leaving;  // [0, n) set
  std::size_t n = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const std::int32_t o = b[i];
    if (!crush::IsDevice(o) || (!ec && SeenBefore(b, i))) continue;
    const bool kept =
        ec ? (i < a.size() && a[i] == o) : std::find(a.begin(), a.end(), o) != a.end();
    if (kept) continue;
    OsdMoves& m = osds.Moves(o);
    ++m.pgs_out;
    m.bytes_out += shard_bytes;
    leaving[n++] = o;
  }
  if (move != nullptr) move->leaving.assign(leaving.begin(), leaving.begin() + n);
}

// Compares PGs [begin, end) of one pool (of its finer side), adding to
// `sums` and returning the range's additive counters (MovementCounters::Add).
MovementCounters ComparePgs(const PoolInputs& in, const internal::PgSizer& sizer,
                            std::uint32_t begin, std::uint32_t end, CompareSums& sums,
                            std::vector<PgMove>* moves) {
  const Pool& pb = *in.before;
  const Pool& pa = *in.after;
  MovementCounters c;
  const bool ec = !pa.CanShiftOsds();
  const std::uint64_t k = ec && pa.ec_k > 0 ? pa.ec_k : 1;
  const std::vector<std::uint32_t>& family = in.family;
  internal::PgSizer::Cursor sizes(sizer, pb);
  PgDelta d;
  for (std::uint32_t p = begin; p < end; ++p) {
    const std::uint32_t bp = p < pb.pg_num ? p : pb.FoldPs(p);
    const std::uint32_t ap = p < pa.pg_num ? p : pa.FoldPs(p);
    const std::span<const std::int32_t> b = in.table_before->Up(bp);
    const std::span<const std::int32_t> a = in.table_after->Up(ap);
    PgSize size = sizes.Size(bp);
    if (!family.empty()) {
      size.objects /= family[bp];
      size.bytes /= family[bp];
    }
    const std::uint64_t shard_bytes = size.bytes / k;
    if (std::equal(b.begin(), b.end(), a.begin(), a.end())) {
      d.remapped = false;  // most PGs: the same set, nothing to sort
      d.num_moves = 0;
    } else if (ec) {
      ComparePositions(b, a, &d);
    } else {
      CompareReplicated(b, a, &d);
    }
    CountPg(pb, pa, ec, b, a, size, shard_bytes, sums.osds, c);
    if (PgPrimary(*in.table_before, bp) != PgPrimary(*in.table_after, ap)) {
      ++c.pgs_primary_changed;
      if (!d.remapped) ++c.pgs_primary_only;
    }
    if (!d.remapped) continue;
    ++c.pgs_remapped;
    const std::int32_t pusher = PusherOf(in, ec, p, b, a, d);
    PgMove* move = nullptr;
    if (moves != nullptr && d.num_moves > 0) {
      move = &RecordMove(in, p, b, a, d, pusher, size, shard_bytes, *moves);
      move->erasure = ec;
    }
    AddShards(b, a, d, pusher, ec ? static_cast<int>(k) : 0, size, shard_bytes, sums, c);
    AddLeaving(ec, b, a, shard_bytes, sums.osds, move);
  }
  return c;
}

}  // namespace

void MovementCounters::Add(const MovementCounters& o) {
  pgs += o.pgs;
  pgs_remapped += o.pgs_remapped;
  pgs_primary_changed += o.pgs_primary_changed;
  pgs_primary_only += o.pgs_primary_only;
  shards_moved += o.shards_moved;
  objects_to_move += o.objects_to_move;
  bytes_to_move += o.bytes_to_move;
  pgs_degraded_after += o.pgs_degraded_after;
  pgs_inactive_after += o.pgs_inactive_after;
  pgs_degraded_before += o.pgs_degraded_before;
  pgs_inactive_before += o.pgs_inactive_before;
  shards_total += o.shards_total;
  objects_total += o.objects_total;
  bytes_total += o.bytes_total;
  minimum_to_move += o.minimum_to_move;
}

namespace {

// One chunk of a pool's PGs compared on one thread: its counters and moves
// (merged in PG order, as one thread would give them).
struct CompareChunk {
  std::size_t pool = 0;
  std::uint32_t begin = 0, end = 0;
  MovementCounters counters;
  std::vector<PgMove> moves;
};

// Moves per PG so far, over every thread: a chunk reserves about what it
// will need, so its moves are not copied and paged in again at each growth
// (the result does not depend on it).
class MoveRate {
 public:
  std::size_t Expect(std::uint32_t pgs) const {
    const std::uint64_t seen = pgs_.load(std::memory_order_relaxed);
    if (seen == 0) return 0;
    const std::uint64_t moves = moves_.load(std::memory_order_relaxed);
    return static_cast<std::size_t>(moves * pgs / seen + moves * pgs / seen / 16 + 16);
  }

  void Add(std::uint64_t pgs, std::uint64_t moves) {
    pgs_.fetch_add(pgs, std::memory_order_relaxed);
    moves_.fetch_add(moves, std::memory_order_relaxed);
  }

 private:
  std::atomic<std::uint64_t> pgs_{0}, moves_{0};
};

// The pools both states and both tables have, as comparison inputs.
std::vector<PoolInputs> PoolsToCompare(const ClusterState& sb, const ClusterState& sa,
                                       const PgTable& tb, const PgTable& ta,
                                       const MovementOptions& options) {
  std::vector<PoolInputs> pools;
  for (const auto& [id, pa] : sa.pools) {
    const Pool* pb = sb.FindPool(id);
    const PoolPgTable* pool_tb = tb.Find(id);
    const PoolPgTable* pool_ta = ta.Find(id);
    if (pb == nullptr || pool_tb == nullptr || pool_ta == nullptr) continue;
    pools.push_back(MakePoolInputs(*pb, pa, pool_tb, pool_ta, sa, options.log_tails));
    pools.back().pusher_steps = options.pusher_steps;
  }
  return pools;
}

std::vector<CompareChunk> CompareChunks(const std::vector<PoolInputs>& pools) {
  constexpr std::uint32_t kComparePgs = 16384;
  std::vector<CompareChunk> chunks;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    const std::uint32_t fine = std::max(pools[i].before->pg_num, pools[i].after->pg_num);
    for (std::uint64_t b = 0; b < fine; b += kComparePgs) {
      CompareChunk& c = chunks.emplace_back();
      c.pool = i;
      c.begin = static_cast<std::uint32_t>(b);
      c.end = static_cast<std::uint32_t>(std::min<std::uint64_t>(b + kComparePgs, fine));
    }
  }
  return chunks;
}

// The chunks' counters and moves per pool into `m`, with each pool's
// minimum and the totals.
void MergePools(const ClusterState& sb, const ClusterState& sa,
                const std::vector<PoolInputs>& pools, std::vector<CompareChunk>& chunks,
                Movement& m) {
  const bool bytes_known = m.bytes_source != BytesSource::kUnknown;
  std::size_t moves = 0;
  for (const CompareChunk& c : chunks) moves += c.moves.size();
  m.moves.reserve(moves);
  std::size_t next = 0;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    const PoolInputs& in = pools[i];
    MovementCounters c = PoolHeader(*in.before, *in.after);
    for (; next < chunks.size() && chunks[next].pool == i; ++next) {
      c.Add(chunks[next].counters);
      for (PgMove& mv : chunks[next].moves) m.moves.push_back(std::move(mv));
    }
    internal::SetMinimum(sb, sa, *in.before, *in.after, in.floor, bytes_known, &c);
    m.totals.Add(c);
    m.pools.push_back(std::move(c));
  }
  m.totals.pool_id = -1;
  m.totals.pool_name = "total";
  internal::SetTotalAmplification(m.pools, bytes_known, &m.totals);
}

// The per-OSD sums into `m`: every OSD that exists before or after, also
// those that hold no PG (the report's fill chart shows all of them).
void SetOsds(const ClusterState& sb, const ClusterState& sa, const OsdTotals& osds, Movement& m) {
  const std::size_t n =
      std::max(osds.counts.size(), static_cast<std::size_t>(std::max(sb.max_osd(), sa.max_osd())));
  for (std::size_t i = 0; i < n; ++i) {
    const auto o = static_cast<std::int32_t>(i);
    if (!osds.Seen(i) && !sb.Exists(o) && !sa.Exists(o)) continue;
    OsdMovement& to = m.osds.emplace_back();
    to.osd = o;
    if (i >= osds.counts.size()) continue;
    const OsdCounts& c = osds.counts[i];
    const OsdMoves& mv = osds.moves[i];
    to.pgs_before = c.pgs_before;
    to.used_before = c.used_before;
    to.pgs_after = c.pgs_after;
    to.pgs_in = mv.pgs_in;
    to.bytes_in = mv.bytes_in;
    to.pgs_out = mv.pgs_out;
    to.bytes_out = mv.bytes_out;
  }
  internal::FillCapacity(sb, sa, m.bytes_source != BytesSource::kUnknown, &m.osds);
}

}  // namespace

Movement CompareMappedStates(const ClusterState& sb, const ClusterState& sa, const PgTable& tb,
                             const PgTable& ta, const MovementOptions& options) {
  return internal::CompareMapped(
      sb, sa, tb, ta, options,
      options.keep_moves ? internal::MoveDetail::kFull : internal::MoveDetail::kNone);
}

namespace internal {

Movement CompareMapped(const ClusterState& sb, const ClusterState& sa, const PgTable& tb,
                       const PgTable& ta, const MovementOptions& options, MoveDetail detail) {
  Movement m;
  m.epoch_before = sb.epoch;
  m.epoch_after = sa.epoch;
  const internal::PgSizer sizer(sb);
  m.bytes_source = sizer.source();
  CompareSums empty;
  for (const std::string& type : options.domain_types) {
    if (auto di = DomainIndex::Make(sb, sa, type)) {
      empty.traffic.push_back(*di);
      empty.domains.push_back(std::move(*di));
    }
  }
  empty.osds = OsdTotals(static_cast<std::size_t>(std::max(sb.max_osd(), sa.max_osd())));
  std::vector<PoolInputs> pools = PoolsToCompare(sb, sa, tb, ta, options);
  for (PoolInputs& in : pools) in.move_sets = detail == MoveDetail::kFull;
  // PGs in chunks on all threads: the sums per thread, the counters and
  // moves per chunk.
  std::vector<CompareChunk> chunks = CompareChunks(pools);
  const int threads = std::max(1, static_cast<int>(std::min<std::size_t>(
                                      static_cast<std::size_t>(ResolveThreads(options.threads)),
                                      chunks.size() + pools.size())));
  std::vector<CompareSums> sums(static_cast<std::size_t>(threads), empty);
  MoveRate rate;
  // Each pool's floor first (from the states alone), then the PGs.
  util::ForEachChunk(pools.size() + chunks.size(), threads, [&](int slot, std::uint64_t i) {
    if (i < pools.size()) {
      PoolInputs& in = pools[i];
      in.floor = ComputePoolFloor(sb, sa, *in.before, *in.after);
      return;
    }
    CompareChunk& c = chunks[i - pools.size()];
    if (detail != MoveDetail::kNone) c.moves.reserve(rate.Expect(c.end - c.begin));
    c.counters =
        ComparePgs(pools[c.pool], sizer, c.begin, c.end, sums[static_cast<std::size_t>(slot)],
                   detail != MoveDetail::kNone ? &c.moves : nullptr);
    rate.Add(c.end - c.begin, c.moves.size());
  });
  OsdTotals& osds = empty.osds;
  std::vector<DomainIndex> domains = std::move(empty.domains);
  std::vector<DomainIndex> traffic = std::move(empty.traffic);
  for (const CompareSums& t : sums) {
    osds.Merge(t.osds);
    for (std::size_t i = 0; i < domains.size(); ++i) domains[i].Merge(t.domains[i]);
    for (std::size_t i = 0; i < traffic.size(); ++i) traffic[i].Merge(t.traffic[i]);
  }
  MergePools(sb, sa, pools, chunks, m);
  SetOsds(sb, sa, osds, m);
  for (DomainIndex& di : domains) m.domains.push_back(di.Finish());
  for (DomainIndex& di : traffic) m.traffic.push_back(di.Finish());
  m.risks = internal::AssessRisks(sa, m);
  return m;
}

}  // namespace internal

}  // namespace crushkit::osdmap
