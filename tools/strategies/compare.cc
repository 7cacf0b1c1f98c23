#include "tools/strategies/compare.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include "crush/status_macros.h"
#include "tools/strategies/jump.h"
#include "tools/strategies/key_hash.h"
#include "tools/strategies/maglev.h"
#include "tools/strategies/mod_n.h"
#include "tools/strategies/partitions.h"
#include "tools/strategies/rendezvous.h"
#include "tools/strategies/ring.h"
#include "tools/strategies/straw2.h"

namespace crushkit::strategies {
namespace {

constexpr std::int64_t kMaxKeys = 100'000'000;
constexpr std::int64_t kMaxSlots = 50'000'000;

// CPU time of this thread in ns. Lookup cost is measured in CPU time, not
// wall time, so a busy machine (other processes taking the cores) does not
// inflate it; cache and frequency effects still show.
double ThreadCpuNanos() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// Dense id -> node index lookup for the measuring loops (ids are small,
// non-negative device ids).
std::vector<int> IndexById(const Topology& topo) {
  std::vector<int> index(static_cast<std::size_t>(topo.nodes.back().id) + 1, -1);
  for (std::size_t i = 0; i < topo.nodes.size(); ++i) {
    index[static_cast<std::size_t>(topo.nodes[i].id)] = static_cast<int>(i);
  }
  return index;
}

// One instantiation per strategy: the per-key loops call S::Place directly.
// Load per node, domain violations and short results of one placement pass.
class PassStats {
 public:
  PassStats(const Topology& topo, std::size_t replicas)
      : topo_(topo),
        index_(IndexById(topo)),
        load_(topo.nodes.size(), 0),
        expect_n_(std::min(replicas, topo.nodes.size())) {}

  void Add(const ItemId* row, std::size_t n) {
    if (n < expect_n_) ++short_keys_;
    bool violation = false;
    for (std::size_t i = 0; i < n; ++i) {
      const auto idx = static_cast<std::size_t>(index_[static_cast<std::size_t>(row[i])]);
      ++load_[idx];
      ++total_;
      for (std::size_t j = 0; j < i && !violation; ++j) {
        const auto other = static_cast<std::size_t>(index_[static_cast<std::size_t>(row[j])]);
        violation = topo_.nodes[idx].domain == topo_.nodes[other].domain;
      }
    }
    violations_ += violation ? 1 : 0;
  }

  // Fills the balance and domain fields of `rep` (ideal shares `shares`).
  void Report(const std::vector<double>& shares, StrategyReport& rep) const {
    double sq = 0;
    double max_ratio = 0;
    for (std::size_t i = 0; i < load_.size(); ++i) {
      const double ratio =
          static_cast<double>(load_[i]) / (static_cast<double>(total_) * shares[i]);
      max_ratio = std::max(max_ratio, ratio);
      sq += (ratio - 1) * (ratio - 1);
    }
    rep.max_over_mean = max_ratio;
    rep.stddev = std::sqrt(sq / static_cast<double>(load_.size()));
    rep.domain_violations = violations_;
    rep.short_keys = short_keys_;
  }

 private:
  const Topology& topo_;
  std::vector<int> index_;
  std::vector<std::int64_t> load_;
  std::size_t expect_n_;
  std::int64_t total_ = 0;
  std::int64_t violations_ = 0;
  std::int64_t short_keys_ = 0;
};

// One instantiation per strategy: the per-key loops call S::Place directly.
template <typename S>
absl::StatusOr<StrategyReport> Measure(const Topology& before, const Topology& after,
                                       const CompareOptions& o,
                                       const std::vector<double>& shares_before,
                                       const std::vector<double>& shares_after, double min_moved) {
  CRUSH_ASSIGN_OR_RETURN(S sb, S::Build(before, o.strategy, nullptr));
  CRUSH_ASSIGN_OR_RETURN(S sa, S::Build(after, o.strategy, &sb));
  const auto r = static_cast<std::size_t>(o.strategy.replicas);
  const auto keys = static_cast<std::size_t>(o.keys);
  const std::uint64_t seed = o.strategy.seed;
  std::vector<ItemId> placed(keys * r, crush::kItemNone);
  std::vector<std::uint8_t> placed_n(keys);

  const double t0 = ThreadCpuNanos();
  for (std::size_t k = 0; k < keys; ++k) {
    placed_n[k] = static_cast<std::uint8_t>(sb.Place(KeyHash(k, seed), {placed.data() + k * r, r}));
  }
  const double t1 = ThreadCpuNanos();

  StrategyReport rep;
  rep.strategy = std::string(S::kName);
  rep.min_moved_fraction = min_moved;
  rep.lookup_ns = (t1 - t0) / static_cast<double>(keys);
  rep.memory_bytes = sb.MemoryBytes();

  PassStats stats_before(before, r);
  for (std::size_t k = 0; k < keys; ++k) stats_before.Add(placed.data() + k * r, placed_n[k]);
  StrategyReport b;
  stats_before.Report(shares_before, b);
  rep.max_over_mean_before = b.max_over_mean;
  rep.stddev_before = b.stddev;
  rep.domain_violations_before = b.domain_violations;

  PassStats stats_after(after, r);
  std::array<ItemId, kMaxReplicas> now{};
  std::int64_t moved = 0;
  for (std::size_t k = 0; k < keys; ++k) {
    const int n = sa.Place(KeyHash(k, seed), {now.data(), r});
    stats_after.Add(now.data(), static_cast<std::size_t>(n));
    const ItemId* row = placed.data() + k * r;
    for (std::size_t i = 0; i < placed_n[k]; ++i) {
      moved += Contains(now, n, row[i]) ? 0 : 1;
    }
  }
  stats_after.Report(shares_after, rep);
  rep.short_keys = std::max(rep.short_keys, b.short_keys);
  rep.moved_fraction = static_cast<double>(moved) / static_cast<double>(keys * r);
  return rep;
}

using MeasureFn = absl::StatusOr<StrategyReport> (*)(const Topology&, const Topology&,
                                                     const CompareOptions&,
                                                     const std::vector<double>&,
                                                     const std::vector<double>&, double);

const std::vector<std::pair<std::string, MeasureFn>>& Registry() {
  static const auto* registry = new std::vector<std::pair<std::string, MeasureFn>>{
      {std::string(ModNStrategy::kName), &Measure<ModNStrategy>},
      {std::string(RingStrategy::kName), &Measure<RingStrategy>},
      {std::string(JumpStrategy::kName), &Measure<JumpStrategy>},
      {std::string(RendezvousStrategy::kName), &Measure<RendezvousStrategy>},
      {std::string(MaglevStrategy::kName), &Measure<MaglevStrategy>},
      {std::string(PartitionsStrategy::kName), &Measure<PartitionsStrategy>},
      {std::string(Straw2Strategy::kName), &Measure<Straw2Strategy>},
  };
  return *registry;
}

std::string HumanBytes(std::size_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  if (bytes < 1024 * 1024) return absl::StrFormat("%.1f KiB", static_cast<double>(bytes) / 1024);
  return absl::StrFormat("%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

}  // namespace

const std::vector<std::string>& AllStrategyNames() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>;
    for (const auto& [name, fn] : Registry()) v->push_back(name);
    return v;
  }();
  return *names;
}

double MinMovedFraction(const Topology& before, const Topology& after, int replicas) {
  const std::vector<double> old_shares = IdealShares(before, replicas);
  const std::vector<double> new_shares = IdealShares(after, replicas);
  double moved = 0;
  for (std::size_t i = 0; i < after.nodes.size(); ++i) {
    const int j = before.IndexOf(after.nodes[i].id);
    const double old_share = j < 0 ? 0.0 : old_shares[static_cast<std::size_t>(j)];
    moved += std::max(0.0, new_shares[i] - old_share);
  }
  return moved;
}

absl::StatusOr<ComparisonReport> CompareStrategies(const Topology& before, const Topology& after,
                                                   const CompareOptions& options) {
  const int replicas = options.strategy.replicas;
  if (replicas < 1 || replicas > kMaxReplicas) {
    return absl::InvalidArgumentError(
        absl::StrCat("--replicas must be 1..", kMaxReplicas, ", got ", replicas));
  }
  if (options.keys < 1 || options.keys > kMaxKeys || options.keys * replicas > kMaxSlots) {
    return absl::InvalidArgumentError(absl::StrCat("--keys must be 1..", kMaxKeys,
                                                   " with keys * replicas <= ", kMaxSlots, ", got ",
                                                   options.keys, " keys x ", replicas));
  }
  if (before.nodes.empty() || after.nodes.empty()) {
    return absl::InvalidArgumentError("the cluster has no node with positive weight");
  }
  std::vector<std::string> names = options.only.empty() ? AllStrategyNames() : options.only;
  for (const std::string& name : names) {
    const auto& reg = Registry();
    if (std::none_of(reg.begin(), reg.end(), [&](const auto& e) { return e.first == name; })) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown strategy '", name,
                       "'; expected one of mod-n, ring, jump, rendezvous, "
                       "maglev, partitions, straw2"));
    }
  }
  const double hrw_work = static_cast<double>(options.keys) *
                          static_cast<double>(std::max(before.nodes.size(), after.nodes.size()));
  if (hrw_work > 5e9 && std::find(names.begin(), names.end(), "rendezvous") != names.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("rendezvous scores every node for every key: ", options.keys, " keys x ",
                     std::max(before.nodes.size(), after.nodes.size()),
                     " nodes is too slow; lower --keys or leave it out with --only"));
  }
  ComparisonReport report;
  report.keys = options.keys;
  report.replicas = replicas;
  report.nodes_before = before.nodes.size();
  report.nodes_after = after.nodes.size();
  report.domains_before = before.domain_names.size();
  report.domain_type = before.domain_type;
  const std::vector<double> shares_before = IdealShares(before, replicas);
  const std::vector<double> shares_after = IdealShares(after, replicas);
  const double min_moved = MinMovedFraction(before, after, replicas);
  for (const auto& [name, fn] : Registry()) {
    if (std::find(names.begin(), names.end(), name) == names.end()) continue;
    auto row = fn(before, after, options, shares_before, shares_after, min_moved);
    if (!row.ok()) {
      return absl::Status(row.status().code(),
                          absl::StrCat("strategy ", name, ": ", row.status().message()));
    }
    report.rows.push_back(std::move(*row));
  }
  return report;
}

std::string FormatTable(const ComparisonReport& report) {
  std::string out = absl::StrFormat(
      "%d keys x %d replicas; nodes %zu -> %zu; failure domain '%s' (%zu domains)\n", report.keys,
      report.replicas, report.nodes_before, report.nodes_after, report.domain_type,
      report.domains_before);
  absl::StrAppendFormat(&out, "%-11s %8s %8s %9s %8s %20s %8s %10s\n", "strategy", "moved",
                        "minimum", "max/mean", "stddev", "domain violations", "ns/key", "memory");
  for (const StrategyReport& r : report.rows) {
    const std::string viol = absl::StrFormat(
        "%d (%.2f%%)", r.domain_violations,
        100.0 * static_cast<double>(r.domain_violations) / static_cast<double>(report.keys));
    absl::StrAppendFormat(&out, "%-11s %7.2f%% %7.2f%% %9.3f %8.4f %20s %8.1f %10s\n", r.strategy,
                          100 * r.moved_fraction, 100 * r.min_moved_fraction, r.max_over_mean,
                          r.stddev, viol, r.lookup_ns, HumanBytes(r.memory_bytes));
  }
  for (const StrategyReport& r : report.rows) {
    if (r.short_keys > 0) {
      absl::StrAppendFormat(&out, "note: %s placed fewer than %d replicas for %d keys\n",
                            r.strategy, report.replicas, r.short_keys);
    }
  }
  return out;
}

std::string FormatJson(const ComparisonReport& report) {
  std::string out = absl::StrFormat(
      "{\"keys\": %d, \"replicas\": %d, \"nodes_before\": %zu, \"nodes_after\": %zu, "
      "\"failure_domain\": \"%s\", \"strategies\": [",
      report.keys, report.replicas, report.nodes_before, report.nodes_after, report.domain_type);
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const StrategyReport& r = report.rows[i];
    absl::StrAppendFormat(
        &out,
        "%s\n  {\"strategy\": \"%s\", \"moved_fraction\": %.6g, \"min_moved_fraction\": %.6g, "
        "\"max_over_mean\": %.6g, \"stddev\": %.6g, \"domain_violations\": %d, "
        "\"short_keys\": %d, \"lookup_ns\": %.4g, \"memory_bytes\": %zu, "
        "\"max_over_mean_before\": %.6g, \"stddev_before\": %.6g, "
        "\"domain_violations_before\": %d}",
        i == 0 ? "" : ",", r.strategy, r.moved_fraction, r.min_moved_fraction, r.max_over_mean,
        r.stddev, r.domain_violations, r.short_keys, r.lookup_ns, r.memory_bytes,
        r.max_over_mean_before, r.stddev_before, r.domain_violations_before);
  }
  out += "\n]}\n";
  return out;
}

}  // namespace crushkit::strategies
