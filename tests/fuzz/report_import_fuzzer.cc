// Fuzz target: the `ceph report` importer (osdmap::ImportCephReport,
// ReportOsdMapEpoch), the pg dump placement reader (ReadPgDumpPlacement) and
// the self-check over what they return (CheckMappingAgainstCluster).
//
// For any input each reader returns. A failure is kInvalidArgument with a
// short message without control bytes. An imported state validates, its
// epoch is ReportOsdMapEpoch's, and (when it has few enough PGs to map
// quickly) the self-check against the report's own counts runs and its
// verdict is consistent: it agrees exactly when nothing differs, and every
// line it prints is printable.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "osdmap/formats/cluster_check.h"
#include "osdmap/formats/report_import.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

namespace osdmap = crushkit::osdmap;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Real reports of the small test clusters are ~60 KB.
  if (size > (1u << 17)) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);

  absl::StatusOr<std::map<osdmap::PgId, osdmap::ReportedPg>> pgs =
      osdmap::ReadPgDumpPlacement(text);
  if (!pgs.ok()) crushkit::fuzz::CheckRefusal(pgs.status());

  absl::StatusOr<osdmap::ImportedReport> imported = osdmap::ImportCephReport(text, std::nullopt);
  if (!imported.ok()) {
    crushkit::fuzz::CheckRefusal(imported.status());
    return 0;
  }
  const osdmap::ClusterState& state = imported->state;
  FUZZ_CHECK(osdmap::ValidateState(state).ok(), "an imported report does not validate");
  absl::StatusOr<std::uint32_t> epoch = osdmap::ReportOsdMapEpoch(text);
  FUZZ_CHECK(epoch.ok() && *epoch == state.epoch, "ReportOsdMapEpoch disagrees with the import");

  std::uint64_t total = 0;
  for (const auto& [id, pool] : state.pools) total += pool.pg_num;
  if (total > 4096) return 0;
  absl::StatusOr<osdmap::MappingCheck> check = osdmap::CheckMappingAgainstCluster(
      state, imported->pg_counts ? &*imported->pg_counts : nullptr, pgs.ok() ? &*pgs : nullptr);
  if (!check.ok()) return 0;  // a crush map that does not build: said by the session
  FUZZ_CHECK(check->pgs == total, "the check mapped another PG count");
  FUZZ_CHECK(check->agrees == (check->differing_pgs == 0 && check->differing_osds == 0),
             "verdict and counts disagree");
  for (const std::string& line : osdmap::FormatMappingCheck(*check))
    FUZZ_CHECK(crushkit::fuzz::PrintableLine(line), line);
  return 0;
}
