#include "osdmap/planning/fill_timeline.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"

#include "crush/util/chunk_pipeline.h"

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

// Every OSD of the movement (slot = its first position in movement.osds)
// and its events, one flat array: slot i's are events[begin[i], begin[i+1]),
// in the order the moves made them (the sort of each range and the sums
// depend on it; the one-map-per-OSD version made them in the same order).
struct Flows {
  std::vector<std::int32_t> slot_of;  // OSD id -> slot; -1: not in the movement
  std::vector<double> base;           // used_before less the deletions at time 0
  // Whole bytes gained less lost over the events: the end use exactly, where
  // integrating the rates piecewise would leave a few bytes of rounding.
  std::vector<double> net;
  std::vector<std::size_t> begin;  // slots + 1 offsets into events
  std::vector<FillEvent> events;

  std::int32_t Slot(std::int32_t osd) const {
    return osd >= 0 && static_cast<std::size_t>(osd) < slot_of.size()
               ? slot_of[static_cast<std::size_t>(osd)]
               : -1;
  }

  std::span<FillEvent> Of(std::size_t slot) {
    return {events.data() + begin[slot], events.data() + begin[slot + 1]};
  }
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

// Transactions per step of a copy of `objects` deleted `per_txn` objects at
// a time (0: the whole copy in one step).
std::uint64_t TransactionsPerStep(std::uint64_t objects, std::uint32_t per_txn) {
  if (per_txn == 0 || objects <= per_txn) return 0;
  const std::uint64_t transactions = (objects + per_txn - 1) / per_txn;
  return (transactions + kMaxDeletionSteps - 1) / kMaxDeletionSteps;
}

// The number of events AddDeletion adds for a copy of `objects`.
std::size_t DeletionSteps(std::uint64_t objects, std::uint32_t per_txn) {
  const std::uint64_t per_step = TransactionsPerStep(objects, per_txn);
  if (per_step == 0) return 1;
  const std::uint64_t transactions = (objects + per_txn - 1) / per_txn;
  return static_cast<std::size_t>((transactions + per_step - 1) / per_step);
}

// The leaving copy of `m` on one OSD as PG::do_delete_work removes it: a
// step per transaction of `per_txn` objects, `sleep` apart, from `at` on
// (transactions grouped into kMaxDeletionSteps steps when there are more),
// written at `out` (DeletionSteps events).
void AddDeletion(const PgMove& m, double at, std::uint32_t per_txn, double sleep, FillEvent* out,
                 double* net) {
  const auto bytes = static_cast<double>(m.bytes_per_target);
  const std::uint64_t objects = m.objects_per_target;
  const std::uint64_t per_step = TransactionsPerStep(objects, per_txn);
  if (per_step == 0) {
    *out = {at, 0, -bytes};
    *net -= bytes;
    return;
  }
  // Whole bytes freed by the first k transactions, so the steps add up to
  // the copy exactly.
  auto freed = [&](std::uint64_t done) {
    return std::round(bytes * static_cast<double>(done) / static_cast<double>(objects));
  };
  const std::uint64_t transactions = (objects + per_txn - 1) / per_txn;
  for (std::uint64_t first = 0; first < transactions; first += per_step) {
    const std::uint64_t last = std::min(transactions, first + per_step) - 1;
    const std::uint64_t done = first * per_txn;
    const std::uint64_t next = std::min(objects, (last + 1) * per_txn);
    *out++ = {at + static_cast<double>(last) * sleep, 0, freed(done) - freed(next)};
    *net += freed(done) - freed(next);
  }
}

// The slots of movement.osds, each OSD's base use and delete sleep; the
// bytes each gives up inside moves in `leaving`.
Flows MakeSlots(const Movement& movement, const FillTimelineOptions& options,
                std::vector<double>& sleep) {
  Flows f;
  std::int32_t top = -1;
  for (const OsdMovement& o : movement.osds) top = std::max(top, o.osd);
  f.slot_of.assign(static_cast<std::size_t>(top + 1), -1);
  for (const OsdMovement& o : movement.osds) {
    if (o.osd < 0) continue;
    std::int32_t& slot = f.slot_of[static_cast<std::size_t>(o.osd)];
    if (slot < 0) {
      slot = static_cast<std::int32_t>(f.base.size());
      f.base.push_back(0);
      sleep.push_back(0);
    }
    // As the per-OSD map did: the last entry of an OSD listed twice wins.
    f.base[static_cast<std::size_t>(slot)] = static_cast<double>(o.used_before);
    auto it = options.delete_sleep_seconds.find(o.device_class);
    sleep[static_cast<std::size_t>(slot)] =
        it == options.delete_sleep_seconds.end() ? 0 : it->second;
  }
  f.net.assign(f.base.size(), 0);
  f.begin.assign(f.base.size() + 1, 0);
  return f;
}

// Counts each slot's events into f.begin (offsets) and sums the bytes the
// slots give up inside moves.
void CountEvents(const Movement& movement, const BackfillSchedule& schedule,
                 const FillTimelineOptions& options, Flows& f, std::vector<double>& leaving) {
  std::vector<std::size_t>& n = f.begin;
  for (std::size_t j = 0; j < movement.moves.size(); ++j) {
    const PgMove& m = movement.moves[j];
    const BackfillJobTiming& t = schedule.jobs[j];
    for (const std::int32_t o : m.leaving) {
      if (const std::int32_t s = f.Slot(o); s >= 0)
        leaving[static_cast<std::size_t>(s)] += static_cast<double>(m.bytes_per_target);
    }
    if (t.never_starts) continue;
    const std::size_t arrival = t.end_seconds - t.start_seconds > 0 ? 2 : 1;
    for (const std::int32_t o : m.targets) {
      if (const std::int32_t s = f.Slot(o); s >= 0) n[static_cast<std::size_t>(s) + 1] += arrival;
    }
    const std::size_t steps =
        DeletionSteps(m.objects_per_target, options.delete_objects_per_transaction);
    for (const std::int32_t o : m.leaving) {
      if (const std::int32_t s = f.Slot(o); s >= 0) n[static_cast<std::size_t>(s) + 1] += steps;
    }
  }
  for (std::size_t i = 1; i < n.size(); ++i) n[i] += n[i - 1];
  f.events.resize(n.back());
}

absl::StatusOr<Flows> BuildFlows(const Movement& movement, const BackfillSchedule& schedule,
                                 const FillTimelineOptions& options) {
  if (schedule.jobs.size() != movement.moves.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the schedule has ", schedule.jobs.size(), " jobs but the movement ",
                     movement.moves.size(), " moves: not its schedule, or moves were not kept"));
  }
  std::vector<double> sleep;
  Flows f = MakeSlots(movement, options, sleep);
  std::vector<double> leaving_in_moves(f.base.size(), 0);
  CountEvents(movement, schedule, options, f, leaving_in_moves);
  std::vector<std::size_t> next(f.begin.begin(), f.begin.end() - 1);
  const double delay =
      options.delete_delay_seconds >= 0 ? options.delete_delay_seconds : schedule.end_delay_seconds;
  for (std::size_t j = 0; j < movement.moves.size(); ++j) {
    const PgMove& m = movement.moves[j];
    const BackfillJobTiming& t = schedule.jobs[j];
    if (t.never_starts) continue;
    const auto bytes = static_cast<double>(m.bytes_per_target);
    const double d = t.end_seconds - t.start_seconds;
    for (const std::int32_t o : m.targets) {
      const std::int32_t s = f.Slot(o);
      if (s < 0) continue;
      const auto i = static_cast<std::size_t>(s);
      f.net[i] += bytes;
      if (d > 0) {
        f.events[next[i]++] = {t.start_seconds, bytes / d, 0};
        f.events[next[i]++] = {t.end_seconds, -bytes / d, 0};
      } else {
        // Landed at once: an arrival step, marked positive, read before
        // the peak at its instant.
        f.events[next[i]++] = {t.end_seconds, 0, bytes};
      }
    }
    // The replaced copy goes when the PG is clean again: after the map that
    // drops its pg_temp (PeeringState purges strays once clean).
    const std::size_t steps =
        DeletionSteps(m.objects_per_target, options.delete_objects_per_transaction);
    for (const std::int32_t o : m.leaving) {
      const std::int32_t s = f.Slot(o);
      if (s < 0) continue;
      const auto i = static_cast<std::size_t>(s);
      AddDeletion(m, t.end_seconds + delay, options.delete_objects_per_transaction, sleep[i],
                  &f.events[next[i]], &f.net[i]);
      next[i] += steps;
    }
  }
  // What leaves without a backfill (a PG that only loses members) goes at once.
  for (const OsdMovement& o : movement.osds) {
    const std::int32_t s = f.Slot(o.osd);
    if (s < 0) continue;
    const double at_once =
        static_cast<double>(o.bytes_out) - leaving_in_moves[static_cast<std::size_t>(s)];
    if (at_once > 0) f.base[static_cast<std::size_t>(s)] -= at_once;
  }
  return f;
}

bool EarlierEvent(const FillEvent& a, const FillEvent& b) { return a.seconds < b.seconds; }

// Events from which the sweeps go on every CPU (fewer: a thread costs more
// than it saves).
constexpr std::size_t kParallelEvents = 100000;

// movement.osds cut into chunks of about equal work (events, plus one per
// OSD): the OSDs a change adds take most of the events and have adjacent
// ids. Returns the cut positions, 0 first and osds.size() last.
std::vector<std::size_t> SweepChunks(const Movement& movement, Flows& flows) {
  const std::size_t target =
      std::max<std::size_t>(4096, (flows.events.size() + movement.osds.size()) / 64);
  std::vector<std::size_t> cuts = {0};
  std::size_t work = 0;
  for (std::size_t k = 0; k < movement.osds.size(); ++k) {
    const std::int32_t s = flows.Slot(movement.osds[k].osd);
    work += 1 + (s < 0 ? 0 : flows.Of(static_cast<std::size_t>(s)).size());
    if (work >= target) {
      cuts.push_back(k + 1);
      work = 0;
    }
  }
  if (cuts.back() != movement.osds.size()) cuts.push_back(movement.osds.size());
  return cuts;
}

// One OSD's peak over its events (sorted here) from its base use.
OsdFillPeak SweepOsd(const OsdMovement& o, std::span<FillEvent> events, double base, double net) {
  std::sort(events.begin(), events.end(), EarlierEvent);
  OsdFillPeak p;
  p.osd = o.osd;
  p.capacity_bytes = o.capacity_bytes;
  p.capacity_from_osd_df = o.capacity_from_osd_df;
  p.used_before = o.used_before;
  double used = base, rate = 0, at = 0;
  double peak = std::max(static_cast<double>(o.used_before), used);
  double peak_at = 0;
  for (std::size_t i = 0; i < events.size();) {
    const double t = events[i].seconds;
    used += rate * (t - at);
    at = t;
    std::size_t k = i;
    for (; k < events.size() && events[k].seconds == t; ++k) {
      if (events[k].step > 0) used += events[k].step;
    }
    if (used > peak) {
      peak = used;
      peak_at = t;
    }
    for (; i < k; ++i) {
      rate += events[i].rate;
      if (events[i].step < 0) used += events[i].step;
    }
  }
  used = base + net;
  peak = std::max(peak, used);  // the rounding the exact end removed
  p.used_peak = Bytes(peak);
  p.used_after = Bytes(used);
  p.peak_seconds = peak_at;
  p.fill_before = Ratio(static_cast<double>(p.used_before), p.capacity_bytes);
  p.fill_peak = Ratio(peak, p.capacity_bytes);
  p.fill_after = Ratio(used, p.capacity_bytes);
  p.fill_peak_min = p.fill_peak_max = p.fill_peak;
  return p;
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
  absl::StatusOr<Flows> flows = BuildFlows(movement, schedule, options);
  if (!flows.ok()) return flows.status();
  FillTimeline out;
  out.osds.resize(movement.osds.size());
  const std::vector<std::size_t> cuts = SweepChunks(movement, *flows);
  // Each OSD's sort and sweep are its own (an OSD listed twice would share
  // its events: one thread then).
  const bool unique = flows->base.size() == movement.osds.size();
  const int threads = !unique                                   ? 1
                      : options.threads > 0                     ? options.threads
                      : flows->events.size() >= kParallelEvents ? util::HardwareThreads()
                                                                : 1;
  util::ForEachChunk(cuts.size() - 1, threads, [&](int, std::uint64_t c) {
    for (std::size_t k = cuts[c]; k < cuts[c + 1]; ++k) {
      const OsdMovement& o = movement.osds[k];
      const std::int32_t s = flows->Slot(o.osd);
      out.osds[k] = s < 0 ? SweepOsd(o, {}, static_cast<double>(o.used_before), 0)
                          : SweepOsd(o, flows->Of(static_cast<std::size_t>(s)),
                                     flows->base[static_cast<std::size_t>(s)],
                                     flows->net[static_cast<std::size_t>(s)]);
    }
  });
  std::sort(out.osds.begin(), out.osds.end(), [](const OsdFillPeak& a, const OsdFillPeak& b) {
    return a.fill_peak != b.fill_peak ? a.fill_peak > b.fill_peak : a.osd < b.osd;
  });
  if (!out.osds.empty()) {
    out.riskiest_osd = out.osds.front().osd;
    out.riskiest_fill = out.osds.front().fill_peak;
    out.riskiest_seconds = out.osds.front().peak_seconds;
    out.riskiest_fill_min = out.riskiest_fill_max = out.riskiest_fill;
  }
  return out;
}

void WidenFillPeakRange(const FillTimeline& t, FillPeakRange& range) {
  const bool first = range.orders == 0;
  ++range.orders;
  for (const OsdFillPeak& o : t.osds) {
    auto [it, added] = range.osds.try_emplace(o.osd, o.fill_peak, o.fill_peak);
    if (added) continue;
    it->second.first = std::min(it->second.first, o.fill_peak);
    it->second.second = std::max(it->second.second, o.fill_peak);
  }
  range.riskiest_min = first ? t.riskiest_fill : std::min(range.riskiest_min, t.riskiest_fill);
  range.riskiest_max = first ? t.riskiest_fill : std::max(range.riskiest_max, t.riskiest_fill);
}

void ApplyFillPeakRange(const FillPeakRange& range, FillTimeline& t) {
  t.request_orders = range.orders;
  t.riskiest_fill_min = t.riskiest_fill_max = t.riskiest_fill;
  if (range.orders > 0) {
    t.riskiest_fill_min = std::min(t.riskiest_fill, range.riskiest_min);
    t.riskiest_fill_max = std::max(t.riskiest_fill, range.riskiest_max);
  }
  for (OsdFillPeak& o : t.osds) {
    o.fill_peak_min = o.fill_peak_max = o.fill_peak;
    const auto it = range.osds.find(o.osd);
    if (it == range.osds.end()) continue;
    o.fill_peak_min = std::min(o.fill_peak, it->second.first);
    o.fill_peak_max = std::max(o.fill_peak, it->second.second);
  }
}

absl::StatusOr<std::uint64_t> OsdUsedAt(const Movement& movement, const BackfillSchedule& schedule,
                                        std::int32_t osd, double seconds,
                                        const FillTimelineOptions& options) {
  absl::StatusOr<Flows> flows = BuildFlows(movement, schedule, options);
  if (!flows.ok()) return flows.status();
  const std::int32_t slot = flows->Slot(osd);
  if (slot < 0) return absl::NotFoundError(absl::StrCat("osd.", osd, " is not in the movement"));
  const auto s = static_cast<std::size_t>(slot);
  // Integrate the rates up to `seconds`; steps at or before it count.
  double used = flows->base[s], rate = 0, at = 0;
  const std::span<FillEvent> events = flows->Of(s);
  std::sort(events.begin(), events.end(), EarlierEvent);
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
