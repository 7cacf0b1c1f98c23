// Fuzz target: the backfill planner's text inputs, the holders' log tails
// (osdmap::ParseLogTailsJson, ParseLogVersion: `crushkit plan --log-tails`)
// and the step limits (osdmap::ParseFillLimit for --max-fill,
// ParseMisplacedLimit for --max-misplaced).
//
// For any input each parser returns. A failure is kInvalidArgument with a
// short message without control bytes. Accepted log tails name valid PGs
// and OSD ids (0..2^24), every PG has at least one holder, and Find returns
// exactly what the map holds. An accepted fill limit is in (0, 1], or 0 for
// "none"; an accepted misplaced limit is in (0, 1] and the fill limit agrees
// with it.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "osdmap/planning/backfill_pusher.h"
#include "osdmap/planning/planner.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

namespace osdmap = crushkit::osdmap;

void CheckLimit(const std::string& text) {
  absl::StatusOr<double> misplaced = osdmap::ParseMisplacedLimit(text);
  if (misplaced.ok()) {
    FUZZ_CHECK(*misplaced > 0 && *misplaced <= 1, text);
  } else {
    crushkit::fuzz::CheckRefusal(misplaced.status());
  }
  absl::StatusOr<double> fill = osdmap::ParseFillLimit(text);
  if (!fill.ok()) {
    crushkit::fuzz::CheckRefusal(fill.status());
    FUZZ_CHECK(!misplaced.ok(), "a misplaced limit that is not a fill limit: " + text);
    return;
  }
  FUZZ_CHECK(*fill == 0 || (*fill > 0 && *fill <= 1), text);
  if (*fill > 0) FUZZ_CHECK(misplaced.ok() && *misplaced == *fill, text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 16)) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);

  if (size < 64) {
    CheckLimit(text);
    absl::StatusOr<osdmap::LogVersion> v = osdmap::ParseLogVersion(text);
    if (!v.ok()) crushkit::fuzz::CheckRefusal(v.status());
  }

  absl::StatusOr<osdmap::PgLogTails> tails = osdmap::ParseLogTailsJson(text);
  if (!tails.ok()) {
    crushkit::fuzz::CheckRefusal(tails.status());
    return 0;
  }
  for (const auto& [pg, holders] : tails->tails) {
    FUZZ_CHECK(!holders.empty(), osdmap::FormatPgId(pg));
    for (const auto& [osd, tail] : holders) {
      FUZZ_CHECK(osd >= 0 && osd <= (1 << 24), osdmap::FormatPgId(pg));
      const std::optional<osdmap::LogVersion> found = tails->Find(pg, osd);
      FUZZ_CHECK(found.has_value() && *found == tail, osdmap::FormatPgId(pg));
    }
  }
  return 0;
}
