// Network traffic matrices of the movement report: who sends what to whom
// while a change backfills.
#include <algorithm>
#include <cstdint>

#include "crush/types.h"
#include "osdmap/movement_internal.h"

namespace crushkit::osdmap::internal {
namespace {

bool IsOsd(std::int32_t o) { return o >= 0 && o != crush::kItemNone; }

// The OSD holding shard `i` for the rebuild: the up OSD where it kept its
// shard, else the shard's old holder (calc_ec_acting's choice).
std::int32_t ShardSource(const BackfillFlow& f, std::size_t i) {
  const std::int32_t up = i < f.after.size() ? f.after[i] : crush::kItemNone;
  const std::int32_t held = i < f.before.size() ? f.before[i] : crush::kItemNone;
  if (IsOsd(up) && up == held) return up;
  return held;
}

}  // namespace

void AddBackfillTraffic(const BackfillFlow& flow, DomainIndex& traffic) {
  if (!IsOsd(flow.pusher)) return;
  if (flow.ec_k > 0) {
    // The pusher's own shard is one of the k it needs.
    const std::size_t n = std::max(flow.before.size(), flow.after.size());
    bool own = false;
    for (std::size_t i = 0; i < n; ++i) own = own || ShardSource(flow, i) == flow.pusher;
    int reads = flow.ec_k - (own ? 1 : 0);
    for (std::size_t i = 0; i < n && reads > 0; ++i) {
      const std::int32_t src = ShardSource(flow, i);
      if (!IsOsd(src) || src == flow.pusher) continue;
      traffic.Add(src, flow.pusher, flow.shard_bytes);
      --reads;
    }
  }
  for (std::int32_t t : flow.targets) {
    if (IsOsd(t) && t != flow.pusher) traffic.Add(flow.pusher, t, flow.shard_bytes);
  }
}

}  // namespace crushkit::osdmap::internal
