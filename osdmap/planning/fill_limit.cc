#include "osdmap/planning/fill_limit.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace crushkit::osdmap {

FillTracker::FillTracker(const Movement& at_once, double limit) : limit_(limit) {
  for (const OsdMovement& o : at_once.osds) {
    if (!o.capacity_from_osd_df || o.capacity_bytes == 0) continue;
    space_[o.osd] = {o.capacity_bytes, static_cast<std::int64_t>(o.used_before)};
  }
}

FillPeak FillTracker::Peak(std::int32_t osd, const OsdSpace& s, std::uint64_t incoming) const {
  FillPeak p;
  p.osd = osd;
  p.capacity = s.capacity;
  p.used_start = s.used > 0 ? static_cast<std::uint64_t>(s.used) : 0;
  p.incoming = incoming;
  const auto cap = static_cast<double>(s.capacity);
  p.start_fill = static_cast<double>(p.used_start) / cap;
  p.fill = (static_cast<double>(p.used_start) + static_cast<double>(incoming)) / cap;
  return p;
}

FillPeak FillTracker::WorstTarget(std::span<const OsdMovement> step) const {
  FillPeak worst;
  for (const OsdMovement& o : step) {
    if (o.bytes_in == 0) continue;
    auto it = space_.find(o.osd);
    if (it == space_.end()) continue;
    const FillPeak p = Peak(o.osd, it->second, o.bytes_in);
    if (worst.osd == crush::kItemNone || p.fill > worst.fill) worst = p;
  }
  return worst;
}

FillPeak FillTracker::WorstTarget(std::span<const PgMove* const> moves) const {
  std::map<std::int32_t, std::uint64_t> incoming;
  for (const PgMove* m : moves) {
    for (const std::int32_t t : m->targets) incoming[t] += m->bytes_per_target;
  }
  FillPeak worst;
  for (const auto& [osd, bytes] : incoming) {
    auto it = space_.find(osd);
    if (it == space_.end() || bytes == 0) continue;
    const FillPeak p = Peak(osd, it->second, bytes);
    if (worst.osd == crush::kItemNone || p.fill > worst.fill) worst = p;
  }
  return worst;
}

void FillTracker::Apply(std::span<const OsdMovement> step) {
  for (const OsdMovement& o : step) {
    auto it = space_.find(o.osd);
    if (it == space_.end()) continue;
    it->second.used +=
        static_cast<std::int64_t>(o.bytes_in) - static_cast<std::int64_t>(o.bytes_out);
  }
}

void FillTracker::Apply(std::span<const PgMove* const> moves) {
  for (const PgMove* m : moves) {
    const auto b = static_cast<std::int64_t>(m->bytes_per_target);
    for (const std::int32_t t : m->targets) {
      if (auto it = space_.find(t); it != space_.end()) it->second.used += b;
    }
    for (const std::int32_t l : m->leaving) {
      if (auto it = space_.find(l); it != space_.end()) it->second.used -= b;
    }
  }
}

bool FillTracker::Space(std::int32_t osd, std::uint64_t* used, std::uint64_t* capacity) const {
  auto it = space_.find(osd);
  if (it == space_.end()) return false;
  *used = it->second.used > 0 ? static_cast<std::uint64_t>(it->second.used) : 0;
  *capacity = it->second.capacity;
  return true;
}

std::vector<FillProblem> FinalStateOverLimit(const Movement& at_once, double limit) {
  std::vector<FillProblem> out;
  if (limit <= 0) return out;
  for (const OsdMovement& o : at_once.osds) {
    if (!o.capacity_from_osd_df || o.capacity_bytes == 0 || o.bytes_in == 0) continue;
    if (o.fill_after < limit) continue;
    FillProblem p;
    p.step = -1;
    p.where = "after the change";
    p.osd = o.osd;
    p.fill = o.fill_after;
    p.limit = limit;
    p.start_fill = o.fill_before;
    p.reason =
        "the change's final state itself is over the limit; no order or split of steps avoids it";
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const FillProblem& a, const FillProblem& b) {
    return a.fill != b.fill ? a.fill > b.fill : a.osd < b.osd;
  });
  return out;
}

std::string DescribeFillProblem(const FillProblem& p) {
  return absl::StrFormat("osd.%d %s %.1f%% %s%s (%.1f points over the %.3g%% limit; %.1f%% %s): %s",
                         p.osd, p.step < 0 ? "ends at" : "would reach", 100 * p.fill,
                         p.step < 0 ? "" : "in ", p.where, 100 * (p.fill - p.limit), 100 * p.limit,
                         100 * p.start_fill, p.step < 0 ? "before it" : "at the step's start",
                         p.reason);
}

}  // namespace crushkit::osdmap
