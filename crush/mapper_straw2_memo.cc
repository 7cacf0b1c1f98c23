// MapperImpl's straw2 choice through a ChoiceMemo (crush/choice_memo.h):
// recording the winners on map A, replaying them on map B, and the buckets
// whose weights differ between the two at a few items only; and through a
// ChoiceLog recorded once and replayed on many maps (ChoiceDelta). Cold:
// DoRule takes this path only when the workspace carries a memo.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "crush/choice_memo.h"
#include "crush/hash.h"
#include "crush/internal/map_access.h"
#include "crush/internal/mapper_impl.h"
#include "crush/internal/mapper_straw2.h"
#include "crush/internal/straw2_draw.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"

namespace crushkit::crush {

// A recording memo applies on its map A and starts a new input; a replaying
// one applies on its map B only when it holds this very input under the
// same choose_args index (the shared slots' choose_args entries are equal
// in every index, so equal indexes mean equal weight sets and ids).
void MapperImpl::AttachMemo(std::uint64_t layout) {
  if (ChoiceLog* log = ws_.log_record_; log != nullptr) {
    log->Begin(x_, choose_args_);
    log_record_ = log;
    memo_ = true;
    return;
  }
  if (const ChoiceDelta* d = ws_.log_delta_; d != nullptr) {
    const std::int64_t key = choose_args_ != nullptr ? choose_args_->index : kNoChooseArgsKey;
    if (d->layout_b_ == layout && ws_.log_x_ == x_ && ws_.log_args_key_ == key &&
        !ws_.log_choices_.empty()) {
      log_replay_ = d;
      memo_ = true;
    }
    return;
  }
  if (ChoiceMemo* m = ws_.memo_record_; m != nullptr && m->layout_a_ == layout) {
    m->Begin(x_, choose_args_);
    memo_record_ = m;
    memo_ = true;
  } else if (const ChoiceMemo* r = ws_.memo_replay_; r != nullptr && r->layout_b_ == layout &&
                                                     r->size_ > 0 && r->Matches(x_, choose_args_)) {
    memo_replay_ = r;
    memo_ = true;
  }
}

// Straw2Choose through the memo. The key is the slot, r and the position
// Straw2Choose actually uses: the clamped one when the bucket has a weight
// set in this call's choose_args, else 0 (position is then ignored), so
// firstn reps at different outpos share entries. Only the choice is taken
// from the memo; the caller has charged the budget as usual.
ItemId MapperImpl::MemoStraw2Choose(const internal::FlatBucket& b, std::uint32_t r, int position) {
  if (log_record_ != nullptr) return LogStraw2Choose(b, r, position);
  if (log_replay_ != nullptr) return ReplayStraw2Choose(b, r, position);
  const int slot = BucketSlot(b.id);
  const ChoiceMemo* memo = memo_record_ != nullptr ? memo_record_ : memo_replay_;
  const std::uint8_t kind = memo->SlotKind(slot);
  if (kind == ChoiceMemo::kNotShared) return PlainStraw2Choose(b, r, position);
  std::uint32_t pos = 0;
  if (choose_args_ != nullptr) {
    const internal::FlatChooseArg& arg = choose_args_->slots[static_cast<std::size_t>(slot)];
    if (arg.positions != 0) {
      // A weight set replaces the item weights, which is all a partially
      // shared bucket differs in; keep it simple and draw normally (and
      // unchecked: ChoiceMemo::partial_choices_hold).
      if (kind == ChoiceMemo::kPartial) {
        if (memo_record_ != nullptr) memo_record_->b_differs_ = true;
        return PlainStraw2Choose(b, r, position);
      }
      pos = std::min(static_cast<std::uint32_t>(position), arg.positions - 1);
    }
  }
  if (kind == ChoiceMemo::kPartial) return PartialStraw2Choose(b, r, position, *memo);
  const auto uslot = static_cast<std::uint32_t>(slot);
  if (memo_replay_ != nullptr) {
    if (const ChoiceMemo::Entry* e = memo_replay_->Find(uslot, r, pos); e != nullptr) {
      ++ws_.memo_hits_;
      return e->item;
    }
    return PlainStraw2Choose(b, r, position);
  }
  const ItemId item = PlainStraw2Choose(b, r, position);
  memo_record_->Record(uslot, r, pos, item);
  return item;
}

// PLACEMENT-STABLE: Ceph's straw2 winner between `high`, the best of the
// bucket's other items drawing `high_draw`, and its `count` changed items
// changed_at(0 .. count - 1). bucket_straw2_choose() scans from item 0 and
// replaces only on a strictly larger draw, so a changed item wins with a
// larger draw, or an equal one at a lower index. A changed item of positive
// weight whose draw is below the best one by its numerator's 16 KiB bounds
// alone (Straw2NBoundsTable) loses without the 512 KiB table's load.
template <typename ChangedAt>
std::uint32_t MapperImpl::ChangedItemsWinner(std::uint32_t r, std::uint32_t high,
                                             std::int64_t high_draw, std::size_t count,
                                             ChangedAt changed_at) const {
  const std::uint64_t* bounds = ws_.straw2_n_bounds_;
  for (std::size_t k = 0; k < count; ++k) {
    const Straw2ChangedItem c = changed_at(k);
    const std::uint32_t u = Hash32_3(x_, static_cast<std::uint32_t>(c.id), r) & 0xffffu;
    if (!c.div->negative_weight && c.div->magic != 0 &&
        high_draw != std::numeric_limits<std::int64_t>::min()) {
      const std::uint64_t lo =
          internal::Straw2Quotient(bounds[2 * (u >> internal::kStraw2NBoundsShift)], *c.div);
      if (-static_cast<std::int64_t>(lo) < high_draw) continue;
    }
    const std::int64_t draw = internal::Straw2DrawFromNumerator(ws_.straw2_n_[u], *c.div);
    if (draw > high_draw || (draw == high_draw && c.index < high)) {
      high = c.index;
      high_draw = draw;
    }
  }
  return high;
}

// ChangedItemsWinner over the changed indexes [begin, end) of a bucket
// hashing its items by `ids`, weighing them by `divisors`.
std::uint32_t MapperImpl::ChangedItemsWinner(std::uint32_t r, std::uint32_t high,
                                             std::int64_t high_draw, const ItemId* ids,
                                             const internal::Straw2Divisor* divisors,
                                             const std::uint32_t* begin,
                                             const std::uint32_t* end) const {
  return ChangedItemsWinner(r, high, high_draw, static_cast<std::size_t>(end - begin),
                            [&](std::size_t k) {
                              const std::uint32_t i = begin[k];
                              return Straw2ChangedItem{i, ids[i], &divisors[i]};
                            });
}

// A bucket whose item weights differ between A and B at the `changed`
// indexes only, mapped with its own weights (no weight set). Ceph's winner
// is the item with the largest draw, the lowest index among equal draws
// (the scan starts with item 0 and replaces only on a strictly larger
// draw). The unchanged items draw the same on A and B, so A records their
// winner (index and draw) and B compares only the changed items with it.
ItemId MapperImpl::PartialStraw2Choose(const internal::FlatBucket& b, std::uint32_t r, int position,
                                       const ChoiceMemo& memo) {
  const int slot = BucketSlot(b.id);
  const auto uslot = static_cast<std::uint32_t>(slot);
  const ItemId* items = items_ + b.items;
  const internal::Straw2Divisor* divisors = divisors_ + b.weights;
  const ItemId* ids = HashIds(b, slot);
  const std::uint32_t* changed = memo.changed_begin(slot);
  const std::uint32_t* changed_end = memo.changed_end(slot);
  if (memo_replay_ != nullptr) {
    const ChoiceMemo::Entry* e = memo_replay_->Find(uslot, r, 0);
    if (e == nullptr) return PlainStraw2Choose(b, r, position);
    const auto best = static_cast<std::uint32_t>(e->item);
    // An unchanged item: B weighs it as A did, so its draw is A's.
    const std::int64_t best_draw =
        e->u == ChoiceMemo::kDrawKnown
            ? e->draw
            : internal::Straw2DrawFromNumerator(ws_.straw2_n_[e->u], divisors[best]);
    const std::uint32_t high =
        ChangedItemsWinner(r, best, best_draw, ids, divisors, changed, changed_end);
    ++ws_.memo_hits_;
    return items[high];
  }
  if (!HasWeightSet(slot) && ws_.straw2_uniform_[static_cast<std::size_t>(slot)] == 2) {
    // Straw2ChooseIndex's kernel for one weight, the winner's draw left to
    // a replay (ChoiceMemo::Entry::u) and to NoteBChoiceOfHash.
    const std::uint32_t won = straw2_key_winner_(x_, r, ids, b.size, ws_.straw2_ties_lower_);
    if (std::find(changed, changed_end, won) == changed_end) {
      const std::uint32_t u = Hash32_3(x_, static_cast<std::uint32_t>(ids[won]), r) & 0xffffu;
      memo_record_->Record(uslot, r, 0, static_cast<ItemId>(won), 0, u);
      NoteBChoiceOfHash(b, r, ids, won, u, memo);
      return items[won];
    }
  }
  std::int64_t winner_draw = 0;
  const std::uint32_t winner = Straw2ChooseIndex(b, r, position, &winner_draw);
  std::uint32_t best = winner;
  if (std::find(changed, changed_end, winner) != changed_end) {
    // Rare (the winner's weight changed): the best unchanged item, hashed a
    // block at a time as in Straw2ChooseIndex.
    best = b.size;
    std::int64_t best_draw = 0;
    const std::uint32_t* c = changed;
    constexpr std::uint32_t kBlock = 32;
    std::uint32_t u[kBlock];
    for (std::uint32_t base = 0; base < b.size; base += kBlock) {
      const std::uint32_t n = std::min(kBlock, b.size - base);
      ws_.straw2_hash_(x_, r, ids + base, n, u);
      for (std::uint32_t j = 0; j < n; ++j) {
        const std::uint32_t i = base + j;
        if (c != changed_end && *c == i) {  // changed_ is ascending
          ++c;
          continue;
        }
        const std::int64_t draw =
            internal::Straw2DrawFromNumerator(ws_.straw2_n_[u[j]], divisors[i]);
        if (best == b.size || draw > best_draw) {
          best = i;
          best_draw = draw;
        }
      }
    }
    memo_record_->Record(uslot, r, 0, static_cast<ItemId>(best), best_draw);
    NoteBChoice(b, r, ids, best, best_draw, winner, memo);
  } else {
    memo_record_->Record(uslot, r, 0, static_cast<ItemId>(best), winner_draw);
    NoteBChoice(b, r, ids, best, winner_draw, winner, memo);
  }
  return items[winner];
}

// What B's replay of this choice would give (PartialStraw2Choose's replay
// path: the changed items, with B's weights, against the best unchanged
// item `best` and its draw), compared with A's winner; for
// ChoiceMemo::partial_choices_hold.
void MapperImpl::NoteBChoice(const internal::FlatBucket& b, std::uint32_t r, const ItemId* ids,
                             std::uint32_t best, std::int64_t best_draw, std::uint32_t winner,
                             const ChoiceMemo& memo) {
  const int slot = BucketSlot(b.id);
  const std::size_t begin = memo.changed_at_[static_cast<std::size_t>(slot)];
  const std::size_t end = memo.changed_at_[static_cast<std::size_t>(slot) + 1];
  // B's changed items: indexes past A's size are items B gained.
  const std::uint32_t high =
      ChangedItemsWinner(r, best, best_draw, end - begin, [&](std::size_t k) {
        const std::uint32_t i = memo.changed_[begin + k];
        return Straw2ChangedItem{i, i < b.size ? ids[i] : memo.changed_ids_[begin + k],
                                 &memo.changed_divisors_[begin + k]};
      });
  if (high != winner) memo_record_->b_differs_ = true;
  memo_record_->b_extra_work_ += memo.grown_[static_cast<std::size_t>(slot)];
}

// Most of A's winners keep their place in B (every changed item loses by
// the bounds alone), so most never need their draw: its load from the
// 512 KiB table was a likely cache miss per partially shared choice.
void MapperImpl::NoteBChoiceOfHash(const internal::FlatBucket& b, std::uint32_t r,
                                   const ItemId* ids, std::uint32_t best, std::uint32_t best_u,
                                   const ChoiceMemo& memo) {
  const int slot = BucketSlot(b.id);
  const std::size_t begin = memo.changed_at_[static_cast<std::size_t>(slot)];
  const std::size_t end = memo.changed_at_[static_cast<std::size_t>(slot) + 1];
  const internal::Straw2Divisor& wd = divisors_[b.weights + best];
  const bool lose = ChangedItemsLoseTo(r, wd, best_u, end - begin, [&](std::size_t k) {
    const std::uint32_t i = memo.changed_[begin + k];
    return Straw2ChangedItem{i, i < b.size ? ids[i] : memo.changed_ids_[begin + k],
                             &memo.changed_divisors_[begin + k]};
  });
  if (lose) {
    memo_record_->b_extra_work_ += memo.grown_[static_cast<std::size_t>(slot)];
    return;
  }
  const std::int64_t draw = internal::Straw2DrawFromNumerator(ws_.straw2_n_[best_u], wd);
  NoteBChoice(b, r, ids, best, draw, best, memo);
}

// The plain choice, recorded with the winner's index and hash u (the
// draw a replay needs is straw2's draw of u with the winner's weight).
ItemId MapperImpl::LogStraw2Choose(const internal::FlatBucket& b, std::uint32_t r, int position) {
  std::int64_t draw = 0;
  const std::uint32_t winner = Straw2ChooseIndex(b, r, position, &draw);
  const int slot = BucketSlot(b.id);
  constexpr std::uint32_t kMax = 0xffff;
  if (static_cast<std::uint32_t>(slot) <= kMax && r <= kMax && winner <= kMax &&
      !HasWeightSet(slot)) {
    const ItemId* ids = HashIds(b, slot);
    const std::uint32_t u = Hash32_3(x_, static_cast<std::uint32_t>(ids[winner]), r) & 0xffffu;
    log_record_->Add(RecordedChoice{.slot = static_cast<std::uint16_t>(slot),
                                    .r = static_cast<std::uint16_t>(r),
                                    .winner = static_cast<std::uint16_t>(winner),
                                    .u = static_cast<std::uint16_t>(u)});
  } else {
    log_record_->complete_ = false;  // replay draws it in full; a hold check cannot
  }
  return items_[b.items + winner];
}

// The replayed input's choices are searched from just after the last one
// found: a replay makes its choices mostly in the recorded order.
const RecordedChoice* MapperImpl::FindRecorded(std::uint32_t slot, std::uint32_t r) {
  const std::span<const RecordedChoice> all = ws_.log_choices_;
  const std::size_t n = all.size();
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t i = log_cursor_ + k;
    if (i >= n) i -= n;
    const RecordedChoice& c = all[i];
    if (c.slot == slot && c.r == r) {
      log_cursor_ = i + 1 == n ? 0 : i + 1;
      return &c;
    }
  }
  return nullptr;
}

// True iff no changed item changed_at(0 .. count - 1) can beat the kept
// winner (weight divisor `wd`, hash `u`), judged from the 16 KiB numerator
// bounds alone
// (Straw2NBoundsTable; the 512 KiB table's loads are likely cache misses):
// a positive weight's q = floor(n / d) lies within its u block's bounds'
// quotients, and an item beats the winner only with a smaller q, or an
// equal one at a lower index, so a lower bound above the winner's upper
// bound loses. A zero weight never beats a positive one; a negative
// weight (as an int) may, so it is judged exactly by the caller.
template <typename ChangedAt>
bool MapperImpl::ChangedItemsLoseTo(std::uint32_t r, const internal::Straw2Divisor& wd,
                                    std::uint32_t u, std::size_t count,
                                    ChangedAt changed_at) const {
  if (wd.negative_weight || wd.magic == 0) return false;
  const std::uint64_t* bounds = ws_.straw2_n_bounds_;
  const std::uint64_t high_hi =
      internal::Straw2Quotient(bounds[2 * (u >> internal::kStraw2NBoundsShift) + 1], wd);
  for (std::size_t k = 0; k < count; ++k) {
    const Straw2ChangedItem c = changed_at(k);
    const internal::Straw2Divisor& d = *c.div;
    if (d.negative_weight) return false;
    if (d.magic == 0) continue;
    const std::uint32_t ui = Hash32_3(x_, static_cast<std::uint32_t>(c.id), r) & 0xffffu;
    const std::uint64_t lo =
        internal::Straw2Quotient(bounds[2 * (ui >> internal::kStraw2NBoundsShift)], d);
    if (lo <= high_hi) return false;
  }
  return true;
}

// ChangedItemsLoseTo for the winner at index `high` and the changed
// indexes [begin, end) of a bucket hashing by `ids`, weighing by `divisors`.
bool MapperImpl::ChangedItemsLose(const ItemId* ids, const internal::Straw2Divisor* divisors,
                                  std::uint32_t r, std::uint32_t high, std::uint32_t u,
                                  const std::uint32_t* begin, const std::uint32_t* end) const {
  return ChangedItemsLoseTo(r, divisors[high], u, static_cast<std::size_t>(end - begin),
                            [&](std::size_t k) {
                              const std::uint32_t i = begin[k];
                              return Straw2ChangedItem{i, ids[i], &divisors[i]};
                            });
}

// B's winner of a recorded choice in a changed slot whose winner B keeps,
// at index `high` (no changed item: ChoiceDelta::Remap) with hash `u`:
// ChangedItemsLose's judgement from the bounds, else the exact draws.
std::uint32_t MapperImpl::RecordedWinner(const ItemId* ids, const internal::Straw2Divisor* divisors,
                                         std::uint32_t r, std::uint32_t high, std::uint32_t u,
                                         const std::uint32_t* begin,
                                         const std::uint32_t* end) const {
  if (ChangedItemsLose(ids, divisors, r, high, u, begin, end)) return high;
  const std::int64_t high_draw =
      internal::Straw2DrawFromNumerator(ws_.straw2_n_[u], divisors[high]);
  return ChangedItemsWinner(r, high, high_draw, ids, divisors, begin, end);
}

// A recorded choice on map B (ChoiceDelta): in a same slot the recorded
// winner; in a changed slot whose winner B keeps, every item B kept draws
// what it drew, at most the winner's draw, so B's winner is the recorded
// one or a changed item. Ceph's winner is the first item of the largest
// draw (bucket_straw2_choose replaces only on a strictly larger draw), so a
// changed item wins with a larger draw, or an equal one at a lower index.
// Anything else (the winner changed, no record, a weight set) draws in full.
ItemId MapperImpl::ReplayStraw2Choose(const internal::FlatBucket& b, std::uint32_t r,
                                      int position) {
  const int slot = BucketSlot(b.id);
  const std::uint8_t kind = log_replay_->SlotKind(slot);
  if (kind == ChoiceDelta::kNo || HasWeightSet(slot)) return PlainStraw2Choose(b, r, position);
  const RecordedChoice* c = FindRecorded(static_cast<std::uint32_t>(slot), r);
  if (c == nullptr) return PlainStraw2Choose(b, r, position);
  const ItemId* items = items_ + b.items;
  if (kind == ChoiceDelta::kSame) {
    if (c->winner >= b.size) return PlainStraw2Choose(b, r, position);
    ++ws_.memo_hits_;
    return items[c->winner];
  }
  const std::uint32_t high = log_replay_->Remap(slot, c->winner);
  if (high >= b.size) return PlainStraw2Choose(b, r, position);
  const internal::Straw2Divisor* divisors = divisors_ + b.weights;
  const ItemId* ids = HashIds(b, slot);
  const std::uint32_t* begin = log_replay_->changed_begin(slot);
  const std::uint32_t* end = log_replay_->changed_end(slot);
  ++ws_.memo_hits_;
  return items[RecordedWinner(ids, divisors, r, high, c->u, begin, end)];
}

// Every recorded choice of a changed slot judged as ReplayStraw2Choose
// would draw it; B's descent then repeats the recorded one. Its work grows
// by the items B's buckets gained, at most half the budget (the recorded
// call used at most the other half: ChoiceLog::complete).
bool MapperImpl::RecordedChoicesHold(const ChoiceDelta& delta,
                                     std::span<const RecordedChoice> choices, std::int64_t args_key,
                                     std::uint64_t layout) {
  if (delta.layout_b_ != layout) return false;
  const std::int64_t key = choose_args_ != nullptr ? choose_args_->index : kNoChooseArgsKey;
  if (key != args_key) return false;
  std::uint64_t extra = 0;
  for (const RecordedChoice& c : choices) {
    const int slot = c.slot;
    const std::uint8_t kind = delta.SlotKind(slot);
    if (kind == ChoiceDelta::kSame) continue;
    if (kind != ChoiceDelta::kChanged || HasWeightSet(slot)) return false;
    const internal::FlatBucket& b = buckets_[static_cast<std::size_t>(slot)];
    const std::uint32_t high = delta.Remap(slot, c.winner);
    if (high >= b.size) return false;
    extra += delta.Grown(slot);
    const internal::Straw2Divisor* divisors = divisors_ + b.weights;
    const ItemId* ids = HashIds(b, slot);
    const std::uint32_t* begin = delta.changed_begin(slot);
    const std::uint32_t* end = delta.changed_end(slot);
    if (RecordedWinner(ids, divisors, c.r, high, c.u, begin, end) != high) return false;
  }
  return extra <= ws_.budget_ / 2;
}

bool RecordedChoicesHold(const CrushMap& map, const ChoiceDelta& delta,
                         std::span<const RecordedChoice> choices, std::uint32_t x,
                         std::int64_t args_key, Workspace& ws, ChooseArgsRef choose_args) {
  if (ws.layout_id_ != map.layout_id()) return false;
  // A workspace set to record or replay would start that here.
  if (ws.memo_record_ != nullptr || ws.memo_replay_ != nullptr || ws.log_record_ != nullptr ||
      ws.log_delta_ != nullptr) {
    return false;
  }
  MapperImpl impl(map, x, {}, ws, internal::MapAccess::ChooseArgs(map, choose_args));
  return impl.RecordedChoicesHold(delta, choices, args_key, map.layout_id());
}

}  // namespace crushkit::crush
