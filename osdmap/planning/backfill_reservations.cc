#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "osdmap/planning/backfill_simulator.h"

namespace crushkit::osdmap::backfill_internal {

// A request made during a grant phase waits in pending_ until the phase ends,
// so what a phase grants never depends on the order it visits OSDs in.
void Simulator::Enqueue(std::uint32_t osd, bool local, std::uint32_t job) {
  pending_.push_back(Pending{osd, local, Request{jobs_[job].priority, job, seq_++}});
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
    s.start_seconds = now_;
    if (s.refused) timings_[job].toofull_seconds = now_ - toofull_[job].since;
  }
  ++progress_;
  CountRunning(+1);
  s.running = true;
  Trace(BackfillTraceEvent::Kind::kStarted, job, s.primary);
  if (s.primary != kNoIndex) Running(s.primary, +1);
  for (std::uint32_t k = s.remote_begin; k < s.remote_end; ++k) Running(remotes_[k], +1);
  s.work_left = s.hold;
  s.pace = 1;
  s.since = Clock();
  if (s.primary == kNoIndex) {
    ScheduleEnd(job);
  } else {
    osds_[s.primary].pushing.push_back(job);
    Reshare(s.primary, job);
  }
}

void Simulator::ScheduleEnd(std::uint32_t job) {
  JobSim& s = jobs_[job];
  ++s.generation;
  if (k_ > 0) {
    ends_.push(ClockEnd{Clock() + s.work_left / s.pace, job, s.generation});
    return;
  }
  events_.push(Completion{.seconds = now_ + s.work_left / s.pace,
                          .job = job,
                          .kind = Completion::kEnd,
                          .osd = kNoIndex,
                          .generation = s.generation});
}

// The work a running job has done since its pace last changed.
void Simulator::Settle(std::uint32_t job) {
  JobSim& s = jobs_[job];
  const double clock = Clock();
  s.work_left = std::max(0.0, s.work_left - (clock - s.since) * s.pace);
  s.since = clock;
}

// A primary pushes its backfills through one recovery queue: OSD::
// do_recovery defers every recovery round by the OSD's recovery sleep
// (OSDService::defer_recovery_until, one deadline per OSD) and
// osd_recovery_max_active bounds the ops in flight per OSD. Up to
// max_backfills backfills are what the per-PG cost already describes
// (backfill_cost.h shares the device among them); more only run when a
// deletion let a waiting PG keep going without its slot (Leak), and then
// they share the primary: each runs at max_backfills / running of its pace.
// Called when the count changes: every running job's end moves.
// `started` (or kNoIndex) has just joined and needs its end scheduled.
// Every job in `pushing` runs at the OSD's pace (OsdSim::pace): when the
// count leaves it unchanged (up to max_backfills it is 1), only `started`
// needs its end, and the others (each a cache miss) are not visited.
void Simulator::Reshare(std::uint32_t osd, std::uint32_t started) {
  OsdSim& o = osds_[osd];
  const std::vector<std::uint32_t>& jobs = o.pushing;
  const double pace = std::min(1.0, static_cast<double>(opt_.max_backfills) /
                                        static_cast<double>(std::max<std::size_t>(jobs.size(), 1)));
  if (pace == o.pace) {
    if (started != kNoIndex) {
      Settle(started);
      jobs_[started].pace = pace;
      ScheduleEnd(started);
    }
    return;
  }
  o.pace = pace;
  for (const std::uint32_t j : jobs) {
    if (j != started && jobs_[j].pace == pace) continue;
    Settle(j);
    jobs_[j].pace = pace;
    ScheduleEnd(j);
  }
}

// running_jobs_ changes by delta; the time integral behind
// BackfillSchedule::mean_running and the peak follow it, and with the
// cluster-wide slowdown (BackfillOptions::concurrency_slowdown k) the
// clock's rate: every running job at 1 / (1 + k (min(n, cap) - 1)) of its
// pace, the cap being the most at once k was fitted with. The clock is read
// and re-based here, so no job's end moves: O(1) per start and end.
void Simulator::CountRunning(int delta) {
  if (running_jobs_ > 0) {
    running_integral_ += static_cast<double>(running_jobs_) * (now_ - running_since_);
    running_busy_ += now_ - running_since_;
  }
  running_since_ = now_;
  if (k_ > 0) {
    clock_ = Clock();
    clock_at_ = now_;
  }
  running_jobs_ = static_cast<std::uint32_t>(static_cast<int>(running_jobs_) + delta);
  max_running_ = std::max(max_running_, running_jobs_);
  if (k_ > 0) {
    const std::uint32_t n = std::min(running_jobs_, slowdown_cap_);
    contention_ = 1 / (1 + k_ * std::max(0.0, static_cast<double>(n) - 1));
  }
}

// The running jobs' clock now: real time without the slowdown.
double Simulator::Clock() const {
  return k_ > 0 ? clock_ + (now_ - clock_at_) * contention_ : now_;
}

// The real time at which the slowdown's clock reads `clock`, if nothing
// starts or ends before.
double Simulator::RealTimeOf(double clock) const {
  return clock_at_ + (clock - clock_) / contention_;
}

bool Simulator::NoEventsLeft() const {
  return events_.empty() && ends_.empty() && deletes_.empty();
}

// The next event due at now_ (events_ and deletes_ merged in Completion
// order, as one queue would give them), or false. A stray deletion is
// known long before it comes: the next few are fetched into the cache while
// the events before them run (PrefetchDeletions); so is the next event's
// job.
bool Simulator::NextEventNow(Completion* e) {
  const bool event = !events_.empty() && events_.top().seconds == now_;
  const bool deletion = !deletes_.empty() && deletes_.front().seconds == now_;
  if (deletion && (!event || events_.top() > deletes_.front())) {
    *e = deletes_.front();
    deletes_.pop_front();
    PrefetchDeletions();
    return true;
  }
  if (!event) return false;
  *e = events_.top();
  events_.pop();
  if (!events_.empty()) __builtin_prefetch(&jobs_[events_.top().job]);
  return true;
}

// Deletions are due in the order they are pushed but for ties (one end's
// leaving OSDs, ends at one instant out of job order) and rounding: those
// go in their place, found from the back.
void Simulator::PushDeletion(const Completion& e) {
  if (deletes_.empty() || !(deletes_.back() > e)) {
    deletes_.push_back(e);
    return;
  }
  const auto at = std::upper_bound(deletes_.begin(), deletes_.end(), e,
                                   [](const Completion& a, const Completion& b) { return b > a; });
  deletes_.insert(at, e);
}

// A stray deletion reads its OSD, the OSD's local holders and the first
// holder's job, each from a miss: three deletions ahead the OSD is fetched,
// two ahead its holders, one ahead the job (each from the line fetched one
// step before).
void Simulator::PrefetchDeletions() const {
  constexpr std::size_t kPrefetchStep = 3;
  const std::size_t n = deletes_.size();
  if (n > 2 * kPrefetchStep) __builtin_prefetch(&osds_[deletes_[2 * kPrefetchStep].osd]);
  if (n > kPrefetchStep)
    __builtin_prefetch(osds_[deletes_[kPrefetchStep].osd].local_holders.data());
  if (n > 0) {
    const std::vector<std::uint32_t>& holders = osds_[deletes_[0].osd].local_holders;
    if (!holders.empty()) __builtin_prefetch(&jobs_[holders.front()]);
  }
}

// With the slowdown: the next job whose end is due now (its clock end
// reached, within rounding), stale generations dropped.
bool Simulator::PopDueEnd(std::uint32_t* job) {
  const double clock = Clock();
  while (!ends_.empty()) {
    const ClockEnd e = ends_.top();
    if (e.generation != jobs_[e.job].generation) {
      ends_.pop();
      continue;
    }
    if (e.clock > clock + 1e-9 * std::max(1.0, std::abs(clock))) return false;
    ends_.pop();
    *job = e.job;
    return true;
  }
  return false;
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
  wait_keys_[job] = Request{jobs_[job].priority, job, seq_++};
  candidates_.push_back(wait_keys_[job]);
}

// Starts the PG when every slot it needs is free, else parks it on the first
// OSD lacking one (its primary's local slot, then the targets' remote slots
// in ascending order): it is tried again when that OSD frees a slot. Each
// try either starts the PG or moves it to an OSD that is busy now, so a
// grant phase costs the PGs it tries, not every PG waiting on the OSD.
void Simulator::Place(std::uint32_t job) {
  JobSim& s = jobs_[job];
  if (s.primary != kNoIndex && osds_[s.primary].local_free <= 0) {
    osds_[s.primary].parked_local.push(wait_keys_[job]);
    return;
  }
  for (std::uint32_t k = s.remote_begin; k < s.remote_end; ++k) {
    if (osds_[remotes_[k]].remote_free <= 0) {
      osds_[remotes_[k]].parked_remote.push(wait_keys_[job]);
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
  // What the end reads, each a miss: fetched together, not one by one.
  if (s.leaving_begin < s.leaving_end) __builtin_prefetch(&leaving_[s.leaving_begin]);
  if (s.remote_begin < s.remote_end) __builtin_prefetch(&remotes_[s.remote_begin]);
  if (s.primary != kNoIndex) __builtin_prefetch(&osds_[s.primary]);
  s.end_seconds = now_;
  last_end_ = now_;
  CountRunning(-1);
  s.finished = true;
  // The old copies go once the PG is clean (the primary purges its strays).
  s.running = false;
  const bool deletions = opt_.stray_delete_delay_seconds >= 0;
  for (std::uint32_t k = s.leaving_begin; k < s.leaving_end; ++k) {
    // Only the backfillfull check reads projected use: without it the
    // leaving OSD is not touched (a cache miss) for it. A target's check
    // reads its statfs, which drops only once the stray copy is deleted and
    // the OSD has refreshed its stats (Freed), not at the PG's end.
    if (!deletions) {
      if (check_space_) osds_[leaving_[k]].projected -= s.leaving_bytes;
      continue;
    }
    const double deleted = now_ + opt_.stray_delete_delay_seconds;
    PushDeletion(Completion{.seconds = deleted,
                            .job = job,
                            .kind = Completion::kDelete,
                            .osd = leaving_[k],
                            .generation = 0});
    if (check_space_) {
      PushDeletion(Completion{.seconds = deleted + opt_.stray_freed_lag_seconds,
                              .job = job,
                              .kind = Completion::kFreed,
                              .osd = leaving_[k],
                              .generation = 0});
    }
  }
  if (s.primary != kNoIndex) {
    std::erase(osds_[s.primary].pushing, job);
    Reshare(s.primary, kNoIndex);
    Running(s.primary, -1);
    // A slot a deletion took while the PG waited for its targets was freed
    // then (Ceph's cancel of a reservation it no longer has does nothing).
    if (!s.local_leaked) ReleaseLocal(job);
    s.local_leaked = false;
  }
  for (std::uint32_t k = s.remote_begin; k < s.remote_end; ++k) {
    Running(remotes_[k], -1);
    ReleaseRemote(job, k);
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
  for (std::size_t i = 1; i < o.local_holders.size(); ++i) {
    const std::uint32_t j = o.local_holders[i];
    if (jobs_[j].priority < jobs_[victim].priority ||
        (jobs_[j].priority == jobs_[victim].priority && in_[j].pg < in_[victim].pg)) {
      victim = j;
    }
  }
  if (jobs_[victim].priority >= kDeletePriority) return;
  if (jobs_[victim].running) {
    Preempt(victim);
  } else {
    Leak(victim);
  }
}

// Hold and wait: the deletion preempted a PG that holds its primary's local
// slot while it waits for a target. AsyncReserver::preempt_one frees the
// slot and queues the PG's DeferBackfill, but WaitRemoteBackfillReserved has
// no reaction to DeferBackfill (PeeringState.h): the event is dropped, the PG
// keeps its remote reservations and its place in their queues, and backfills
// when they are granted, without a local slot; the reserver meanwhile grants
// the freed slot to the next PG. Seen on Pacific 16.2.15 with debug_osd 10
// (issue 35, tools/dev/README.md): "DeferBackfill: delay 0" logged by a PG in
// backfill_wait that went on to backfill, while its primary backfilled
// another PG.
void Simulator::Leak(std::uint32_t job) {
  FreeLocalSlot(job);
  jobs_[job].local_leaked = true;
}

// The primary's local slot given back by `job` (its end, or a toofull
// retry).
void Simulator::ReleaseLocal(std::uint32_t job) {
  const std::uint32_t primary = jobs_[job].primary;
  OsdSim& p = osds_[primary];
  std::erase(p.local_holders, job);
  ++p.local_free;
  PrefetchNextGrant(p.local_queue);
  Hold(primary, -1);
  Trace(BackfillTraceEvent::Kind::kLocalReleased, job, primary);
  MarkDirty(primary);
}

// The remote slot remotes_[k] given back by `job`; the caller settles the
// bytes it projected there (kept when the copy landed).
void Simulator::ReleaseRemote(std::uint32_t job, std::uint32_t k) {
  const std::uint32_t t = remotes_[k];
  ++osds_[t].remote_free;
  PrefetchNextGrant(osds_[t].remote_queue);
  Hold(t, -1);
  Trace(BackfillTraceEvent::Kind::kRemoteReleased, job, t);
  MarkDirty(t);
}

// What both ways of preemption do first: count it and give the primary's
// local slot back.
void Simulator::FreeLocalSlot(std::uint32_t job) {
  const std::uint32_t primary = jobs_[job].primary;
  ++jobs_[job].preemptions;
  ++preemptions_;
  Trace(BackfillTraceEvent::Kind::kPreempted, job, primary);
  OsdSim& p = osds_[primary];
  std::erase(p.local_holders, job);
  ++p.local_free;
  PrefetchNextGrant(p.local_queue);
  Hold(primary, -1);
  MarkDirty(primary);
}

// A freed slot goes to the head of the queue at the next grant phase: its
// job is fetched into the cache meanwhile.
void Simulator::PrefetchNextGrant(const RequestQueue& queue) const {
  if (!queue.empty()) __builtin_prefetch(&jobs_[queue.top().job]);
}

// DeferBackfill(0) from the preempted local reservation: the PG releases
// its local slot and every remote one it holds (with the bytes they
// reserved; Backfilling::cancel_backfill, or the request still queued at a
// target with hold and wait), the targets keep what was copied, and the PG
// asks again at once, behind every PG already waiting. A running one's next
// hold is what was left plus the scan again.
void Simulator::Preempt(std::uint32_t job) {
  FreeLocalSlot(job);
  JobSim& s = jobs_[job];
  OsdSim& p = osds_[s.primary];
  std::uint32_t granted_end = s.next_remote;
  if (s.remote_outstanding) {
    s.remote_outstanding = false;
    --granted_end;
    osds_[remotes_[granted_end]].projected -= remote_bytes_[granted_end];
  }
  if (s.running) {
    s.running = false;
    Settle(job);
    ++s.generation;
    s.hold = s.work_left + s.rescan;
    CountRunning(-1);
    std::erase(p.pushing, job);
    Reshare(s.primary, kNoIndex);
    Running(s.primary, -1);
    for (std::uint32_t k = s.remote_begin; k < s.remote_end; ++k) Running(remotes_[k], -1);
  }
  for (std::uint32_t k = s.remote_begin; k < granted_end; ++k) {
    osds_[remotes_[k]].projected -= remote_bytes_[k];
    ReleaseRemote(job, k);
  }
  s.next_remote = s.remote_begin;
  if (opt_.hold_and_wait) {
    Enqueue(s.primary, /*local=*/true, job);
  } else {
    Wait(job);
  }
}

// The starts, ends and preemptions the event loop kept in jobs_, into the
// report's timings, and the objects still misplaced (one pass in job order
// after the loop).
void Simulator::Record() {
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    const JobSim& s = jobs_[j];
    timings_[j].start_seconds = s.start_seconds;
    timings_[j].end_seconds = s.end_seconds;
    timings_[j].preemptions = s.preemptions;
    if (s.finished) misplaced_ -= s.misplaced;
  }
}

}  // namespace crushkit::osdmap::backfill_internal
