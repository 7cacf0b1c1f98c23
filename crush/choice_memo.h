// ChoiceMemo: reuse of straw2 bucket choices between two mappings of the
// same input x on two similar maps A and B (a "before" and an "after"
// cluster state).
//
// A straw2 bucket's choice for (x, r, position) depends only on x, r, the
// effective position, the bucket's items, item weights and its choose_args
// (weight set and substitute ids), never on the rest of the map, the rule
// or the device reweights. A ChoiceMemo knows which bucket slots are
// identical in A and B (straw2 in both, same hash, items, item weights, and
// the same choose_args entry in every choose_args index of either map). A
// Workspace on A records the choices it makes in those buckets
// (Workspace::RecordChoicesInto); a Workspace on B then replays them for the
// same x (Workspace::ReplayChoicesFrom) instead of hashing the bucket again.
// A straw2 bucket that differs only in a few item weights (an ancestor of a
// reweighted item: same items, same choose_args) is shared partially: A
// records the winner among the unchanged items and its draw, and B only
// draws the changed items (with B's weights) against it. Items B appends
// to a bucket (a host added to a rack, a rack to the root) count as changed
// items the same way, when the bucket has no choose_args. This applies when
// the call uses the bucket's own weights (no weight set for it).
// Everything else - the retry and collision logic, is_out, the work budget
// accounting - runs unchanged, so B's result equals B's result without the
// memo bit for bit (choice_memo_test.cc checks that on random maps and
// edits).
//
// Typical use, per thread (copy one memo built for the pair to each thread):
//
//   ChoiceMemo memo(map_a, map_b);              // once per pair; allocates
//   ws_a.RecordChoicesInto(&memo);
//   ws_b.ReplayChoicesFrom(&memo);
//   for (x ...) {
//     DoRule(map_a, rule_a, x, reweights_a, ws_a, out_a, args_a);  // records
//     DoRule(map_b, rule_b, x, reweights_b, ws_b, out_b, args_b);  // replays
//   }
//
// A recording DoRule() call forgets the previous input's choices (O(1)) and
// records this input's; a replaying call uses the memo only if it was
// recorded for the same x, on map A, with the same resolved choose_args
// index (or none on both sides), and on map B; otherwise it maps normally.
// The record has a fixed capacity: once full, further choices of that input
// are not recorded (never an allocation while mapping).
//
// Thread-safety: a ChoiceMemo is a plain value. Recording writes it, so one
// memo serves one recording workspace (one thread) at a time; a memo that
// is only replayed from may be read by several workspaces. Copies are
// independent (copying allocates).
#ifndef CRUSHKIT_CRUSH_CHOICE_MEMO_H_
#define CRUSHKIT_CRUSH_CHOICE_MEMO_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "crush/map.h"
#include "crush/types.h"

namespace crushkit::crush {

// Default number of choices recorded per input: a 3-level descent of an
// 8+3 EC rule makes about 35 straw2 choices without retries.
inline constexpr int kDefaultChoiceMemoCapacity = 128;
// Largest accepted capacity (larger requests are clamped).
inline constexpr int kMaxChoiceMemoCapacity = 1 << 16;
// A bucket whose item weights differ in at most this many positions (and
// nothing else) is shared partially.
inline constexpr int kMaxChoiceMemoWeightChanges = 4;

class ChoiceMemo {
 public:
  // Compares `a` and `b` bucket slot by bucket slot (see above) and reserves
  // room for `capacity` recorded choices per input (clamped to
  // [1, kMaxChoiceMemoCapacity]). Neither map is referenced afterwards; the
  // memo remembers their layout_id()s, so it also serves copies of them.
  // Cost: linear in the size of both maps (models and choose_args);
  // allocates O(max_buckets + capacity).
  ChoiceMemo(const CrushMap& a, const CrushMap& b, int capacity = kDefaultChoiceMemoCapacity);

  // True iff bucket slot `slot` is a straw2 bucket identical in both maps,
  // whose choices are recorded and replayed.
  bool SlotShared(int slot) const { return SlotKind(slot) == kShared; }

  // True iff bucket slot `slot` is a straw2 bucket that differs only in 1 to
  // kMaxChoiceMemoWeightChanges item weights or appended items (see above).
  bool SlotPartiallyShared(int slot) const { return SlotKind(slot) == kPartial; }

  // Number of shared and of partially shared slots.
  int shared_slots() const { return shared_count_; }

  int partially_shared_slots() const { return partial_count_; }

  int capacity() const { return capacity_; }

  // Choices recorded for the current input (<= capacity()).
  int size() const { return size_; }

  // True iff a recording DoRule() call has started an input since the
  // memo was built or Clear()ed; then x() is that input.
  bool has_input() const { return has_input_; }

  std::uint32_t x() const { return x_; }

  // Forgets the recorded input. O(1) (amortised).
  void Clear();

  // After a recording DoRule() call on map A (has_input()): true iff the
  // same call on map B (same rule, input, reweights and choose_args) makes
  // the same choice in every partially shared bucket this call drew from:
  // each draw there was recorded, B's changed items all lose to A's winner
  // (drawn with B's weights, as a replay draws them), and B stays within
  // the work budget although its larger buckets cost more. A caller that
  // knows every other bucket the descent visited is the same in B (and the
  // devices' reweights and validity) may then take A's result as B's.
  // Cost per partially shared draw while recording: one hash per changed
  // item (the 512 KiB numerator table only when its 16 KiB bounds cannot
  // decide).
  bool partial_choices_hold() const { return has_input_ && !b_differs_; }

 private:
  friend class MapperImpl;  // the only reader and writer while mapping

  static constexpr std::uint8_t kNotShared = 0;
  static constexpr std::uint8_t kShared = 1;
  static constexpr std::uint8_t kPartial = 2;

  // The recorded choice: for a shared slot the item; for a partially shared
  // one the index of the best unchanged item and its draw, or instead its
  // hash u (draw: straw2's draw of u with the item's weight, which B shares),
  // left for a replay to compute: most recorded draws are never replayed,
  // and each costs a load from the 512 KiB numerator table.
  static constexpr std::uint32_t kDrawKnown = 0xffffffffu;

  struct Entry {
    std::uint32_t stamp = 0;  // live iff == stamp_
    std::uint32_t slot = 0;
    std::uint32_t r = 0;
    std::uint32_t pos = 0;
    ItemId item = 0;
    std::uint32_t u = kDrawKnown;  // kDrawKnown: `draw` holds the draw
    std::int64_t draw = 0;
  };

  std::uint8_t SlotKind(int slot) const {
    return slot >= 0 && static_cast<std::size_t>(slot) < kind_.size()
               ? kind_[static_cast<std::size_t>(slot)]
               : kNotShared;
  }

  // The item indexes (in map B) whose weight differs, or that B appends, in
  // a partially shared slot; ascending.
  const std::uint32_t* changed_begin(int slot) const {
    return changed_.data() + changed_at_[static_cast<std::size_t>(slot)];
  }

  const std::uint32_t* changed_end(int slot) const {
    return changed_.data() + changed_at_[static_cast<std::size_t>(slot) + 1];
  }

  // Starts recording input `x` under choose_args `args` (nullptr: none).
  void Begin(std::uint32_t x, const internal::FlatChooseArgs* args);

  // The end of the recorded call: `spent` and `exhausted` are its work
  // (Workspace), `budget` its limit; B's descent costs b_extra_work_ more.
  void Finish(std::uint64_t spent, std::uint64_t budget, bool exhausted) {
    if (exhausted || spent + b_extra_work_ > budget) b_differs_ = true;
  }

  // True iff the recorded input is `x` under the same choose_args index.
  bool Matches(std::uint32_t x, const internal::FlatChooseArgs* args) const {
    return has_input_ && x_ == x && has_args_ == (args != nullptr) &&
           (args == nullptr || args_index_ == args->index);
  }

  std::size_t Home(std::uint32_t slot, std::uint32_t r, std::uint32_t pos) const {
    const std::uint32_t h = (slot * 0x9e3779b1u) ^ (r * 0x85ebca77u) ^ (pos * 0xc2b2ae3du);
    return static_cast<std::size_t>((h ^ (h >> 15)) & mask_);
  }

  // The recorded choice for (slot, r, pos), or nullptr.
  const Entry* Find(std::uint32_t slot, std::uint32_t r, std::uint32_t pos) const {
    for (std::size_t i = Home(slot, r, pos);; i = (i + 1) & mask_) {
      const Entry& e = table_[i];
      if (e.stamp != stamp_) return nullptr;
      if (e.slot == slot && e.r == r && e.pos == pos) return &e;
    }
  }

  // Records a choice unless the memo is full or already has (slot, r, pos).
  void Record(std::uint32_t slot, std::uint32_t r, std::uint32_t pos, ItemId item,
              std::int64_t draw = 0, std::uint32_t u = kDrawKnown) {
    if (size_ >= capacity_) return;
    for (std::size_t i = Home(slot, r, pos);; i = (i + 1) & mask_) {
      Entry& e = table_[i];
      if (e.stamp != stamp_) {
        e = Entry{stamp_, slot, r, pos, item, u, draw};
        ++size_;
        return;
      }
      if (e.slot == slot && e.r == r && e.pos == pos) return;
    }
  }

  std::uint64_t layout_a_ = 0;
  std::uint64_t layout_b_ = 0;
  std::vector<std::uint8_t> kind_;  // per slot of the smaller map
  // Partially shared slots: changed_[changed_at_[s] .. changed_at_[s + 1]).
  std::vector<std::uint32_t> changed_at_;
  std::vector<std::uint32_t> changed_;
  // Parallel to changed_: B's item id there (the hash id of an appended
  // item: such buckets have no choose_args) and its weight's divisor in B.
  std::vector<ItemId> changed_ids_;
  std::vector<internal::Straw2Divisor> changed_divisors_;
  // Per slot: how many more items B's bucket has (partially shared slots).
  std::vector<std::uint32_t> grown_;
  int shared_count_ = 0;
  int partial_count_ = 0;
  int capacity_ = 0;
  // Open addressing, at least 2 x capacity entries (a power of two), so a
  // probe always ends at an empty entry.
  std::vector<Entry> table_;
  std::size_t mask_ = 0;
  std::uint32_t stamp_ = 1;
  int size_ = 0;
  bool has_input_ = false;
  std::uint32_t x_ = 0;
  bool has_args_ = false;
  std::int64_t args_index_ = 0;
  // partial_choices_hold(): B would choose otherwise in a partially shared
  // bucket (or a draw there was not checked); and the bucket items B's
  // descent examines beyond A's.
  bool b_differs_ = false;
  std::uint64_t b_extra_work_ = 0;
};

// One straw2 choice of a recorded descent (a ChoiceLog), 8 bytes: the
// bucket slot, the r it was drawn with, the winner's index among the
// bucket's items in the recorded map and the winner's hash u (its draw is
// straw2's draw of u with the winner's weight).
struct RecordedChoice {
  std::uint16_t slot = 0;
  std::uint16_t r = 0;
  std::uint16_t winner = 0;
  std::uint16_t u = 0;
};

// Choose-args key of a log recorded without choose_args.
inline constexpr std::int64_t kNoChooseArgsKey = INT64_MIN;

// Default number of choices a ChoiceLog keeps per input (see
// kDefaultChoiceMemoCapacity).
inline constexpr int kDefaultChoiceLogCapacity = 256;

// ChoiceLog: every straw2 choice of one DoRule() call, recorded so that the
// same input can be mapped later on MANY other maps (each through a
// ChoiceDelta against the recorded map), e.g. the before state of a change
// recorded once per PG and replayed by every alternative or staged step.
//
// Unlike ChoiceMemo (one map pair, the winner among the items unchanged in
// that pair), a log keeps the winner among ALL the bucket's items: in a map
// where that winner is unchanged every unchanged item still draws at most
// its draw, so the winner there is the recorded one or one of the items
// that map changed (drawn with its weights); where the winner itself
// changed (its weight, or it is gone) the bucket is drawn in full.
//
//   ChoiceLog log;                       // per thread; allocates once
//   ws_a.RecordChoicesInto(&log);
//   DoRule(map_a, rule, x, rw_a, ws_a, out, args_a);   // records x
//   keep log.choices(), log.x(), log.args_key() (an arena per PG, say)
//   ...
//   ChoiceDelta delta(map_a, map_b);     // once per after map
//   ws_b.ReplayChoices(&delta, kept_choices, x, kept_args_key);
//   DoRule(map_b, rule, x, rw_b, ws_b, out, args_b);   // replays
//
// Choices drawn with a weight set (choose_args with positions) are not
// recorded, nor choices whose slot, r or winner index is above 65535;
// replay draws those normally. A full log drops the rest of the input's
// choices (never an allocation while mapping). Results on the replayed map
// equal its plain results bit for bit (choice_memo_test.cc).
//
// Thread-safety: a plain value; a recording workspace writes it, so one
// log per thread.
class ChoiceLog {
 public:
  explicit ChoiceLog(int capacity = kDefaultChoiceLogCapacity);

  // The choices of the last recorded input, in the order they were made.
  std::span<const RecordedChoice> choices() const {
    return {buf_.data(), static_cast<std::size_t>(size_)};
  }

  // The last recorded input, and its choose_args key (the resolved index,
  // or kNoChooseArgsKey).
  std::uint32_t x() const { return x_; }

  std::int64_t args_key() const { return args_key_; }

  // True iff the last input had more choices than the capacity.
  bool overflowed() const { return overflowed_; }

  // True iff choices() holds every straw2 choice of the last input (none
  // dropped: capacity, a weight set, an index above 65535) and the call
  // used at most half its work budget (RecordedChoicesHold, mapper.h).
  bool complete() const { return complete_; }

  int capacity() const { return static_cast<int>(buf_.size()); }

 private:
  friend class MapperImpl;

  void Begin(std::uint32_t x, const internal::FlatChooseArgs* args) {
    size_ = 0;
    overflowed_ = false;
    complete_ = true;
    x_ = x;
    args_key_ = args != nullptr ? args->index : kNoChooseArgsKey;
  }

  void Add(const RecordedChoice& c) {
    if (static_cast<std::size_t>(size_) < buf_.size()) {
      buf_[static_cast<std::size_t>(size_++)] = c;
    } else {
      overflowed_ = true;
      complete_ = false;
    }
  }

  // The end of the recorded call (its work; see complete()).
  void Finish(std::uint64_t spent, std::uint64_t budget, bool exhausted) {
    if (exhausted || spent > budget / 2) complete_ = false;
  }

  std::vector<RecordedChoice> buf_;
  int size_ = 0;
  bool overflowed_ = false;
  bool complete_ = true;
  std::uint32_t x_ = 0;
  std::int64_t args_key_ = kNoChooseArgsKey;
};

// ChoiceDelta: how each straw2 bucket slot of a map B differs from the
// recorded map A, for replaying ChoiceLog choices of A on B. A slot is
// "same" when the bucket is straw2 in both with the same id, hash, items,
// item weights and choose_args entry in every index of either map (the
// recorded winner is B's winner); "changed" when it differs only in items
// B changed: weights changed, items added or removed, the unchanged items
// in the same relative order and no choose_args entry for the bucket when
// its items differ (their rows follow the items); at most
// kMaxChoiceDeltaChanges changed items and not all of them. Everything else
// is not replayable (drawn in full).
//
// Thread-safety: a plain value (const use from any thread).
inline constexpr int kMaxChoiceDeltaChanges = 16;

class ChoiceDelta {
 public:
  // Compares `recorded` and `b` slot by slot; neither is referenced
  // afterwards (B's layout_id() is kept: replay applies on B and its
  // copies). Cost: linear in both maps; allocates.
  ChoiceDelta(const CrushMap& recorded, const CrushMap& b);

  bool SlotSame(int slot) const { return SlotKind(slot) == kSame; }

  bool SlotChanged(int slot) const { return SlotKind(slot) == kChanged; }

  int same_slots() const { return same_count_; }

  int changed_slots() const { return changed_count_; }

 private:
  friend class MapperImpl;

  static constexpr std::uint8_t kNo = 0;
  static constexpr std::uint8_t kSame = 1;
  static constexpr std::uint8_t kChanged = 2;
  // remap_ value of a recorded item that is gone or changed in B.
  static constexpr std::uint32_t kGone = UINT32_MAX;

  std::uint8_t SlotKind(int slot) const {
    return slot >= 0 && static_cast<std::size_t>(slot) < kind_.size()
               ? kind_[static_cast<std::size_t>(slot)]
               : kNo;
  }

  // For a changed slot: B's index of recorded item `i` (kGone if changed).
  std::uint32_t Remap(int slot, std::uint32_t i) const {
    const std::size_t s = static_cast<std::size_t>(slot);
    const std::size_t at = remap_at_[s] + i;
    return at < remap_at_[s + 1] ? remap_[at] : kGone;
  }

  // For a changed slot: B's indexes of its changed items, ascending.
  const std::uint32_t* changed_begin(int slot) const {
    return changed_.data() + changed_at_[static_cast<std::size_t>(slot)];
  }

  const std::uint32_t* changed_end(int slot) const {
    return changed_.data() + changed_at_[static_cast<std::size_t>(slot) + 1];
  }

  // For a changed slot: how many more items B's bucket has (or 0).
  std::uint32_t Grown(int slot) const { return grown_[static_cast<std::size_t>(slot)]; }

  std::uint64_t layout_b_ = 0;
  std::vector<std::uint8_t> kind_;
  std::vector<std::uint32_t> grown_;
  std::vector<std::uint32_t> remap_at_, remap_;
  std::vector<std::uint32_t> changed_at_, changed_;
  int same_count_ = 0;
  int changed_count_ = 0;
};

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_CHOICE_MEMO_H_
