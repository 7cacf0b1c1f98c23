#include "osdmap/planning/backfill_orders.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"
#include "osdmap/planning/movement_report.h"

namespace crushkit::osdmap {

namespace {

// splitmix64 (Steele, Lea, Flood 2014): a fixed sequence for a seed on every
// platform, where std::shuffle and the standard distributions are not.
class OrderShuffleRng {
 public:
  explicit OrderShuffleRng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // In [0, n); the modulo's bias is below n / 2^64.
  std::size_t Below(std::size_t n) { return static_cast<std::size_t>(Next() % n); }

 private:
  std::uint64_t state_;
};

// The q-quantile of ascending `v` (not empty), interpolating linearly
// between neighbours (numpy's default).
double SortedQuantile(const std::vector<double>& v, double q) {
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  if (lo + 1 >= v.size()) return v.back();
  const double frac = pos - static_cast<double>(lo);
  return v[lo] + frac * (v[lo + 1] - v[lo]);
}

// The range before any simulation: what was asked, and how many orders the
// cap lets `jobs` run (r.orders; 0 when none, r.capped when fewer than asked).
absl::StatusOr<RequestOrderRange> OrdersWithinCap(std::size_t jobs,
                                                  const RequestOrderOptions& order_options) {
  if (order_options.min_orders < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "request orders: min_orders is ", order_options.min_orders, ": must be at least 2"));
  }
  RequestOrderRange r;
  r.orders_asked = order_options.orders;
  r.jobs = jobs;
  r.max_job_simulations = order_options.max_job_simulations;
  if (order_options.orders < 2) return r;
  // The cap: as many orders as its job simulations allow, none below the minimum.
  const std::uint64_t fit =
      jobs == 0 ? order_options.max_job_simulations : order_options.max_job_simulations / jobs;
  const auto orders = static_cast<int>(
      std::min<std::uint64_t>(static_cast<std::uint64_t>(order_options.orders), fit));
  r.capped = orders < order_options.orders;
  if (orders >= order_options.min_orders) r.orders = orders;
  return r;
}

}  // namespace

absl::StatusOr<RequestOrderRange> SimulateRequestOrders(std::span<const BackfillJob> jobs,
                                                        const BackfillOsdInfo& osd_info,
                                                        const BackfillOptions& options,
                                                        const RequestOrderOptions& order_options,
                                                        const EachOrderSchedule& each_order) {
  CRUSH_ASSIGN_OR_RETURN(RequestOrderRange r, OrdersWithinCap(jobs.size(), order_options));
  const int orders = r.orders;
  r.orders = 0;
  if (orders == 0) return r;
  // Only the makespan and the jobs' times are read: no trace, no curve
  // beyond its two ends, no waits list.
  BackfillOptions o = options;
  o.trace = nullptr;
  o.curve_max_points = 2;
  o.top_waits = 0;
  // perm[i]: the index in `jobs` of the i-th job to ask.
  std::vector<std::size_t> perm(jobs.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::vector<BackfillJob> order(jobs.begin(), jobs.end());
  std::vector<BackfillJobTiming> given_order;
  std::vector<double> seconds;
  seconds.reserve(static_cast<std::size_t>(orders));
  OrderShuffleRng rng(order_options.seed);
  for (int k = 0; k < orders; ++k) {
    if (k > 0) {
      // A shuffle of the previous order is as uniform as one of the first.
      for (std::size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[rng.Below(i)]);
      for (std::size_t i = 0; i < perm.size(); ++i) order[i] = jobs[perm[i]];
    }
    CRUSH_ASSIGN_OR_RETURN(BackfillSchedule s, SimulateBackfill(order, osd_info, o));
    seconds.push_back(s.makespan_seconds);
    if (each_order) {
      given_order.resize(s.jobs.size());
      for (std::size_t i = 0; i < perm.size(); ++i) given_order[perm[i]] = s.jobs[i];
      s.jobs.swap(given_order);
      CRUSH_RETURN_IF_ERROR(each_order(s));
    }
  }
  r.orders = orders;
  r.given_seconds = seconds.front();
  std::sort(seconds.begin(), seconds.end());
  r.min_seconds = seconds.front();
  r.p10_seconds = SortedQuantile(seconds, 0.1);
  r.median_seconds = SortedQuantile(seconds, 0.5);
  r.p90_seconds = SortedQuantile(seconds, 0.9);
  r.max_seconds = seconds.back();
  return r;
}

std::string FormatRequestOrderRange(const RequestOrderRange& r) {
  if (r.orders_asked < 2) return "";
  if (r.orders == 0) {
    return absl::StrCat("request orders not simulated: ", r.jobs, " PGs x ", r.orders_asked,
                        " orders is over the cap of ", r.max_job_simulations, " PG simulations");
  }
  std::string out = absl::StrCat(
      FormatDuration(r.p10_seconds), " .. ", FormatDuration(r.p90_seconds), " over ", r.orders,
      " request orders (p10 .. p90; median ", FormatDuration(r.median_seconds), ", all ",
      FormatDuration(r.min_seconds), " .. ", FormatDuration(r.max_seconds), ")");
  if (r.capped) {
    absl::StrAppend(&out, "; ", r.orders, " of ", r.orders_asked, " for the cap of ",
                    r.max_job_simulations, " PG simulations");
  }
  return out;
}

}  // namespace crushkit::osdmap
