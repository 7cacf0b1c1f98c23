#include "crush/choice_memo.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>

#include "crush/map.h"
#include "crush/model.h"
#include "crush/types.h"

namespace crushkit::crush {

namespace {

// The choose_args entry of bucket `id` in index `index` of `model`; an
// absent index or entry is the empty ChooseArg, which the mapper treats
// exactly like an entry with neither weight set nor ids (map.cc Build()).
const ChooseArg& ArgOf(const MapModel& model, std::int64_t index, ItemId id) {
  static const ChooseArg kNone;
  const auto it = model.choose_args.find(index);
  if (it == model.choose_args.end()) return kNone;
  const auto jt = it->second.find(id);
  return jt == it->second.end() ? kNone : jt->second;
}

// Whether straw2 bucket `slot` chooses identically in `a` and `b` for every
// (x, r, position) under every choose_args index: bucket_straw2_choose()
// reads the items, the item weights (or a weight-set row) and the hash ids,
// nothing else. Other algorithms are never shared (only straw2 is memoised).
bool SameStraw2Bucket(const MapModel& a, const MapModel& b, std::size_t slot,
                      const std::set<std::int64_t>& indexes) {
  const Bucket& ba = a.buckets[slot];
  const Bucket& bb = b.buckets[slot];
  if (ba.alg != BucketAlg::kStraw2 || bb.alg != BucketAlg::kStraw2) return false;
  if (ba.id != bb.id || ba.hash != bb.hash || ba.items != bb.items ||
      ba.item_weights != bb.item_weights) {
    return false;
  }
  for (const std::int64_t index : indexes) {
    if (!(ArgOf(a, index, ba.id) == ArgOf(b, index, bb.id))) return false;
  }
  return true;
}

}  // namespace

ChoiceMemo::ChoiceMemo(const CrushMap& a, const CrushMap& b, int capacity)
    : layout_a_(a.layout_id()),
      layout_b_(b.layout_id()),
      capacity_(std::clamp(capacity, 1, kMaxChoiceMemoCapacity)) {
  const MapModel& ma = a.model();
  const MapModel& mb = b.model();
  std::set<std::int64_t> indexes;
  for (const auto& entry : ma.choose_args) indexes.insert(entry.first);
  for (const auto& entry : mb.choose_args) indexes.insert(entry.first);
  const std::size_t slots =
      std::min(static_cast<std::size_t>(a.max_buckets()), static_cast<std::size_t>(b.max_buckets()));
  shared_.assign(slots, 0);
  for (std::size_t slot = 0; slot < slots; ++slot) {
    if (SameStraw2Bucket(ma, mb, slot, indexes)) {
      shared_[slot] = 1;
      ++shared_count_;
    }
  }
  // Load factor <= 1/2 keeps probes short and guarantees an empty entry.
  const std::size_t entries = std::bit_ceil(static_cast<std::size_t>(capacity_) * 2);
  table_.assign(entries, Entry{});
  mask_ = entries - 1;
}

void ChoiceMemo::Clear() {
  // Entries are live only with the current stamp: a new stamp empties the
  // table in O(1); on wrap-around the stamps are reset once.
  if (++stamp_ == 0) {
    for (Entry& e : table_) e.stamp = 0;
    stamp_ = 1;
  }
  size_ = 0;
  has_input_ = false;
}

void ChoiceMemo::Begin(std::uint32_t x, const internal::FlatChooseArgs* args) {
  Clear();
  has_input_ = true;
  x_ = x;
  has_args_ = args != nullptr;
  args_index_ = args != nullptr ? args->index : 0;
}

}  // namespace crushkit::crush
