// How a rule spreads data over the buckets under its root: each item's
// expected share (its weight over the root's weight, what a perfectly
// balanced CRUSH would give) against the share it actually receives when
// inputs 0..N-1 are mapped, with the binomial standard deviation of a
// truly random placement as the yardstick for "close enough". Used by
// `crushkit tree --test`.
// Thread-safety: pure function over an immutable CrushMap.
#ifndef CRUSHKIT_CRUSH_EDIT_BUCKET_SHARES_H_
#define CRUSHKIT_CRUSH_EDIT_BUCKET_SHARES_H_

#include <cstdint>
#include <map>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/map.h"

namespace crushkit::crush {

struct ItemShare {
  double expected = 0;     // weight / root weight, in [0, 1]
  double actual = 0;       // replicas placed under the item / all replicas placed
  double binomial_sd = 0;  // sqrt(p (1 - p) / placed) for p = expected
  std::uint64_t replicas = 0;
};

struct ShareReport {
  ItemId root = 0;  // the rule's (first) take, a shadow bucket for class rules
  std::uint64_t inputs = 0;
  std::uint64_t placed = 0;           // replicas placed (results that are devices)
  std::uint64_t short_results = 0;    // inputs mapped to fewer than num_rep devices
  std::map<ItemId, ItemShare> items;  // every item under the root, and the root
};

// Maps x = 0..inputs-1 through `rule` with `num_rep` replicas (all devices
// in) and counts every device placed and each of its ancestors under the
// take. Errors: kNotFound for a missing rule, kInvalidArgument for a rule
// without a take or a num_rep outside 1..kMaxWorkspaceResult.
// Cost: inputs mappings plus O(items).
absl::StatusOr<ShareReport> MeasureShares(const CrushMap& map, int rule, int num_rep,
                                          std::uint32_t inputs);

// The rule's failure domain: the type of its chooseleaf step, else of its
// last choose step; 0 (devices) when it has neither.
int RuleDomainType(const MapModel& map, int rule);

// The items of `type` in `report` (devices for type 0) with a non-zero
// expected share, in id order.
std::vector<ItemId> ItemsOfType(const MapModel& map, const ShareReport& report, int type);

// How far the actual shares of `items` stray from their expected ones:
// fill = actual / expected; z = (actual - expected) / binomial_sd. For a
// truly random placement rms_z is about 1 and about 95% of items lie within
// 2 standard deviations: the binomial baseline CRUSH is judged against.
struct ShareSpread {
  int items = 0;
  double min_fill = 0, max_fill = 0;
  double rms_z = 0;
  int within_2sd = 0;
};

ShareSpread SpreadOf(const ShareReport& report, const std::vector<ItemId>& items);

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_EDIT_BUCKET_SHARES_H_
