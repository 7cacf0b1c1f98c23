#include "osdmap/planning/change_safety.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace crushkit::osdmap {
namespace {

absl::StatusOr<MaxAvailModel> Side(const ClusterState& state, const char* name) {
  absl::StatusOr<MaxAvailModel> m = MaxAvailModel::Create(state);
  if (!m.ok()) {
    return absl::Status(m.status().code(), absl::StrCat(name, ": ", m.status().message()));
  }
  return m;
}

// The usage the movement started from, moved by each OSD's `used` figure
// less its used_before (OSDs whose capacity came from `ceph osd df`).
template <typename UsedOf>
std::map<std::int32_t, OsdUsage> Projected(const SafetyInputs& in, const Movement& movement,
                                           UsedOf used_of) {
  std::map<std::int32_t, std::int64_t> delta;
  for (const OsdMovement& o : movement.osds) {
    if (!o.capacity_from_osd_df) continue;
    const std::uint64_t used = used_of(o);
    delta[o.osd] = static_cast<std::int64_t>(used) - static_cast<std::int64_t>(o.used_before);
  }
  return ShiftUsage(in.usage_start, delta);
}

}  // namespace

absl::StatusOr<SafetyInputs> PrepareSafety(const ClusterState& before, const ClusterState& after) {
  SafetyInputs in;
  absl::StatusOr<MaxAvailModel> b = Side(before, "before");
  if (!b.ok()) return b.status();
  absl::StatusOr<MaxAvailModel> a = Side(after, "after");
  if (!a.ok()) return a.status();
  in.before = *std::move(b);
  in.after = *std::move(a);
  in.usage_before = before.osd_usage;
  in.usage_start = before.osd_usage;
  for (const auto& [osd, u] : after.osd_usage) in.usage_start[osd] = u;
  return in;
}

absl::StatusOr<ChangeSafety> AssessChangeSafety(const SafetyInputs& in, const Movement& movement,
                                                const BackfillSchedule* schedule,
                                                const FillTimelineOptions& fill_options) {
  ChangeSafety s;
  s.backfillfull_ratio = std::max(movement.risks.backfillfull_ratio, movement.risks.nearfull_ratio);
  if (schedule != nullptr) {
    absl::StatusOr<FillTimeline> fill = ComputeFillTimeline(movement, *schedule, fill_options);
    if (!fill.ok()) return fill.status();
    s.fill = *std::move(fill);
    s.stalls = schedule->stalls;
    s.pgs_never_starting = schedule->jobs_never_starting;
    if (s.pgs_never_starting > 0) {
      s.notes.push_back(absl::StrCat(
          s.pgs_never_starting,
          " PGs would stay in backfill_toofull for good: their target never drains below the "
          "backfillfull ratio, so the change cannot finish as one step"));
    }
  }
  if (in.usage_before.empty()) {
    s.notes.push_back("MAX AVAIL per pool needs `ceph osd df -f json` (import it with --osd-df)");
    return s;
  }
  if (movement.bytes_source == BytesSource::kUnknown) {
    s.notes.push_back(
        "MAX AVAIL after the change needs PG sizes: import `ceph pg dump -f json` (--pg-stats) "
        "or `ceph df -f json` (--df)");
  }
  const std::vector<PoolMaxAvail> before = in.before.Compute(in.usage_before);
  const std::vector<PoolMaxAvail> after =
      in.after.Compute(Projected(in, movement, [](const OsdMovement& o) { return o.used_after; }));
  std::map<std::int32_t, std::uint64_t> peak_used;
  if (s.fill) {
    for (const OsdFillPeak& p : s.fill->osds) peak_used[p.osd] = p.used_peak;
  }
  const std::vector<PoolMaxAvail> peak =
      s.fill
          ? in.after.Compute(Projected(in, movement,
                                       [&](const OsdMovement& o) {
                                         auto it = peak_used.find(o.osd);
                                         return it == peak_used.end() ? o.used_after : it->second;
                                       }))
          : after;
  // The same pools on both sides (CheckComparable), in pool id order.
  for (std::size_t i = 0; i < after.size() && i < before.size(); ++i) {
    PoolAvailChange c;
    c.pool_id = after[i].pool_id;
    c.pool_name = after[i].pool_name;
    c.before = before[i].max_avail_bytes;
    c.after = after[i].max_avail_bytes;
    // Every OSD's peak is at least its start and its end, so this is at
    // most `after` and at most the after map over the starting usage.
    c.peak = peak[i].max_avail_bytes;
    c.limiting_before = before[i].limiting_osd;
    c.limiting_peak = peak[i].limiting_osd;
    c.limiting_after = after[i].limiting_osd;
    s.pools.push_back(std::move(c));
  }
  return s;
}

}  // namespace crushkit::osdmap
