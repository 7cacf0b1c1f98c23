// What `crushkit diff` and `crushkit plan` report: the movement (what
// moves) and, unless turned off, the simulated backfill of doing it at once.
// Plain values.
#ifndef CRUSHKIT_OSDMAP_PLAN_REPORT_H_
#define CRUSHKIT_OSDMAP_PLAN_REPORT_H_

#include <optional>

#include "osdmap/backfill_schedule.h"
#include "osdmap/movement.h"

namespace crushkit::osdmap {

struct PlanReport {
  Movement movement;
  std::optional<BackfillSchedule> schedule;
  BackfillOptions backfill;  // what the schedule was simulated with
};

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLAN_REPORT_H_
