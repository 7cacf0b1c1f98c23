#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "osdmap/planning/backfill_simulator.h"

namespace crushkit::osdmap::backfill_internal {

BackfillSchedule Simulator::Report() {
  BackfillSchedule r;
  // The last end (deletions may come after it; never-starting jobs end the
  // simulation at the time they were given up).
  r.makespan_seconds = jobs_.empty() ? 0 : last_end_ + opt_.end_delay_seconds;
  r.end_delay_seconds = jobs_.empty() ? 0 : opt_.end_delay_seconds;
  r.jobs_never_starting = never_;
  r.preemptions = preemptions_;
  r.mean_running = running_busy_ > 0 ? running_integral_ / running_busy_ : 0;
  r.max_running = max_running_;
  r.bytes_total = bytes_total_;
  r.misplaced = MisplacedCurve();
  r.osds.reserve(osds_.size());
  for (const OsdSim& o : osds_) {
    r.osds.push_back(
        OsdBackfillLoad{o.id, o.busy, o.transfer, o.jobs_as_primary, o.jobs_as_target, o.bytes_in});
    if (o.host != kNoIndex) hosts_[o.host].osd_busy += o.busy;
  }
  std::sort(r.osds.begin(), r.osds.end(), [](const OsdBackfillLoad& a, const OsdBackfillLoad& b) {
    return a.busy_seconds != b.busy_seconds ? a.busy_seconds > b.busy_seconds : a.osd < b.osd;
  });
  for (const auto& [name, index] : host_index_) {
    const HostSim& h = hosts_[index];
    r.hosts.push_back(HostBackfillLoad{name, h.busy, h.osd_busy, h.osds});
  }
  std::stable_sort(r.hosts.begin(), r.hosts.end(),
                   [](const HostBackfillLoad& a, const HostBackfillLoad& b) {
                     return a.busy_seconds > b.busy_seconds;
                   });
  for (std::uint32_t j = 0; j < jobs_.size(); ++j) {
    const BackfillJobTiming& t = timings_[j];
    if (t.toofull_refusals == 0) continue;
    r.stalls.push_back(BackfillStall{j, in_[j].pg, t.toofull_osd, t.toofull_refusals,
                                     toofull_[j].since, t.toofull_seconds, t.never_starts});
  }
  std::stable_sort(r.stalls.begin(), r.stalls.end(),
                   [](const BackfillStall& a, const BackfillStall& b) {
                     if (a.never_starts != b.never_starts) return a.never_starts;
                     return a.seconds > b.seconds;
                   });
  std::vector<std::uint32_t> order;
  order.reserve(jobs_.size());
  for (std::uint32_t j = 0; j < jobs_.size(); ++j) {
    if (!timings_[j].never_starts) order.push_back(j);
  }
  const std::size_t top = std::min(opt_.top_waits, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                    [&](std::uint32_t a, std::uint32_t b) {
                      const double wa = timings_[a].start_seconds, wb = timings_[b].start_seconds;
                      return wa != wb ? wa > wb : a < b;
                    });
  for (std::size_t i = 0; i < top; ++i) {
    const std::uint32_t j = order[i];
    r.longest_waits.push_back(BackfillWait{j, in_[j].pg, in_[j].priority, timings_[j].start_seconds,
                                           timings_[j].start_seconds, timings_[j].end_seconds});
  }
  r.jobs = std::move(timings_);
  return r;
}

}  // namespace crushkit::osdmap::backfill_internal
