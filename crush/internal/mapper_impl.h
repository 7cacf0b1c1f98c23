// Private to crush_core (not installed): the per-call mapper state shared by
// mapper.cc (crush_do_rule's conventional path) and mapper_msr.cc (the MSR
// path, crush_msr_do_rule). One MapperImpl lives on the stack for one
// DoRule() call; it is not shared between threads.
#ifndef CRUSHKIT_CRUSH_INTERNAL_MAPPER_IMPL_H_
#define CRUSHKIT_CRUSH_INTERNAL_MAPPER_IMPL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include "crush/choice_memo.h"
#include "crush/internal/map_access.h"
#include "crush/internal/straw2_draw.h"
#include "crush/internal/straw2_hash.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"

namespace crushkit::crush {

namespace internal {
// The longest run of choosemsr steps in any MSR rule of `map` (the MSR part
// of crush_work_size); 0 without MSR rules. Defined in mapper_msr.cc.
std::uint32_t MsrMaxChooseRun(const CrushMap& map);
}  // namespace internal

// One crush_do_rule() invocation: the map, the input and the workspace,
// bound together so the recursive choose functions take only Ceph's own
// per-call arguments. Function names and control flow mirror mapper.c so
// the two can be compared line by line; do not "simplify" the retry logic.
class MapperImpl {
 public:
  MapperImpl(const CrushMap& map, std::uint32_t x, std::span<const Weight> reweights, Workspace& ws,
             const internal::FlatChooseArgs* choose_args)
      : buckets_(internal::MapAccess::BucketSlots(map)),
        num_buckets_(static_cast<std::size_t>(map.max_buckets())),
        items_(internal::MapAccess::Items(map)),
        weights_(internal::MapAccess::Weights(map)),
        divisors_(internal::MapAccess::Divisors(map)),
        max_devices_(map.max_devices()),
        x_(x),
        reweights_(reweights.data()),
        weight_max_(static_cast<int>(
            std::min<std::size_t>(reweights.size(), std::numeric_limits<int>::max()))),
        ws_(ws),
        choose_args_(choose_args),
        straw2_key_winner_(internal::SelectStraw2KeyWinnerBlock()) {
    if (ws.memo_record_ != nullptr || ws.memo_replay_ != nullptr || ws.log_record_ != nullptr ||
        ws.log_delta_ != nullptr) [[unlikely]] {
      AttachMemo(map.layout_id());
    }
  }

  int DoRule(const internal::FlatRule& rule, const RuleStep* steps, const Tunables& tunables,
             ItemId* result, int result_max);

  // RecordedChoicesHold() (mapper.h) for this call's input and choose_args
  // on the map of layout_id() `layout`.
  bool RecordedChoicesHold(const ChoiceDelta& delta, std::span<const RecordedChoice> choices,
                           std::int64_t args_key, std::uint64_t layout);

  // Ends the input of a recording ChoiceMemo or ChoiceLog, with this call's
  // work (ChoiceMemo::partial_choices_hold, ChoiceLog::complete). Call after DoRule / MsrDoRule.
  void FinishMemo() {
    if (memo_record_ != nullptr) [[unlikely]] {
      memo_record_->Finish(ws_.spent_, ws_.budget_, ws_.exhausted_);
    }
    if (log_record_ != nullptr) [[unlikely]] {
      log_record_->Finish(ws_.spent_, ws_.budget_, ws_.exhausted_);
    }
  }

  // crush_msr_do_rule() for rule types kMsrFirstn / kMsrIndep (mapper_msr.cc).
  int MsrDoRule(const internal::FlatRule& rule, const RuleStep* steps, const Tunables& tunables,
                ItemId* result, int result_max);

 private:
  const internal::FlatBucket& BucketOf(ItemId id) const {
    return buckets_[static_cast<std::size_t>(BucketSlot(id))];
  }

  // What one bucket choose costs beyond its items, in items' worth (the
  // hashing set-up and the retry bookkeeping around it): many tiny chooses
  // are charged for the time they take, not just their few items.
  static constexpr std::uint64_t kChooseCost = 32;

  // Charges `cost` bucket items to the budget; true if still within it.
  bool Spend(std::uint64_t cost) {
    ws_.spent_ += cost;
    if (ws_.spent_ > ws_.budget_) ws_.exhausted_ = true;
    return !ws_.exhausted_;
  }

  void Profile(std::uint32_t ftotal) {
    if (!ws_.choose_tries_.empty() && ftotal <= ws_.choose_total_tries_ &&
        ftotal < ws_.choose_tries_.size()) {
      ++ws_.choose_tries_[ftotal];
    }
  }

  ItemId PermChoose(const internal::FlatBucket& b, std::uint32_t r);
  ItemId ListChoose(const internal::FlatBucket& b, std::uint32_t r) const;
  ItemId TreeChoose(const internal::FlatBucket& b, std::uint32_t r) const;
  ItemId StrawChoose(const internal::FlatBucket& b, std::uint32_t r) const;
  // bucket_straw2_choose(): the winner's index; its draw goes to *draw.
  // Inlined into its callers so the plain path (Straw2Choose) drops *draw.
  [[gnu::always_inline]] inline std::uint32_t Straw2ChooseIndex(const internal::FlatBucket& b,
                                                                std::uint32_t r, int position,
                                                                std::int64_t* draw) const;
  // Its paths for uniform weights (straw2_uniform_ 1) and for any.
  [[gnu::always_inline]] inline std::uint32_t Straw2UniformIndex(const internal::FlatBucket& b,
                                                                 const ItemId* ids, std::uint32_t r,
                                                                 std::int64_t* draw) const;
  [[gnu::always_inline]] inline std::uint32_t Straw2GeneralIndex(
      const internal::FlatBucket& b, const ItemId* ids, const internal::Straw2Divisor* divisors,
      std::uint32_t r, std::int64_t* draw) const;
  [[gnu::always_inline]] inline bool Straw2BoundedIndex(std::uint32_t n, const std::uint32_t* u,
                                                        const internal::Straw2Divisor* divisors,
                                                        std::uint32_t* high,
                                                        std::int64_t* draw) const;
  // The straw2 choice, through the workspace's memo when one applies.
  ItemId Straw2Choose(const internal::FlatBucket& b, std::uint32_t r, int position);
  // Straw2ChooseIndex and PlainStraw2Choose are defined in
  // internal/mapper_straw2.h, included by mapper.cc and mapper_straw2_memo.cc.
  [[gnu::always_inline]] inline ItemId PlainStraw2Choose(const internal::FlatBucket& b,
                                                         std::uint32_t r, int position) const;

  // One changed item of a straw2 bucket: its index, the id it hashes by
  // and its weight's divisor (ChangedItemsWinner).
  struct Straw2ChangedItem {
    std::uint32_t index;
    ItemId id;
    const internal::Straw2Divisor* div;
  };

  // The memo paths' straw2 winner: `high` (drawing high_draw) against the
  // changed items changed_at(0 .. count - 1) (mapper_straw2_memo.cc).
  template <typename ChangedAt>
  [[gnu::hot]] std::uint32_t ChangedItemsWinner(std::uint32_t r, std::uint32_t high,
                                                std::int64_t high_draw, std::size_t count,
                                                ChangedAt changed_at) const;
  // The same over a bucket's changed indexes [begin, end).
  [[gnu::hot]] std::uint32_t ChangedItemsWinner(std::uint32_t r, std::uint32_t high,
                                                std::int64_t high_draw, const ItemId* ids,
                                                const internal::Straw2Divisor* divisors,
                                                const std::uint32_t* begin,
                                                const std::uint32_t* end) const;
  // Out of line and cold: keeps the plain path's code as it was.
  [[gnu::noinline, gnu::cold]] ItemId MemoStraw2Choose(const internal::FlatBucket& b,
                                                       std::uint32_t r, int position);
  ItemId PartialStraw2Choose(const internal::FlatBucket& b, std::uint32_t r, int position,
                             const ChoiceMemo& memo);
  // Recording: notes in memo_record_ whether map B would choose `winner`
  // too, and B's extra work (ChoiceMemo::partial_choices_hold).
  void NoteBChoice(const internal::FlatBucket& b, std::uint32_t r, const ItemId* ids,
                   std::uint32_t best, std::int64_t best_draw, std::uint32_t winner,
                   const ChoiceMemo& memo);
  // NoteBChoice for A's winner `best` (an unchanged item, no weight set)
  // known by its hash `best_u` alone: its draw is loaded only when the
  // numerator bounds cannot decide (ChangedItemsLoseTo).
  void NoteBChoiceOfHash(const internal::FlatBucket& b, std::uint32_t r, const ItemId* ids,
                         std::uint32_t best, std::uint32_t best_u, const ChoiceMemo& memo);
  void AttachMemo(std::uint64_t layout);
  // The ChoiceLog paths (mapper_straw2_memo.cc): recording every straw2
  // choice, and replaying them through a ChoiceDelta.
  // Hot: only the cold MemoStraw2Choose calls them, so GCC would optimise
  // them for size (the hash out of line) though they run for every PG.
  [[gnu::hot]] ItemId LogStraw2Choose(const internal::FlatBucket& b, std::uint32_t r, int position);
  [[gnu::hot]] ItemId ReplayStraw2Choose(const internal::FlatBucket& b, std::uint32_t r,
                                         int position);
  // True iff no changed item changed_at(0 .. count - 1) can beat a winner
  // of weight divisor `wd` and hash `u`, judged from the 16 KiB numerator
  // bounds alone (ChangedItemsLose).
  template <typename ChangedAt>
  [[gnu::hot]] bool ChangedItemsLoseTo(std::uint32_t r, const internal::Straw2Divisor& wd,
                                       std::uint32_t u, std::size_t count,
                                       ChangedAt changed_at) const;
  [[gnu::hot]] bool ChangedItemsLose(const ItemId* ids, const internal::Straw2Divisor* divisors,
                                     std::uint32_t r, std::uint32_t high, std::uint32_t u,
                                     const std::uint32_t* begin, const std::uint32_t* end) const;
  // B's winner of a recorded choice B keeps: ChangedItemsLose, else
  // ChangedItemsWinner (ReplayStraw2Choose, RecordedChoicesHold).
  [[gnu::hot]] std::uint32_t RecordedWinner(const ItemId* ids,
                                            const internal::Straw2Divisor* divisors,
                                            std::uint32_t r, std::uint32_t high, std::uint32_t u,
                                            const std::uint32_t* begin,
                                            const std::uint32_t* end) const;
  // The recorded choice for (slot, r) of the replayed input, or nullptr.
  [[gnu::hot]] const RecordedChoice* FindRecorded(std::uint32_t slot, std::uint32_t r);

  // The ids bucket `b` (slot `slot`) hashes its items by: its choose_args
  // substitutes in this call, else its own items (the memo paths; the
  // plain straw2 choice reads them with the weight set, in one lookup).
  const ItemId* HashIds(const internal::FlatBucket& b, int slot) const {
    if (choose_args_ != nullptr) {
      const internal::FlatChooseArg& arg = choose_args_->slots[static_cast<std::size_t>(slot)];
      if (arg.has_ids) return choose_args_->ids.data() + arg.ids;
    }
    return items_ + b.items;
  }

  // True iff this call draws bucket slot `slot` with a weight set.
  bool HasWeightSet(int slot) const {
    return choose_args_ != nullptr &&
           choose_args_->slots[static_cast<std::size_t>(slot)].positions != 0;
  }

  ItemId BucketChoose(const internal::FlatBucket& b, std::uint32_t r, int position);

  // Adds `b` to the workspace's visited-bucket signature.
  void Visit(const internal::FlatBucket& b) {
    ws_.visited_ |= ws_.visit_bits_[static_cast<std::size_t>(BucketSlot(b.id))];
  }

  bool IsOut(ItemId item) const;

  int ChooseFirstn(const internal::FlatBucket& bucket, int numrep, int type, ItemId* out,
                   int outpos, int out_size, std::uint32_t tries, std::uint32_t recurse_tries,
                   std::uint32_t local_retries, std::uint32_t local_fallback_retries,
                   bool recurse_to_leaf, std::uint32_t vary_r, std::uint32_t stable, ItemId* out2,
                   int parent_r);
  void ChooseIndep(const internal::FlatBucket& bucket, int left, int numrep, int type, ItemId* out,
                   int outpos, std::uint32_t tries, std::uint32_t recurse_tries,
                   bool recurse_to_leaf, ItemId* out2, int parent_r);

  // Hopeless-choose proofs (mapper_hopeless.cc; see mapper.h). Each is
  // true only if no try of the choose, whatever its r, can succeed, so
  // stopping now gives Ceph's own result.
  // A firstn rep at `outpos` (collisions with out[0, outpos), and for
  // chooseleaf with out2[0, outpos) below the candidate).
  bool FirstnRepHopeless(const internal::FlatBucket& bucket, int type, const ItemId* out,
                         int outpos, bool recurse_to_leaf, const ItemId* out2);
  // Every still undefined slot of an indep choose over out[outpos, endpos).
  bool IndepHopeless(const internal::FlatBucket& bucket, int type, const ItemId* out, int outpos,
                     int endpos, bool recurse_to_leaf);
  // True iff every leaf reachable below `bucket` collides with
  // collide[0, ncollide) or is out.
  bool LeavesHopeless(const internal::FlatBucket& bucket, const ItemId* collide, int ncollide);
  // Calls end(item) for every item a descent from `root` toward `type` can
  // end on (items of that type, devices, ids past max_devices), each once;
  // false as soon as end() is, or where no proof is attempted.
  template <class End>
  bool EveryEndFails(Workspace::SlotWalk& walk, const internal::FlatBucket& root, int type,
                     End&& end);

  // Checkpoints of the proofs: 64, 128, 256, ... failed tries.
  static bool IsProofCheckpoint(std::uint32_t ftotal) {
    return ftotal >= 64 && (ftotal & (ftotal - 1)) == 0;
  }

  // The MSR path (mapper_msr.cc); `msr_` holds its per-call state.
  struct MsrCall;
  std::uint32_t MsrChoose(MsrCall& call, const internal::FlatBucket& bucket,
                          std::uint32_t total_descendants, std::uint32_t start_index,
                          std::uint32_t end_index, std::uint32_t stepno, std::uint32_t tryno);
  ItemId MsrDescend(MsrCall& call, const internal::FlatBucket& bucket, int type,
                    std::uint32_t tryno, std::uint32_t local_tryno, std::uint32_t index);
  // Records that Ceph itself would crash, loop or read out of bounds here
  // (see mapper.h); the MSR call then stops and maps nothing.
  void MsrAbort(MsrCall& call);

  const internal::FlatBucket* buckets_;
  std::size_t num_buckets_;
  const ItemId* items_;
  const Weight* weights_;
  const internal::Straw2Divisor* divisors_;
  int max_devices_;
  std::uint32_t x_;
  const Weight* reweights_;
  int weight_max_;
  Workspace& ws_;
  const internal::FlatChooseArgs* choose_args_;
  // The straw2 key-only winner kernel for this CPU (chosen once per process).
  internal::Straw2KeyWinnerBlockFn straw2_key_winner_;
  // The workspace's memo, if it applies to this call (see AttachMemo); at
  // most one is set, and memo_ says whether either is.
  ChoiceMemo* memo_record_ = nullptr;
  const ChoiceMemo* memo_replay_ = nullptr;
  ChoiceLog* log_record_ = nullptr;
  const ChoiceDelta* log_replay_ = nullptr;
  std::size_t log_cursor_ = 0;  // where the next FindRecorded starts
  bool memo_ = false;
};

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_INTERNAL_MAPPER_IMPL_H_
