#include "osdmap/backfill_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>

#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"

namespace crushkit::osdmap {
namespace {

constexpr std::int32_t kMaxOsdId = 1 << 24;
constexpr std::uint32_t kNoIndex = std::numeric_limits<std::uint32_t>::max();
constexpr double kMiB = 1024.0 * 1024.0;

// A request queued on a reserver. AsyncReserver::do_queues grants the highest
// priority first and, within a priority, the oldest request (`seq` counts
// requests in the order they were made).
struct Request {
  int priority = 0;
  std::uint64_t seq = 0;
  std::uint32_t job = 0;
};

struct RequestAfter {  // std::priority_queue puts the "largest" on top

  bool operator()(const Request& a, const Request& b) const {
    if (a.priority != b.priority) return a.priority < b.priority;
    return a.seq > b.seq;
  }
};

using RequestQueue = std::priority_queue<Request, std::vector<Request>, RequestAfter>;

struct Pending {
  std::uint32_t osd = 0;
  bool local = false;
  Request request;
};

// One OSD taking part: its two reservers, and the clocks of its load.
struct OsdSim {
  std::int32_t id = 0;
  const BackfillRate* rate = nullptr;
  std::uint32_t host = kNoIndex;
  int local_free = 0;
  int remote_free = 0;
  RequestQueue local_queue;
  RequestQueue remote_queue;
  bool dirty = false;  // queued for the next grant phase
  int held = 0;        // reservations held (local + remote)
  double held_since = 0;
  double busy = 0;
  int running = 0;  // its backfills moving data
  double running_since = 0;
  double transfer = 0;
  std::uint32_t jobs_as_primary = 0;
  std::uint32_t jobs_as_target = 0;
  std::uint64_t bytes_in = 0;
};

struct HostSim {
  std::string name;
  int held = 0;
  double held_since = 0;
  double busy = 0;
  double osd_busy = 0;
  std::uint32_t osds = 0;
};

// A job flattened: OSDs are dense indices into Simulator::osds_.
struct JobSim {
  std::uint32_t primary = kNoIndex;
  std::uint32_t remote_begin = 0;  // remotes_[remote_begin, remote_end): ascending OSD id
  std::uint32_t remote_end = 0;
  std::uint32_t next_remote = 0;
  std::uint64_t misplaced = 0;  // objects x targets
  double duration = 0;
};

struct Completion {
  double seconds = 0;
  std::uint32_t job = 0;

  bool operator>(const Completion& o) const {
    return seconds != o.seconds ? seconds > o.seconds : job > o.job;
  }
};

class Simulator {
 public:
  Simulator(std::span<const BackfillJob> jobs, const BackfillOsdInfo& info,
            const BackfillOptions& options)
      : in_(jobs), info_(info), opt_(options) {}

  absl::Status Setup();
  absl::Status Run();
  BackfillSchedule Report();

 private:
  absl::StatusOr<std::uint32_t> Dense(std::int32_t osd, const BackfillJob& job);
  absl::Status Flatten(std::uint32_t j);
  void Trace(BackfillTraceEvent::Kind kind, std::uint32_t job, std::uint32_t osd) const;
  void Hold(std::uint32_t osd, int delta);
  void Running(std::uint32_t osd, int delta);
  void MarkDirty(std::uint32_t osd);
  void Enqueue(std::uint32_t osd, bool local, std::uint32_t job);
  void Advance(std::uint32_t job);
  void Pump();
  void Finish(std::uint32_t job);
  std::vector<MisplacedPoint> ThinCurve() const;

  std::span<const BackfillJob> in_;
  const BackfillOsdInfo& info_;
  const BackfillOptions& opt_;

  std::vector<std::uint32_t> dense_;  // OSD id -> index into osds_, kNoIndex if unused
  std::vector<OsdSim> osds_;
  std::vector<HostSim> hosts_;
  std::map<std::string, std::uint32_t, std::less<>> host_index_;
  std::vector<JobSim> jobs_;
  std::vector<std::uint32_t> remotes_;
  std::vector<BackfillJobTiming> timings_;
  std::vector<Pending> pending_;  // requests made during the current grant phase
  std::vector<std::uint32_t> dirty_;
  std::vector<std::uint32_t> phase_;  // the OSDs a grant phase visits
  std::vector<std::int32_t> scratch_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> events_;
  std::vector<MisplacedPoint> curve_;
  std::uint64_t seq_ = 0;
  std::uint64_t misplaced_ = 0;
  std::uint64_t bytes_total_ = 0;
  double now_ = 0;
};

std::string PgName(const BackfillJob& job) { return absl::StrCat("pg ", FormatPgId(job.pg)); }

// The OSD's dense index, creating its state (reservers, rate, host) on first
// use; rejects ids the simulation cannot index and rates it cannot run at.
absl::StatusOr<std::uint32_t> Simulator::Dense(std::int32_t osd, const BackfillJob& job) {
  if (osd < 0 || osd > kMaxOsdId) {
    return absl::InvalidArgumentError(
        absl::StrCat(PgName(job), ": osd id ", osd, " out of range [0, ", kMaxOsdId, "]"));
  }
  const auto id = static_cast<std::size_t>(osd);
  if (id >= dense_.size()) dense_.resize(std::max(id + 1, dense_.size() * 2), kNoIndex);
  if (dense_[id] != kNoIndex) return dense_[id];
  OsdSim& o = osds_.emplace_back();
  o.id = osd;
  o.local_free = opt_.max_backfills;
  o.remote_free = opt_.max_backfills;
  const std::string empty;
  const std::string& cls = id < info_.device_class.size() ? info_.device_class[id] : empty;
  const auto it = opt_.class_rates.find(cls);
  o.rate = cls.empty() || it == opt_.class_rates.end() ? &opt_.default_rate : &it->second;
  if (!(o.rate->bytes_per_second > 0) || !std::isfinite(o.rate->bytes_per_second) ||
      !(o.rate->objects_per_second >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(PgName(job), ": osd.", osd, " (class '", cls, "') has backfill rate ",
                     o.rate->bytes_per_second, " bytes/s, ", o.rate->objects_per_second,
                     " objects/s: bytes/s must be > 0 and objects/s >= 0"));
  }
  if (id < info_.host.size() && !info_.host[id].empty()) {
    auto [h, inserted] =
        host_index_.try_emplace(info_.host[id], static_cast<std::uint32_t>(hosts_.size()));
    if (inserted) hosts_.push_back(HostSim{.name = info_.host[id]});
    o.host = h->second;
    ++hosts_[o.host].osds;
  }
  dense_[id] = static_cast<std::uint32_t>(osds_.size() - 1);
  return dense_[id];
}

// Builds job `j`'s reservation list (PeeringState's
// remote_shards_to_reserve_backfill: unique OSDs, primary excluded, in the
// ascending order of the std::set it iterates) and its duration.
absl::Status Simulator::Flatten(std::uint32_t j) {
  const BackfillJob& job = in_[j];
  if (job.targets.empty()) return absl::InvalidArgumentError(PgName(job) + ": no targets");
  JobSim& s = jobs_[j];
  double bytes_rate = std::numeric_limits<double>::infinity();
  double objects_rate = 0;
  if (job.primary != crush::kItemNone) {
    CRUSH_ASSIGN_OR_RETURN(s.primary, Dense(job.primary, job));
    OsdSim& p = osds_[s.primary];
    ++p.jobs_as_primary;
    bytes_rate = p.rate->bytes_per_second;
    objects_rate = p.rate->objects_per_second;
  }
  std::vector<std::int32_t>& sorted = scratch_;
  sorted.assign(job.targets.begin(), job.targets.end());
  std::sort(sorted.begin(), sorted.end());
  s.remote_begin = static_cast<std::uint32_t>(remotes_.size());
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    CRUSH_ASSIGN_OR_RETURN(const std::uint32_t t, Dense(sorted[k], job));
    osds_[t].bytes_in += job.bytes_per_target;
    if (k > 0 && sorted[k] == sorted[k - 1]) continue;
    ++osds_[t].jobs_as_target;
    bytes_rate = std::min(bytes_rate, osds_[t].rate->bytes_per_second);
    if (s.primary == kNoIndex && osds_[t].rate->objects_per_second > 0) {
      objects_rate = objects_rate > 0 ? std::min(objects_rate, osds_[t].rate->objects_per_second)
                                      : osds_[t].rate->objects_per_second;
    }
    if (t != s.primary) remotes_.push_back(t);
  }
  s.remote_end = static_cast<std::uint32_t>(remotes_.size());
  s.next_remote = s.remote_begin;
  s.misplaced = job.objects_per_target * job.targets.size();
  s.duration = static_cast<double>(job.bytes_per_target) / bytes_rate;
  if (objects_rate > 0) {
    s.duration = std::max(s.duration, static_cast<double>(job.objects_per_target) / objects_rate);
  }
  misplaced_ += s.misplaced;
  bytes_total_ += job.bytes_per_target * job.targets.size();
  return absl::OkStatus();
}

absl::Status Simulator::Setup() {
  if (opt_.max_backfills < 1) {
    return absl::InvalidArgumentError(absl::StrCat("max_backfills is ", opt_.max_backfills,
                                                   ": no backfill could ever be reserved"));
  }
  if (in_.size() >= kNoIndex) return absl::InvalidArgumentError("too many backfill jobs");
  jobs_.resize(in_.size());
  timings_.resize(in_.size());
  for (std::uint32_t j = 0; j < in_.size(); ++j) CRUSH_RETURN_IF_ERROR(Flatten(j));
  return absl::OkStatus();
}

void Simulator::Trace(BackfillTraceEvent::Kind kind, std::uint32_t job, std::uint32_t osd) const {
  if (opt_.trace) {
    opt_.trace(
        BackfillTraceEvent{kind, now_, job, osd == kNoIndex ? crush::kItemNone : osds_[osd].id});
  }
}

// Busy clocks: an OSD (and its host) is busy while it holds any reservation.
void Simulator::Hold(std::uint32_t osd, int delta) {
  OsdSim& o = osds_[osd];
  if (o.held == 0) o.held_since = now_;
  o.held += delta;
  if (o.held == 0) o.busy += now_ - o.held_since;
  if (o.host == kNoIndex) return;
  HostSim& h = hosts_[o.host];
  if (h.held == 0) h.held_since = now_;
  h.held += delta;
  if (h.held == 0) h.busy += now_ - h.held_since;
}

void Simulator::Running(std::uint32_t osd, int delta) {
  OsdSim& o = osds_[osd];
  if (o.running == 0) o.running_since = now_;
  o.running += delta;
  if (o.running == 0) o.transfer += now_ - o.running_since;
}

void Simulator::MarkDirty(std::uint32_t osd) {
  if (osds_[osd].dirty) return;
  osds_[osd].dirty = true;
  dirty_.push_back(osd);
}

// A request made during a grant phase waits in pending_ until the phase ends,
// so what a phase grants never depends on the order it visits OSDs in.
void Simulator::Enqueue(std::uint32_t osd, bool local, std::uint32_t job) {
  pending_.push_back(Pending{osd, local, Request{in_[job].priority, seq_++, job}});
}

// The job's next step after a grant: ask the next target for its remote slot
// (WaitRemoteBackfillReserved asks them one at a time), or, holding every
// slot, start moving data.
void Simulator::Advance(std::uint32_t job) {
  JobSim& s = jobs_[job];
  if (s.next_remote < s.remote_end) {
    Enqueue(remotes_[s.next_remote++], /*local=*/false, job);
    return;
  }
  timings_[job].start_seconds = now_;
  Trace(BackfillTraceEvent::Kind::kStarted, job, s.primary);
  if (s.primary != kNoIndex) Running(s.primary, +1);
  for (std::uint32_t k = s.remote_begin; k < s.remote_end; ++k) Running(remotes_[k], +1);
  events_.push(Completion{now_ + s.duration, job});
}

// Grants free slots to queue heads until nothing changes (AsyncReserver::
// do_queues on every reserver that gained a slot or a request).
void Simulator::Pump() {
  std::vector<std::uint32_t>& phase = phase_;
  for (;;) {
    for (const Pending& p : pending_) {
      (p.local ? osds_[p.osd].local_queue : osds_[p.osd].remote_queue).push(p.request);
      MarkDirty(p.osd);
    }
    pending_.clear();
    if (dirty_.empty()) return;
    phase.swap(dirty_);
    dirty_.clear();
    for (const std::uint32_t osd : phase) {
      OsdSim& o = osds_[osd];
      o.dirty = false;
      while (o.local_free > 0 && !o.local_queue.empty()) {
        const std::uint32_t job = o.local_queue.top().job;
        o.local_queue.pop();
        --o.local_free;
        Hold(osd, +1);
        Trace(BackfillTraceEvent::Kind::kLocalGranted, job, osd);
        Advance(job);
      }
      while (o.remote_free > 0 && !o.remote_queue.empty()) {
        const std::uint32_t job = o.remote_queue.top().job;
        o.remote_queue.pop();
        --o.remote_free;
        Hold(osd, +1);
        Trace(BackfillTraceEvent::Kind::kRemoteGranted, job, osd);
        Advance(job);
      }
    }
    phase.clear();
  }
}

void Simulator::Finish(std::uint32_t job) {
  JobSim& s = jobs_[job];
  timings_[job].end_seconds = now_;
  misplaced_ -= s.misplaced;
  if (s.primary != kNoIndex) {
    OsdSim& p = osds_[s.primary];
    ++p.local_free;
    Hold(s.primary, -1);
    Running(s.primary, -1);
    Trace(BackfillTraceEvent::Kind::kLocalReleased, job, s.primary);
    MarkDirty(s.primary);
  }
  for (std::uint32_t k = s.remote_begin; k < s.remote_end; ++k) {
    const std::uint32_t t = remotes_[k];
    ++osds_[t].remote_free;
    Hold(t, -1);
    Running(t, -1);
    Trace(BackfillTraceEvent::Kind::kRemoteReleased, job, t);
    MarkDirty(t);
  }
}

absl::Status Simulator::Run() {
  const auto total = static_cast<double>(opt_.objects_total);
  auto point = [&] {
    const double ratio = opt_.objects_total > 0 ? static_cast<double>(misplaced_) / total : 0;
    // One point per instant, but the opening (0, everything) stays even when
    // empty PGs finish at time 0.
    if (curve_.size() > 1 && curve_.back().seconds == now_) curve_.pop_back();
    if (!curve_.empty() && curve_.back().seconds == now_ &&
        curve_.back().objects_misplaced == misplaced_) {
      return;
    }
    curve_.push_back(MisplacedPoint{now_, misplaced_, ratio});
  };
  point();
  // Every PG asks at time 0, in input order: the primary's local reserver
  // first (WaitLocalBackfillReserved); a PG without a primary goes straight
  // to its remote reservations.
  for (std::uint32_t j = 0; j < jobs_.size(); ++j) {
    if (jobs_[j].primary != kNoIndex) {
      Enqueue(jobs_[j].primary, /*local=*/true, j);
    } else {
      Advance(j);
    }
  }
  Pump();
  std::size_t finished = 0;
  while (!events_.empty()) {
    now_ = events_.top().seconds;
    while (!events_.empty() && events_.top().seconds == now_) {
      Finish(events_.top().job);
      events_.pop();
      ++finished;
    }
    point();
    Pump();
  }
  if (finished != jobs_.size()) {
    // Unreachable: reservations are taken in one global order (local first,
    // then remotes by ascending OSD id), so some holder can always proceed.
    return absl::InternalError(absl::StrCat("backfill simulation stalled with ",
                                            jobs_.size() - finished, " jobs never started"));
  }
  return absl::OkStatus();
}

// At most curve_max_points points: the first, then the first point at or
// after each of evenly spaced instants, and always the last.
std::vector<MisplacedPoint> Simulator::ThinCurve() const {
  const std::size_t max = std::max<std::size_t>(opt_.curve_max_points, 2);
  if (opt_.curve_max_points == 0 || curve_.size() <= max) return curve_;
  std::vector<MisplacedPoint> out;
  out.reserve(max);
  const double step = curve_.back().seconds / static_cast<double>(max - 1);
  double next = 0;
  for (std::size_t i = 0; i + 1 < curve_.size(); ++i) {
    if (curve_[i].seconds < next) continue;
    out.push_back(curve_[i]);
    next = step * static_cast<double>(out.size());
    if (out.size() + 1 == max) break;
  }
  out.push_back(curve_.back());
  return out;
}

BackfillSchedule Simulator::Report() {
  BackfillSchedule r;
  r.makespan_seconds = now_;
  r.bytes_total = bytes_total_;
  r.misplaced = ThinCurve();
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
  std::vector<std::uint32_t> order(jobs_.size());
  for (std::uint32_t j = 0; j < order.size(); ++j) order[j] = j;
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

}  // namespace

std::vector<BackfillJob> JobsFromMoves(std::span<const PgMove> moves) {
  std::vector<BackfillJob> jobs;
  jobs.reserve(moves.size());
  for (const PgMove& m : moves) {
    jobs.push_back(BackfillJob{m.pg, m.source, m.targets, m.bytes_per_target, m.objects_per_target,
                               m.degraded ? kBackfillDegradedPriority : kBackfillPriority});
  }
  return jobs;
}

std::map<std::string, BackfillRate, std::less<>> DefaultBackfillRates() {
  return {{"hdd", {100 * kMiB, 10}}, {"ssd", {400 * kMiB, 0}}, {"nvme", {1024 * kMiB, 0}}};
}

BackfillOsdInfo OsdInfoFromMovement(const Movement& movement) {
  BackfillOsdInfo info;
  for (const OsdMovement& o : movement.osds) {
    if (o.osd < 0 || o.osd > kMaxOsdId) continue;
    const auto i = static_cast<std::size_t>(o.osd);
    if (i >= info.host.size()) {
      info.host.resize(i + 1);
      info.device_class.resize(i + 1);
    }
    info.host[i] = o.host;
    info.device_class[i] = o.device_class;
  }
  return info;
}

absl::StatusOr<BackfillSchedule> SimulateBackfill(std::span<const BackfillJob> jobs,
                                                  const BackfillOsdInfo& osd_info,
                                                  const BackfillOptions& options) {
  Simulator sim(jobs, osd_info, options);
  CRUSH_RETURN_IF_ERROR(sim.Setup());
  CRUSH_RETURN_IF_ERROR(sim.Run());
  return sim.Report();
}

absl::StatusOr<BackfillSchedule> SimulateMovementBackfill(const Movement& movement,
                                                          BackfillOptions options) {
  if (options.objects_total == 0) options.objects_total = movement.totals.objects_total;
  const std::vector<BackfillJob> jobs = JobsFromMoves(movement.moves);
  return SimulateBackfill(jobs, OsdInfoFromMovement(movement), options);
}

}  // namespace crushkit::osdmap
