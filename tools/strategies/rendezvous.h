// Weighted rendezvous hashing (highest random weight, Thaler & Ravishankar),
// with the logarithmic method for weights (Schindelhauer & Schomaker): node i
// scores -w_i / ln(u_i(key)), u uniform in (0, 1); the top scores win, in
// order. Exactly weight-proportional and minimally disruptive, but O(nodes)
// per key. Failure-domain oblivious. Thread-safe after Build.
#ifndef CRUSHKIT_TOOLS_STRATEGIES_RENDEZVOUS_H_
#define CRUSHKIT_TOOLS_STRATEGIES_RENDEZVOUS_H_

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

#include "tools/strategies/key_hash.h"
#include "tools/strategies/strategy.h"
#include "tools/strategies/topology.h"

namespace crushkit::strategies {

class RendezvousStrategy {
 public:
  static constexpr std::string_view kName = "rendezvous";

  static absl::StatusOr<RendezvousStrategy> Build(const Topology& topo, const StrategyOptions& opts,
                                                  const RendezvousStrategy* previous);

  // Cost: one hash and one log per node; keeps the best out.size() scores in
  // a small sorted array on the stack.
  int Place(std::uint64_t key_hash, std::span<ItemId> out) const {
    const std::size_t n = ids_.size();
    const std::size_t want = out.size() < n ? out.size() : n;
    if (want == 0) return 0;
    std::array<double, kMaxReplicas> best{};
    std::size_t have = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double score = -weights_[i] / std::log(UnitOpen(Hash2(key_hash, salts_[i])));
      if (have == want && score <= best[want - 1]) continue;
      std::size_t pos = have < want ? have++ : want - 1;
      for (; pos > 0 && best[pos - 1] < score; --pos) {
        best[pos] = best[pos - 1];
        out[pos] = out[pos - 1];
      }
      best[pos] = score;
      out[pos] = ids_[i];
    }
    return static_cast<int>(have);
  }

  std::size_t MemoryBytes() const {
    return sizeof(*this) + ids_.capacity() * sizeof(ItemId) + weights_.capacity() * sizeof(double) +
           salts_.capacity() * sizeof(std::uint64_t);
  }

 private:
  std::vector<ItemId> ids_;
  std::vector<double> weights_;
  std::vector<std::uint64_t> salts_;  // per-node hash salt derived from its id
};

}  // namespace crushkit::strategies

#endif  // CRUSHKIT_TOOLS_STRATEGIES_RENDEZVOUS_H_
