// Workspace (crush/mapper.h): its construction from a map, with the per-bucket
// facts DoRule's straw2 paths read (uniform weights, visit bits), and the
// choose_tries profile.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "crush/internal/map_access.h"
#include "crush/internal/mapper_impl.h"
#include "crush/internal/straw2_draw.h"
#include "crush/internal/straw2_hash.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"

namespace crushkit::crush {

namespace {
// Histogram length cap for the choose_tries profile.
constexpr std::uint32_t kMaxProfileEntries = 1u << 16;
// Largest uniform straw2 bucket Straw2ChooseIndex's key-only path takes
// (what the key-winner kernels hash on the stack at most, 1 KiB).
constexpr std::uint32_t kStraw2KeyPathMaxSize = internal::kStraw2KeyWinnerMaxSize;
}  // namespace

Workspace::Workspace(const CrushMap& map, int max_result)
    : max_result_(std::clamp(max_result, 0, kMaxWorkspaceResult)),
      layout_id_(map.layout_id()),
      perm_state_(static_cast<std::size_t>(map.max_buckets())),
      perm_(map.perm_scratch_size()),
      // At least one slot each: a TAKE writes w[0] even when result_max is
      // 0 (Ceph still runs every step then; see DoRule).
      a_(static_cast<std::size_t>(std::max(max_result_, 1))),
      b_(static_cast<std::size_t>(std::max(max_result_, 1))),
      c_(static_cast<std::size_t>(std::max(max_result_, 1))),
      msr_steps_(internal::MsrMaxChooseRun(map)),
      msr_vecs_(std::size_t{msr_steps_} * static_cast<std::size_t>(max_result_)),
      msr_undo_(std::size_t{msr_steps_} * static_cast<std::size_t>(max_result_)),
      straw2_hash_(internal::SelectStraw2HashBlock()),
      straw2_n_(internal::Straw2NTable()),
      straw2_n_bounds_(internal::Straw2NBoundsTable()),
      straw2_n_bounds_f_(internal::Straw2NBoundsFloatTable()),
      straw2_ties_lower_(internal::Straw2KeyOrderFacts().ties_lower),
      straw2_uniform_(static_cast<std::size_t>(map.max_buckets()), 0),
      visit_bits_(BucketVisitBits(map)) {
  for (SlotWalk& walk : walks_) {
    walk.seen.assign(static_cast<std::size_t>(map.max_buckets()), 0u);
    walk.stack.assign(static_cast<std::size_t>(map.max_buckets()), 0);
  }
  // Straw2 buckets whose items all have one positive (as int) weight take
  // Straw2Choose's compare-only path (1), or its key-only path (2) when the
  // weight is small enough for keys alone to decide (Straw2KeyOrder) and
  // the bucket's hashes fit the stack buffer.
  const internal::Straw2KeyOrder& key_order = internal::Straw2KeyOrderFacts();
  const internal::FlatBucket* buckets = internal::MapAccess::BucketSlots(map);
  const Weight* weights = internal::MapAccess::Weights(map);
  for (std::size_t slot = 0; slot < straw2_uniform_.size(); ++slot) {
    const internal::FlatBucket& b = buckets[slot];
    if (b.alg != BucketAlg::kStraw2 || b.size == 0) continue;
    const Weight w = weights[b.weights];
    if (w == 0 || static_cast<std::int32_t>(w) < 0) continue;
    bool uniform = true;
    for (std::uint32_t i = 1; i < b.size && uniform; ++i) uniform = weights[b.weights + i] == w;
    if (!uniform) continue;
    const bool keys_decide = w <= key_order.min_gap && b.size <= kStraw2KeyPathMaxSize;
    straw2_uniform_[slot] = keys_decide ? 2 : 1;
  }
}

std::vector<std::uint64_t> BucketVisitBits(const CrushMap& map) {
  const auto n = static_cast<std::size_t>(map.max_buckets());
  const internal::FlatBucket* buckets = internal::MapAccess::BucketSlots(map);
  const ItemId* items = internal::MapAccess::Items(map);
  auto child_slot = [&](ItemId item) -> std::size_t {
    if (item >= 0) return n;
    const auto slot = static_cast<std::size_t>(BucketSlot(item));
    return slot < n && buckets[slot].alg != BucketAlg::kNone ? slot : n;
  };
  std::vector<bool> held(n, false);
  for (std::size_t slot = 0; slot < n; ++slot) {
    const internal::FlatBucket& b = buckets[slot];
    if (b.alg == BucketAlg::kNone) continue;
    for (std::uint32_t i = 0; i < b.size; ++i) {
      if (const std::size_t c = child_slot(items[b.items + i]); c < n) held[c] = true;
    }
  }
  // Breadth-first from the roots; a bucket held only inside a cycle (Build
  // rejects those) or not reached keeps going in slot order at the end.
  std::vector<std::size_t> order;
  std::vector<bool> queued(n, false);
  for (std::size_t slot = 0; slot < n; ++slot) {
    if (buckets[slot].alg != BucketAlg::kNone && !held[slot]) {
      order.push_back(slot);
      queued[slot] = true;
    }
  }
  for (std::size_t head = 0;; ++head) {
    if (head == order.size()) {
      std::size_t slot = 0;
      while (slot < n && (queued[slot] || buckets[slot].alg == BucketAlg::kNone)) ++slot;
      if (slot == n) break;
      order.push_back(slot);
      queued[slot] = true;
    }
    const internal::FlatBucket& b = buckets[order[head]];
    for (std::uint32_t i = 0; i < b.size; ++i) {
      const std::size_t c = child_slot(items[b.items + i]);
      if (c < n && !queued[c]) {
        order.push_back(c);
        queued[c] = true;
      }
    }
  }
  constexpr std::size_t kOwnBits = 32;
  std::vector<std::uint64_t> bits(n, 0);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t bit = k < kOwnBits ? k : kOwnBits + (k - kOwnBits) % (64 - kOwnBits);
    bits[order[k]] = std::uint64_t{1} << bit;
  }
  return bits;
}

void Workspace::EnableChooseTriesProfile(const CrushMap& map) {
  choose_total_tries_ = map.tunables().choose_total_tries;
  const std::uint64_t entries =
      std::min<std::uint64_t>(std::uint64_t{choose_total_tries_} + 1, kMaxProfileEntries);
  choose_tries_.assign(static_cast<std::size_t>(entries), 0);
}

void Workspace::ResetChooseTriesProfile() {
  std::fill(choose_tries_.begin(), choose_tries_.end(), 0u);
}

}  // namespace crushkit::crush
