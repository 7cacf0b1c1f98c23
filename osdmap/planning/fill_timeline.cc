#include "osdmap/planning/fill_timeline.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"

namespace crushkit::osdmap {
namespace {

// A change of one OSD's use: from `seconds` on, `rate` bytes/s more (an
// arrival's start, or its end with a negative rate); or `step` bytes at once
// (a deletion, or an arrival that takes no time), deletions after the peak
// is read at that instant.
struct FillEvent {
  double seconds = 0;
  double rate = 0;
  double step = 0;
};

struct OsdFlows {
  double base = 0;  // used_before less the deletions at time 0
  std::vector<FillEvent> events;
  // Whole bytes gained less lost over the events: the end use exactly, where
  // integrating the rates piecewise would leave a few bytes of rounding.
  double net = 0;
};

double Ratio(double used, std::uint64_t capacity) {
  return capacity > 0 ? used / static_cast<double>(capacity) : 0;
}

std::uint64_t Bytes(double v) { return v <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(v)); }

// At most this many steps per deleted copy: a PG of 60,000 objects is 2,000
// transactions, and one event each made the sample's plan 16x slower. A
// step then frees several transactions' bytes at its last one's time, so
// the use is never shown lower than the transactions would leave it.
constexpr std::uint64_t kMaxDeletionSteps = 64;

// The leaving copy of `m` on one OSD as PG::do_delete_work removes it: a
// step per transaction of `per_txn` objects, `sleep` apart, from `at` on
// (transactions grouped into kMaxDeletionSteps steps when there are more).
void AddDeletion(const PgMove& m, double at, std::uint32_t per_txn, double sleep,
                 std::vector<FillEvent>* events, double* net) {
  const auto bytes = static_cast<double>(m.bytes_per_target);
  const std::uint64_t objects = m.objects_per_target;
  if (per_txn == 0 || objects <= per_txn) {
    events->push_back({at, 0, -bytes});
    *net -= bytes;
    return;
  }
  // Whole bytes freed by the first k transactions, so the steps add up to
  // the copy exactly.
  auto freed = [&](std::uint64_t done) {
    return std::round(bytes * static_cast<double>(done) / static_cast<double>(objects));
  };
  const std::uint64_t transactions = (objects + per_txn - 1) / per_txn;
  const std::uint64_t per_step = (transactions + kMaxDeletionSteps - 1) / kMaxDeletionSteps;
  for (std::uint64_t first = 0; first < transactions; first += per_step) {
    const std::uint64_t last = std::min(transactions, first + per_step) - 1;
    const std::uint64_t done = first * per_txn;
    const std::uint64_t next = std::min(objects, (last + 1) * per_txn);
    events->push_back({at + static_cast<double>(last) * sleep, 0, freed(done) - freed(next)});
    *net += freed(done) - freed(next);
  }
}

absl::StatusOr<std::map<std::int32_t, OsdFlows>> BuildFlows(const Movement& movement,
                                                            const BackfillSchedule& schedule,
                                                            const FillTimelineOptions& options) {
  if (schedule.jobs.size() != movement.moves.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the schedule has ", schedule.jobs.size(), " jobs but the movement ",
                     movement.moves.size(), " moves: not its schedule, or moves were not kept"));
  }
  std::map<std::int32_t, OsdFlows> flows;
  std::map<std::int32_t, double> leaving_in_moves;
  std::map<std::int32_t, double> sleep;  // osd_delete_sleep of each OSD
  for (const OsdMovement& o : movement.osds) {
    flows[o.osd].base = static_cast<double>(o.used_before);
    auto it = options.delete_sleep_seconds.find(o.device_class);
    sleep[o.osd] = it == options.delete_sleep_seconds.end() ? 0 : it->second;
  }
  const double delay =
      options.delete_delay_seconds >= 0 ? options.delete_delay_seconds : schedule.end_delay_seconds;
  for (std::size_t j = 0; j < movement.moves.size(); ++j) {
    const PgMove& m = movement.moves[j];
    const BackfillJobTiming& t = schedule.jobs[j];
    const auto bytes = static_cast<double>(m.bytes_per_target);
    for (const std::int32_t o : m.leaving) leaving_in_moves[o] += bytes;
    if (t.never_starts) continue;
    for (const std::int32_t o : m.targets) {
      auto it = flows.find(o);
      if (it == flows.end()) continue;
      const double d = t.end_seconds - t.start_seconds;
      it->second.net += bytes;
      if (d > 0) {
        it->second.events.push_back({t.start_seconds, bytes / d, 0});
        it->second.events.push_back({t.end_seconds, -bytes / d, 0});
      } else {
        // Landed at once: an arrival step, marked positive, read before
        // the peak at its instant.
        it->second.events.push_back({t.end_seconds, 0, bytes});
      }
    }
    // The replaced copy goes when the PG is clean again: after the map that
    // drops its pg_temp (PeeringState purges strays once clean).
    for (const std::int32_t o : m.leaving) {
      if (auto it = flows.find(o); it != flows.end()) {
        AddDeletion(m, t.end_seconds + delay, options.delete_objects_per_transaction, sleep[o],
                    &it->second.events, &it->second.net);
      }
    }
  }
  // What leaves without a backfill (a PG that only loses members) goes at once.
  for (const OsdMovement& o : movement.osds) {
    const double attributed = leaving_in_moves[o.osd];
    const double at_once = static_cast<double>(o.bytes_out) - attributed;
    if (at_once > 0) flows[o.osd].base -= at_once;
  }
  return flows;
}

}  // namespace

FillTimelineOptions CephFillTimelineOptions(RecoveryScheduler scheduler,
                                            double delete_delay_seconds) {
  FillTimelineOptions o;
  o.delete_delay_seconds = delete_delay_seconds;
  // osd_delete_sleep_hdd's default (src/common/options/global.yaml.in);
  // mClock overrides every sleep to 0 (mClockScheduler).
  if (scheduler == RecoveryScheduler::kWpq) o.delete_sleep_seconds.emplace("hdd", 5.0);
  return o;
}

absl::StatusOr<FillTimeline> ComputeFillTimeline(const Movement& movement,
                                                 const BackfillSchedule& schedule,
                                                 const FillTimelineOptions& options) {
  absl::StatusOr<std::map<std::int32_t, OsdFlows>> flows = BuildFlows(movement, schedule, options);
  if (!flows.ok()) return flows.status();
  FillTimeline out;
  out.osds.reserve(movement.osds.size());
  for (const OsdMovement& o : movement.osds) {
    OsdFlows& f = (*flows)[o.osd];
    std::sort(f.events.begin(), f.events.end(),
              [](const FillEvent& a, const FillEvent& b) { return a.seconds < b.seconds; });
    OsdFillPeak p;
    p.osd = o.osd;
    p.capacity_bytes = o.capacity_bytes;
    p.capacity_from_osd_df = o.capacity_from_osd_df;
    p.used_before = o.used_before;
    double used = f.base, rate = 0, at = 0;
    double peak = std::max(static_cast<double>(o.used_before), used);
    double peak_at = 0;
    for (std::size_t i = 0; i < f.events.size();) {
      const double t = f.events[i].seconds;
      used += rate * (t - at);
      at = t;
      std::size_t k = i;
      for (; k < f.events.size() && f.events[k].seconds == t; ++k) {
        if (f.events[k].step > 0) used += f.events[k].step;
      }
      if (used > peak) {
        peak = used;
        peak_at = t;
      }
      for (; i < k; ++i) {
        rate += f.events[i].rate;
        if (f.events[i].step < 0) used += f.events[i].step;
      }
    }
    used = f.base + f.net;
    peak = std::max(peak, used);  // the rounding the exact end removed
    p.used_peak = Bytes(peak);
    p.used_after = Bytes(used);
    p.peak_seconds = peak_at;
    p.fill_before = Ratio(static_cast<double>(p.used_before), p.capacity_bytes);
    p.fill_peak = Ratio(peak, p.capacity_bytes);
    p.fill_after = Ratio(used, p.capacity_bytes);
    out.osds.push_back(p);
  }
  std::sort(out.osds.begin(), out.osds.end(), [](const OsdFillPeak& a, const OsdFillPeak& b) {
    return a.fill_peak != b.fill_peak ? a.fill_peak > b.fill_peak : a.osd < b.osd;
  });
  if (!out.osds.empty()) {
    out.riskiest_osd = out.osds.front().osd;
    out.riskiest_fill = out.osds.front().fill_peak;
    out.riskiest_seconds = out.osds.front().peak_seconds;
  }
  return out;
}

absl::StatusOr<std::uint64_t> OsdUsedAt(const Movement& movement, const BackfillSchedule& schedule,
                                        std::int32_t osd, double seconds,
                                        const FillTimelineOptions& options) {
  absl::StatusOr<std::map<std::int32_t, OsdFlows>> flows = BuildFlows(movement, schedule, options);
  if (!flows.ok()) return flows.status();
  const bool known = std::any_of(movement.osds.begin(), movement.osds.end(),
                                 [&](const OsdMovement& o) { return o.osd == osd; });
  if (!known) return absl::NotFoundError(absl::StrCat("osd.", osd, " is not in the movement"));
  const OsdFlows& f = (*flows)[osd];
  // Integrate the rates up to `seconds`; steps at or before it count.
  double used = f.base, rate = 0, at = 0;
  std::vector<FillEvent> events = f.events;
  std::sort(events.begin(), events.end(),
            [](const FillEvent& a, const FillEvent& b) { return a.seconds < b.seconds; });
  for (const FillEvent& e : events) {
    if (e.seconds > seconds) break;
    used += rate * (e.seconds - at);
    at = e.seconds;
    rate += e.rate;
    used += e.step;
  }
  used += rate * (seconds - at);
  return Bytes(used);
}

}  // namespace crushkit::osdmap
