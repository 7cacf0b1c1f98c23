#include "osdmap/backfill_pusher.h"

#include <algorithm>

#include "crush/types.h"

namespace crushkit::osdmap {
std::int32_t ReplicatedBackfillPusher(std::span<const std::int32_t> before,
                                      std::span<const std::int32_t> after_up,
                                      const std::function<bool(std::int32_t)>& is_up) {
  const auto first_up = std::find_if(after_up.begin(), after_up.end(), crush::IsDevice);
  if (first_up == after_up.end()) return crush::kItemNone;
  // calc_replicated_acting keeps the up primary when its own info is
  // complete, which a clean holder's is.
  if (std::find(before.begin(), before.end(), *first_up) != before.end() && is_up(*first_up)) {
    return *first_up;
  }
  // find_best_info over equal infos: the first in pg_shard_t order.
  std::int32_t best = crush::kItemNone;
  for (std::int32_t o : before) {
    if (crush::IsDevice(o) && is_up(o) && (best == crush::kItemNone || o < best)) best = o;
  }
  return best;
}

std::int32_t ReplicatedBackfillPusher(
    std::span<const std::int32_t> before, std::span<const std::int32_t> after_up,
    const std::function<bool(std::int32_t)>& is_up,
    const std::function<std::optional<LogVersion>(std::int32_t)>& log_tail) {
  const std::int32_t plain = ReplicatedBackfillPusher(before, after_up, is_up);
  const auto first_up = std::find_if(after_up.begin(), after_up.end(), crush::IsDevice);
  if (plain == crush::kItemNone || plain == *first_up) return plain;
  // find_best_info: among infos with the same last_update, "prefer longer
  // tail" (an older log_tail) before anything else; iteration order (the
  // lowest id) breaks ties.
  std::int32_t best = crush::kItemNone;
  LogVersion best_tail;
  for (std::int32_t o : before) {
    if (!crush::IsDevice(o) || !is_up(o)) continue;
    const std::optional<LogVersion> tail = log_tail(o);
    if (!tail) return plain;
    if (best == crush::kItemNone || *tail < best_tail || (*tail == best_tail && o < best)) {
      best = o;
      best_tail = *tail;
    }
  }
  return best;
}

std::int32_t ErasureBackfillPusher(std::span<const std::int32_t> before,
                                   std::span<const std::int32_t> after_up,
                                   const std::function<bool(std::int32_t)>& is_up) {
  // The acting primary is the first real member.
  for (std::size_t i = 0; i < after_up.size(); ++i) {
    const std::int32_t member = ErasureActingMember(before, after_up, i, is_up);
    if (crush::IsDevice(member)) return member;
  }
  return crush::kItemNone;
}

std::int32_t ErasureActingMember(std::span<const std::int32_t> before,
                                 std::span<const std::int32_t> after_up, std::size_t i,
                                 const std::function<bool(std::int32_t)>& is_up) {
  const std::int32_t up = i < after_up.size() ? after_up[i] : crush::kItemNone;
  const std::int32_t held = i < before.size() ? before[i] : crush::kItemNone;
  if (crush::IsDevice(up) && up == held && is_up(up)) return up;
  if (crush::IsDevice(held) && is_up(held)) return held;
  return crush::kItemNone;
}

}  // namespace crushkit::osdmap
