// The upmap way's batches (upmap_pinning_internal.h): the moves of the PGs
// without a pin at once, then the pins removed in batches under the
// misplaced and fill limits, each batch's backfill simulated.
#include <algorithm>
#include <map>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/upmap_pinning_internal.h"

namespace crushkit::osdmap {
namespace {

// Sums a group of moves into `batch` and simulates their backfill.
class BatchBuilder {
 public:
  BatchBuilder(const Movement& at_once, const BackfillOptions& backfill)
      : info_(OsdInfoFromMovement(at_once)), options_(backfill) {
    objects_ = at_once.totals.objects_total > 0;
    total_ = objects_ ? at_once.totals.objects_total : at_once.totals.shards_total;
    if (options_.objects_total == 0) options_.objects_total = at_once.totals.objects_total;
    for (const PgMove& m : at_once.moves) moves_.push_back(&m);
    std::stable_sort(moves_.begin(), moves_.end(),
                     [](const PgMove* a, const PgMove* b) { return a->pg < b->pg; });
  }

  bool in_objects() const { return objects_; }

  std::uint64_t total() const { return total_; }

  // The move of `pg`, or nullptr (a PG whose set changed without a target).
  const PgMove* Find(const PgId& pg) const {
    auto it = std::lower_bound(moves_.begin(), moves_.end(), pg,
                               [](const PgMove* m, const PgId& p) { return m->pg < p; });
    return it != moves_.end() && (*it)->pg == pg ? *it : nullptr;
  }

  const std::vector<const PgMove*>& moves() const { return moves_; }

  // What the throttle counts for one move.
  std::uint64_t Cost(const PgMove* m) const {
    if (m == nullptr) return 0;
    return objects_ ? m->objects_per_target * m->targets.size() : m->targets.size();
  }

  // Fills the counters, ratio and simulated time of `batch` from `moves`.
  absl::Status Finish(std::span<const PgMove* const> moves, UpmapBatch* batch) const {
    // Each move's job made from the move in place (no copy of its PG sets).
    std::vector<BackfillJob> jobs;
    jobs.reserve(moves.size());
    std::uint64_t cost = 0;
    for (const PgMove* m : moves) {
      batch->shards += static_cast<std::uint32_t>(m->targets.size());
      batch->objects += m->objects_per_target * m->targets.size();
      batch->bytes += m->bytes_per_target * m->targets.size();
      cost += Cost(m);
      for (BackfillJob& j : JobsFromMoves({m, 1})) jobs.push_back(std::move(j));
    }
    batch->misplaced_ratio =
        total_ == 0 ? 0 : static_cast<double>(cost) / static_cast<double>(total_);
    if (jobs.empty()) return absl::OkStatus();
    CRUSH_ASSIGN_OR_RETURN(const BackfillSchedule s, SimulateBackfill(jobs, info_, options_));
    batch->seconds = s.makespan_seconds;
    return absl::OkStatus();
  }

 private:
  BackfillOsdInfo info_;
  BackfillOptions options_;
  bool objects_ = true;
  std::uint64_t total_ = 0;
  std::vector<const PgMove*> moves_;
};

// Whether `m` still fits in a batch that already sends `batch_in` to its
// OSDs: each of its targets stays under the tracker's limit.
bool FitsFill(const FillTracker& tracker, const std::map<std::int32_t, std::uint64_t>& batch_in,
              const PgMove& m) {
  for (const std::int32_t t : m.targets) {
    std::uint64_t used = 0, capacity = 0;
    if (!tracker.Space(t, &used, &capacity)) continue;
    auto it = batch_in.find(t);
    const std::uint64_t in = (it == batch_in.end() ? 0 : it->second) +
                             m.bytes_per_target * static_cast<std::uint64_t>(std::count(
                                                      m.targets.begin(), m.targets.end(), t));
    if (static_cast<double>(used + in) >= tracker.limit() * static_cast<double>(capacity)) {
      return false;
    }
  }
  return true;
}

// Greedy batches over the pins in PG order (see the header). With `enforce`
// (an active tracker whose final state is under the limit), PGs that would
// take a target to the limit wait for a later batch.
absl::Status MakeBatches(const BatchBuilder& b, double max_misplaced, FillTracker& tracker,
                         bool enforce, UpmapPinPlan* plan) {
  const double limit = max_misplaced * static_cast<double>(b.total());
  std::vector<const UpmapPin*> pending;
  for (const UpmapPin& pin : plan->pins) pending.push_back(&pin);
  while (!pending.empty()) {
    UpmapBatch cur;
    std::vector<const PgMove*> cur_moves;
    std::map<std::int32_t, std::uint64_t> cur_in;
    std::uint64_t cur_cost = 0;
    std::vector<const UpmapPin*> rest;
    auto add = [&](const UpmapPin* pin, const PgMove* m, std::uint64_t cost) {
      cur.pgs.push_back(pin->pg);
      cur.commands.insert(cur.commands.end(), pin->unpin_commands.begin(),
                          pin->unpin_commands.end());
      if (m != nullptr) {
        cur_moves.push_back(m);
        for (const std::int32_t t : m->targets) cur_in[t] += m->bytes_per_target;
      }
      cur_cost += cost;
    };
    for (std::size_t i = 0; i < pending.size(); ++i) {
      const UpmapPin* pin = pending[i];
      const PgMove* m = b.Find(pin->pg);
      const std::uint64_t cost = b.Cost(m);
      if (!cur.pgs.empty() && static_cast<double>(cur_cost + cost) > limit) {
        rest.insert(rest.end(), pending.begin() + static_cast<std::ptrdiff_t>(i), pending.end());
        break;
      }
      if (enforce && m != nullptr && !FitsFill(tracker, cur_in, *m)) {
        rest.push_back(pin);  // waits until earlier batches free room on its targets
        continue;
      }
      const bool alone = cur.pgs.empty() && static_cast<double>(cost) > limit;
      add(pin, m, cost);
      if (alone) {
        cur.over_limit = true;
        rest.insert(rest.end(), pending.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                    pending.end());
        break;
      }
    }
    if (cur.pgs.empty()) {
      // No waiting PG fits: the first goes alone, over the fill limit.
      const PgMove* m = b.Find(rest.front()->pg);
      add(rest.front(), m, b.Cost(m));
      cur.over_limit = static_cast<double>(b.Cost(m)) > limit;
      rest.erase(rest.begin());
    }
    cur.peak = tracker.WorstTarget(cur_moves);
    cur.over_fill = tracker.Over(cur.peak);
    CRUSH_RETURN_IF_ERROR(b.Finish(cur_moves, &cur));
    tracker.Apply(cur_moves);
    if (cur.over_fill && enforce) {
      const int index = static_cast<int>(plan->batches.size()) + 1;
      plan->fill_problems.push_back(FillProblem{
          .step = index,
          .where = absl::StrCat("batch ", index),
          .osd = cur.peak.osd,
          .fill = cur.peak.fill,
          .limit = tracker.limit(),
          .start_fill = cur.peak.start_fill,
          .reason =
              absl::StrCat("no remaining PG fits under the limit; this batch's PG alone sends it ",
                           FormatBytes(static_cast<double>(cur.peak.incoming)))});
    }
    plan->batches.push_back(std::move(cur));
    pending = std::move(rest);
  }
  return absl::OkStatus();
}

// The moves of PGs without a pin: they start as soon as the change lands.
absl::Status MakeImmediate(const BatchBuilder& b, double max_misplaced, FillTracker& tracker,
                           bool enforce, UpmapPinPlan* plan) {
  // plan->pins are in PG order.
  auto pinned = [&pins = plan->pins](const PgId& pg) {
    auto it = std::lower_bound(pins.begin(), pins.end(), pg,
                               [](const UpmapPin& p, const PgId& g) { return p.pg < g; });
    return it != pins.end() && it->pg == pg;
  };
  std::vector<const PgMove*> moves;
  std::uint64_t cost = 0;
  for (const PgMove* m : b.moves()) {
    if (pinned(m->pg)) continue;
    moves.push_back(m);
    plan->immediate.pgs.push_back(m->pg);
    cost += b.Cost(m);
  }
  plan->immediate.over_limit =
      static_cast<double>(cost) > max_misplaced * static_cast<double>(b.total());
  plan->immediate.peak = tracker.WorstTarget(moves);
  plan->immediate.over_fill = tracker.Over(plan->immediate.peak);
  if (plan->immediate.over_fill && enforce) {
    const FillPeak& p = plan->immediate.peak;
    plan->fill_problems.push_back(FillProblem{
        .step = 0,
        .where = "the moves at once",
        .osd = p.osd,
        .fill = p.fill,
        .limit = tracker.limit(),
        .start_fill = p.start_fill,
        .reason = absl::StrCat("the PGs that cannot be pinned send it ",
                               FormatBytes(static_cast<double>(p.incoming)), " at once")});
  }
  tracker.Apply(moves);
  return b.Finish(moves, &plan->immediate);
}

}  // namespace

namespace internal {

absl::Status MakePinBatches(const Movement& at_once, const BackfillOptions& backfill,
                            double max_misplaced, double max_fill, UpmapPinPlan* plan) {
  const BatchBuilder builder(at_once, backfill);
  plan->limit_in_objects = builder.in_objects();
  FillTracker tracker(at_once, max_fill);
  plan->max_fill = max_fill;
  plan->fill_checked = tracker.active();
  const std::vector<FillProblem> final_over =
      tracker.active() ? FinalStateOverLimit(at_once, max_fill) : std::vector<FillProblem>{};
  // With the final state over the limit no batching keeps it: measure only.
  const bool enforce = tracker.active() && final_over.empty();
  CRUSH_RETURN_IF_ERROR(MakeImmediate(builder, max_misplaced, tracker, enforce, plan));
  CRUSH_RETURN_IF_ERROR(MakeBatches(builder, max_misplaced, tracker, enforce, plan));
  if (!final_over.empty()) plan->fill_problems = final_over;
  plan->fill_feasible = plan->fill_problems.empty();
  plan->total_seconds = plan->immediate.seconds;
  for (const UpmapBatch& batch : plan->batches) plan->total_seconds += batch.seconds;
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace crushkit::osdmap
