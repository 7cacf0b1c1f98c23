#include "osdmap/planning/plan_compare.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include "crush/edit/display.h"
#include "crush/edit/edit.h"
#include "osdmap/changes/apply_change.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/model/pg_table_replay.h"
#include "osdmap/model/rule_weights.h"
#include "osdmap/planning/staged_plan.h"

namespace crushkit::osdmap {

namespace {

struct RankName {
  RankBy rank;
  const char* name;
  const char* meaning;
};

constexpr RankName kRankNames[] = {
    {RankBy::kMoved, "moved", "data moved, least first"},
    {RankBy::kDuration, "duration", "predicted backfill time, shortest first"},
    {RankBy::kPeakFill, "peak-fill", "the fullest OSD while backfilling, lowest first"},
    {RankBy::kFullest, "fullest", "the fullest OSD after, lowest first"},
    {RankBy::kDeviation, "deviation", "the largest PG deviation after, smallest first"},
    {RankBy::kAmplification, "amplification", "data moved / the floor, lowest first"},
    {RankBy::kMaxAvail, "max-avail", "the worst pool's MAX AVAIL change, largest first"},
};

}  // namespace

absl::StatusOr<RankBy> ParseRankBy(std::string_view text) {
  for (const RankName& r : kRankNames) {
    if (r.name == text) return r.rank;
  }
  std::vector<std::string> names;
  for (const RankName& r : kRankNames) names.push_back(r.name);
  std::string shown(text.substr(0, 40));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--rank-by '", shown, "': expected one of ", absl::StrJoin(names, ", ")));
}

RankBy DefaultRankBy(CompareQuestion q) {
  switch (q) {
    case CompareQuestion::kPlaceHosts:
      return RankBy::kFullest;
    case CompareQuestion::kDrainOrder:
      return RankBy::kPeakFill;
    case CompareQuestion::kChanges:
      break;
  }
  return RankBy::kMoved;
}

std::string RankByName(RankBy r) {
  for (const RankName& n : kRankNames) {
    if (n.rank == r) return n.name;
  }
  return "moved";
}

std::string RankByMeaning(RankBy r) {
  for (const RankName& n : kRankNames) {
    if (n.rank == r) return n.meaning;
  }
  return "";
}

namespace {

// The largest |PGs - target| over the OSDs that are up in `state`, PGs
// summed over its pools as `osds` (the movement's OSDs after the change)
// counts them in up sets: per pool, an OSD's target is its rule-weight
// share times its reweight over the sum of those, times size x pg_num (the
// upmap balancer's definition, upmap_balancer.h), summed over the pools
// (its overall deviation). A down OSD holds nothing in up sets, so it is
// left out of the shares and the maximum. Pools whose rule weighs nothing
// add no target.
void SetDeviation(const ClusterState& state, const std::vector<OsdMovement>& osds,
                  AlternativeResult* out) {
  std::map<std::int32_t, double> target;
  for (const auto& [id, pool] : state.pools) {
    if (pool.pg_num == 0 || pool.size == 0) continue;
    absl::StatusOr<std::map<std::int32_t, float>> weights =
        RuleWeightOsdMap(state.crush, pool.crush_rule, state.ceph_release);
    if (!weights.ok()) continue;
    std::map<std::int32_t, double> share;
    double sum = 0;
    for (const auto& [osd, w] : *weights) {
      if (!std::isfinite(w) || w <= 0 || !state.IsUp(osd)) continue;
      const double s = static_cast<double>(w) *
                       static_cast<double>(state.osds[static_cast<std::size_t>(osd)].weight) /
                       crush::kWeightOne;
      if (s <= 0) continue;
      share[osd] = s;
      sum += s;
    }
    if (sum <= 0) continue;
    const double slots = static_cast<double>(pool.size) * pool.pg_num;
    for (const auto& [osd, s] : share) target[osd] += slots * s / sum;
  }
  if (target.empty()) return;
  for (const OsdMovement& o : osds) {
    if (!state.IsUp(o.osd)) continue;
    const auto it = target.find(o.osd);
    const double dev = static_cast<double>(o.pgs_after) - (it == target.end() ? 0.0 : it->second);
    if (std::abs(dev) > out->max_deviation) {
      out->max_deviation = std::abs(dev);
      out->max_deviation_osd = o.osd;
    }
  }
}

bool BytesKnown(const Movement& m) { return m.bytes_source != BytesSource::kUnknown; }

// Adds one stage's report (a change at once, or staged) to `out`.
void AddStage(const PlanReport& r, bool first, bool last, AlternativeResult* out) {
  const Movement& m = r.movement;
  const MovementCounters& t = m.totals;
  out->bytes_known = BytesKnown(m);
  out->bytes_source = m.bytes_source;
  if (r.staged) {
    const StagedPlan& s = *r.staged;
    out->steps = static_cast<int>(s.steps.size());
    for (const PlanStep& step : s.steps) {
      out->bytes_to_move += step.totals.bytes_to_move;
      out->objects_to_move += step.totals.objects_to_move;
      out->pgs_remapped += step.totals.pgs_remapped;
      out->shards_moved += step.totals.shards_moved;
      if (step.peak.osd != crush::kItemNone && step.peak.fill > out->peak_fill) {
        out->peak_fill = step.peak.fill;
        out->peak_osd = step.peak.osd;
      }
    }
    out->duration_seconds =
        r.schedule ? std::max(0.0, out->duration_seconds) + s.total_seconds : -1;
  } else {
    if (first) out->misplaced_ratio = MisplacedRatio(m);
    out->bytes_to_move += t.bytes_to_move;
    out->objects_to_move += t.objects_to_move;
    out->pgs_remapped += t.pgs_remapped;
    out->shards_moved += t.shards_moved;
    if (r.schedule) {
      out->duration_seconds = std::max(0.0, out->duration_seconds) + r.schedule->makespan_seconds;
    }
    if (out->bytes_known && r.safety && r.safety->fill &&
        r.safety->fill->riskiest_osd != crush::kItemNone) {
      const FillTimeline& f = *r.safety->fill;
      if (f.riskiest_fill > out->peak_fill) {
        out->peak_fill = f.riskiest_fill;
        out->peak_osd = f.riskiest_osd;
      }
    }
  }
  out->minimum_to_move += t.minimum_to_move;
  out->pgs_degraded_after = t.pgs_degraded_after;
  out->pgs_inactive_after = t.pgs_inactive_after;
  if (r.safety) {
    if (first) {
      for (const PoolAvailChange& p : r.safety->pools) {
        out->pools.push_back(AlternativePoolAvail{.pool_id = p.pool_id,
                                                  .pool_name = p.pool_name,
                                                  .before = p.before,
                                                  .lowest = r.staged ? p.after : p.peak,
                                                  .after = p.after});
      }
    } else {
      for (AlternativePoolAvail& a : out->pools) {
        for (const PoolAvailChange& p : r.safety->pools) {
          if (p.pool_id != a.pool_id) continue;
          a.lowest = std::min(a.lowest, r.staged ? p.after : p.peak);
          a.after = p.after;
        }
      }
    }
  }
  if (last && out->bytes_known) {
    // Fill is a figure only with PG sizes (without, every OSD stays at 0).
    for (const OsdMovement& o : m.osds) {
      if (o.capacity_bytes == 0) continue;
      if (o.fill_after > out->fullest_after) {
        out->fullest_after = o.fill_after;
        out->fullest_osd = o.osd;
      }
    }
  }
  for (const PlanWarning& w : r.warnings) out->warnings.push_back(FormatPlanWarning(w));
}

void Finish(AlternativeResult* out) {
  out->moved = out->bytes_known ? static_cast<double>(out->bytes_to_move)
                                : static_cast<double>(out->shards_moved);
  if (out->minimum_to_move > 0) {
    out->amplification = out->moved / out->minimum_to_move;
  } else if (out->moved > 0) {
    out->amplification_note = "n/a: the floor is 0 (the weights do not ask for any movement)";
  }
}

// The next stage starts where this one leaves the OSDs: `ceph osd df`'s
// use of each OSD moved to its use after the stage (kb_avail by the same
// amount), as the monitor's next `osd df` would show once the backfill is
// done. OSDs without `osd df` figures keep none.
void CarryUsage(const Movement& m, ClusterState* state) {
  for (const OsdMovement& o : m.osds) {
    if (!o.capacity_from_osd_df) continue;
    const auto it = state->osd_usage.find(o.osd);
    if (it == state->osd_usage.end()) continue;
    OsdUsage& u = it->second;
    const std::uint64_t before_kb = u.kb_used;
    u.kb_used = o.used_after / 1024;
    if (u.kb_avail) {
      const std::int64_t grew =
          static_cast<std::int64_t>(u.kb_used) - static_cast<std::int64_t>(before_kb);
      const std::int64_t avail = static_cast<std::int64_t>(*u.kb_avail) - grew;
      u.kb_avail = static_cast<std::uint64_t>(std::max<std::int64_t>(0, avail));
    }
  }
}

// One alternative planned: every stage through PlanChange, the state
// carried from stage to stage as the monitor would commit it.
struct Planned {
  AlternativeResult result;
  std::optional<PlanReport> last_report;
};

Planned PlanOne(const ClusterState& before, const PlanAlternative& alt, std::size_t index,
                const PlanOptions& base, bool keep_report) {
  Planned p;
  AlternativeResult& out = p.result;
  out.name = alt.name;
  out.input_index = index;
  out.stages = static_cast<int>(alt.stages.size());
  PlanOptions options = base;
  options.max_misplaced = alt.max_misplaced;
  options.upmap_remapped = false;
  ClusterState state = before;
  for (std::size_t s = 0; s < alt.stages.size(); ++s) {
    const ChangeList& change = alt.stages[s];
    for (const ChangeOp& op : change.ops) {
      out.change.push_back(alt.stages.size() > 1
                               ? absl::StrCat("stage ", s + 1, ": ", DescribeChangeOp(op))
                               : DescribeChangeOp(op));
    }
    absl::StatusOr<PlanReport> r = PlanChange(state, change, options);
    if (!r.ok()) {
      out.error = alt.stages.size() > 1 ? absl::StrCat("stage ", s + 1, ": ", r.status().message())
                                        : std::string(r.status().message());
      return p;
    }
    const bool last = s + 1 == alt.stages.size();
    AddStage(*r, s == 0, last, &out);
    absl::StatusOr<ClusterState> next = ApplyChange(state, change);
    if (!next.ok()) {
      out.error = std::string(next.status().message());
      return p;
    }
    MovementRisks ignored;
    if (absl::Status c = CleanUpmapsAfterChange(*next, options, &ignored); !c.ok()) {
      out.error = std::string(c.message());
      return p;
    }
    state = *std::move(next);
    if (!last) CarryUsage(r->movement, &state);
    if (last) {
      SetDeviation(state, r->movement.osds, &out);
      if (keep_report) p.last_report = *std::move(r);
    }
  }
  Finish(&out);
  return p;
}

// The value `rank` orders by, lower is better; +inf when unknown.
double Key(const AlternativeResult& a, RankBy rank) {
  constexpr double kUnknown = std::numeric_limits<double>::infinity();
  auto known = [&](double v) { return v < 0 ? kUnknown : v; };
  switch (rank) {
    case RankBy::kMoved:
      return a.moved;
    case RankBy::kDuration:
      return known(a.duration_seconds);
    case RankBy::kPeakFill:
      return known(a.peak_fill);
    case RankBy::kFullest:
      return known(a.fullest_after);
    case RankBy::kDeviation:
      return known(a.max_deviation);
    case RankBy::kAmplification:
      return a.amplification > 0 ? a.amplification : kUnknown;
    case RankBy::kMaxAvail: {
      if (a.pools.empty()) return kUnknown;
      double worst = std::numeric_limits<double>::infinity();
      for (const AlternativePoolAvail& p : a.pools) {
        worst = std::min(worst, static_cast<double>(p.after) - static_cast<double>(p.before));
      }
      return -worst;
    }
  }
  return kUnknown;
}

bool Better(const AlternativeResult& a, const AlternativeResult& b, RankBy rank) {
  if (a.error.empty() != b.error.empty()) return a.error.empty();
  for (RankBy r : {rank, RankBy::kMoved, RankBy::kPeakFill}) {
    const double ka = Key(a, r), kb = Key(b, r);
    if (ka != kb) return ka < kb;
  }
  return a.input_index < b.input_index;
}

// Sorts best first and numbers the ranks; the best report is kept only
// if it is the best's.
void Rank(PlanComparison* c) {
  std::sort(c->alternatives.begin(), c->alternatives.end(),
            [&](const AlternativeResult& a, const AlternativeResult& b) {
              return Better(a, b, c->rank_by);
            });
  int rank = 0;
  for (AlternativeResult& r : c->alternatives) {
    r.rank = r.error.empty() ? ++rank : 0;
    if (r.rank == 1) c->bytes_source = r.bytes_source;
  }
}

// The before state mapped and recorded once (pg_table_replay.h), for
// MovementOptions::recorded: every alternative's paired mapping of its
// first stage takes this table and replays the recorded choices instead of
// mapping the before state again. `given` when it already records `before`;
// null when the state does not open (each alternative then reports the
// error).
std::shared_ptr<const RecordedMapping> RecordBefore(const ClusterState& before, int threads,
                                                    std::shared_ptr<const RecordedMapping> given) {
  if (given != nullptr && !given->acting() && given->Records(before)) return given;
  absl::StatusOr<std::unique_ptr<MappingSession>> session = MappingSession::Create(before);
  if (!session.ok()) return nullptr;
  MapAllOptions mo;
  mo.threads = threads;
  mo.acting = false;
  return RecordedMapping::Record(std::shared_ptr<const MappingSession>(*std::move(session)), mo);
}

}  // namespace

absl::StatusOr<PlanComparison> ComparePlans(const ClusterState& before,
                                            const std::vector<PlanAlternative>& alternatives,
                                            const CompareOptions& options) {
  if (alternatives.empty()) return absl::InvalidArgumentError("no alternatives to compare");
  for (const PlanAlternative& a : alternatives) {
    if (a.stages.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("alternative '", a.name, "' has no change"));
    }
    if (a.max_misplaced && a.stages.size() > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("alternative '", a.name, "': a staged plan of several stages"));
    }
  }
  PlanComparison out;
  out.rank_by = options.rank_by;
  for (std::int32_t o = 0; o < before.max_osd(); ++o) out.osds += before.Exists(o) ? 1 : 0;
  for (const auto& [id, p] : before.pools) out.pgs += p.pg_num;
  // Alternatives run `concurrent` at a time, the threads shared among
  // them: the planner's single-threaded parts (compare, schedule, safety)
  // overlap with the others' mapping.
  const int threads = ResolveThreads(options.threads);
  const int concurrent = std::min<int>(threads, static_cast<int>(alternatives.size()));
  PlanOptions base = options.plan;
  base.movement.threads = std::max(1, threads / concurrent);
  base.movement.progress = nullptr;
  base.staging_progress = nullptr;
  base.movement.keep_moves = false;
  // Alternatives are ranked by the one order's duration; the range is the single plan's.
  base.request_orders.orders = 0;
  base.movement.recorded = RecordBefore(before, threads, base.movement.recorded);

  std::vector<AlternativeResult> results(alternatives.size());
  std::optional<PlanReport> best;
  std::optional<AlternativeResult> best_result;
  std::mutex mu;
  std::atomic<std::size_t> next{0};
  int done = 0;
  auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < alternatives.size(); i = next.fetch_add(1)) {
      Planned p = PlanOne(before, alternatives[i], i, base, options.keep_best);
      std::lock_guard<std::mutex> lock(mu);
      if (options.keep_best && p.last_report &&
          (!best_result || Better(p.result, *best_result, options.rank_by))) {
        best_result = p.result;
        best = std::move(p.last_report);
      }
      results[i] = std::move(p.result);
      ++done;
      if (options.progress) options.progress(done, static_cast<int>(alternatives.size()));
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < concurrent; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();

  out.alternatives = std::move(results);
  out.best_report = std::move(best);
  Rank(&out);
  return out;
}

absl::StatusOr<PlanComparison> CompareStepSweep(const ClusterState& before,
                                                const PlanAlternative& change, int max_steps,
                                                const CompareOptions& options) {
  if (max_steps < 2 || max_steps > 20) {
    return absl::InvalidArgumentError(
        absl::StrCat("--steps ", max_steps, ": expected 2 to 20 (the largest step count)"));
  }
  if (change.stages.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--steps stages one change; '", change.name, "' has several stages"));
  }
  // One recording of the before state for both comparisons.
  CompareOptions recorded_options = options;
  recorded_options.plan.movement.recorded =
      RecordBefore(before, ResolveThreads(options.threads), options.plan.movement.recorded);
  PlanAlternative at_once{.name = "at once", .stages = change.stages, .max_misplaced = {}};
  absl::StatusOr<PlanComparison> out = ComparePlans(before, {at_once}, recorded_options);
  if (!out.ok()) return out.status();
  const AlternativeResult& whole = out->alternatives.front();
  if (!whole.error.empty()) return absl::InvalidArgumentError(whole.error);
  const double ratio = whole.misplaced_ratio;
  if (!(ratio > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(change.name, ": the change misplaces nothing; there is nothing to stage"));
  }
  std::vector<PlanAlternative> staged;
  for (int k = 2; k <= max_steps; ++k) {
    const double limit = ratio / k;
    staged.push_back(PlanAlternative{
        .name = absl::StrCat("steps <= ", absl::StrFormat("%.3g", limit * 100), "% (~", k, ")"),
        .stages = change.stages,
        .max_misplaced = limit});
  }
  absl::StatusOr<PlanComparison> more = ComparePlans(before, staged, recorded_options);
  if (!more.ok()) return more.status();
  const bool keep_more = more->best_report && !more->alternatives.empty() &&
                         Better(more->alternatives.front(), whole, options.rank_by);
  for (AlternativeResult& a : more->alternatives) {
    a.input_index += 1;
    out->alternatives.push_back(std::move(a));
  }
  if (keep_more) out->best_report = std::move(more->best_report);
  Rank(&*out);
  return out;
}

}  // namespace crushkit::osdmap
