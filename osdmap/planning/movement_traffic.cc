// Network traffic matrices of the movement report: who sends what to whom
// while a change backfills.
#include <algorithm>
#include <cstdint>

#include "crush/types.h"
#include "osdmap/planning/backfill_pusher.h"
#include "osdmap/planning/movement_internal.h"

namespace crushkit::osdmap::internal {
namespace {

// Where shard `i` is read from for the rebuild: calc_ec_acting's member
// (every holder counts as up: the flow does not say otherwise).
std::int32_t ShardSource(const BackfillFlow& f, std::size_t i) {
  return ErasureActingMember(f.before, f.after, i, [](std::int32_t) { return true; });
}

}  // namespace

void AddBackfillTraffic(const BackfillFlow& flow, DomainIndex& traffic) {
  if (!crush::IsDevice(flow.pusher)) return;
  if (flow.ec_k > 0) {
    // The pusher's own shard is one of the k it needs.
    const std::size_t n = std::max(flow.before.size(), flow.after.size());
    bool own = false;
    for (std::size_t i = 0; i < n; ++i) own = own || ShardSource(flow, i) == flow.pusher;
    int reads = flow.ec_k - (own ? 1 : 0);
    for (std::size_t i = 0; i < n && reads > 0; ++i) {
      const std::int32_t src = ShardSource(flow, i);
      if (!crush::IsDevice(src) || src == flow.pusher) continue;
      traffic.Add(src, flow.pusher, flow.shard_bytes);
      --reads;
    }
  }
  for (std::int32_t t : flow.targets) {
    if (crush::IsDevice(t) && t != flow.pusher) traffic.Add(flow.pusher, t, flow.shard_bytes);
  }
}

}  // namespace crushkit::osdmap::internal
