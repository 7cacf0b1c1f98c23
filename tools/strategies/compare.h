// `crushkit strategies`: runs every placement strategy on the same cluster
// before and after the same change and measures what README.md defines:
// data movement (and its minimum), load balance relative to weight, replicas
// sharing a failure domain, lookup time and memory. Single-threaded; the
// functions here are reentrant.
#ifndef CRUSHKIT_TOOLS_STRATEGIES_COMPARE_H_
#define CRUSHKIT_TOOLS_STRATEGIES_COMPARE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "tools/strategies/strategy.h"
#include "tools/strategies/topology.h"

namespace crushkit::strategies {

struct CompareOptions {
  StrategyOptions strategy;
  std::int64_t keys = 100000;
  // Strategy names to run (README order if empty); see AllStrategyNames().
  std::vector<std::string> only;
};

struct StrategyReport {
  std::string strategy;
  double moved_fraction = 0;      // replica slots that need a new copy / (keys * replicas)
  double min_moved_fraction = 0;  // the weight shift: no strategy can move less (in expectation)
  // Balance and separation of the cluster AFTER the change (the one you end
  // up with; equal to before when there is no change):
  double max_over_mean = 0;            // max over nodes of load / ideal load
  double stddev = 0;                   // RMS of (load / ideal load - 1) over nodes
  std::int64_t domain_violations = 0;  // keys with two replicas in one failure domain
  std::int64_t short_keys = 0;   // keys with fewer than min(replicas, nodes) nodes, either state
  double lookup_ns = 0;          // mean Place() CPU time per key, before the change
  std::size_t memory_bytes = 0;  // lookup structures before the change
  // The same balance/separation figures for the cluster before the change.
  double max_over_mean_before = 0;
  double stddev_before = 0;
  std::int64_t domain_violations_before = 0;
};

struct ComparisonReport {
  std::int64_t keys = 0;
  int replicas = 0;
  std::size_t nodes_before = 0;
  std::size_t nodes_after = 0;
  std::size_t domains_before = 0;
  std::string domain_type;
  std::vector<StrategyReport> rows;
};

// "mod-n", "ring", "jump", "rendezvous", "maglev", "partitions", "straw2".
const std::vector<std::string>& AllStrategyNames();

// The minimum moved fraction: sum over nodes of max(0, new share - old share)
// with shares from IdealShares() (nodes matched by id).
double MinMovedFraction(const Topology& before, const Topology& after, int replicas);

// Measures every selected strategy. Errors: kInvalidArgument for bad options
// (keys must be 1..10^8 and keys * replicas <= 5 * 10^7; replicas
// 1..kMaxReplicas; unknown strategy names), or a strategy's build error.
// Cost: O(keys * replicas) memory, O(keys * lookup) time per strategy.
absl::StatusOr<ComparisonReport> CompareStrategies(const Topology& before, const Topology& after,
                                                   const CompareOptions& options);

// A fixed-width table, one row per strategy, with a header line describing
// the run.
std::string FormatTable(const ComparisonReport& report);

// {"strategies": [{"strategy": ..., "moved_fraction": ..., ...}, ...], ...}
std::string FormatJson(const ComparisonReport& report);

}  // namespace crushkit::strategies

#endif  // CRUSHKIT_TOOLS_STRATEGIES_COMPARE_H_
