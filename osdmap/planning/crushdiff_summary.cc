#include "osdmap/planning/crushdiff_summary.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <span>

#include "absl/strings/str_cat.h"

#include "osdmap/model/mapping_session.h"
#include "osdmap/planning/movement.h"

namespace crushkit::osdmap {
namespace {

using Set = std::span<const std::int32_t>;

// crushdiff compares Python lists of ints; kItemNone (EC holes) is just the
// number 2147483647 there, so it is compared like any OSD id.
bool SameList(Set a, Set b) { return std::ranges::equal(a, b); }

// sorted(old) == sorted(new): the replicated "order only" test.
bool SameSorted(Set a, Set b) {
  if (a.size() != b.size()) return false;
  std::array<std::int32_t, kMaxPgOsds> x{}, y{};
  std::ranges::copy(a, x.begin());
  std::ranges::copy(b, y.begin());
  std::sort(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(a.size()));
  std::sort(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(b.size()));
  return std::equal(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(a.size()), y.begin());
}

// Python's repr of a list of ints: "[1, 2]", "[]".
std::string PythonList(Set s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) absl::StrAppend(&out, i ? ", " : "", s[i]);
  return out + "]";
}

// How crushdiff sizes a pool's shards: an erasure code profile name makes
// the pool EC with the profile's k and m (crushdiff tests the name, not the
// pool type); otherwise k = 1, m = size - 1.
struct PoolShape {
  bool ec = false;
  std::uint64_t k = 1;
  std::uint64_t k_plus_m = 0;
};

absl::StatusOr<PoolShape> ShapeOf(const Pool& pool) {
  PoolShape shape;
  if (!pool.erasure_code_profile.empty()) {
    if (pool.ec_k == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pool ", pool.id, ": erasure code profile '", pool.erasure_code_profile,
          "' has no k (crushdiff reads k and m from the osd dump's erasure_code_profiles)"));
    }
    shape.ec = true;
    shape.k = pool.ec_k;
    shape.k_plus_m = std::uint64_t{pool.ec_k} + pool.ec_m;
    return shape;
  }
  // k + m = 1 + (size - 1); a size-0 pool maps nothing, so 0 is never used.
  shape.k_plus_m = pool.size;
  return shape;
}

// The shards of one changed PG that crushdiff counts as moved: EC slots whose
// value changed (do_compare's positional loop; slots missing after count as
// changed), replicated entries of `before` absent from `after` (a repeated
// OSD counts each time, as Python's `for osd in old` does).
std::uint64_t MovedShards(bool ec, Set before, Set after) {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const bool moved = ec ? (i >= after.size() || before[i] != after[i])
                          : std::ranges::find(after, before[i]) == after.end();
    n += moved ? 1 : 0;
  }
  return n;
}

// Python's `100 * part / total if total else 0`; both ints, so the quotient
// is rounded once, as here while they are below 2^53.
double Percent(std::uint64_t part, std::uint64_t total) {
  return total == 0 ? 0.0 : static_cast<double>(100 * part) / static_cast<double>(total);
}

std::string CountLine(std::uint64_t part, std::uint64_t total, const char* what) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%" PRIu64 "/%" PRIu64 " (%.2f%%) %s\n", part, total,
                Percent(part, total), what);
  return buf;
}

// One PG of `before`, as both of do_compare's loops see it.
absl::Status AddPg(const Pool& pool, const PoolShape& shape, std::uint32_t ps, Set before,
                   Set after, const PgStat& stat, CrushdiffSummary* s) {
  const std::uint64_t bytes = stat.num_bytes + stat.num_omap_bytes;
  const std::uint64_t objects = stat.num_objects;
  s->pgs_total += 1;
  s->objects_total += objects;
  s->pg_shards_total += before.size();
  s->object_shards_total += objects * shape.k_plus_m;
  // bytes * (k + m) / k: an int product, then Python's true division.
  s->bytes_total += static_cast<double>(bytes * shape.k_plus_m) / static_cast<double>(shape.k);
  if (SameList(before, after)) return absl::OkStatus();
  // The warning comes before the order-only test, so an undersized PG whose
  // OSDs only changed order still warns.
  if (after.size() < pool.size) {
    s->warnings.push_back(absl::StrCat("WARNING: ", FormatPgId(PgId{pool.id, ps}),
                                       " will be undersized (", PythonList(after), ")"));
  }
  if (!shape.ec && SameSorted(before, after)) return absl::OkStatus();
  s->pgs_affected += 1;
  s->objects_affected += objects;
  const std::uint64_t moved = MovedShards(shape.ec, before, after);
  s->pg_shards_to_move += moved;
  s->object_shards_to_move += moved * objects;
  // One float addition per moved shard, in slot order, as crushdiff adds.
  const double per_shard = static_cast<double>(bytes) / static_cast<double>(shape.k);
  for (std::uint64_t i = 0; i < moved; ++i) s->bytes_to_move += per_shard;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CrushdiffSummary> SummarizeCrushdiff(const ClusterState& before,
                                                    const PgTable& acting_before,
                                                    const PgTable& acting_after) {
  CrushdiffSummary s;
  for (const auto& [id, pool] : before.pools) {
    const PoolPgTable* tb = acting_before.Find(id);
    if (tb == nullptr) continue;
    const PoolPgTable* ta = acting_after.Find(id);
    const absl::StatusOr<PoolShape> shape = ShapeOf(pool);
    for (std::uint32_t ps = 0; ps < tb->pg_num; ++ps) {
      const Set b = tb->Acting(ps);
      if (b.empty()) continue;  // osdmaptool prints "[]", which crushdiff's regex skips
      if (!shape.ok()) return shape.status();
      const PgId pg{id, ps};
      if (ta == nullptr || ps >= ta->pg_num) {
        return absl::InvalidArgumentError(absl::StrCat(
            "PG ", FormatPgId(pg), " is not in the after state (crushdiff compares the same PGs)"));
      }
      auto stat = before.pg_stats.find(pg);
      if (stat == before.pg_stats.end()) {
        return absl::FailedPreconditionError(
            absl::StrCat("no PG stats for ", FormatPgId(pg),
                         " (crushdiff needs `ceph pg dump` stats of every mapped PG: import them "
                         "with --pg-stats)"));
      }
      if (absl::Status st = AddPg(pool, *shape, ps, b, ta->Acting(ps), stat->second, &s);
          !st.ok()) {
        return st;
      }
    }
  }
  return s;
}

absl::StatusOr<CrushdiffSummary> CompareCrushdiff(ClusterState before, ClusterState after,
                                                  MapAllOptions options) {
  auto sessions = OpenSessionPair(std::move(before), std::move(after));
  if (!sessions.ok()) return sessions.status();
  options.acting = true;
  options.only_pool.reset();
  const PgTablePair tables = MapAllPgsPaired(*sessions->before, *sessions->after, options);
  return SummarizeCrushdiff(sessions->before->state(), tables.before, tables.after);
}

absl::StatusOr<ClusterState> CrushdiffImportCrush(const ClusterState& before,
                                                  std::string crush_bytes) {
  absl::StatusOr<ClusterState> after = WithCrushMap(before, std::move(crush_bytes));
  if (!after.ok()) return after.status();
  // osdmaptool's --import-crush check; crushdiff then has no new mapping.
  if (after->crush.max_devices > after->max_osd()) {
    return absl::InvalidArgumentError(
        absl::StrCat("crush map max_devices ", after->crush.max_devices, " > osdmap max_osd ",
                     after->max_osd(), " (osdmaptool --import-crush refuses it)"));
  }
  return after;
}

std::string CrushdiffHumanBytes(double bytes) {
  static constexpr std::array<const char*, 5> kSuffixes = {"", "Ki", "Mi", "Gi", "Ti"};
  // int(bytes) first, as do_compare passes it; the loop then divides floats.
  double v = static_cast<double>(static_cast<std::int64_t>(bytes));
  std::size_t i = 0;
  while (v > 1024 && i < 4) {
    ++i;
    v /= 1024.0;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f%s", v, kSuffixes[i]);
  return buf;
}

std::string FormatCrushdiff(const CrushdiffSummary& s) {
  std::string out;
  out += CountLine(s.pgs_affected, s.pgs_total, "pgs affected");
  out += CountLine(s.objects_affected, s.objects_total, "objects affected");
  out += CountLine(s.pg_shards_to_move, s.pg_shards_total, "pg shards to move");
  out += CountLine(s.object_shards_to_move, s.object_shards_total, "pg object shards to move");
  // 100 * diff_bytes / total_bytes: a float product, then the division.
  const double pct = s.bytes_total != 0 ? 100 * s.bytes_to_move / s.bytes_total : 0.0;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s/%s (%.2f%%) bytes to move\n",
                CrushdiffHumanBytes(s.bytes_to_move).c_str(),
                CrushdiffHumanBytes(s.bytes_total).c_str(), pct);
  out += buf;
  return out;
}

}  // namespace crushkit::osdmap
