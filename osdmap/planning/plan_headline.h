// The first lines of a plan or diff report, for a change ticket: how much
// moves, how long it takes and on what assumption, the riskiest OSD and
// when, what the monitor does to upmaps, the PGs short of copies during and
// after, the steps and the first thing to run (the headline); then every
// assumption the figures rest on (release, scheduler, rates and where each
// came from, osd_max_backfills, bytes source, epochs). Computed from a
// PlanReport (plan_report.h) alone; the terminal, JSON and HTML reports
// print it as it is.
// Thread-safety: pure functions over values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_PLAN_HEADLINE_H_
#define CRUSHKIT_OSDMAP_PLANNING_PLAN_HEADLINE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "crush/types.h"
#include "osdmap/planning/plan_report.h"

namespace crushkit::osdmap {

namespace proto {
class Headline;
class Assumptions;
}  // namespace proto

struct PlanHeadline {
  // What moves: Movement::totals.
  bool bytes_known = false;
  std::uint64_t bytes_to_move = 0;
  std::uint64_t objects_to_move = 0;
  std::uint32_t pgs_remapped = 0;
  std::uint32_t pgs_total = 0;
  double share_of_stored = 0;  // bytes (shards without bytes) moved / all stored copies
  // The simulated backfill: the shortest and longest of the ways simulated
  // (at once; the staged plan's steps one after another; the upmap way),
  // and what the figure rests on. simulated: false with --no-schedule.
  bool simulated = false;
  double seconds_low = 0;
  double seconds_high = 0;
  std::string duration_basis;  // "at once .. 8 steps in sequence"
  std::string duration_assumption;
  // The at-once duration over request orders (PlanReport::request_orders,
  // FormatRequestOrderRange): "at once: 38 s .. 50 s over 32 request
  // orders (...)"; "" without one.
  std::string duration_orders;
  // The OSD with the highest peak fill while backfilling and when
  // (kItemNone without a fill timeline).
  std::int32_t peak_osd = crush::kItemNone;
  double peak_fill = 0;
  double peak_seconds = 0;
  double backfillfull_ratio = 0;
  // The monitor's upmap cleanup (Risks::upmaps_dropped, items trimmed).
  std::uint32_t upmaps_dropped = 0;
  std::uint32_t upmap_items_rewritten = 0;
  // During: PGs whose backfill runs with a copy missing (PgMove::degraded;
  // they are undersized too), and PGs below min_size before the change
  // (under pg_temp the old acting sets keep serving until backfill ends).
  // After: Movement::totals.
  std::uint32_t pgs_degraded_during = 0;
  std::uint32_t pgs_inactive_during = 0;
  std::uint32_t pgs_degraded_after = 0;
  std::uint32_t pgs_inactive_after = 0;
  // The staged plan's steps (0 without one), the number of its first (0,
  // or 1 when the change has no step 0: weights only), and the first thing
  // to run.
  std::uint32_t steps = 0;
  std::uint32_t first_step = 0;
  std::string first_command;
  std::string first_command_note;
};

struct AssumedRate {
  std::string device_class;
  double bytes_per_second = 0;
  double seconds_per_object = 0;  // 0: no per-object cost
  double per_pg_seconds = 0;
  std::string source;  // "default", "--backfill-rate", "calibration FILE", "model", ...
  // An erasure-coded PG's hold over a replicated one's (backfill_cost.h) and
  // where it came from ("model" or "calibration FILE").
  double ec_hold_factor = 1;
  std::string ec_hold_factor_source = "model";
};

struct PlanAssumptions {
  std::string ceph_release;      // the before state's, e.g. "pacific"
  std::string scheduler;         // "wpq", "mclock" ("" without the cost model)
  std::string scheduler_source;  // "the state's release" or "--recovery-scheduler"
  std::string mclock_profile;    // with mclock
  int max_backfills = 1;         // osd_max_backfills
  std::vector<AssumedRate> rates;
  std::string calibration;   // the calibration file, "" without one
  std::string bytes_source;  // "pg dump", "df", "none"
  double backfill_retry_seconds = 0;
  // The monitor's pg_temp commits before the first backfill and after the
  // last (BackfillCostReport; 0 without the cost model).
  double start_delay_seconds = 0;
  double end_delay_seconds = 0;
  // How a PG takes its reservations: "all at once" or "hold and wait"
  // (BackfillOptions::hold_and_wait), and when a PG's old copies are deleted
  // after its end, preempting (< 0: not modelled).
  std::string reservation_order;
  double stray_delete_delay_seconds = -1;
  // BackfillOptions::concurrency_slowdown and its source ("calibration FILE",
  // "option"; "" when 0 and not from a calibration: not printed).
  double concurrency_slowdown = 0;
  std::string concurrency_slowdown_source;
  // The most backfills at once k applies for (BackfillOptions::
  // concurrency_slowdown_max_running; 0: no cap), the schedule's most at
  // once, and when k > 0 and the schedule runs more than the range the
  // sentence saying the slowdown is held at its fitted value ("" otherwise).
  std::uint32_t concurrency_slowdown_max_running = 0;
  std::uint32_t backfills_at_once_max = 0;
  std::string concurrency_slowdown_note;
  std::string pushers_note;  // PlanReport::pushers_note
  std::uint32_t epoch_before = 0;
  std::uint32_t epoch_after = 0;
};

PlanHeadline ComputeHeadline(const PlanReport& r);
PlanAssumptions ComputeAssumptions(const PlanReport& r);

// The terminal lines: the headline, then "assumptions:" with one line each.
// Fits 100 columns for names up to 40 characters.
std::string FormatHeadline(const PlanHeadline& h);
std::string FormatAssumptions(const PlanAssumptions& a);

// "after 2.1 h", or "at the start (before any backfill)" for 0 seconds.
std::string PeakWhen(double seconds);

// "8 steps, numbered 0 to 7" (as the staged plan, JSON, HTML and the
// --commands script's step_N number them), "1 step (step 0)"; `first` is
// the first step's number ("1 step (step 1)" for a weight-only change).
std::string StepsText(std::uint32_t steps, std::uint32_t first = 0);

// "8 steps", "1 step": the count with the noun in its right number.
std::string Plural(std::uint64_t n, const std::string& singular, const std::string& plural = "");

namespace internal {
// `prefix` then `text`, broken at spaces so no line passes 100 columns;
// continuation lines start with `indent` spaces; ends with a newline.
void AppendWrapped(std::string& out, const std::string& prefix, const std::string& text,
                   std::size_t indent);
void HeadlineToProto(const PlanHeadline& h, proto::Headline* p);
void AssumptionsToProto(const PlanAssumptions& a, proto::Assumptions* p);
}  // namespace internal

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_PLAN_HEADLINE_H_
