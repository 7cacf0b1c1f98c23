#include "osdmap/planner.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "osdmap/upmap_cleanup.h"

namespace crushkit::osdmap {

absl::Status CleanUpmapsAfterChange(ClusterState& after, const PlanOptions& options,
                                    MovementRisks* risks) {
  if (options.keep_upmaps) return absl::OkStatus();
  absl::StatusOr<UpmapCleanup> cleanup = CleanPgUpmaps(after);
  if (!cleanup.ok()) {
    return absl::Status(cleanup.status().code(),
                        absl::StrCat("upmap cleanup after the change: ", cleanup.status().message()));
  }
  risks->upmaps_dropped =
      static_cast<std::uint32_t>(cleanup->removed_pg_upmap.size() + cleanup->removed_pg_upmap_items.size());
  risks->upmap_items_rewritten = static_cast<std::uint32_t>(cleanup->trimmed_items.size());
  return absl::OkStatus();
}

absl::StatusOr<Movement> DiffNewCrushMap(ClusterState before, std::string crush_bytes,
                                         const PlanOptions& options) {
  absl::StatusOr<ClusterState> after = WithCrushMap(before, std::move(crush_bytes));
  if (!after.ok()) return after.status();
  ++after->epoch;
  MovementRisks cleaned;
  if (absl::Status s = CleanUpmapsAfterChange(*after, options, &cleaned); !s.ok()) return s;
  absl::StatusOr<Movement> m = DiffStates(std::move(before), *std::move(after), options.movement);
  if (!m.ok()) return m.status();
  m->risks.upmaps_dropped = cleaned.upmaps_dropped;
  m->risks.upmap_items_rewritten = cleaned.upmap_items_rewritten;
  return m;
}

}  // namespace crushkit::osdmap
