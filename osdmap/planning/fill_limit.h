// The --max-fill guard of the staged plan and the upmap way: every OSD that
// receives data in a step must stay under a fill limit (by default the
// state's backfillfull_ratio) at every moment of that step.
//
// The bound is Ceph's own worst case, independent of the order in which the
// step's PGs backfill: a copy lands on its target while the PG backfills,
// and the copies it replaces are deleted only when that PG is clean again
// (the primary purges its strays), so within a step an OSD can hold its use
// at the step's start plus everything the step sends it before it loses
// anything. What Ceph checks before a backfill starts
// (OSDService::tentative_backfill_full: the OSD's use now, plus the bytes
// still to come of every backfill reserved on it, plus this PG's) never
// exceeds that, so a step under the limit never meets backfill_toofull at
// a limit at or below Ceph's (max(backfillfull_ratio, nearfull_ratio)).
// Between steps the cluster is clean: an OSD then holds its start plus what
// it received less what it gave up.
//
// Only OSDs whose capacity comes from `ceph osd df`
// (OsdMovement::capacity_from_osd_df) are checked; OSDs that only give data
// up are never refused by Ceph and are not limited.
//
// Thread-safety: a FillTracker is a plain value; const methods may run
// concurrently.
#ifndef CRUSHKIT_OSDMAP_PLANNING_FILL_LIMIT_H_
#define CRUSHKIT_OSDMAP_PLANNING_FILL_LIMIT_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "crush/types.h"
#include "osdmap/planning/movement.h"

namespace crushkit::osdmap {

// The fullest receiving OSD of a step at its worst moment.
struct FillPeak {
  std::int32_t osd = crush::kItemNone;  // kItemNone: no checked OSD receives anything
  double fill = 0;                      // (used_start + incoming) / capacity
  double start_fill = 0;                // used_start / capacity
  std::uint64_t used_start = 0;
  std::uint64_t incoming = 0;
  std::uint64_t capacity = 0;
};

// Why a plan cannot keep every OSD under the limit (one per OSD and step).
struct FillProblem {
  // The step (staged plan) or batch (upmap way) index; 0 for step 0 or the
  // upmap way's immediate moves; -1 for the change's final state.
  int step = -1;
  std::string where;  // "step 3", "batch 2", "the moves at once", "after the change"
  std::int32_t osd = crush::kItemNone;
  double fill = 0;   // the projected fill there
  double limit = 0;  // --max-fill
  double start_fill = 0;
  std::string reason;  // one sentence, lowercase start, no trailing period
};

class FillTracker {
 public:
  // Starts every OSD of `at_once` whose capacity is from `ceph osd df` at
  // its used_before. limit <= 0: nothing is checked.
  FillTracker(const Movement& at_once, double limit);

  // A limit is set and at least one OSD has a known capacity.
  bool active() const { return limit_ > 0 && !space_.empty(); }

  double limit() const { return limit_; }

  // The worst receiving OSD of a step whose per-OSD movement is `step`
  // (OsdMovement::bytes_in); osd = kItemNone when none receives.
  FillPeak WorstTarget(std::span<const OsdMovement> step) const;

  // The same for a set of PG moves (bytes_per_target to each target).
  FillPeak WorstTarget(std::span<const PgMove* const> moves) const;

  // Whether `peak` is at or over the limit (Ceph refuses at >=).
  bool Over(const FillPeak& peak) const {
    return active() && peak.osd != crush::kItemNone && peak.fill >= limit_;
  }

  // The step is done and clean: use += bytes_in - bytes_out.
  void Apply(std::span<const OsdMovement> step);
  void Apply(std::span<const PgMove* const> moves);

  // Capacity and use now of `osd`; false when its capacity is unknown.
  bool Space(std::int32_t osd, std::uint64_t* used, std::uint64_t* capacity) const;

 private:
  struct OsdSpace {
    std::uint64_t capacity = 0;
    std::int64_t used = 0;
  };

  FillPeak Peak(std::int32_t osd, const OsdSpace& s, std::uint64_t incoming) const;

  double limit_ = 0;
  std::map<std::int32_t, OsdSpace> space_;
};

// The receiving OSDs of `at_once` that end at or over `limit` after the
// change (fill_after, capacity from `ceph osd df`): no plan can keep them
// under it. Highest fill first.
std::vector<FillProblem> FinalStateOverLimit(const Movement& at_once, double limit);

// "osd.7 would reach 91.2% (6.2 points over the 85% limit) ..." sentences.
std::string DescribeFillProblem(const FillProblem& p);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_FILL_LIMIT_H_
