// The misplaced curve of a finished simulation (BackfillSchedule::misplaced,
// backfill_schedule.h), built from the jobs' start and end times.
//
// Ceph counts a backfilling PG's misplaced objects down object by object:
// PeeringState::update_calc_stats gives each backfill target num_objects -
// the target's own num_objects, and the primary raises the target's count as
// each pushed object completes (PrimaryLogPG::recover_backfill's
// pending_backfill_updates, update_complete_backfill_object_stats). So a
// PG's share of the curve falls linearly while it pushes, not at once at its
// end. The per-PG part of its hold (the first round's scan, the last round
// that finds nothing left: backfill_cost.h) is split evenly between both
// ends, and the hold is stretched to the real time the job ran (a shared
// primary's pace, the concurrency slowdown, the pause of a preemption).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "osdmap/planning/backfill_simulator.h"

namespace crushkit::osdmap::backfill_internal {
namespace {

// Where the curve bends: its slope changes by `slope` (objects per second)
// and it drops by `drop` objects at once (a PG with nothing to push).
struct CurveEvent {
  double seconds = 0;
  double slope = 0;
  double drop = 0;
};

// Appends (seconds, misplaced) unless it repeats the last point.
void Append(std::vector<MisplacedPoint>& curve, double seconds, double misplaced,
            std::uint64_t objects_total) {
  const auto objects = static_cast<std::uint64_t>(std::llround(std::max(misplaced, 0.0)));
  if (!curve.empty() && curve.back().seconds == seconds &&
      curve.back().objects_misplaced == objects) {
    return;
  }
  const double ratio =
      objects_total > 0 ? static_cast<double>(objects) / static_cast<double>(objects_total) : 0;
  curve.push_back(MisplacedPoint{seconds, objects, ratio});
}

}  // namespace

std::vector<MisplacedPoint> Simulator::MisplacedCurve() const {
  std::uint64_t total = 0;
  for (const JobSim& s : jobs_) total += s.misplaced;
  std::vector<MisplacedPoint> curve;
  Append(curve, 0, static_cast<double>(total), opt_.objects_total);
  if (total == misplaced_) return curve;  // nothing moved
  const auto remaining = static_cast<double>(misplaced_);
  if (opt_.curve_max_points == 1 || opt_.curve_max_points == 2) {
    // Its two ends only (calibration and request orders read no more).
    Append(curve, last_end_, remaining, opt_.objects_total);
    return curve;
  }
  std::vector<CurveEvent> events;
  events.reserve(2 * jobs_.size());
  for (std::uint32_t j = 0; j < jobs_.size(); ++j) {
    const JobSim& s = jobs_[j];
    const BackfillJobTiming& t = timings_[j];
    if (s.misplaced == 0 || !s.started || t.never_starts) continue;
    const auto m = static_cast<double>(s.misplaced);
    double from = t.start_seconds;
    double to = t.end_seconds;
    if (s.duration > 0 && s.rescan > 0) {
      const double half = 0.5 * std::min(s.rescan / s.duration, 1.0) * (to - from);
      from += half;
      to -= half;
    }
    if (to > from) {
      events.push_back(CurveEvent{from, -m / (to - from), 0});
      events.push_back(CurveEvent{to, m / (to - from), 0});
    } else {
      events.push_back(CurveEvent{from, 0, m});
    }
  }
  std::sort(events.begin(), events.end(),
            [](const CurveEvent& a, const CurveEvent& b) { return a.seconds < b.seconds; });
  double value = static_cast<double>(total);
  double slope = 0;
  double at = 0;
  for (std::size_t i = 0; i < events.size();) {
    const double t = events[i].seconds;
    value += slope * (t - at);
    at = t;
    double drop = 0;
    for (; i < events.size() && events[i].seconds == t; ++i) {
      slope += events[i].slope;
      drop += events[i].drop;
    }
    // A drop at once is two points at one instant: before and after.
    if (drop > 0) Append(curve, t, std::max(value, remaining), opt_.objects_total);
    value -= drop;
    Append(curve, t, std::max(value, remaining), opt_.objects_total);
  }
  // Flat from the last object pushed to the last end (its last round).
  Append(curve, std::max(last_end_, at), remaining, opt_.objects_total);
  return ThinCurve(std::move(curve));
}

// At most curve_max_points points: the first, then the first point at or
// after each of evenly spaced instants, and always the last.
std::vector<MisplacedPoint> Simulator::ThinCurve(std::vector<MisplacedPoint> curve) const {
  const std::size_t max = std::max<std::size_t>(opt_.curve_max_points, 2);
  if (opt_.curve_max_points == 0 || curve.size() <= max) return curve;
  std::vector<MisplacedPoint> out;
  out.reserve(max);
  const double step = curve.back().seconds / static_cast<double>(max - 1);
  double next = 0;
  for (std::size_t i = 0; i + 1 < curve.size(); ++i) {
    if (curve[i].seconds < next) continue;
    out.push_back(curve[i]);
    next = step * static_cast<double>(out.size());
    if (out.size() + 1 == max) break;
  }
  out.push_back(curve.back());
  return out;
}

}  // namespace crushkit::osdmap::backfill_internal
