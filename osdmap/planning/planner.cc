#include "osdmap/planning/planner.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

#include "crush/map.h"
#include "crush/status_macros.h"
#include "osdmap/changes/apply_change.h"
#include "osdmap/changes/upmap_cleanup.h"
#include "osdmap/planning/backfill_orders.h"
#include "osdmap/planning/backfill_pusher.h"
#include "osdmap/planning/change_warnings.h"
#include "osdmap/planning/fill_capacity.h"
#include "osdmap/planning/fill_timeline.h"
#include "osdmap/planning/movement_internal.h"

namespace crushkit::osdmap {

namespace {

// "150MiB", "2G", "1e9", "800 MiB/s" -> bytes per second.
std::optional<double> ParseRate(const std::string& text) {
  std::string t(absl::StripAsciiWhitespace(text));
  if (absl::EndsWith(t, "/s")) t.resize(t.size() - 2);
  std::size_t unit = t.find_first_not_of("0123456789.eE+-");
  double value = 0;
  if (!absl::SimpleAtod(t.substr(0, unit), &value) || !std::isfinite(value) || value <= 0)
    return std::nullopt;
  std::string u =
      unit == std::string::npos ? "" : std::string(absl::StripAsciiWhitespace(t.substr(unit)));
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1},        {"B", 1},        {"K", 1024},     {"KB", 1024},
      {"KiB", 1024},  {"M", 1 << 20},  {"MB", 1 << 20}, {"MiB", 1 << 20},
      {"G", 1 << 30}, {"GB", 1 << 30}, {"GiB", 1 << 30}};
  for (const auto& [name, scale] : kUnits) {
    if (u == name) return value * scale;
  }
  return std::nullopt;
}

}  // namespace

absl::Status ParseBackfillRates(const std::vector<std::string>& words, BackfillOptions* options) {
  for (const std::string& w : words) {
    const std::size_t eq = w.find('=');
    const std::string cls = eq == std::string::npos ? "" : w.substr(0, eq);
    const std::optional<double> rate = ParseRate(eq == std::string::npos ? w : w.substr(eq + 1));
    if (!rate || (eq != std::string::npos && cls.empty())) {
      return absl::InvalidArgumentError(
          absl::StrCat("--backfill-rate '", w,
                       "': expected CLASS=RATE or RATE, RATE a positive number of "
                       "bytes per second such as 150MiB or 2GiB"));
    }
    if (cls.empty()) {
      for (auto& [name, r] : options->class_rates) r.bytes_per_second = *rate;
      options->default_rate.bytes_per_second = *rate;
    } else {
      options->class_rates[cls].bytes_per_second = *rate;
    }
  }
  return absl::OkStatus();
}

namespace {

// A limit's text in an error: at most 40 characters, control bytes and
// non-ASCII as '?', so the message stays one printable line (found by the
// backfill_inputs fuzz target).
std::string QuotedLimit(std::string_view text) {
  constexpr std::size_t kMax = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  if (text.size() > kMax) out += "...";
  return out + "'";
}

}  // namespace

absl::StatusOr<double> ParseMisplacedLimit(std::string_view text) {
  std::string t(absl::StripAsciiWhitespace(std::string(text)));
  const bool percent = absl::EndsWith(t, "%");
  if (percent) t.pop_back();
  double v = 0;
  if (absl::SimpleAtod(t, &v) && std::isfinite(v)) {
    if (percent) v /= 100;
    if (v > 0 && v <= 1) return v;
  }
  return absl::InvalidArgumentError(absl::StrCat("--max-misplaced ", QuotedLimit(text),
                                                 ": expected a share above 0 and at most 1, as a "
                                                 "percentage (5%) or a fraction (0.05)"));
}

absl::StatusOr<double> ParseFillLimit(std::string_view text) {
  if (absl::StripAsciiWhitespace(std::string(text)) == "none") return 0.0;
  absl::StatusOr<double> v = ParseMisplacedLimit(text);
  if (v.ok()) return v;
  return absl::InvalidArgumentError(absl::StrCat("--max-fill ", QuotedLimit(text),
                                                 ": expected a fill above 0 and at most 1, as a "
                                                 "percentage (85%) or a fraction (0.85), or none"));
}

namespace {

// The cleanup of CleanUpmapsAfterChange on a crush map already built from
// after.crush (`after_map`; built here when null, and handed back).
absl::Status CleanAfterChange(ClusterState& after, const PlanOptions& options,
                              std::shared_ptr<const crush::CrushMap>& after_map,
                              MovementRisks* risks, std::uint64_t* diverged) {
  if (options.keep_upmaps) return absl::OkStatus();
  const auto failed = [](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("upmap cleanup after the change: ", s.message()));
  };
  if (after_map == nullptr) {
    absl::StatusOr<crush::CrushMap> built = crush::CrushMap::Build(after.crush);
    if (!built.ok()) {
      return failed(absl::Status(built.status().code(),
                                 absl::StrCat("crush map: ", built.status().message())));
    }
    after_map = std::make_shared<const crush::CrushMap>(*std::move(built));
  }
  absl::StatusOr<UpmapCleanup> cleanup = CleanPgUpmaps(after, *after_map);
  if (!cleanup.ok()) return failed(cleanup.status());
  risks->upmaps_dropped = static_cast<std::uint32_t>(cleanup->removed_pg_upmap.size() +
                                                     cleanup->removed_pg_upmap_items.size());
  risks->upmap_items_rewritten = static_cast<std::uint32_t>(cleanup->trimmed_items.size());
  *diverged += cleanup->diverged_from_ceph;
  return absl::OkStatus();
}

}  // namespace

absl::Status CleanUpmapsAfterChange(ClusterState& after, const PlanOptions& options,
                                    MovementRisks* risks) {
  std::shared_ptr<const crush::CrushMap> after_map;
  std::uint64_t diverged = 0;
  return CleanAfterChange(after, options, after_map, risks, &diverged);
}

namespace {

// A change's report and the mapped change it was made from (the staged
// plan and the upmap way go on from it). Kept on the heap and never moved
// while the upmap way runs: its thread reads report.movement and
// report.backfill in place (the movement's PG moves by address).
struct MappedReport {
  PlanReport report;
  MappedChange mapped;
  // With options.upmap_remapped in a staged plan: the upmap way, started
  // as soon as the at-once movement exists, on its own thread when
  // options.movement.threads resolves to more than one (beside the at-once
  // simulation, the safety and the staged plan), else run by get(). Last
  // member: destroyed first, so a thread still running is waited for
  // before what it reads goes.
  std::future<absl::StatusOr<UpmapPinPlan>> upmap_way;
};

// Whether a report needs every PG's move: the schedule simulates them, the
// staged plan and the upmap way start from them (the entry points drop them
// at the end unless options.movement.keep_moves). Without them the report
// counts no PG degraded during the change (pgs_degraded_during).
bool NeedsMoves(const PlanOptions& options, bool staged) {
  return options.movement.keep_moves || options.schedule || staged;
}

// When the release's OSDs delete the copies a PG leaves (fill_timeline.h),
// under `report`'s backfill settings.
FillTimelineOptions ReportFillOptions(const PlanReport& report) {
  const RecoveryScheduler scheduler = report.backfill_cost ? report.backfill_cost->scheduler
                                                           : DefaultScheduler(report.ceph_release);
  return CephFillTimelineOptions(scheduler, report.backfill.stray_delete_delay_seconds);
}

// The at-once backfill schedule of movement `m` and, with
// options.request_orders, its range over request orders, into `report`
// (whose backfill settings they use), and every order's peak fill per OSD
// into `peaks` (ApplyFillPeakRange puts it in the safety's fill).
absl::Status ScheduleBackfill(const Movement& m, const PlanOptions& options, PlanReport& report,
                              FillPeakRange& peaks) {
  // One set of jobs for the schedule and its request orders.
  const std::vector<BackfillJob> jobs = JobsFromMoves(m.moves);
  const BackfillOsdInfo osd_info = OsdInfoFromMovement(m);
  const BackfillOptions simulated = MovementBackfillOptions(m, report.backfill);
  absl::StatusOr<BackfillSchedule> schedule = SimulateBackfill(jobs, osd_info, simulated);
  if (!schedule.ok()) {
    return absl::Status(schedule.status().code(),
                        absl::StrCat("backfill simulation: ", schedule.status().message()));
  }
  report.schedule = *std::move(schedule);
  if (options.request_orders.orders < 2) return absl::OkStatus();
  // Each order's fill timeline beside its simulation, within the same cap
  // of orders: ComputeFillTimeline's cost, whose events count a leaving
  // copy's delete steps (the sample's drain, 2296 PGs x 17 orders: 0.05 ->
  // 0.20 s CPU for the whole plan).
  const FillTimelineOptions fill_options = ReportFillOptions(report);
  const EachOrderSchedule each_order = [&](const BackfillSchedule& s) -> absl::Status {
    absl::StatusOr<FillTimeline> t = ComputeFillTimeline(m, s, fill_options);
    if (!t.ok()) return t.status();
    WidenFillPeakRange(*t, peaks);
    return absl::OkStatus();
  };
  absl::StatusOr<RequestOrderRange> orders =
      SimulateRequestOrders(jobs, osd_info, simulated, options.request_orders, each_order);
  if (!orders.ok()) {
    return absl::Status(orders.status().code(),
                        absl::StrCat("backfill over request orders: ", orders.status().message()));
  }
  report.request_orders = *std::move(orders);
  return absl::OkStatus();
}

// Maps `before` and `after` (`after_map`, when not null, is after.crush
// built) and reports: the movement (with the PGs' moves when `moves`, and
// the upmap cleanup's counts of `cleaned`), the schedule, the safety; with
// `upmap_way` (a staged plan with options.upmap_remapped) it starts the
// upmap way (MappedReport::upmap_way).
absl::StatusOr<std::unique_ptr<MappedReport>> MapAndReport(
    ClusterState before, ClusterState after, std::shared_ptr<const crush::CrushMap> after_map,
    const PlanOptions& options, bool moves, const MovementRisks& cleaned, bool upmap_way) {
  MovementOptions movement = options.movement;
  movement.keep_moves = moves;
  // A staged plan maps its steps through a recording of `before`: the
  // paired mapping makes it instead of mapping `before` a second time.
  movement.record = movement.record || options.max_misplaced.has_value();
  std::vector<PlanWarning> detached = DetachedWarnings(before, after);
  // An OSD the change brings in has no size in `ceph osd df` (fill_capacity.h).
  std::vector<std::string> estimate_notes =
      DescribeEstimates(EstimateUnreportedCapacity(&after), before);
  absl::StatusOr<SafetyInputs> safety_inputs = PrepareSafety(before, after);
  if (!safety_inputs.ok()) return safety_inputs.status();
  auto out = std::make_unique<MappedReport>();
  PlanReport& report = out->report;
  report.backfill = options.backfill;
  report.ceph_release = before.ceph_release;
  if (options.backfill_cost) {
    // The per-PG cost model for the state's release (backfill_cost.h).
    absl::StatusOr<BackfillCostReport> cost =
        ApplyBackfillCost(*options.backfill_cost, before.ceph_release, &report.backfill);
    if (!cost.ok()) return cost.status();
    report.backfill_cost = *std::move(cost);
  }
  absl::StatusOr<MappedChange> mapped =
      MapChange(std::move(before), std::move(after), movement, std::move(after_map));
  if (!mapped.ok()) return mapped.status();
  out->mapped = *std::move(mapped);
  report.mappings_diverged_from_ceph =
      out->mapped.tables->before.diverged_from_ceph + out->mapped.tables->after.diverged_from_ceph;
  // The PG sets of a move are printed only when the caller keeps the moves.
  const internal::MoveDetail detail = options.movement.keep_moves ? internal::MoveDetail::kFull
                                      : moves ? internal::MoveDetail::kForSchedule
                                              : internal::MoveDetail::kNone;
  report.movement = internal::CompareMapped(out->mapped.before->state(), out->mapped.after->state(),
                                            out->mapped.tables->before, out->mapped.tables->after,
                                            movement, detail);
  report.movement.risks.upmaps_dropped = cleaned.upmaps_dropped;
  report.movement.risks.upmap_items_rewritten = cleaned.upmap_items_rewritten;
  const Movement& m = report.movement;
  // The movement is complete: from here on it is only read, so the upmap
  // way (which reads it, the mapped change and report.backfill) can start.
  if (upmap_way) {
    const double max_fill = options.max_fill.value_or(m.risks.backfillfull_ratio);
    out->upmap_way = std::async(
        ResolveThreads(options.movement.threads) > 1 ? std::launch::async : std::launch::deferred,
        [mapped = out->mapped, &m, max_misplaced = *options.max_misplaced,
         &backfill = report.backfill,
         max_fill] { return PlanUpmapPinning(mapped, m, max_misplaced, backfill, max_fill); });
  }
  // Only the staged plan and the upmap way go on from the mapped change:
  // without them its two PG tables (~44 MiB at 1,280,000 PGs) are given
  // back before the simulation.
  if (!options.max_misplaced) out->mapped = MappedChange{};
  report.warnings = std::move(detached);
  FillPeakRange peaks;
  if (options.schedule) CRUSH_RETURN_IF_ERROR(ScheduleBackfill(m, options, report, peaks));
  // Old copies go as the release's OSDs delete them (fill_timeline.h).
  absl::StatusOr<ChangeSafety> safety = AssessChangeSafety(
      *safety_inputs, m, report.schedule ? &*report.schedule : nullptr, ReportFillOptions(report));
  if (!safety.ok()) return safety.status();
  report.safety = *std::move(safety);
  if (report.safety->fill) ApplyFillPeakRange(peaks, *report.safety->fill);
  for (std::string& line : estimate_notes) report.safety->notes.push_back(std::move(line));
  report.pgs_degraded_during = static_cast<std::uint32_t>(
      std::count_if(m.moves.begin(), m.moves.end(), [](const PgMove& mv) { return mv.degraded; }));
  return out;
}

// A changed state as the monitor would commit it (upmaps cleaned), mapped
// and reported. Every entry point (DiffTwoStates, DiffNewCrushMap,
// PlanChange) goes through here, so `diff A B`, `diff A --crush-after` and
// `plan` clean with one function.
absl::StatusOr<std::unique_ptr<MappedReport>> ReportChange(
    ClusterState before, ClusterState after, std::shared_ptr<const crush::CrushMap> after_map,
    const PlanOptions& options, bool moves, bool upmap_way = false) {
  MovementRisks cleaned;
  std::uint64_t diverged = 0;
  if (absl::Status s = CleanAfterChange(after, options, after_map, &cleaned, &diverged); !s.ok())
    return s;
  absl::StatusOr<std::unique_ptr<MappedReport>> r =
      MapAndReport(std::move(before), std::move(after), std::move(after_map), options, moves,
                   cleaned, upmap_way);
  if (!r.ok()) return r.status();
  (*r)->report.mappings_diverged_from_ceph += diverged;
  return r;
}

// The report alone, PG moves kept only when asked for.
absl::StatusOr<PlanReport> ReportOnly(absl::StatusOr<std::unique_ptr<MappedReport>> r,
                                      const PlanOptions& options) {
  if (!r.ok()) return r.status();
  PlanReport& report = (*r)->report;
  if (!options.movement.keep_moves) report.movement.moves.clear();
  return std::move(report);
}

}  // namespace

absl::StatusOr<PlanReport> Report(ClusterState before, ClusterState after,
                                  const PlanOptions& options) {
  return ReportOnly(MapAndReport(std::move(before), std::move(after), nullptr, options,
                                 NeedsMoves(options, false), MovementRisks{}, false),
                    options);
}

// The monitor runs clean_pg_upmaps on every epoch it commits, so AFTER is
// cleaned as the monitor would on the transition: a no-op when AFTER is a
// monitor's own map (its invalid entries are already gone), the monitor's
// decision when AFTER was made by hand (BEFORE with a new crush map, say).
absl::StatusOr<PlanReport> DiffTwoStates(ClusterState before, ClusterState after,
                                         const PlanOptions& options) {
  return ReportOnly(ReportChange(std::move(before), std::move(after), nullptr, options,
                                 NeedsMoves(options, false)),
                    options);
}

absl::StatusOr<PlanReport> DiffNewCrushMap(ClusterState before, std::string crush_bytes,
                                           const PlanOptions& options) {
  absl::StatusOr<ClusterState> after = WithCrushMap(before, std::move(crush_bytes));
  if (!after.ok()) return after.status();
  ++after->epoch;
  return ReportOnly(ReportChange(std::move(before), *std::move(after), nullptr, options,
                                 NeedsMoves(options, false)),
                    options);
}

namespace {

// The change file's warnings go before the state's (the report's order).
void AddChangeWarnings(std::vector<PlanWarning> first, PlanReport& r) {
  first.insert(first.end(), r.warnings.begin(), r.warnings.end());
  r.warnings = std::move(first);
}

// The staged plan of a change whose at-once report `r` was made from
// `at_once`; r.movement and r.backfill are only read.
absl::Status PlanStaged(const ChangeList& change, const ChangeAtOnce& at_once,
                        std::vector<PlanWarning> warnings, const PlanOptions& options,
                        double max_fill, PlanReport& r) {
  StagedPlanOptions so;
  so.max_misplaced = *options.max_misplaced;
  so.movement = options.movement;
  so.simulate = options.schedule;
  so.backfill = r.backfill;
  so.keep_upmaps = options.keep_upmaps;
  so.progress = options.staging_progress;
  so.max_fill = max_fill;
  absl::StatusOr<StagedPlan> staged = PlanStagedChange(at_once, change, r.movement, so);
  if (!staged.ok()) {
    return absl::Status(staged.status().code(),
                        absl::StrCat("staged plan: ", staged.status().message()));
  }
  r.staged = *std::move(staged);
  r.mappings_diverged_from_ceph += r.staged->diverged_from_ceph;
  // A limit above the ratio at which Ceph's targets refuse leaves the stalls
  // in: say so (OSDService uses max(backfillfull_ratio, nearfull_ratio)).
  if (const double refuse =
          std::max(r.movement.risks.backfillfull_ratio, r.movement.risks.nearfull_ratio);
      so.max_fill > refuse) {
    r.staged->notes.push_back(absl::StrCat(
        "--max-fill ", so.max_fill * 100, "% is above ", refuse * 100,
        "%, where Ceph's backfill targets refuse (max of backfillfull and nearfull ratio): steps "
        "under it may still stall in backfill_toofull"));
  }
  AddChangeWarnings(std::move(warnings), r);
  // Every step carries the change's warnings (the end state is the same).
  for (const PlanWarning& w : r.warnings)
    r.staged->notes.push_back("warning: " + FormatPlanWarning(w));
  return absl::OkStatus();
}

// The staged plan and, with options.upmap_remapped, the upmap way of a
// change whose at-once report `r` was made from `at_once`; `upmap_way`, when
// valid, is the upmap way MapAndReport started.
absl::Status PlanInSteps(const ChangeList& change, const ChangeAtOnce& at_once,
                         std::vector<PlanWarning> warnings, const PlanOptions& options,
                         std::future<absl::StatusOr<UpmapPinPlan>>& upmap_way, PlanReport& r) {
  const double max_fill = options.max_fill.value_or(r.movement.risks.backfillfull_ratio);
  // The upmap way (mostly one thread: pins, batches) has been running since
  // the movement existed; the staged plan's serial parts (states,
  // comparisons, simulations) leave it a core.
  CRUSH_RETURN_IF_ERROR(PlanStaged(change, at_once, std::move(warnings), options, max_fill, r));
  if (upmap_way.valid()) {
    absl::StatusOr<UpmapPinPlan> pins = upmap_way.get();
    if (!pins.ok()) {
      return absl::Status(pins.status().code(),
                          absl::StrCat("upmap plan: ", pins.status().message()));
    }
    r.upmap_plan = *std::move(pins);
    r.mappings_diverged_from_ceph += r.upmap_plan->diverged_from_ceph;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PlanReport> PlanChange(ClusterState before, const ChangeList& change,
                                      const PlanOptions& options) {
  absl::StatusOr<AppliedChange> after = ApplyChangeBuilt(before, change);
  if (!after.ok()) return after.status();
  // Several commands are applied one epoch each: the pusher depends on the
  // up sets in between (backfill_pusher.h, ReplicatedBackfillPusherInSteps).
  absl::StatusOr<PgStepUps> steps = MapPusherSteps(before, change, options.movement.threads);
  if (!steps.ok()) return steps.status();
  PlanOptions at_once_options = options;
  if (!steps->ups.empty()) at_once_options.movement.pusher_steps = &*steps;
  std::vector<PlanWarning> warnings = NewBucketWarnings(before, change);
  // The change's upmaps as it left them, before the monitor's cleanup (the
  // staged plan's step 0 is cleaned on its own).
  UpmapEntries after_upmaps{after->state.pg_upmap, after->state.pg_upmap_items,
                            after->state.pg_upmap_primaries};
  absl::StatusOr<std::unique_ptr<MappedReport>> r =
      ReportChange(std::move(before), std::move(after->state), std::move(after->crush_map),
                   at_once_options, NeedsMoves(options, options.max_misplaced.has_value()),
                   options.max_misplaced.has_value() && options.upmap_remapped);
  if (!r.ok()) return r.status();
  PlanReport& report = (*r)->report;
  report.change_is_operations = true;
  report.pushers_note = steps->not_mapped;
  if (!options.max_misplaced) {
    AddChangeWarnings(std::move(warnings), report);
  } else {
    std::optional<double> seconds;
    if (report.schedule) seconds = report.schedule->makespan_seconds;
    const ChangeAtOnce at_once{(*r)->mapped, seconds, std::move(after_upmaps)};
    if (absl::Status s =
            PlanInSteps(change, at_once, std::move(warnings), options, (*r)->upmap_way, report);
        !s.ok()) {
      return s;
    }
  }
  // After the upmap way is done with the movement (PlanInSteps).
  for (const ChangeOp& op : change.ops) report.movement.change.push_back(DescribeChangeOp(op));
  if (!options.movement.keep_moves) report.movement.moves.clear();
  return std::move(report);
}

}  // namespace crushkit::osdmap
