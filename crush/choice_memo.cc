#include "crush/choice_memo.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>

#include "crush/internal/straw2_draw.h"
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

// How straw2 bucket `slot` of `a` and `b` relates for the memo:
// bucket_straw2_choose() reads the items, the item weights (or a weight-set
// row) and the hash ids, nothing else. Shared: all equal under every
// choose_args index. Partial: all equal but 1..kMaxChoiceMemoWeightChanges
// item weights or items B appends, whose indexes (in B) go to *changed. Other algorithms are never
// shared (only straw2 is memoised).
std::uint8_t CompareStraw2Bucket(const MapModel& a, const MapModel& b, std::size_t slot,
                                 const std::set<std::int64_t>& indexes,
                                 std::vector<std::uint32_t>* changed) {
  constexpr std::uint8_t kNo = 0, kShared = 1, kPartial = 2;  // ChoiceMemo's kinds
  const Bucket& ba = a.buckets[slot];
  const Bucket& bb = b.buckets[slot];
  if (ba.alg != BucketAlg::kStraw2 || bb.alg != BucketAlg::kStraw2) return kNo;
  if (ba.id != bb.id || ba.hash != bb.hash || ba.item_weights.size() != ba.items.size() ||
      bb.item_weights.size() != bb.items.size()) {
    return kNo;
  }
  // B may append items to A's (a host or rack added): B's draws of A's
  // items are A's, so they count as unchanged items and the appended ones
  // as changed. Only without choose_args for the bucket (their rows are
  // sized to the items).
  const std::size_t na = ba.items.size();
  const bool appended = bb.items.size() > na;
  if (bb.items.size() < na || !std::equal(ba.items.begin(), ba.items.end(), bb.items.begin()))
    return kNo;
  static const ChooseArg kNoArg;
  for (const std::int64_t index : indexes) {
    const ChooseArg& arg = ArgOf(a, index, ba.id);
    if (!(arg == ArgOf(b, index, bb.id))) return kNo;
    if (appended && !(arg == kNoArg)) return kNo;
  }
  changed->clear();
  for (std::size_t i = 0; i < bb.items.size(); ++i) {
    if (i < na && ba.item_weights[i] == bb.item_weights[i]) continue;
    if (changed->size() == static_cast<std::size_t>(kMaxChoiceMemoWeightChanges)) return kNo;
    changed->push_back(static_cast<std::uint32_t>(i));
  }
  if (changed->empty()) return kShared;
  // Every item of A changed: nothing left to reuse.
  const std::size_t changed_of_a = static_cast<std::size_t>(
      std::count_if(changed->begin(), changed->end(), [&](std::uint32_t i) { return i < na; }));
  return changed_of_a < na ? kPartial : kNo;
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
  const std::size_t slots = std::min(static_cast<std::size_t>(a.max_buckets()),
                                     static_cast<std::size_t>(b.max_buckets()));
  kind_.assign(slots, kNotShared);
  changed_at_.assign(slots + 1, 0);
  grown_.assign(slots, 0);
  std::vector<std::uint32_t> changed;
  for (std::size_t slot = 0; slot < slots; ++slot) {
    changed_at_[slot] = static_cast<std::uint32_t>(changed_.size());
    kind_[slot] = CompareStraw2Bucket(ma, mb, slot, indexes, &changed);
    if (kind_[slot] == kShared) ++shared_count_;
    if (kind_[slot] == kPartial) {
      ++partial_count_;
      const Bucket& bb = mb.buckets[slot];
      grown_[slot] = static_cast<std::uint32_t>(bb.items.size() - ma.buckets[slot].items.size());
      for (const std::uint32_t i : changed) {
        changed_.push_back(i);
        changed_ids_.push_back(bb.items[i]);
        changed_divisors_.push_back(internal::MakeStraw2Divisor(bb.item_weights[i]));
      }
    }
  }
  changed_at_[slots] = static_cast<std::uint32_t>(changed_.size());
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
  b_differs_ = false;
  b_extra_work_ = 0;
}

void ChoiceMemo::Begin(std::uint32_t x, const internal::FlatChooseArgs* args) {
  Clear();
  has_input_ = true;
  x_ = x;
  has_args_ = args != nullptr;
  args_index_ = args != nullptr ? args->index : 0;
}

ChoiceLog::ChoiceLog(int capacity)
    : buf_(static_cast<std::size_t>(std::clamp(capacity, 1, kMaxChoiceMemoCapacity))) {}

namespace {

// The replay kinds of ChoiceDelta.
constexpr std::uint8_t kDeltaNo = 0, kDeltaSame = 1, kDeltaChanged = 2;
constexpr std::uint32_t kDeltaGone = UINT32_MAX;

// True iff bucket `id` has the same choose_args entry in `a` and `b` under
// every index of `indexes`, and (when `none` is set) no entry at all.
bool SameArgs(const MapModel& a, const MapModel& b, ItemId id,
              const std::set<std::int64_t>& indexes, bool none) {
  static const ChooseArg kNoArg;
  for (const std::int64_t index : indexes) {
    const ChooseArg& arg = ArgOf(a, index, id);
    if (!(arg == ArgOf(b, index, id))) return false;
    if (none && !(arg == kNoArg)) return false;
  }
  return true;
}

// B's index of every recorded item of `ba` whose weight B keeps (else
// kDeltaGone) into *remap, and B's other items into *changed; false unless
// the kept items stay in their relative order and no item repeats.
bool MatchItems(const Bucket& ba, const Bucket& bb, std::vector<std::uint32_t>* remap,
                std::vector<std::uint32_t>* changed) {
  remap->assign(ba.items.size(), kDeltaGone);
  changed->clear();
  if (ba.items == bb.items) {
    for (std::size_t i = 0; i < ba.items.size(); ++i) {
      if (ba.item_weights[i] == bb.item_weights[i]) {
        (*remap)[i] = static_cast<std::uint32_t>(i);
      } else {
        changed->push_back(static_cast<std::uint32_t>(i));
      }
    }
    return true;
  }
  std::map<ItemId, std::uint32_t> index_in_a;
  for (std::size_t i = 0; i < ba.items.size(); ++i) {
    if (!index_in_a.emplace(ba.items[i], static_cast<std::uint32_t>(i)).second) return false;
  }
  std::set<ItemId> seen_in_b;
  std::int64_t last = -1;
  for (std::size_t j = 0; j < bb.items.size(); ++j) {
    if (!seen_in_b.insert(bb.items[j]).second) return false;
    const auto it = index_in_a.find(bb.items[j]);
    if (it == index_in_a.end() || ba.item_weights[it->second] != bb.item_weights[j]) {
      changed->push_back(static_cast<std::uint32_t>(j));
      continue;
    }
    if (static_cast<std::int64_t>(it->second) <= last) return false;  // reordered
    last = it->second;
    (*remap)[it->second] = static_cast<std::uint32_t>(j);
  }
  return true;
}

// ChoiceDelta's kind of straw2 slot `slot` (see choice_memo.h).
std::uint8_t CompareForReplay(const MapModel& a, const MapModel& b, std::size_t slot,
                              const std::set<std::int64_t>& indexes,
                              std::vector<std::uint32_t>* remap,
                              std::vector<std::uint32_t>* changed) {
  const Bucket& ba = a.buckets[slot];
  const Bucket& bb = b.buckets[slot];
  if (ba.alg != BucketAlg::kStraw2 || bb.alg != BucketAlg::kStraw2) return kDeltaNo;
  if (ba.id != bb.id || ba.hash != bb.hash || ba.items.empty() || bb.items.empty() ||
      ba.item_weights.size() != ba.items.size() || bb.item_weights.size() != bb.items.size()) {
    return kDeltaNo;
  }
  if (!SameArgs(a, b, ba.id, indexes, ba.items != bb.items)) return kDeltaNo;
  if (!MatchItems(ba, bb, remap, changed)) return kDeltaNo;
  if (changed->empty() && ba.items.size() == bb.items.size()) return kDeltaSame;
  const bool any_kept =
      std::any_of(remap->begin(), remap->end(), [](std::uint32_t j) { return j != kDeltaGone; });
  if (!any_kept || changed->size() > static_cast<std::size_t>(kMaxChoiceDeltaChanges)) {
    return kDeltaNo;
  }
  return kDeltaChanged;
}

}  // namespace

ChoiceDelta::ChoiceDelta(const CrushMap& recorded, const CrushMap& b) : layout_b_(b.layout_id()) {
  const MapModel& ma = recorded.model();
  const MapModel& mb = b.model();
  std::set<std::int64_t> indexes;
  for (const auto& entry : ma.choose_args) indexes.insert(entry.first);
  for (const auto& entry : mb.choose_args) indexes.insert(entry.first);
  const std::size_t slots = std::min(static_cast<std::size_t>(recorded.max_buckets()),
                                     static_cast<std::size_t>(b.max_buckets()));
  kind_.assign(slots, kNo);
  grown_.assign(slots, 0);
  remap_at_.assign(slots + 1, 0);
  changed_at_.assign(slots + 1, 0);
  std::vector<std::uint32_t> remap, changed;
  for (std::size_t slot = 0; slot < slots; ++slot) {
    remap_at_[slot] = static_cast<std::uint32_t>(remap_.size());
    changed_at_[slot] = static_cast<std::uint32_t>(changed_.size());
    kind_[slot] = CompareForReplay(ma, mb, slot, indexes, &remap, &changed);
    if (kind_[slot] == kSame) ++same_count_;
    if (kind_[slot] == kChanged) {
      ++changed_count_;
      const std::size_t na = ma.buckets[slot].items.size();
      const std::size_t nb = mb.buckets[slot].items.size();
      grown_[slot] = nb > na ? static_cast<std::uint32_t>(nb - na) : 0;
      remap_.insert(remap_.end(), remap.begin(), remap.end());
      changed_.insert(changed_.end(), changed.begin(), changed.end());
    }
  }
  remap_at_[slots] = static_cast<std::uint32_t>(remap_.size());
  changed_at_[slots] = static_cast<std::uint32_t>(changed_.size());
}

}  // namespace crushkit::crush
