// Internal to osdmap/planning: the state of SimulateBackfill's event-driven
// simulation (backfill_schedule.h has the model), shared by the files that
// implement it by job:
//   backfill_schedule.cc      set-up, the event loop, the public functions;
//   backfill_reservations.cc  the reservers: requests, grants, starts, ends,
//                             stray deletions and what they preempt;
//   backfill_toofull.cc       backfill_toofull refusals and retries;
//   backfill_schedule_report.cc  the schedule reported from the final state.
// Not installed; nothing outside SimulateBackfill uses it.
//
// Thread-safety: a Simulator is used by one thread, once.
#ifndef CRUSHKIT_OSDMAP_PLANNING_BACKFILL_SIMULATOR_H_
#define CRUSHKIT_OSDMAP_PLANNING_BACKFILL_SIMULATOR_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "osdmap/planning/backfill_schedule.h"

namespace crushkit::osdmap::backfill_internal {

inline constexpr std::int32_t kMaxOsdId = 1 << 24;
inline constexpr std::uint32_t kNoIndex = std::numeric_limits<std::uint32_t>::max();
// All at once: PGs tried per slot an OSD frees (PumpAllAtOnce).
inline constexpr int kAllAtOnceTries = 16;

// A request queued on a reserver. AsyncReserver::do_queues grants the highest
// priority first and, within a priority, the oldest request (`seq` counts
// requests in the order they were made).
struct Request {  // 16 bytes: the reservers' heaps hold one per waiting PG
  int priority = 0;
  std::uint32_t job = 0;
  std::uint64_t seq = 0;
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

// One OSD taking part: its two reservers, and the clocks of its load. What
// a grant, a release and a stray deletion read comes first (a stray
// deletion reads one line for local_free and local_holders), what set-up,
// all at once and the report read last.
struct alignas(64) OsdSim {
  int local_free = 0;
  int remote_free = 0;
  bool dirty = false;  // queued for the next grant phase
  std::uint32_t host = kNoIndex;
  // The jobs holding its local slots (waiting for remote slots with hold and
  // wait, else running): a stray deletion preempts one of them.
  std::vector<std::uint32_t> local_holders;
  // backfill_toofull: capacity x ratio (0: never refuses) and the projected
  // use the target's check adds a request's bytes to.
  double room = 0;
  double projected = 0;
  int held = 0;     // reservations held (local + remote)
  int running = 0;  // its backfills moving data
  RequestQueue local_queue;
  RequestQueue remote_queue;
  // Its running backfills as primary (they share its recovery: Reshare).
  std::vector<std::uint32_t> pushing;
  double pace = 1;  // theirs: min(1, max_backfills / pushing.size())
  double held_since = 0;
  double busy = 0;
  double running_since = 0;
  double transfer = 0;
  std::int32_t id = 0;
  const BackfillRate* rate = nullptr;
  // All at once: PGs waiting for this OSD's local / remote slot (parked on
  // the first OSD that lacks the slot they need).
  RequestQueue parked_local;
  RequestQueue parked_remote;
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
// The event loop visits a job at each grant, start, end and preemption, long
// after the last visit: every visit is a cache miss. So a job is two cache
// lines (alignas: one miss for the first, the adjacent line fetched with
// it), what a grant reads in the first; backfill_toofull's and all at
// once's bookkeeping is apart (Simulator::toofull_, wait_keys_), made only
// when the simulation can need it. The loop writes a job's start, end and
// preemptions here, not to timings_ (Simulator::Record).
struct alignas(64) JobSim {
  // First line: every grant, start, end and preemption.
  std::uint32_t primary = kNoIndex;
  // BackfillJob::priority, kept here: the event loop reads it at every
  // request and stray deletion, and the BackfillJob is a cache miss.
  int priority = 0;
  std::uint32_t remote_begin = 0;  // remotes_[remote_begin, remote_end): ascending OSD id
  std::uint32_t remote_end = 0;
  std::uint32_t next_remote = 0;
  // Stray deletions: a generation that makes a revoked hold's end event
  // stale.
  std::uint32_t generation = 0;
  bool started : 1 = false;
  bool running : 1 = false;
  bool finished : 1 = false;  // Finish ran: its objects are no longer misplaced
  // Hold and wait: a stray deletion took its local slot while it waited for
  // a target (Simulator::Leak); it goes on without one.
  bool local_leaked : 1 = false;
  // Hold and wait: its request to remotes_[next_remote - 1] is queued, with
  // remote_seq (a preemption revokes it; the reserver then skips it).
  bool remote_outstanding : 1 = false;
  bool refused : 1 = false;       // backfill_toofull refused it at least once
  std::uint32_t preemptions = 0;  // BackfillJobTiming::preemptions until Record
  std::uint64_t remote_seq = 0;
  // While it runs: the hold still to do at full pace, its pace (1, or less
  // while its primary pushes more than max_backfills: Simulator::Reshare),
  // and since when.
  // With the slowdown (k > 0) `since` and the end are on the slowdown's
  // clock (Simulator::Clock) instead of the real one.
  double work_left = 0;
  double pace = 1;
  double since = 0;
  // Second line: starts, ends, preemptions.
  std::uint32_t leaving_begin = 0;  // leaving_[leaving_begin, leaving_end): dense OSDs
  std::uint32_t leaving_end = 0;
  double leaving_bytes = 0;  // projected use each of them gives back (Freed)
  // The hold of its next start (duration, or what is left after a
  // preemption plus the scan again) and the rescan's cost.
  double hold = 0;
  double rescan = 0;
  // BackfillJobTiming's start_seconds and end_seconds until Record.
  double start_seconds = 0;
  double end_seconds = 0;
  std::uint64_t misplaced = 0;  // objects x targets
  double duration = 0;
};

static_assert(sizeof(JobSim) == 128);

// backfill_toofull bookkeeping of a job: when first refused, how many
// refusals in a row saw no job start and no space freed in between
// (progress_ at the last one).
struct TooFullSim {
  double since = 0;
  std::uint32_t futile = 0;
  std::uint64_t progress_at_refusal = 0;
  bool waiting_retry = false;
  bool listed = false;  // in Simulator::retrying_
};

// A job's end, a stray deletion on `osd`, the space it freed reaching that
// OSD's backfillfull check (freed), or (retry) a refused job asking again.
// At one instant ends come first, then deletions and frees, so a retry sees
// the space freed at that instant, then retries.
struct Completion {
  enum Kind : std::uint8_t { kEnd, kDelete, kFreed, kRetry };

  double seconds = 0;
  std::uint32_t job = 0;
  Kind kind = kEnd;
  std::uint32_t osd = kNoIndex;  // kDelete, kFreed
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
  // Run's part: every PG's first reservation request at the start delay.
  void AskAll();
  void Enqueue(std::uint32_t osd, bool local, std::uint32_t job);
  void Advance(std::uint32_t job);
  void Pump();
  void Wait(std::uint32_t job);
  void Place(std::uint32_t job);
  void StartAllAtOnce(std::uint32_t job);
  void PumpAllAtOnce();
  void Finish(std::uint32_t job);
  void StrayDeleted(std::uint32_t osd);
  void Freed(std::uint32_t job, std::uint32_t osd);
  void Preempt(std::uint32_t job);
  void Leak(std::uint32_t job);
  void FreeLocalSlot(std::uint32_t job);
  void ReleaseLocal(std::uint32_t job);
  void ReleaseRemote(std::uint32_t job, std::uint32_t k);
  void ScheduleEnd(std::uint32_t job);
  void Settle(std::uint32_t job);
  void Reshare(std::uint32_t osd, std::uint32_t started);
  void CountRunning(int delta);
  void Record();
  double Clock() const;
  double RealTimeOf(double clock) const;
  bool NoEventsLeft() const;
  bool NextEventNow(Completion* e);
  void PushDeletion(const Completion& e);
  void PrefetchDeletions() const;
  void PrefetchNextGrant(const RequestQueue& queue) const;
  bool PopDueEnd(std::uint32_t* job);
  bool TooFull(std::uint32_t osd, double bytes) const;
  void Refuse(std::uint32_t job, std::uint32_t osd, bool holds_local);
  void Retry(std::uint32_t job);
  bool NothingCanStart() const;
  void GiveUp();
  // Report's parts (backfill_curve.cc): the misplaced curve from the jobs'
  // starts and ends, each PG counted down while it pushes, thinned to
  // curve_max_points.
  std::vector<MisplacedPoint> MisplacedCurve() const;
  std::vector<MisplacedPoint> ThinCurve(std::vector<MisplacedPoint> curve) const;

  std::span<const BackfillJob> in_;
  const BackfillOsdInfo& info_;
  const BackfillOptions& opt_;

  std::vector<std::uint32_t> dense_;  // OSD id -> index into osds_, kNoIndex if unused
  std::vector<OsdSim> osds_;
  std::vector<HostSim> hosts_;
  std::map<std::string, std::uint32_t, std::less<>> host_index_;
  std::vector<JobSim> jobs_;
  // Per job, made by Setup only when needed: with the backfillfull check
  // (check_space_), and all at once (its place in the reservers' order).
  std::vector<TooFullSim> toofull_;
  std::vector<Request> wait_keys_;
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
  // The stray deletions, in Completion order: pushed at the end time plus a
  // fixed delay, so nearly always at the back (PushDeletion). Run takes the
  // next event from here or events_, whichever comes first in that order.
  std::deque<Completion> deletes_;
  std::uint64_t seq_ = 0;
  std::uint64_t misplaced_ = 0;  // of the jobs not finished
  std::uint64_t bytes_total_ = 0;
  double now_ = 0;
  // backfill_toofull: jobs started and copies freed (progress_), running,
  // waiting to retry.
  bool check_space_ = false;
  std::uint64_t progress_ = 0;
  std::uint32_t running_jobs_ = 0;
  std::vector<std::uint32_t> retrying_;
  double last_end_ = 0;
  std::uint32_t never_ = 0;
  std::uint32_t preemptions_ = 0;

  // BackfillOptions::concurrency_slowdown k. With k > 0 the running jobs'
  // work advances on the slowdown's clock, which runs at contention_ = 1 /
  // (1 + k (min(n, slowdown_cap_) - 1)) of real time for the n running; it read clock_ at real
  // time clock_at_. Their ends wait in ends_ on that clock (a change of n
  // moves no end), the earliest first; stale generations are skipped.
  struct ClockEnd {
    double clock = 0;
    std::uint32_t job = 0;
    std::uint32_t generation = 0;

    bool operator>(const ClockEnd& o) const {
      return clock != o.clock ? clock > o.clock : job > o.job;
    }
  };

  double k_ = 0;
  // BackfillOptions::concurrency_slowdown_max_running (the uint32 maximum
  // when 0: no cap).
  std::uint32_t slowdown_cap_ = 0;
  double contention_ = 1;
  double clock_ = 0;
  double clock_at_ = 0;
  std::priority_queue<ClockEnd, std::vector<ClockEnd>, std::greater<>> ends_;
  // BackfillSchedule::mean_running: the integral of running_jobs_ over time,
  // the time with at least one running, and since when they are counted.
  double running_integral_ = 0;
  double running_busy_ = 0;
  double running_since_ = 0;
  std::uint32_t max_running_ = 0;  // BackfillSchedule::max_running
};

// "pg 2.1f", for error messages.
std::string PgName(const BackfillJob& job);

}  // namespace crushkit::osdmap::backfill_internal

#endif  // CRUSHKIT_OSDMAP_PLANNING_BACKFILL_SIMULATOR_H_
