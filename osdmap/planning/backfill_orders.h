// How much the order of the reservation requests moves a change's backfill
// duration: the same jobs simulated (SimulateBackfill) in the order given and
// in shuffles of it, and the spread of their makespans (issue 35).
//
// Why: Ceph's reservers grant in the order the PGs finish peering and their
// requests arrive (AsyncReserver: priority, then FIFO); the simulation asks in
// the order of its input, PG id order in a plan. No dump records Ceph's order,
// so one order cannot be right every time. On the loopback clusters of
// tools/dev/README.md 200 random orders moved a change spread over every OSD
// by +-9-12% (p10-p90) and up to +-28% (min-max); a change funnelled through
// one OSD by 0-3% (its busiest reserver is busy whatever the order); for a
// crush reweight PG id order was the fastest of all. The range says how far
// the headline's one order may be from Ceph's.
//
// Cost: up to `orders` simulations of the jobs, capped by work
// (RequestOrderOptions::max_job_simulations): a change too big for the cap
// runs fewer orders, or none, and the result says so.
//
// Thread-safety: SimulateRequestOrders() is a pure function of its
// arguments; results are plain values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_BACKFILL_ORDERS_H_
#define CRUSHKIT_OSDMAP_PLANNING_BACKFILL_ORDERS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "absl/status/statusor.h"

#include "osdmap/planning/backfill_schedule.h"

namespace crushkit::osdmap {

struct RequestOrderOptions {
  // Orders simulated: the order given and orders - 1 shuffles of it
  // (`crushkit plan --request-orders`). Below 2: none.
  int orders = 32;
  // The shuffles' seed: the same jobs, options and seed give the same range.
  std::uint64_t seed = 35;
  // The work cap: at most this many job simulations (orders x jobs) in all.
  // A change with more jobs than max_job_simulations / orders runs
  // max_job_simulations / jobs orders, and none when that is below
  // min_orders (the percentiles of fewer orders say little).
  std::uint64_t max_job_simulations = 40000;
  int min_orders = 8;
};

struct RequestOrderRange {
  int orders_asked = 0;                   // RequestOrderOptions::orders
  int orders = 0;                         // simulated, the order given among them; 0: none (capped)
  bool capped = false;                    // fewer than asked, for the work cap
  std::size_t jobs = 0;                   // jobs in one simulation
  std::uint64_t max_job_simulations = 0;  // the cap it ran under
  // The makespan in the order given (SimulateBackfill's), and over all
  // simulated orders (that one included): the smallest, the 10th
  // percentile, the median, the 90th and the largest (linear interpolation
  // between the sorted makespans). All 0 when no order ran.
  double given_seconds = 0;
  double min_seconds = 0;
  double p10_seconds = 0;
  double median_seconds = 0;
  double p90_seconds = 0;
  double max_seconds = 0;
};

// Simulates `jobs` in the order given and in orders - 1 shuffles of it (a
// Fisher-Yates shuffle of the job list, which is the order the PGs ask in;
// splitmix64 from `order_options.seed`, the same on every platform), each
// with `options` but no trace and no curve beyond its two ends, and reports
// the makespans' spread. With fewer than 2 orders asked, or when the cap
// leaves fewer than min_orders, nothing is simulated (orders = 0).
// With `each_order`, every simulated order's schedule is handed to it, its
// jobs put back in the order of `jobs` (schedule.jobs[i] is jobs[i]'s timing,
// whatever order they asked in), the order given first: the planner reads
// each order's peak fill from it (fill_timeline.h FillPeakRange).
// Errors: SimulateBackfill's (the first order's); kInvalidArgument for
// min_orders < 2; the first error `each_order` returns.
// Cost: `orders` x (SimulateBackfill(jobs) + O(jobs) + each_order).
using EachOrderSchedule = std::function<absl::Status(const BackfillSchedule&)>;
absl::StatusOr<RequestOrderRange> SimulateRequestOrders(std::span<const BackfillJob> jobs,
                                                        const BackfillOsdInfo& osd_info,
                                                        const BackfillOptions& options,
                                                        const RequestOrderOptions& order_options,
                                                        const EachOrderSchedule& each_order = {});

// "38 s .. 50 s over 32 request orders (median 44 s; 31 s .. 55 s in all)",
// or why none ran ("request orders not simulated: 120000 PGs x 32 orders is
// over the cap of 40000 PG simulations"); "" when none were asked for.
std::string FormatRequestOrderRange(const RequestOrderRange& r);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_BACKFILL_ORDERS_H_
