// What `crushkit diff` and `crushkit plan` report: the movement (what
// moves) and, unless turned off, the simulated backfill of doing it at once;
// with a misplaced limit, the staged plan. Plain values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_PLAN_REPORT_H_
#define CRUSHKIT_OSDMAP_PLANNING_PLAN_REPORT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "crush/ceph_release.h"
#include "osdmap/planning/backfill_cost.h"
#include "osdmap/planning/backfill_orders.h"
#include "osdmap/planning/backfill_schedule.h"
#include "osdmap/planning/change_safety.h"
#include "osdmap/planning/change_warnings.h"
#include "osdmap/planning/movement.h"
#include "osdmap/planning/staged_plan.h"
#include "osdmap/planning/upmap_pinning.h"

namespace crushkit::osdmap {

struct PlanReport {
  Movement movement;
  std::optional<BackfillSchedule> schedule;
  BackfillOptions backfill;  // what the schedule was simulated with
  // The schedule's makespan over request orders (PlanOptions::request_orders).
  std::optional<RequestOrderRange> request_orders;
  // Where its rates came from (PlanOptions::backfill_cost); unset: the rates
  // were given as they are.
  std::optional<BackfillCostReport> backfill_cost;
  std::optional<StagedPlan> staged;        // PlanOptions::max_misplaced
  std::optional<UpmapPinPlan> upmap_plan;  // PlanOptions::upmap_remapped
  // MAX AVAIL before / lowest during / after, peak fill, toofull stalls.
  std::optional<ChangeSafety> safety;
  // Change-file warnings (NewBucketWarnings) first, then DetachedWarnings.
  std::vector<PlanWarning> warnings;
  // The before state's release (the backfill model's), and the PGs whose
  // backfill runs with a copy missing (PgMove::degraded; counted before the
  // moves are dropped), for the headline (plan_headline.h).
  crush::CephRelease ceph_release = crush::kDefaultCephRelease;
  std::uint32_t pgs_degraded_during = 0;
  // Movement::change lists operations (PlanChange), not a description
  // (a diff's "crush map replaced by FILE").
  bool change_is_operations = false;
  // Mappings of the whole plan (both states, the cleanup, the staged plan's
  // steps, the upmap way) whose result is crushkit's documented answer where
  // Ceph's is undefined (CrushPlacement::DivergedFromCeph): the tools say
  // so on stderr.
  std::uint64_t mappings_diverged_from_ceph = 0;
  // PgStepUps::not_mapped of a change of several commands ("" otherwise).
  std::string pushers_note;
};

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_PLAN_REPORT_H_
