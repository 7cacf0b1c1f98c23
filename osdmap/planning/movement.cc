#include "osdmap/planning/movement.h"

#include <algorithm>
#include <array>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "crush/codec.h"
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
  std::array<std::int32_t, kMaxPgOsds> b{}, a{};
  int nb = 0, na = 0;
  SortedCopy(before, b, &nb);
  SortedCopy(after, a, &na);
  std::array<std::int32_t, kMaxPgOsds> left{}, arrived{};
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

// Per-OSD accumulators, indexed by OSD id.
struct OsdTotals {
  std::vector<OsdMovement> osds;
  std::vector<bool> seen;

  OsdMovement& At(std::int32_t o) {
    const auto i = static_cast<std::size_t>(o);
    if (i >= osds.size()) {
      osds.resize(i + 1);
      seen.resize(i + 1);
    }
    if (!seen[i]) {
      seen[i] = true;
      osds[i].osd = o;
    }
    return osds[i];
  }
};

struct PoolInputs {
  const Pool* before = nullptr;
  const Pool* after = nullptr;
  const PoolPgTable* table_before = nullptr;
  const PoolPgTable* table_after = nullptr;
  const ClusterState* state_after = nullptr;
  // Network traffic matrices (pusher -> target), one per domain type.
  std::vector<DomainIndex>* traffic = nullptr;
  const PgLogTails* log_tails = nullptr;  // MovementOptions::log_tails
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

// Compares one pool PG by PG, adding to the OSD totals and domain matrices.
MovementCounters ComparePool(const PoolInputs& in, const internal::PgSizer& sizer, OsdTotals& osds,
                             std::vector<DomainIndex>& domains, std::vector<PgMove>* moves) {
  const Pool& pb = *in.before;
  const Pool& pa = *in.after;
  MovementCounters c;
  c.pool_id = pa.id;
  c.pool_name = pa.name;
  c.size_before = pb.size;
  c.size_after = pa.size;
  c.pg_num_before = pb.pg_num;
  c.pg_num_after = pa.pg_num;
  const std::uint32_t fine = std::max(pb.pg_num, pa.pg_num);
  c.pgs = fine;
  const bool ec = !pa.CanShiftOsds();
  const std::uint64_t k = ec && pa.ec_k > 0 ? pa.ec_k : 1;
  // A split child starts on its parent's OSDs with an even share of its data.
  std::vector<std::uint32_t> family;
  if (fine > pb.pg_num && pb.pg_num > 0) {
    family.assign(pb.pg_num, 0);
    for (std::uint32_t p = 0; p < fine; ++p) ++family[p < pb.pg_num ? p : pb.FoldPs(p)];
  }
  PgDelta d;
  for (std::uint32_t p = 0; p < fine; ++p) {
    const std::uint32_t bp = p < pb.pg_num ? p : pb.FoldPs(p);
    const std::uint32_t ap = p < pa.pg_num ? p : pa.FoldPs(p);
    const std::span<const std::int32_t> b = in.table_before->Up(bp);
    const std::span<const std::int32_t> a = in.table_after->Up(ap);
    PgSize size = sizer.Size(pb, bp);
    if (!family.empty()) {
      size.objects /= family[bp];
      size.bytes /= family[bp];
    }
    const std::uint64_t shard_bytes = size.bytes / k;
    if (ec) {
      ComparePositions(b, a, &d);
    } else {
      CompareReplicated(b, a, &d);
    }
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
        OsdMovement& m = osds.At(b[i]);
        ++m.pgs_before;
        m.used_before += shard_bytes;
      }
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (crush::IsDevice(a[i]) && (ec || !SeenBefore(a, i))) ++osds.At(a[i]).pgs_after;
    }
    if (PgPrimary(*in.table_before, bp) != PgPrimary(*in.table_after, ap)) {
      ++c.pgs_primary_changed;
      if (!d.remapped) ++c.pgs_primary_only;
    }
    if (!d.remapped) continue;
    ++c.pgs_remapped;
    std::int32_t pusher = kNone;
    if (d.num_moves > 0) {
      auto is_up = [&](std::int32_t o) { return in.state_after->IsUp(o); };
      if (ec) {
        pusher = ErasureBackfillPusher(b, a, is_up);
      } else if (in.log_tails != nullptr) {
        const PgId pg{pa.id, p};
        pusher = ReplicatedBackfillPusher(
            b, a, is_up, [&](std::int32_t o) { return in.log_tails->Find(pg, o); });
      } else {
        pusher = ReplicatedBackfillPusher(b, a, is_up);
      }
    }
    PgMove* move = nullptr;
    if (moves != nullptr && d.num_moves > 0) {
      PgMove& mv = moves->emplace_back();
      move = &mv;
      mv.pg = PgId{pa.id, p};
      mv.source = !b.empty() ? b[0] : kNone;
      mv.pusher = pusher;
      mv.before.assign(b.begin(), b.end());
      mv.after.assign(a.begin(), a.end());
      for (int i = 0; i < d.num_moves; ++i)
        mv.targets.push_back(d.moves[static_cast<std::size_t>(i)].second);
      mv.bytes_per_target = shard_bytes;
      mv.objects_per_target = size.objects;
      mv.degraded = Degraded(b, pa, *in.state_after);
    }
    for (int i = 0; i < d.num_moves; ++i) {
      const auto [from, to] = d.moves[static_cast<std::size_t>(i)];
      ++c.shards_moved;
      c.objects_to_move += size.objects;
      c.bytes_to_move += shard_bytes;
      OsdMovement& t = osds.At(to);
      ++t.pgs_in;
      t.bytes_in += shard_bytes;
      for (DomainIndex& di : domains) di.Add(from, to, shard_bytes);
    }
    if (in.traffic != nullptr && d.num_moves > 0) {
      std::array<std::int32_t, kMaxPgOsds> targets{};
      for (int i = 0; i < d.num_moves; ++i)
        targets[static_cast<std::size_t>(i)] = d.moves[static_cast<std::size_t>(i)].second;
      const internal::BackfillFlow flow{
          b,
          a,
          std::span<const std::int32_t>(targets.data(), static_cast<std::size_t>(d.num_moves)),
          pusher,
          ec ? static_cast<int>(k) : 0,
          shard_bytes};
      for (DomainIndex& di : *in.traffic) internal::AddBackfillTraffic(flow, di);
    }
    // Every before member absent afterwards gives its copy up, paired or not.
    for (std::size_t i = 0; i < b.size(); ++i) {
      const std::int32_t o = b[i];
      if (!crush::IsDevice(o) || (!ec && SeenBefore(b, i))) continue;
      const bool kept =
          ec ? (i < a.size() && a[i] == o) : std::find(a.begin(), a.end(), o) != a.end();
      if (kept) continue;
      OsdMovement& m = osds.At(o);
      ++m.pgs_out;
      m.bytes_out += shard_bytes;
      if (move != nullptr) move->leaving.push_back(o);
    }
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

absl::Status CheckComparable(const ClusterState& before, const ClusterState& after) {
  if (!before.fsid.empty() && !after.fsid.empty() && before.fsid != after.fsid) {
    return absl::InvalidArgumentError(absl::StrCat("the states are of different clusters (fsid ",
                                                   before.fsid, " vs ", after.fsid, ")"));
  }
  std::vector<std::int64_t> only_before, only_after;
  for (const auto& [id, p] : before.pools) {
    if (!after.pools.contains(id)) only_before.push_back(id);
  }
  for (const auto& [id, p] : after.pools) {
    if (!before.pools.contains(id)) only_after.push_back(id);
  }
  if (!only_before.empty() || !only_after.empty()) {
    std::string msg = "the states have different pools";
    if (!only_before.empty())
      absl::StrAppend(&msg, "; only before: ", absl::StrJoin(only_before, ","));
    if (!only_after.empty())
      absl::StrAppend(&msg, "; only after: ", absl::StrJoin(only_after, ","));
    return absl::InvalidArgumentError(msg + " (are they of the same cluster?)");
  }
  return absl::OkStatus();
}

Movement ComputeMovement(const MappingSession& before, const MappingSession& after,
                         const MovementOptions& options, PgTablePair* tables_out) {
  const ClusterState& sb = before.state();
  const ClusterState& sa = after.state();
  std::uint64_t all = 0;
  for (const auto& [id, p] : sb.pools) all += p.pg_num;
  for (const auto& [id, p] : sa.pools) all += p.pg_num;
  MapAllOptions mo;
  mo.threads = options.threads;
  mo.acting = false;
  if (options.progress)
    mo.progress = [&](std::uint64_t done, std::uint64_t) { options.progress(done, all); };
  PgTablePair tables = MapAllPgsPaired(before, after, mo);
  Movement m = CompareMappedStates(sb, sa, tables.before, tables.after, options);
  if (tables_out != nullptr) *tables_out = std::move(tables);
  return m;
}

Movement CompareMappedStates(const ClusterState& sb, const ClusterState& sa, const PgTable& tb,
                             const PgTable& ta, const MovementOptions& options) {
  Movement m;
  m.epoch_before = sb.epoch;
  m.epoch_after = sa.epoch;
  const internal::PgSizer sizer(sb);
  m.bytes_source = sizer.source();
  OsdTotals osds;
  std::vector<DomainIndex> domains;
  std::vector<DomainIndex> traffic;
  for (const std::string& type : options.domain_types) {
    if (auto di = DomainIndex::Make(sb, sa, type)) {
      traffic.push_back(*di);
      domains.push_back(std::move(*di));
    }
  }
  for (const auto& [id, pa] : sa.pools) {
    PoolInputs in{sb.FindPool(id), &pa, tb.Find(id), ta.Find(id), &sa, &traffic, options.log_tails};
    if (in.before == nullptr || in.table_before == nullptr || in.table_after == nullptr) continue;
    MovementCounters c =
        ComparePool(in, sizer, osds, domains, options.keep_moves ? &m.moves : nullptr);
    internal::SetMinimum(sb, sa, *in.before, pa, m.bytes_source != BytesSource::kUnknown, &c);
    m.totals.Add(c);
    m.pools.push_back(std::move(c));
  }
  m.totals.pool_id = -1;
  m.totals.pool_name = "total";
  internal::SetTotalAmplification(m.pools, m.bytes_source != BytesSource::kUnknown, &m.totals);
  // Every OSD that exists before or after, also those that hold no PG (the
  // report's fill chart shows all of them).
  for (std::int32_t o = 0; o < std::max(sb.max_osd(), sa.max_osd()); ++o) {
    if (sb.Exists(o) || sa.Exists(o)) osds.At(o);
  }
  for (std::size_t i = 0; i < osds.osds.size(); ++i) {
    if (osds.seen[i]) m.osds.push_back(std::move(osds.osds[i]));
  }
  internal::FillCapacity(sb, sa, m.bytes_source != BytesSource::kUnknown, &m.osds);
  for (DomainIndex& di : domains) m.domains.push_back(di.Finish());
  for (DomainIndex& di : traffic) m.traffic.push_back(di.Finish());
  m.risks = internal::AssessRisks(sa, m);
  return m;
}

absl::StatusOr<SessionPair> OpenSessionPair(ClusterState before, ClusterState after) {
  if (absl::Status s = CheckComparable(before, after); !s.ok()) return s;
  auto sb = MappingSession::Create(std::move(before));
  if (!sb.ok()) {
    return absl::Status(sb.status().code(), absl::StrCat("before: ", sb.status().message()));
  }
  auto sa = MappingSession::Create(std::move(after));
  if (!sa.ok()) {
    return absl::Status(sa.status().code(), absl::StrCat("after: ", sa.status().message()));
  }
  return SessionPair{*std::move(sb), *std::move(sa)};
}

absl::StatusOr<Movement> DiffStates(ClusterState before, ClusterState after,
                                    const MovementOptions& options, MappedStates* keep) {
  auto sessions = OpenSessionPair(std::move(before), std::move(after));
  if (!sessions.ok()) return sessions.status();
  Movement m = ComputeMovement(*sessions->before, *sessions->after, options,
                               keep != nullptr ? &keep->tables : nullptr);
  if (keep != nullptr) {
    keep->before = std::move(sessions->before);
    keep->after = std::move(sessions->after);
  }
  return m;
}

absl::StatusOr<ClusterState> WithCrushMap(const ClusterState& state, std::string crush_bytes) {
  absl::StatusOr<crush::MapModel> model = crush::DecodeCrushMap(crush_bytes);
  if (!model.ok()) return model.status();
  ClusterState out = state;
  out.crush = *std::move(model);
  out.crush_bytes = std::move(crush_bytes);
  return out;
}

}  // namespace crushkit::osdmap
