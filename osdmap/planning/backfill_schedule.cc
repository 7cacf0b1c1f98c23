#include "osdmap/planning/backfill_schedule.h"

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
// All at once: PGs tried per slot an OSD frees (PumpAllAtOnce).
constexpr int kAllAtOnceTries = 16;

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
  // All at once: PGs waiting for this OSD's local / remote slot (parked on
  // the first OSD that lacks the slot they need).
  RequestQueue parked_local;
  RequestQueue parked_remote;
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
  // The jobs holding its local slots (waiting for remote slots with hold and
  // wait, else running): a stray deletion preempts one of them.
  std::vector<std::uint32_t> local_holders;
  // backfill_toofull: capacity x ratio (0: never refuses) and the projected
  // use the target's check adds a request's bytes to.
  double room = 0;
  double projected = 0;
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
  // Stray deletions: the hold of its next start (duration, or what is left
  // after a preemption plus the scan again), when the running hold ends,
  // the rescan's cost, and a generation that makes a revoked hold's end
  // event stale.
  double hold = 0;
  double ends_at = 0;
  double rescan = 0;
  std::uint32_t generation = 0;
  bool started = false;
  bool running = false;
  // Hold and wait: its request to remotes_[next_remote - 1] is queued, with
  // this seq (a preemption revokes it; the reserver then skips it).
  bool remote_outstanding = false;
  std::uint64_t remote_seq = 0;
  std::uint32_t leaving_begin = 0;  // leaving_[leaving_begin, leaving_end): dense OSDs
  std::uint32_t leaving_end = 0;
  // backfill_toofull bookkeeping: when first refused, how many refusals in
  // a row saw no job start in between (progress_ at the last one).
  double toofull_since = 0;
  std::uint32_t futile = 0;
  std::uint64_t progress_at_refusal = 0;
  bool waiting_retry = false;
  bool listed = false;  // in Simulator::retrying_
  Request wait_key;     // all at once: its place in the reservers' order
};

// A job's end, a stray deletion on `osd`, or (retry) a refused job asking
// again. At one instant ends come first, so a retry sees the copies deleted
// at that instant, then deletions, then retries.
struct Completion {
  enum Kind : std::uint8_t { kEnd, kDelete, kRetry };

  double seconds = 0;
  std::uint32_t job = 0;
  Kind kind = kEnd;
  std::uint32_t osd = kNoIndex;  // kDelete
  std::uint32_t generation = 0;  // kEnd: the job's generation when it started

  bool operator>(const Completion& o) const {
    if (seconds != o.seconds) return seconds > o.seconds;
    if (kind != o.kind) return kind > o.kind;
    if (job != o.job) return job > o.job;
    return osd > o.osd;
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
  void Wait(std::uint32_t job);
  void Place(std::uint32_t job);
  void StartAllAtOnce(std::uint32_t job);
  void PumpAllAtOnce();
  void Finish(std::uint32_t job);
  void StrayDeleted(std::uint32_t osd);
  void Preempt(std::uint32_t job);
  bool TooFull(std::uint32_t osd, double bytes) const;
  void Refuse(std::uint32_t job, std::uint32_t osd, bool holds_local);
  void Retry(std::uint32_t job);
  bool NothingCanStart() const;
  void GiveUp();
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
  std::vector<double> remote_bytes_;  // per remotes_ entry: bytes_per_target x its shards there
  std::vector<std::uint32_t> leaving_;
  std::vector<BackfillJobTiming> timings_;
  std::vector<Pending> pending_;  // requests made during the current grant phase
  std::vector<std::uint32_t> dirty_;
  std::vector<std::uint32_t> phase_;      // the OSDs a grant phase visits
  std::vector<Request> candidates_;       // all-at-once: PGs that may start now
  std::vector<std::uint32_t> unsettled_;  // all-at-once: free slot, PGs still parked
  std::vector<std::int32_t> scratch_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> events_;
  std::vector<MisplacedPoint> curve_;
  std::uint64_t seq_ = 0;
  std::uint64_t misplaced_ = 0;
  std::uint64_t bytes_total_ = 0;
  double now_ = 0;
  // backfill_toofull: jobs started (progress_), running, waiting to retry.
  bool check_space_ = false;
  std::uint64_t progress_ = 0;
  std::uint32_t running_jobs_ = 0;
  std::vector<std::uint32_t> retrying_;
  double last_end_ = 0;
  std::uint32_t never_ = 0;
  std::uint32_t preemptions_ = 0;
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
  if (check_space_ && id < info_.capacity_bytes.size() && info_.capacity_bytes[id] > 0) {
    o.room = *opt_.backfillfull_ratio * static_cast<double>(info_.capacity_bytes[id]);
    o.projected = id < info_.used_bytes.size() ? static_cast<double>(info_.used_bytes[id]) : 0;
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
    if (k > 0 && sorted[k] == sorted[k - 1]) {
      if (t != s.primary) remote_bytes_.back() += static_cast<double>(job.bytes_per_target);
      continue;
    }
    ++osds_[t].jobs_as_target;
    bytes_rate = std::min(bytes_rate, osds_[t].rate->bytes_per_second);
    if (s.primary == kNoIndex && osds_[t].rate->objects_per_second > 0) {
      objects_rate = objects_rate > 0 ? std::min(objects_rate, osds_[t].rate->objects_per_second)
                                      : osds_[t].rate->objects_per_second;
    }
    if (t != s.primary) {
      remotes_.push_back(t);
      remote_bytes_.push_back(static_cast<double>(job.bytes_per_target));
    }
  }
  s.remote_end = static_cast<std::uint32_t>(remotes_.size());
  s.next_remote = s.remote_begin;
  s.misplaced = job.objects_per_target * job.targets.size();
  const double bytes_time = static_cast<double>(job.bytes_per_target) / bytes_rate;
  const double objects_time =
      objects_rate > 0 ? static_cast<double>(job.objects_per_target) / objects_rate : 0;
  // The cost model's rates (backfill_cost.h) add up; the plain ones bind.
  const BackfillRate& lead =
      *osds_[s.primary != kNoIndex ? s.primary : remotes_[s.remote_begin]].rate;
  s.duration = lead.additive ? lead.per_pg_seconds + objects_time + bytes_time
                             : std::max(bytes_time, objects_time);
  s.hold = s.duration;
  s.rescan = lead.additive ? lead.per_pg_seconds : 0;
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
  check_space_ = opt_.backfillfull_ratio.has_value() && !info_.capacity_bytes.empty();
  if (opt_.backfillfull_ratio && !(opt_.backfill_retry_seconds > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("backfill_retry_seconds is ", opt_.backfill_retry_seconds, ": must be > 0"));
  }
  for (const double d : {opt_.start_delay_seconds, opt_.end_delay_seconds}) {
    if (!(d >= 0) || !std::isfinite(d)) {
      return absl::InvalidArgumentError(
          absl::StrCat("start/end delay ", d, " s: must be a finite number >= 0"));
    }
  }
  jobs_.resize(in_.size());
  timings_.resize(in_.size());
  for (std::uint32_t j = 0; j < in_.size(); ++j) CRUSH_RETURN_IF_ERROR(Flatten(j));
  if (!(opt_.stray_delete_delay_seconds < std::numeric_limits<double>::infinity())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stray_delete_delay_seconds ", opt_.stray_delete_delay_seconds, ": must be finite"));
  }
  if (!check_space_ && opt_.stray_delete_delay_seconds < 0) return absl::OkStatus();
  // A copy deleted when its PG finishes frees space, and its deletion
  // preempts, only on an OSD taking part; others are not tracked.
  for (std::uint32_t j = 0; j < in_.size(); ++j) {
    jobs_[j].leaving_begin = static_cast<std::uint32_t>(leaving_.size());
    for (const std::int32_t o : in_[j].leaving) {
      const auto id = static_cast<std::size_t>(o);
      if (o >= 0 && id < dense_.size() && dense_[id] != kNoIndex) leaving_.push_back(dense_[id]);
    }
    jobs_[j].leaving_end = static_cast<std::uint32_t>(leaving_.size());
  }
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
    // The target checks its space when the request arrives, before queueing
    // it (PeeringState RepNotRecovering::react(RequestBackfillPrio)), and
    // counts the PG's bytes as reserved from then on.
    const std::uint32_t t = remotes_[s.next_remote];
    const double bytes = remote_bytes_[s.next_remote];
    if (TooFull(t, bytes)) {
      Refuse(job, t, /*holds_local=*/true);
      return;
    }
    osds_[t].projected += bytes;
    ++s.next_remote;
    Enqueue(t, /*local=*/false, job);
    s.remote_outstanding = true;
    s.remote_seq = seq_ - 1;
    return;
  }
  if (!s.started) {
    s.started = true;
    timings_[job].start_seconds = now_;
    if (timings_[job].toofull_refusals > 0) {
      timings_[job].toofull_seconds = now_ - s.toofull_since;
    }
  }
  ++progress_;
  ++running_jobs_;
  s.running = true;
  Trace(BackfillTraceEvent::Kind::kStarted, job, s.primary);
  if (s.primary != kNoIndex) Running(s.primary, +1);
  for (std::uint32_t k = s.remote_begin; k < s.remote_end; ++k) Running(remotes_[k], +1);
  s.ends_at = now_ + s.hold;
  events_.push(Completion{.seconds = s.ends_at,
                          .job = job,
                          .kind = Completion::kEnd,
                          .osd = kNoIndex,
                          .generation = s.generation});
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
        o.local_holders.push_back(job);
        Hold(osd, +1);
        Trace(BackfillTraceEvent::Kind::kLocalGranted, job, osd);
        Advance(job);
      }
      while (o.remote_free > 0 && !o.remote_queue.empty()) {
        const Request top = o.remote_queue.top();
        const std::uint32_t job = top.job;
        o.remote_queue.pop();
        if (!jobs_[job].remote_outstanding || jobs_[job].remote_seq != top.seq) continue;
        jobs_[job].remote_outstanding = false;
        --o.remote_free;
        Hold(osd, +1);
        Trace(BackfillTraceEvent::Kind::kRemoteGranted, job, osd);
        Advance(job);
      }
    }
    phase.clear();
  }
}

// All at once (BackfillOptions::hold_and_wait false): the PG waits, holding
// nothing, for its primary's local slot and every target's remote slot; it
// is tried at the next grant phase.
void Simulator::Wait(std::uint32_t job) {
  jobs_[job].wait_key = Request{in_[job].priority, seq_++, job};
  candidates_.push_back(jobs_[job].wait_key);
}

// Starts the PG when every slot it needs is free, else parks it on the first
// OSD lacking one (its primary's local slot, then the targets' remote slots
// in ascending order): it is tried again when that OSD frees a slot. Each
// try either starts the PG or moves it to an OSD that is busy now, so a
// grant phase costs the PGs it tries, not every PG waiting on the OSD.
void Simulator::Place(std::uint32_t job) {
  JobSim& s = jobs_[job];
  if (s.primary != kNoIndex && osds_[s.primary].local_free <= 0) {
    osds_[s.primary].parked_local.push(s.wait_key);
    return;
  }
  for (std::uint32_t k = s.remote_begin; k < s.remote_end; ++k) {
    if (osds_[remotes_[k]].remote_free <= 0) {
      osds_[remotes_[k]].parked_remote.push(s.wait_key);
      return;
    }
  }
  StartAllAtOnce(job);
}

// Every slot is free: the targets check their space in ascending order (as
// the remote requests would arrive), then the PG takes its local slot and
// every remote one and starts.
void Simulator::StartAllAtOnce(std::uint32_t job) {
  JobSim& s = jobs_[job];
  for (std::uint32_t k = s.remote_begin; k < s.remote_end; ++k) {
    if (TooFull(remotes_[k], remote_bytes_[k])) {
      Refuse(job, remotes_[k], /*holds_local=*/false);
      return;
    }
  }
  if (s.primary != kNoIndex) {
    --osds_[s.primary].local_free;
    osds_[s.primary].local_holders.push_back(job);
    Hold(s.primary, +1);
    Trace(BackfillTraceEvent::Kind::kLocalGranted, job, s.primary);
  }
  for (; s.next_remote < s.remote_end; ++s.next_remote) {
    OsdSim& t = osds_[remotes_[s.next_remote]];
    --t.remote_free;
    t.projected += remote_bytes_[s.next_remote];
    Hold(remotes_[s.next_remote], +1);
    Trace(BackfillTraceEvent::Kind::kRemoteGranted, job, remotes_[s.next_remote]);
  }
  Advance(job);
}

// A grant phase, all at once: the PGs that just began waiting and, from
// every OSD that freed a slot, the first kAllAtOnceTries parked PGs per free
// slot are tried together, highest priority then oldest first (the
// reservers' order). Those that cannot start are parked again. Trying only
// the first few keeps large schedules fast: in a busy cluster most PGs
// parked on an OSD also wait for another one, and trying them all at every
// release made 100,000 PGs on 1,000 OSDs take 17 s instead of 0.7 s. A PG
// not tried stays parked, in order, for the next release.
void Simulator::PumpAllAtOnce() {
  std::vector<Request> batch;
  batch.swap(candidates_);
  for (const std::uint32_t osd : unsettled_) MarkDirty(osd);
  unsettled_.clear();
  for (const std::uint32_t osd : dirty_) {
    OsdSim& o = osds_[osd];
    o.dirty = false;
    for (int n = 0; n < kAllAtOnceTries * o.local_free && !o.parked_local.empty(); ++n) {
      batch.push_back(o.parked_local.top());
      o.parked_local.pop();
    }
    for (int n = 0; n < kAllAtOnceTries * o.remote_free && !o.parked_remote.empty(); ++n) {
      batch.push_back(o.parked_remote.top());
      o.parked_remote.pop();
    }
  }
  std::sort(batch.begin(), batch.end(),
            [](const Request& x, const Request& y) { return RequestAfter()(y, x); });
  for (const Request& k : batch) Place(k.job);
  // An OSD whose free slot none of the PGs tried took, with PGs still parked
  // on it, tries the next ones at the next event (or at once when nothing
  // else is left to happen: Run).
  for (const std::uint32_t osd : dirty_) {
    const OsdSim& o = osds_[osd];
    if ((o.local_free > 0 && !o.parked_local.empty()) ||
        (o.remote_free > 0 && !o.parked_remote.empty())) {
      unsettled_.push_back(osd);
    }
  }
  dirty_.clear();
}

void Simulator::Finish(std::uint32_t job) {
  JobSim& s = jobs_[job];
  timings_[job].end_seconds = now_;
  last_end_ = now_;
  --running_jobs_;
  misplaced_ -= s.misplaced;
  // The old copies go once the PG is clean (the primary purges its strays).
  s.running = false;
  const bool deletions = opt_.stray_delete_delay_seconds >= 0;
  for (std::uint32_t k = s.leaving_begin; k < s.leaving_end; ++k) {
    osds_[leaving_[k]].projected -= static_cast<double>(in_[job].bytes_per_target);
    if (deletions) {
      events_.push(Completion{.seconds = now_ + opt_.stray_delete_delay_seconds,
                              .job = job,
                              .kind = Completion::kDelete,
                              .osd = leaving_[k],
                              .generation = 0});
    }
  }
  if (s.primary != kNoIndex) {
    OsdSim& p = osds_[s.primary];
    std::erase(p.local_holders, job);
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

// A stray copy's deletion asks `osd`'s local reserver at kDeletePriority:
// with a slot free it takes and releases it at once; on a full reserver it
// preempts the lowest-priority backfill holding a slot there (then the
// lowest PG id), as AsyncReserver::do_queues does.
void Simulator::StrayDeleted(std::uint32_t osd) {
  const OsdSim& o = osds_[osd];
  if (o.local_free > 0 || o.local_holders.empty()) return;
  std::uint32_t victim = o.local_holders.front();
  for (const std::uint32_t j : o.local_holders) {
    if (in_[j].priority < in_[victim].priority ||
        (in_[j].priority == in_[victim].priority && in_[j].pg < in_[victim].pg)) {
      victim = j;
    }
  }
  if (in_[victim].priority < kDeletePriority) Preempt(victim);
}

// DeferBackfill(0) from the preempted local reservation: the PG releases
// its local slot and every remote one it holds (with the bytes they
// reserved; Backfilling::cancel_backfill, or the request still queued at a
// target with hold and wait), the targets keep what was copied, and the PG
// asks again at once, behind every PG already waiting. A running one's next
// hold is what was left plus the scan again.
void Simulator::Preempt(std::uint32_t job) {
  JobSim& s = jobs_[job];
  ++timings_[job].preemptions;
  ++preemptions_;
  Trace(BackfillTraceEvent::Kind::kPreempted, job, s.primary);
  OsdSim& p = osds_[s.primary];
  std::erase(p.local_holders, job);
  ++p.local_free;
  Hold(s.primary, -1);
  MarkDirty(s.primary);
  std::uint32_t granted_end = s.next_remote;
  if (s.remote_outstanding) {
    s.remote_outstanding = false;
    --granted_end;
    osds_[remotes_[granted_end]].projected -= remote_bytes_[granted_end];
  }
  if (s.running) {
    s.running = false;
    ++s.generation;
    s.hold = std::max(0.0, s.ends_at - now_) + s.rescan;
    --running_jobs_;
    Running(s.primary, -1);
    for (std::uint32_t k = s.remote_begin; k < s.remote_end; ++k) Running(remotes_[k], -1);
  }
  for (std::uint32_t k = s.remote_begin; k < granted_end; ++k) {
    const std::uint32_t t = remotes_[k];
    ++osds_[t].remote_free;
    osds_[t].projected -= remote_bytes_[k];
    Hold(t, -1);
    Trace(BackfillTraceEvent::Kind::kRemoteReleased, job, t);
    MarkDirty(t);
  }
  s.next_remote = s.remote_begin;
  if (opt_.hold_and_wait) {
    Enqueue(s.primary, /*local=*/true, job);
  } else {
    Wait(job);
  }
}

// OSDService::tentative_backfill_full via recalc_full_state: refused when the
// projected ratio is above the backfillfull ratio (not at it).
bool Simulator::TooFull(std::uint32_t osd, double bytes) const {
  const OsdSim& o = osds_[osd];
  return o.room > 0 && o.projected + bytes > o.room;
}

// RemoteReservationRejectedTooFull: the PG enters backfill_toofull, gives
// back its local slot and every remote slot granted so far (with their
// reserved bytes), and schedules a retry (PeeringState::
// schedule_backfill_retry(osd_backfill_retry_interval)).
void Simulator::Refuse(std::uint32_t job, std::uint32_t osd, bool holds_local) {
  JobSim& s = jobs_[job];
  BackfillJobTiming& t = timings_[job];
  Trace(BackfillTraceEvent::Kind::kTooFull, job, osd);
  if (t.toofull_refusals++ == 0) s.toofull_since = now_;
  t.toofull_osd = osds_[osd].id;
  if (s.progress_at_refusal == progress_ && s.futile > 0) {
    ++s.futile;
  } else {
    s.futile = 1;
    s.progress_at_refusal = progress_;
  }
  if (holds_local && s.primary != kNoIndex) {
    std::erase(osds_[s.primary].local_holders, job);
    ++osds_[s.primary].local_free;
    Hold(s.primary, -1);
    Trace(BackfillTraceEvent::Kind::kLocalReleased, job, s.primary);
    MarkDirty(s.primary);
  }
  for (std::uint32_t k = s.remote_begin; k < s.next_remote; ++k) {
    const std::uint32_t r = remotes_[k];
    ++osds_[r].remote_free;
    osds_[r].projected -= remote_bytes_[k];
    Hold(r, -1);
    Trace(BackfillTraceEvent::Kind::kRemoteReleased, job, r);
    MarkDirty(r);
  }
  s.next_remote = s.remote_begin;
  s.waiting_retry = true;
  if (!s.listed) retrying_.push_back(job);
  s.listed = true;
  events_.push(Completion{.seconds = now_ + opt_.backfill_retry_seconds,
                          .job = job,
                          .kind = Completion::kRetry,
                          .osd = kNoIndex,
                          .generation = 0});
}

// RequestBackfill again: back to WaitLocalBackfillReserved, at the end of the
// primary's queue for its priority.
void Simulator::Retry(std::uint32_t job) {
  JobSim& s = jobs_[job];
  s.waiting_retry = false;
  Trace(BackfillTraceEvent::Kind::kRetry, job, s.primary);
  if (!opt_.hold_and_wait) {
    Wait(job);
  } else if (s.primary != kNoIndex) {
    Enqueue(s.primary, /*local=*/true, job);
  } else {
    Advance(job);
  }
}

// Nothing runs, so no copy will be deleted and no space freed; every job
// still waiting was refused at least twice since the last start. A refused
// job holds nothing, so the next round sees the same space: none can start.
bool Simulator::NothingCanStart() const {
  if (running_jobs_ > 0 || retrying_.empty()) return false;
  std::size_t waiting = 0;
  for (const std::uint32_t j : retrying_) {
    if (!jobs_[j].waiting_retry) continue;
    ++waiting;
    if (jobs_[j].futile < 2 || jobs_[j].progress_at_refusal != progress_) return false;
  }
  return waiting > 0 && waiting == events_.size();
}

void Simulator::GiveUp() {
  for (const std::uint32_t j : retrying_) {
    jobs_[j].listed = false;
    if (!jobs_[j].waiting_retry) continue;
    jobs_[j].waiting_retry = false;
    BackfillJobTiming& t = timings_[j];
    t.never_starts = true;
    t.start_seconds = t.end_seconds = now_;
    t.toofull_seconds = now_ - jobs_[j].toofull_since;
    ++never_;
  }
  retrying_.clear();
  while (!events_.empty()) events_.pop();
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
  now_ = opt_.start_delay_seconds;
  // Every PG asks at the start delay, in input order: the primary's local reserver
  // first (WaitLocalBackfillReserved); a PG without a primary goes straight
  // to its remote reservations. All at once: every PG waits for all its slots.
  for (std::uint32_t j = 0; j < jobs_.size(); ++j) {
    if (!opt_.hold_and_wait) {
      Wait(j);
    } else if (jobs_[j].primary != kNoIndex) {
      Enqueue(jobs_[j].primary, /*local=*/true, j);
    } else {
      Advance(j);
    }
  }
  const auto pump = [&] {
    if (opt_.hold_and_wait) return Pump();
    PumpAllAtOnce();
    // Nothing running: every slot is free, so each parked PG starts or is
    // refused; try them all now rather than at an event that may not come.
    while ((events_.empty() || running_jobs_ == 0) && !unsettled_.empty()) PumpAllAtOnce();
  };
  pump();
  std::size_t finished = 0;
  while (!events_.empty()) {
    now_ = events_.top().seconds;
    bool ended = false;
    while (!events_.empty() && events_.top().seconds == now_) {
      const Completion e = events_.top();
      events_.pop();
      if (e.kind == Completion::kRetry) {
        Retry(e.job);
      } else if (e.kind == Completion::kDelete) {
        StrayDeleted(e.osd);
      } else if (e.generation == jobs_[e.job].generation) {  // else revoked meanwhile
        Finish(e.job);
        ++finished;
        ended = true;
      }
    }
    if (ended) point();
    pump();
    if (!retrying_.empty()) {
      std::erase_if(retrying_, [&](std::uint32_t j) {
        if (jobs_[j].waiting_retry) return false;
        jobs_[j].listed = false;
        return true;
      });
      if (NothingCanStart()) GiveUp();
    }
  }
  if (finished + never_ != jobs_.size()) {
    // Unreachable: reservations are taken in one global order (local first,
    // then remotes by ascending OSD id), or all at once, so some holder can
    // always proceed.
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
  // The last end (deletions may come after it; never-starting jobs end the
  // simulation at the time they were given up).
  r.makespan_seconds = jobs_.empty() ? 0 : last_end_ + opt_.end_delay_seconds;
  r.end_delay_seconds = jobs_.empty() ? 0 : opt_.end_delay_seconds;
  r.jobs_never_starting = never_;
  r.preemptions = preemptions_;
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
  for (std::uint32_t j = 0; j < jobs_.size(); ++j) {
    const BackfillJobTiming& t = timings_[j];
    if (t.toofull_refusals == 0) continue;
    r.stalls.push_back(BackfillStall{j, in_[j].pg, t.toofull_osd, t.toofull_refusals,
                                     jobs_[j].toofull_since, t.toofull_seconds, t.never_starts});
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

}  // namespace

std::vector<BackfillJob> JobsFromMoves(std::span<const PgMove> moves) {
  std::vector<BackfillJob> jobs;
  jobs.reserve(moves.size());
  for (const PgMove& m : moves) {
    jobs.push_back(BackfillJob{m.pg, m.pusher, m.targets, m.bytes_per_target, m.objects_per_target,
                               m.degraded ? kBackfillDegradedPriority : kBackfillPriority,
                               m.leaving});
  }
  return jobs;
}

std::map<std::string, BackfillRate, std::less<>> DefaultBackfillRates() {
  constexpr double kMebibyte = 1024.0 * 1024.0;
  return {{"hdd", {100 * kMebibyte, 10}},
          {"ssd", {400 * kMebibyte, 0}},
          {"nvme", {1024 * kMebibyte, 0}}};
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
    if (o.capacity_from_osd_df && o.capacity_bytes > 0) {
      if (i >= info.capacity_bytes.size()) {
        info.capacity_bytes.resize(i + 1);
        info.used_bytes.resize(i + 1);
      }
      info.capacity_bytes[i] = o.capacity_bytes;
      info.used_bytes[i] = o.used_before;
    }
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
  if (!options.backfillfull_ratio) {
    options.backfillfull_ratio =
        std::max(movement.risks.backfillfull_ratio, movement.risks.nearfull_ratio);
  }
  const std::vector<BackfillJob> jobs = JobsFromMoves(movement.moves);
  return SimulateBackfill(jobs, OsdInfoFromMovement(movement), options);
}

}  // namespace crushkit::osdmap
