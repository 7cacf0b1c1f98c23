#include "osdmap/formats/report_import.h"

#include <limits>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"
#include "osdmap/formats/crush_dump_json.h"
#include "osdmap/formats/import.h"
#include "osdmap/formats/import_internal.h"
#include "osdmap/formats/input_sniff.h"

namespace crushkit::osdmap {
namespace {

// The digest's fields at the top of the report (Mimic and later) or in an
// older "pgmap" object.
const ceph::CephReport& DigestOf(const ceph::CephReport& report) {
  const bool top = report.has_num_pg() || report.num_pg_by_osd_size() > 0 ||
                   report.pool_stats_size() > 0 || report.has_osd_sum();
  return top || !report.has_pgmap() ? report : report.pgmap();
}

// `ceph df`'s STORED for one pool (PGMapDigest::dump_object_stat_sum and
// pool_stat_t::get_user_data_bytes / get_user_omap_bytes), float as Ceph.
std::uint64_t StoredBytes(const ceph::ReportPoolStat& p, const Pool& pool, bool per_pool,
                          bool per_pool_omap) {
  const ceph::ReportStatSum& sum = p.stat_sum();
  float rate = pool.RawUsedRate();
  if (sum.num_object_copies() > 0) {
    // A degraded pool's copies count less (uint64 difference, float ratio).
    rate *= static_cast<float>(sum.num_object_copies() - sum.num_objects_degraded()) /
            static_cast<float>(sum.num_object_copies());
  }
  const auto per_rate = [rate](std::uint64_t raw) -> std::uint64_t {
    if (rate == 0.0f) return 0;
    const float v = static_cast<float>(raw) / rate;
    // A float beyond u64 (never from real counters) saturates instead of UB.
    if (!(v < 18446744073709551616.0f))
      return v > 0 ? std::numeric_limits<std::uint64_t>::max() : 0;
    return static_cast<std::uint64_t>(v);
  };
  const std::uint64_t data = per_pool ? per_rate(p.store_stats().data_stored())
                                      : sum.num_bytes() + sum.num_bytes_hit_set_archive();
  const std::uint64_t omap =
      per_pool_omap ? per_rate(p.store_stats().omap_allocated()) : sum.num_omap_bytes();
  return data + omap;
}

absl::Status ImportPoolStats(const ceph::CephReport& digest, const std::string& prefix,
                             ClusterState* state) {
  // Ceph compares the counters as they are (0 == 0 is per-pool too); a
  // report without them (Mimic) has the legacy sums only.
  const ceph::ReportOsdSum& sum = digest.osd_sum();
  const bool per_pool = sum.has_num_per_pool_osds() && sum.num_per_pool_osds() == sum.num_osds();
  const bool per_pool_omap =
      sum.has_num_per_pool_omap_osds() && sum.num_per_pool_omap_osds() == sum.num_osds();
  for (int i = 0; i < digest.pool_stats_size(); ++i) {
    const ceph::ReportPoolStat& p = digest.pool_stats(i);
    const std::string at = absl::StrCat(prefix, "pool_stats[", i, "].");
    if (!p.has_poolid()) return internal::MissingField(at + "poolid");
    if (!p.has_stat_sum()) return internal::MissingField(at + "stat_sum");
    const Pool* pool = state->FindPool(p.poolid());
    if (pool == nullptr) continue;  // deleted since; the mgr forgets it later
    state->pool_usage[p.poolid()] =
        PoolUsage{StoredBytes(p, *pool, per_pool, per_pool_omap), p.stat_sum().num_objects()};
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<ClusterPgCounts>> ReadPgCounts(const ceph::CephReport& digest,
                                                            const std::string& prefix) {
  if (!digest.has_num_pg() && digest.num_pg_by_osd_size() == 0) return std::nullopt;
  ClusterPgCounts counts;
  counts.num_pg = digest.num_pg();
  counts.num_pg_unknown = digest.num_pg_unknown();
  for (int i = 0; i < digest.num_pg_by_osd_size(); ++i) {
    const ceph::ReportPgCount& c = digest.num_pg_by_osd(i);
    const std::string at = absl::StrCat(prefix, "num_pg_by_osd[", i, "].");
    if (!c.has_osd()) return internal::MissingField(at + "osd");
    if (c.osd() < 0 || c.osd() > std::numeric_limits<std::int32_t>::max()) {
      return absl::InvalidArgumentError(absl::StrCat(at, "osd: ", c.osd(), " is not an OSD id"));
    }
    OsdPgCount n{c.num_primary_pg(), c.num_acting_pg(), 0};
    if (c.has_num_up_not_acting_pg()) {
      n.up = c.num_up_not_acting_pg();
    } else if (c.has_num_up_pg()) {
      n.up = c.num_up_pg();
      counts.up_counts_every_up_slot = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          at, "num_up_not_acting_pg: missing (nor Mimic's num_up_pg): not a report's PG count"));
    }
    if (!counts.by_osd.emplace(static_cast<std::int32_t>(c.osd()), n).second) {
      return absl::InvalidArgumentError(absl::StrCat(at, "osd: ", c.osd(), " listed twice"));
    }
  }
  return counts;
}

}  // namespace

absl::StatusOr<ImportedReport> ImportCephReport(const std::string& report_json,
                                                std::optional<crush::CephRelease> release) {
  CRUSH_RETURN_IF_ERROR(CheckInputKind(InputRole::kImportReport, report_json));
  ceph::CephReport report;
  CRUSH_RETURN_IF_ERROR(internal::ParseCephJson(report_json, &report, "report JSON"));
  if (!report.has_osdmap()) return internal::MissingField("osdmap");
  const crush::CephRelease as =
      release.value_or(ReleaseOfCluster(report.osdmap().require_osd_release()));

  absl::StatusOr<crush::MapModel> crush_map = ReadCrushDumpJson(report_json);
  if (!crush_map.ok()) return crush_map.status();  // located: "crushmap.buckets[3]..."
  const std::string crush_bytes = crush::EncodeCrushMapAs(*std::move(crush_map), as);
  absl::StatusOr<ClusterState> state = internal::ImportOsdDumpMessage(report.osdmap(), crush_bytes);
  if (!state.ok()) {
    const bool crush_error = absl::StartsWith(state.status().message(), "crush map: ");
    return absl::Status(state.status().code(),
                        absl::StrCat(crush_error ? "" : "osdmap.", state.status().message()));
  }
  state->ceph_release = as;

  ImportedReport out;
  out.ceph_version = report.version();
  const ceph::CephReport& digest = DigestOf(report);
  const std::string prefix = &digest == &report ? "" : "pgmap.";
  CRUSH_RETURN_IF_ERROR(ImportPoolStats(digest, prefix, &*state));
  CRUSH_ASSIGN_OR_RETURN(out.pg_counts, ReadPgCounts(digest, prefix));
  out.state = *std::move(state);
  return out;
}

absl::StatusOr<std::uint32_t> ReportOsdMapEpoch(const std::string& report_json) {
  CRUSH_RETURN_IF_ERROR(CheckInputKind(InputRole::kImportReport, report_json));
  ceph::CephReport report;
  CRUSH_RETURN_IF_ERROR(internal::ParseCephJson(report_json, &report, "report JSON"));
  if (!report.osdmap().has_epoch()) return internal::MissingField("osdmap.epoch");
  return report.osdmap().epoch();
}

}  // namespace crushkit::osdmap
