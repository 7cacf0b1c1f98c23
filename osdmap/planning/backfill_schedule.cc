#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"
#include "osdmap/planning/backfill_simulator.h"

namespace crushkit::osdmap::backfill_internal {

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
      !(o.rate->objects_per_second >= 0) || !(o.rate->ec_hold_factor > 0) ||
      !std::isfinite(o.rate->ec_hold_factor)) {
    return absl::InvalidArgumentError(
        absl::StrCat(PgName(job), ": osd.", osd, " (class '", cls, "') has backfill rate ",
                     o.rate->bytes_per_second, " bytes/s, ", o.rate->objects_per_second,
                     " objects/s, EC hold factor ", o.rate->ec_hold_factor,
                     ": bytes/s must be > 0, objects/s >= 0 and the factor a finite number > 0"));
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
  s.priority = job.priority;
  s.leaving_bytes = static_cast<double>(job.bytes_per_target);
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
  const double ec_factor = job.erasure ? lead.ec_hold_factor : 1;
  s.duration *= ec_factor;
  // Rates accepted one by one can still make a hold no clock reaches (a
  // bytes rate of 1e-320 is above 0); beyond this every sum of holds stays
  // finite, as the event loop needs.
  if (!(s.duration <= kMaxHoldSeconds)) {
    return absl::InvalidArgumentError(absl::StrCat(
        PgName(job), ": its backfill would hold its reservations ", s.duration, " s (",
        job.bytes_per_target, " bytes at ", bytes_rate, " bytes/s, ", job.objects_per_target,
        " objects at ", objects_rate, " /s, ", lead.per_pg_seconds,
        " s per PG): a rate too small; expected at most ", kMaxHoldSeconds, " s"));
  }
  s.hold = s.duration;
  s.rescan = lead.additive ? lead.per_pg_seconds * ec_factor : 0;
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
  if (!(opt_.concurrency_slowdown >= 0) || !std::isfinite(opt_.concurrency_slowdown)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "concurrency slowdown ", opt_.concurrency_slowdown, ": must be a finite number >= 0"));
  }
  k_ = opt_.concurrency_slowdown;
  slowdown_cap_ = opt_.concurrency_slowdown_max_running > 0
                      ? opt_.concurrency_slowdown_max_running
                      : std::numeric_limits<std::uint32_t>::max();
  jobs_.resize(in_.size());
  timings_.resize(in_.size());
  if (check_space_) toofull_.resize(in_.size());
  if (!opt_.hold_and_wait) wait_keys_.resize(in_.size());
  for (std::uint32_t j = 0; j < in_.size(); ++j) CRUSH_RETURN_IF_ERROR(Flatten(j));
  if (!(opt_.stray_delete_delay_seconds < std::numeric_limits<double>::infinity())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stray_delete_delay_seconds ", opt_.stray_delete_delay_seconds, ": must be finite"));
  }
  if (!(opt_.stray_freed_lag_seconds >= 0 &&
        opt_.stray_freed_lag_seconds < std::numeric_limits<double>::infinity())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stray_freed_lag_seconds ", opt_.stray_freed_lag_seconds, ": must be finite and >= 0"));
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

void Simulator::AskAll() {
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
}

absl::Status Simulator::Run() {
  now_ = opt_.start_delay_seconds;
  AskAll();
  const auto pump = [&] {
    if (opt_.hold_and_wait) return Pump();
    PumpAllAtOnce();
    // Nothing running: every slot is free, so each parked PG starts or is
    // refused; try them all now rather than at an event that may not come.
    while ((NoEventsLeft() || running_jobs_ == 0) && !unsettled_.empty()) PumpAllAtOnce();
  };
  pump();
  std::size_t finished = 0;
  while (!NoEventsLeft()) {
    // With the slowdown the ends wait on its clock (ends_), the rest here.
    double next = events_.empty() ? std::numeric_limits<double>::infinity() : events_.top().seconds;
    if (!deletes_.empty()) next = std::min(next, deletes_.front().seconds);
    while (!ends_.empty() && ends_.top().generation != jobs_[ends_.top().job].generation) {
      ends_.pop();
    }
    if (!ends_.empty()) next = std::min(next, std::max(now_, RealTimeOf(ends_.top().clock)));
    if (next == std::numeric_limits<double>::infinity()) break;
    now_ = next;
    bool ended = false;
    for (std::uint32_t job = 0; PopDueEnd(&job);) {  // ends first, as below
      Finish(job);
      ++finished;
      ended = true;
    }
    if (!ended && !ends_.empty() && (events_.empty() || events_.top().seconds > now_) &&
        (deletes_.empty() || deletes_.front().seconds > now_)) {
      // The earliest end was chosen but its clock reading rounded short of
      // it: end it now rather than loop.
      const std::uint32_t job = ends_.top().job;
      ends_.pop();
      Finish(job);
      ++finished;
      ended = true;
    }
    for (Completion e; NextEventNow(&e);) {
      if (e.kind == Completion::kRetry) {
        Retry(e.job);
      } else if (e.kind == Completion::kDelete) {
        StrayDeleted(e.osd);
      } else if (e.kind == Completion::kFreed) {
        Freed(e.job, e.osd);
      } else if (e.generation == jobs_[e.job].generation) {  // else revoked meanwhile
        Finish(e.job);
        ++finished;
        ended = true;
      }
    }
    pump();
    if (!retrying_.empty()) {
      std::erase_if(retrying_, [&](std::uint32_t j) {
        if (toofull_[j].waiting_retry) return false;
        toofull_[j].listed = false;
        return true;
      });
      if (NothingCanStart()) GiveUp();
    }
  }
  Record();
  if (finished + never_ != jobs_.size()) {
    // Unreachable: reservations are taken in one global order (local first,
    // then remotes by ascending OSD id), or all at once, so some holder can
    // always proceed.
    return absl::InternalError(absl::StrCat("backfill simulation stalled with ",
                                            jobs_.size() - finished, " jobs never started"));
  }
  return absl::OkStatus();
}

}  // namespace crushkit::osdmap::backfill_internal

namespace crushkit::osdmap {

std::vector<BackfillJob> JobsFromMoves(std::span<const PgMove> moves) {
  std::vector<BackfillJob> jobs;
  jobs.reserve(moves.size());
  for (const PgMove& m : moves) {
    jobs.push_back(BackfillJob{m.pg, m.pusher, m.targets, m.bytes_per_target, m.objects_per_target,
                               m.degraded ? kBackfillDegradedPriority : kBackfillPriority,
                               m.leaving, m.erasure});
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
    if (o.osd < 0 || o.osd > backfill_internal::kMaxOsdId) continue;
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
  backfill_internal::Simulator sim(jobs, osd_info, options);
  CRUSH_RETURN_IF_ERROR(sim.Setup());
  CRUSH_RETURN_IF_ERROR(sim.Run());
  return sim.Report();
}

BackfillOptions MovementBackfillOptions(const Movement& movement, BackfillOptions options) {
  if (options.objects_total == 0) options.objects_total = movement.totals.objects_total;
  if (!options.backfillfull_ratio) {
    options.backfillfull_ratio =
        std::max(movement.risks.backfillfull_ratio, movement.risks.nearfull_ratio);
  }
  return options;
}

absl::StatusOr<BackfillSchedule> SimulateMovementBackfill(const Movement& movement,
                                                          BackfillOptions options) {
  const std::vector<BackfillJob> jobs = JobsFromMoves(movement.moves);
  return SimulateBackfill(jobs, OsdInfoFromMovement(movement),
                          MovementBackfillOptions(movement, std::move(options)));
}

}  // namespace crushkit::osdmap
