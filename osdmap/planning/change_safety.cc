#include "osdmap/planning/change_safety.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include "osdmap/planning/backfill_cost.h"
#include "osdmap/planning/movement_report.h"

namespace crushkit::osdmap {
namespace {

absl::StatusOr<MaxAvailModel> Side(const ClusterState& state, const char* name) {
  absl::StatusOr<MaxAvailModel> m = MaxAvailModel::Create(state);
  if (!m.ok()) {
    return absl::Status(m.status().code(), absl::StrCat(name, ": ", m.status().message()));
  }
  return m;
}

// The usage the movement started from, moved by each OSD's `used` figure
// less its used_before (OSDs whose capacity came from `ceph osd df`).
template <typename UsedOf>
std::map<std::int32_t, OsdUsage> Projected(const SafetyInputs& in, const Movement& movement,
                                           UsedOf used_of) {
  std::map<std::int32_t, std::int64_t> delta;
  for (const OsdMovement& o : movement.osds) {
    if (!o.capacity_from_osd_df) continue;
    const std::uint64_t used = used_of(o);
    delta[o.osd] = static_cast<std::int64_t>(used) - static_cast<std::int64_t>(o.used_before);
  }
  return ShiftUsage(in.usage_start, delta);
}

// The monitor's commits while a change runs, one per propose interval that
// has something to commit (the maps are paxos_propose_interval apart,
// counted from the change's own map): the change, the pg_temp of its PGs
// (the next interval) and their primaries' up_thru (the one after), then for
// each PG the map dropping its pg_temp (end delay after its backfill ends)
// and the up_thru of its primary re-peering under it in the next interval.
// Over the measured pg_temp drops instead of the schedule's, this gives the
// epochs of the 12 loopback changes of one command within -1 .. 0
// (tools/dev/README.md).
// Cost: O(jobs + seconds of the schedule).
std::uint32_t EpochsOf(const BackfillSchedule& schedule) {
  if (schedule.jobs.empty()) return 0;
  const double interval = kPaxosProposeIntervalSeconds;
  const double last = std::max(0.0, schedule.makespan_seconds) / interval + 4;
  if (!(last < 1e8)) return 0;  // a schedule of years: no count
  std::vector<bool> commit(static_cast<std::size_t>(last) + 2, false);
  commit[0] = commit[1] = commit[2] = true;
  for (const BackfillJobTiming& j : schedule.jobs) {
    if (j.never_starts) continue;
    const auto k = static_cast<std::size_t>(
        std::max(0.0, std::round((j.end_seconds + schedule.end_delay_seconds) / interval)));
    if (k + 1 >= commit.size()) continue;
    commit[k] = commit[k + 1] = true;
  }
  return static_cast<std::uint32_t>(std::count(commit.begin(), commit.end(), true));
}

// How many of `epochs` new maps a monitor keeps once every PG is clean, the
// map at `epoch` before them: it trims down to mon_min_osdmap_epochs.
std::uint32_t EpochsKept(std::uint32_t epoch, std::uint32_t epochs) {
  if (epoch >= kMonMinOsdmapEpochs) return 0;
  return std::min(epochs, kMonMinOsdmapEpochs - epoch);
}

// The osdmaps' estimate, its MAX AVAIL after and the sentence saying it is
// not in the figures. REQUIRES: s->pools made from `after_usage`.
void AddOsdmapGrowth(const SafetyInputs& in, const Movement& movement,
                     const BackfillSchedule* schedule,
                     const std::map<std::int32_t, OsdUsage>& after_usage, ChangeSafety* s) {
  OsdmapSizeInputs size = in.osdmap_size;
  size.moving_pgs = movement.moves.size();
  OsdmapGrowth g;
  g.bytes_per_epoch = EstimateOsdmapEpochBytes(size);
  g.epochs = schedule != nullptr ? EpochsOf(*schedule) : 0;
  g.epochs_kept = EpochsKept(in.epoch_before, g.epochs);
  std::map<std::int32_t, std::int64_t> grown;
  for (const auto& [osd, u] : after_usage) {
    grown[osd] = static_cast<std::int64_t>(g.epochs_kept * g.bytes_per_epoch);
  }
  for (const PoolMaxAvail& p : in.after.Compute(ShiftUsage(after_usage, grown))) {
    g.max_avail_after.push_back(p.max_avail_bytes);
  }
  std::string note = absl::StrCat(
      "MAX AVAIL counts data only: every OSD also stores each osdmap epoch the change creates "
      "(full map + incremental, ~",
      FormatBytes(static_cast<double>(g.bytes_per_epoch)),
      " per epoch per OSD, estimated), untrimmed while a PG is unclean");
  if (g.epochs > 0) {
    // The pool whose MAX AVAIL they lower most.
    std::uint64_t lower = 0;
    std::string pool;
    for (std::size_t i = 0; i < s->pools.size() && i < g.max_avail_after.size(); ++i) {
      const std::uint64_t by =
          s->pools[i].after - std::min(s->pools[i].after, g.max_avail_after[i]);
      if (by > lower) {
        lower = by;
        pool = s->pools[i].pool_name;
      }
    }
    absl::StrAppend(&note, "; at one a second while PGs finish ~", g.epochs, " epochs, ~",
                    FormatBytes(static_cast<double>(g.epochs * g.bytes_per_epoch)), " per OSD");
    absl::StrAppend(&note,
                    g.epochs_kept == g.epochs ? ", all kept after the change (the map is under "
                                                "mon_min_osdmap_epochs, 500)"
                    : g.epochs_kept == 0      ? ", trimmed again once every PG is clean"
                                         : absl::StrCat(", ", g.epochs_kept, " kept after it"));
    if (lower > 0) {
      absl::StrAppend(&note, ": MAX AVAIL after ~", FormatBytes(static_cast<double>(lower)),
                      " lower (pool ", pool, ", the most)");
    }
  }
  absl::StrAppend(&note, "; not in the figures (the monitor's timing decides the count)");
  s->notes.push_back(std::move(note));
  s->osdmaps = std::move(g);
}

}  // namespace

OsdmapSizeInputs OsdmapSizeInputsOf(const ClusterState& state) {
  OsdmapSizeInputs in;
  in.crush_bytes = EncodeCrush(state).size();
  in.osds = static_cast<std::uint64_t>(state.max_osd());
  in.pools = state.pools.size();
  for (const auto& [id, pool] : state.pools) {
    if (pool.type != PoolType::kReplicated) ++in.ec_pools;
  }
  in.temp_entries = state.pg_temp.size() + state.primary_temp.size() + state.pg_upmap.size() +
                    state.pg_upmap_items.size() + state.pg_upmap_primaries.size();
  return in;
}

std::uint64_t EstimateOsdmapEpochBytes(const OsdmapSizeInputs& in) {
  const std::uint64_t full = in.crush_bytes + 360 * in.osds + 300 * in.pools + 290 * in.ec_pools +
                             24 * in.temp_entries + 450;
  return full + 12 * in.moving_pgs + 500;
}

absl::StatusOr<SafetyInputs> PrepareSafety(const ClusterState& before, const ClusterState& after) {
  SafetyInputs in;
  absl::StatusOr<MaxAvailModel> b = Side(before, "before");
  if (!b.ok()) return b.status();
  absl::StatusOr<MaxAvailModel> a = Side(after, "after");
  if (!a.ok()) return a.status();
  in.before = *std::move(b);
  in.after = *std::move(a);
  in.usage_before = before.osd_usage;
  in.usage_start = before.osd_usage;
  for (const auto& [osd, u] : after.osd_usage) in.usage_start[osd] = u;
  // Only MAX AVAIL (which needs `ceph osd df`) reports the osdmaps.
  if (!before.osd_usage.empty()) in.osdmap_size = OsdmapSizeInputsOf(after);
  in.epoch_before = before.epoch;
  return in;
}

absl::StatusOr<ChangeSafety> AssessChangeSafety(const SafetyInputs& in, const Movement& movement,
                                                const BackfillSchedule* schedule,
                                                const FillTimelineOptions& fill_options) {
  ChangeSafety s;
  s.backfillfull_ratio = std::max(movement.risks.backfillfull_ratio, movement.risks.nearfull_ratio);
  if (schedule != nullptr) {
    absl::StatusOr<FillTimeline> fill = ComputeFillTimeline(movement, *schedule, fill_options);
    if (!fill.ok()) return fill.status();
    s.fill = *std::move(fill);
    s.stalls = schedule->stalls;
    s.pgs_never_starting = schedule->jobs_never_starting;
    if (s.pgs_never_starting > 0) {
      s.notes.push_back(absl::StrCat(
          s.pgs_never_starting,
          " PGs would stay in backfill_toofull for good: their target never drains below the "
          "backfillfull ratio, so the change cannot finish as one step"));
    }
  }
  if (in.usage_before.empty()) {
    s.notes.push_back("MAX AVAIL per pool needs `ceph osd df -f json` (import it with --osd-df)");
    return s;
  }
  if (movement.bytes_source == BytesSource::kUnknown) {
    s.notes.push_back(
        "MAX AVAIL after the change needs PG sizes: import `ceph pg dump -f json` (--pg-stats) "
        "or `ceph df -f json` (--df)");
  }
  const std::vector<PoolMaxAvail> before = in.before.Compute(in.usage_before);
  const std::map<std::int32_t, OsdUsage> after_usage =
      Projected(in, movement, [](const OsdMovement& o) { return o.used_after; });
  const std::vector<PoolMaxAvail> after = in.after.Compute(after_usage);
  std::map<std::int32_t, std::uint64_t> peak_used;
  if (s.fill) {
    for (const OsdFillPeak& p : s.fill->osds) peak_used[p.osd] = p.used_peak;
  }
  const std::vector<PoolMaxAvail> peak =
      s.fill
          ? in.after.Compute(Projected(in, movement,
                                       [&](const OsdMovement& o) {
                                         auto it = peak_used.find(o.osd);
                                         return it == peak_used.end() ? o.used_after : it->second;
                                       }))
          : after;
  // The same pools on both sides (CheckComparable), in pool id order.
  for (std::size_t i = 0; i < after.size() && i < before.size(); ++i) {
    PoolAvailChange c;
    c.pool_id = after[i].pool_id;
    c.pool_name = after[i].pool_name;
    c.before = before[i].max_avail_bytes;
    c.after = after[i].max_avail_bytes;
    // Every OSD's peak is at least its start and its end, so this is at
    // most `after` and at most the after map over the starting usage.
    c.peak = peak[i].max_avail_bytes;
    c.limiting_before = before[i].limiting_osd;
    c.limiting_peak = peak[i].limiting_osd;
    c.limiting_after = after[i].limiting_osd;
    s.pools.push_back(std::move(c));
  }
  AddOsdmapGrowth(in, movement, schedule, after_usage, &s);
  return s;
}

}  // namespace crushkit::osdmap
