#include <cstdint>

#include "osdmap/planning/backfill_simulator.h"

namespace crushkit::osdmap::backfill_internal {

// OSDService::tentative_backfill_full via recalc_full_state: refused when the
// projected ratio is above the backfillfull ratio (not at it).
bool Simulator::TooFull(std::uint32_t osd, double bytes) const {
  const OsdSim& o = osds_[osd];
  return o.room > 0 && o.projected + bytes > o.room;
}

// The stray copy of `job` on `osd` is deleted and OSD::heartbeat has
// refreshed the statfs the check reads (BackfillOptions::
// stray_freed_lag_seconds): its bytes leave the projected use. A PG of more
// than osd_target_transaction_size objects frees them over several delete
// transactions (osd_delete_sleep apart on wpq's hdd OSDs, fill_timeline.h);
// the check counts them gone after the first (optimistic).
// A refusal before it is no longer futile.
void Simulator::Freed(std::uint32_t job, std::uint32_t osd) {
  osds_[osd].projected -= jobs_[job].leaving_bytes;
  ++progress_;
}

// RemoteReservationRejectedTooFull: the PG enters backfill_toofull, gives
// back its local slot and every remote slot granted so far (with their
// reserved bytes), and schedules a retry (PeeringState::
// schedule_backfill_retry(osd_backfill_retry_interval)).
void Simulator::Refuse(std::uint32_t job, std::uint32_t osd, bool holds_local) {
  JobSim& s = jobs_[job];
  BackfillJobTiming& t = timings_[job];
  Trace(BackfillTraceEvent::Kind::kTooFull, job, osd);
  TooFullSim& f = toofull_[job];
  if (t.toofull_refusals++ == 0) f.since = now_;
  s.refused = true;
  t.toofull_osd = osds_[osd].id;
  if (f.progress_at_refusal == progress_ && f.futile > 0) {
    ++f.futile;
  } else {
    f.futile = 1;
    f.progress_at_refusal = progress_;
  }
  if (holds_local && s.primary != kNoIndex && !s.local_leaked) ReleaseLocal(job);
  for (std::uint32_t k = s.remote_begin; k < s.next_remote; ++k) {
    osds_[remotes_[k]].projected -= remote_bytes_[k];
    ReleaseRemote(job, k);
  }
  s.next_remote = s.remote_begin;
  s.local_leaked = false;
  f.waiting_retry = true;
  if (!f.listed) retrying_.push_back(job);
  f.listed = true;
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
  toofull_[job].waiting_retry = false;
  Trace(BackfillTraceEvent::Kind::kRetry, job, s.primary);
  if (!opt_.hold_and_wait) {
    Wait(job);
  } else if (s.primary != kNoIndex) {
    Enqueue(s.primary, /*local=*/true, job);
  } else {
    Advance(job);
  }
}

// Nothing runs and no free is pending, so no space will come back; every
// job still waiting was refused at least twice since the last start or
// free. A refused job holds nothing, so the next round sees the same
// space: none can start.
bool Simulator::NothingCanStart() const {
  if (running_jobs_ > 0 || retrying_.empty()) return false;
  std::size_t waiting = 0;
  for (const std::uint32_t j : retrying_) {
    if (!toofull_[j].waiting_retry) continue;
    ++waiting;
    if (toofull_[j].futile < 2 || toofull_[j].progress_at_refusal != progress_) return false;
  }
  return waiting > 0 && waiting == events_.size() + deletes_.size();
}

void Simulator::GiveUp() {
  for (const std::uint32_t j : retrying_) {
    toofull_[j].listed = false;
    if (!toofull_[j].waiting_retry) continue;
    toofull_[j].waiting_retry = false;
    BackfillJobTiming& t = timings_[j];
    t.never_starts = true;
    jobs_[j].start_seconds = jobs_[j].end_seconds = now_;
    t.toofull_seconds = now_ - toofull_[j].since;
    ++never_;
  }
  retrying_.clear();
  while (!events_.empty()) events_.pop();
  deletes_.clear();
  while (!ends_.empty()) ends_.pop();
}

}  // namespace crushkit::osdmap::backfill_internal
