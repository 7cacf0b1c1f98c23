// The CRUSH mapper: bit-exact re-implementation of Ceph 16.2's
// crush_do_rule() (src/crush/mapper.c) on a CrushMap, plus the MSR rule
// path that Ceph 19.2 (Squid) added (crush_msr_do_rule, as in 20.2).
//
// DoRule() maps an input x through a rule to an ordered list of items. It
// never allocates, locks, throws or dispatches virtually; all scratch state
// (the per-bucket permutations of uniform buckets, the three working
// vectors, the optional choose_tries histogram) lives in a caller-owned
// Workspace. Thread-safety: any number of threads may call DoRule() on one
// shared const CrushMap concurrently, each with its own Workspace. A
// Workspace must not be used by two threads at once.
//
// Semantics follow Ceph exactly (see the reference notes §4), including:
// all five bucket algorithms; firstn and indep; every tunable and rule
// override step; the straw2 negative-int weight quirk of Ceph >= Mimic;
// TAKE of an invalid id being ignored; numrep <= 0 meaning result_max +
// numrep; multiple take/emit blocks; results that are buckets; and
// kItemNone holes for indep rules. MSR rule types (kMsrFirstn/kMsrIndep,
// Squid+) follow crush_msr_do_rule() (Ceph 20.2 mapper.c, see
// mapper_msr.cc).
//
// Divergences from Ceph, all in cases where Ceph itself misbehaves:
//   - Hopeless chooses end early, with Ceph's result: when a choose has
//     retried 64, 128, 256, ... times, crushkit checks whether any try can
//     still succeed (a candidate of the wanted type, reachable from the
//     bucket, that does not collide and, for chooseleaf, has a leaf that is
//     in and does not collide). If none can, it stops at once with exactly
//     the result, and choose_tries histogram, that Ceph reaches after all
//     its tries (set_choose_tries 2000000000 on an unsatisfiable rule costs
//     microseconds, not hours). No proof is attempted through tree buckets
//     or where Ceph's result would depend on which try came last.
//   - Work budget, the last resort: a call examines at most
//     Workspace::budget() bucket items (default kDefaultWorkBudget, about
//     10 ms). When
//     the budget is exhausted, every remaining choose gives up (firstn: the
//     rep is skipped; indep: the slot becomes kItemNone) and
//     budget_exhausted() says so. Ceph would keep going for what can be
//     hours; below the budget results equal Ceph's.
//   - A tree bucket whose descent reaches a leaf node past its last item
//     (all-zero weights) yields "no item" where Ceph reads out of bounds.
//   - A bucket of type 0 reached where a device is expected is treated as
//     "in" by the reweight check, where Ceph indexes the weights with the
//     negative id.
//   - MSR rules on inputs where Ceph asserts, loops forever or reads out of
//     bounds (a TAKE of a device or of a missing bucket, a block without
//     choosemsr steps, a descent reaching an empty bucket or reaching a
//     device where a bucket is expected, arg1 products that overflow):
//     crushkit maps nothing (returns 0) and diverged_from_ceph() says so.
//   - chooseleaf_vary_r > 32 shifts by (vary_r - 1) mod 32, as x86 does
//     for Ceph's (undefined) oversized shift.
#ifndef CRUSHKIT_CRUSH_MAPPER_H_
#define CRUSHKIT_CRUSH_MAPPER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "crush/choice_memo.h"
#include "crush/map.h"
#include "crush/types.h"

namespace crushkit::crush {

namespace internal {
// A straw2 hash kernel (crush/internal/straw2_hash.h): writes
// u[j] = Hash32_3(x, (uint32)ids[j], r) & 0xffff for j < n and returns the
// largest u[j] (0 when n == 0), kept in registers on the way so the key-only
// straw2 scan need not read them all back to find it.
using Straw2HashBlockFn = std::uint32_t (*)(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                            std::uint32_t n, std::uint32_t* u);
}  // namespace internal

// Largest result_max a Workspace supports (Ceph pools use <= 255).
inline constexpr int kMaxWorkspaceResult = 1 << 16;

// Default work budget per DoRule() call, in bucket items examined (each
// bucket choose also costs 32 items' worth): about 10 ms on a 2020s core,
// and over 500 full draws of a 10,000-item straw2 bucket, far more than any
// mapping Ceph completes within its tries needs.
inline constexpr std::uint64_t kDefaultWorkBudget = std::uint64_t{1} << 23;

// Scratch state for DoRule(). Create one per thread (per map) and reuse it:
// construction allocates O(total bucket items + max_result); DoRule() then
// allocates nothing. A Workspace built for one map may be used with that map
// and its copies (same layout_id()). Using it with any other map is a
// programming error: debug builds assert; release builds' DoRule() returns 0.
class Workspace {
 public:
  // `max_result` caps the result length of every DoRule() call with this
  // workspace (Ceph's result_max). It is clamped to [0, kMaxWorkspaceResult]
  // so a bad caller value cannot allocate without bound.
  Workspace(const CrushMap& map, int max_result);

  int max_result() const { return max_result_; }

  // Work budget in bucket items examined per DoRule() call (see above).
  std::uint64_t budget() const { return budget_; }

  void set_budget(std::uint64_t budget) { budget_ = budget; }

  // True iff the last DoRule() call ran out of budget (its result then
  // differs from Ceph's, which would have kept trying).
  bool budget_exhausted() const { return exhausted_; }

  // True iff the last DoRule() call hit an input on which Ceph's own result
  // is undefined (a tree descent past the bucket's last item, or a type-0
  // bucket tested as a device: Ceph reads out of bounds) or ran out of
  // budget: its result is crushkit's documented answer, not Ceph's.
  bool diverged_from_ceph() const { return exhausted_ || tree_out_of_range_; }

  // crushtool --show-choose-tries: when enabled, every successful firstn
  // rep and every indep call adds one to histogram[ftotal] (retries it
  // needed) if ftotal <= choose_total_tries, exactly as Ceph's
  // map->choose_tries profiling. The histogram has choose_total_tries + 1
  // entries (capped at 2^16) and accumulates across calls until reset.
  void EnableChooseTriesProfile(const CrushMap& map);
  void ResetChooseTriesProfile();

  std::span<const std::uint32_t> choose_tries_profile() const { return choose_tries_; }

  // Straw2 choice memo (crush/choice_memo.h), for mapping the same inputs on
  // two similar maps A and B. The memo is not owned and must outlive its
  // use; nullptr is the same as ClearMemo().
  //
  // RecordChoicesInto(memo): every later DoRule() call on memo's map A
  // starts a new input in `memo` (forgetting the previous one) and records
  // the choices made in the buckets the memo shares with B. Results are
  // unchanged. On any other map the memo is ignored.
  void RecordChoicesInto(ChoiceMemo* memo) {
    ClearMemo();
    memo_record_ = memo;
  }

  // ReplayChoicesFrom(memo): every later DoRule() call on memo's map B for
  // the input x the memo holds (recorded under the same resolved
  // choose_args index) takes recorded choices instead of recomputing them.
  // Results are unchanged (bit for bit); only the cost drops. Otherwise the
  // call maps normally.
  void ReplayChoicesFrom(const ChoiceMemo* memo) {
    ClearMemo();
    memo_replay_ = memo;
  }

  // RecordChoicesInto(log): every later DoRule() call (on any map) starts
  // a new input in `log` and records its straw2 choices (crush/choice_memo.h
  // ChoiceLog). Results are unchanged. Clears any other memo setting.
  void RecordChoicesInto(ChoiceLog* log) {
    ClearMemo();
    log_record_ = log;
  }

  // ReplayChoices(delta, choices, x, args_key): later DoRule() calls on
  // delta's map B for input `x` under the choose_args key `args_key` (what
  // a ChoiceLog recorded them under) take `choices`, recorded for x on
  // delta's recorded map, instead of drawing those buckets again. Results
  // are unchanged (bit for bit); other calls map normally. `delta` and
  // `choices` are not owned and must outlive their use. Clears any other
  // memo setting.
  void ReplayChoices(const ChoiceDelta* delta, std::span<const RecordedChoice> choices,
                     std::uint32_t x, std::int64_t args_key) {
    ClearMemo();
    log_delta_ = delta;
    log_choices_ = choices;
    log_x_ = x;
    log_args_key_ = args_key;
  }

  // Back to plain mapping (no memo).
  void ClearMemo() {
    memo_record_ = nullptr;
    memo_replay_ = nullptr;
    log_record_ = nullptr;
    log_delta_ = nullptr;
    log_choices_ = {};
  }

  // Straw2 choices the last DoRule() call took from a replayed memo.
  std::uint32_t memo_hits() const { return memo_hits_; }

  // The buckets the last DoRule() call descended into, as a 64-bit
  // signature: the OR of BucketVisitBits(map)[slot] over every bucket it
  // drew from or found empty, retries, rejected and colliding descents
  // included. All ones when the call's result may depend on more than
  // those buckets' contents: an MSR rule, a hopeless-choose proof (it reads
  // buckets it does not draw from) or an exhausted budget. The result of
  // the same call on another map is provably the same when no bucket whose
  // bit is set differs there (items, weights, algorithm, hash, weight set
  // or ids of choose_args, or the type of one of its items) and the rule,
  // tunables, max_devices and the reweights of the devices under those
  // buckets are equal (osdmap/model/pg_table.h's incremental mapping relies on
  // it). Costs one OR per bucket choose.
  std::uint64_t visited_buckets() const { return visited_; }

 private:
  friend int DoRule(const CrushMap& map, int rule, std::uint32_t x,
                    std::span<const Weight> reweights, Workspace& ws, std::span<ItemId> out,
                    ChooseArgsRef choose_args);
  friend bool RecordedChoicesHold(const CrushMap& map, const ChoiceDelta& delta,
                                  std::span<const RecordedChoice> choices, std::uint32_t x,
                                  std::int64_t args_key, Workspace& ws, ChooseArgsRef choose_args);
  friend class MapperImpl;

  struct PermState {
    std::uint32_t x = 0;
    std::uint32_t n = 0;
    std::uint32_t generation = 0;  // state is stale (perm_n = 0) if != ws generation
  };

  int max_result_ = 0;
  std::uint64_t layout_id_ = 0;
  std::uint32_t generation_ = 0;
  std::uint64_t budget_ = kDefaultWorkBudget;
  std::uint64_t spent_ = 0;
  bool exhausted_ = false;
  bool tree_out_of_range_ = false;
  std::vector<PermState> perm_state_;
  std::vector<std::uint32_t> perm_;
  std::vector<ItemId> a_, b_, c_;
  // MSR rules (crush_work_size): for each choosemsr step of the longest run
  // in any MSR rule of the map, a collision vector and an undo vector of
  // max_result entries (Ceph keeps the undo vector on the stack).
  std::uint32_t msr_steps_ = 0;
  std::vector<ItemId> msr_vecs_;
  std::vector<ItemId> msr_undo_;
  std::vector<std::uint32_t> choose_tries_;
  std::uint32_t choose_total_tries_ = 0;

  // Scratch of the hopeless-choose proofs (mapper_hopeless.cc), sized at
  // construction so a proof never allocates: per bucket slot the stamp of
  // the last walk that queued it, and the walk's stack. walks_[0] walks a
  // choose's candidates, walks_[1] the leaves below one candidate.
  struct SlotWalk {
    std::vector<std::uint32_t> seen;
    std::vector<ItemId> stack;
    std::uint32_t stamp = 0;
  };

  SlotWalk walks_[2];
  // Straw2 hash kernel for this CPU, chosen once at construction.
  internal::Straw2HashBlockFn straw2_hash_ = nullptr;
  const std::uint64_t* straw2_n_ = nullptr;         // internal::Straw2NTable()
  const std::uint64_t* straw2_n_bounds_ = nullptr;  // internal::Straw2NBoundsTable()
  const float* straw2_n_bounds_f_ = nullptr;        // internal::Straw2NBoundsFloatTable()
  // internal::Straw2KeyOrderFacts().ties_lower
  const std::uint64_t* straw2_ties_lower_ = nullptr;
  // Per bucket slot: 1 if a straw2 bucket whose items share one weight w
  // with 0 < (int)w, 2 if moreover keys alone decide its draws (see
  // Straw2ChooseIndex).
  std::vector<std::uint8_t> straw2_uniform_;
  // BucketVisitBits() of the map, and the last call's signature.
  std::vector<std::uint64_t> visit_bits_;
  std::uint64_t visited_ = 0;
  // At most one is set (see RecordChoicesInto / ReplayChoicesFrom).
  ChoiceMemo* memo_record_ = nullptr;
  const ChoiceMemo* memo_replay_ = nullptr;
  // RecordChoicesInto(ChoiceLog*) / ReplayChoices (at most one of the four
  // settings is in use).
  ChoiceLog* log_record_ = nullptr;
  const ChoiceDelta* log_delta_ = nullptr;
  std::span<const RecordedChoice> log_choices_;
  std::uint32_t log_x_ = 0;
  std::int64_t log_args_key_ = 0;
  std::uint32_t memo_hits_ = 0;
};

// The signature bit of every bucket slot (max_buckets() entries; 0 for an
// empty slot) that Workspace::visited_buckets() ORs together. The first 32
// buckets in breadth-first order from the roots (buckets no bucket holds,
// in slot order) have a bit of their own, so the top of the hierarchy,
// which nearly every descent crosses, stays apart from the rest; the others
// share bits 32..63 in turn. A function of the map alone (equal for its
// copies). Cost: O(buckets + items); allocates.
std::vector<std::uint64_t> BucketVisitBits(const CrushMap& map);

// Maps input `x` through rule `rule` (crush_do_rule), writing at most
// min(out.size(), ws.max_result()) items to `out`, and returns how many were
// written. firstn steps compact failures away; indep steps keep positions
// and write kItemNone for slots they could not fill. Results may be bucket
// ids if the rule emits before reaching devices.
//
// `reweights` is the OSD in/out weight vector (16.16, 0x10000 = fully in);
// a device d is "out" if d >= reweights.size() or rejected with probability
// 1 - reweights[d]/0x10000 (is_out). crushtool --test passes 0x10000 for
// every device; an empty span marks every device out.
// `choose_args` comes from map.ResolveChooseArgs(); default: none.
//
// With a capacity of 0 (empty `out` or ws.max_result() == 0) the steps still
// run, as in crush_do_rule with result_max 0: nothing is written and 0 is
// returned, but an enabled choose_tries profile counts each indep choose
// with a positive count once in histogram[0] (crushtool --num-rep 0
// --show-choose-tries).
//
// MSR rules (kMsrFirstn / kMsrIndep) run crush_msr_do_rule(): msr_firstn
// returns the number of items found (in discovery order), msr_indep returns
// the capacity with kItemNone holes at unmapped positions; a rule that is
// not of the MSR shape (set_msr_* prefix, then TAKE CHOOSE_MSR* EMIT
// blocks) maps nothing. They ignore the choose_tries profile, as Ceph does.
//
// Returns 0 if the rule does not exist. REQUIRES: `ws` was
// built for `map` or a copy of it (same layout_id()); debug builds assert,
// release builds return 0 for a foreign workspace. Never allocates or throws.
// Cost: O(depth x bucket size x replicas) in the common case; bounded by
// the workspace budget in the worst case.
int DoRule(const CrushMap& map, int rule, std::uint32_t x, std::span<const Weight> reweights,
           Workspace& ws, std::span<ItemId> out, ChooseArgsRef choose_args = {});

// For a ChoiceLog replay (crush/choice_memo.h): true iff DoRule() on `map`
// (map B of `delta`) of input `x` with `choose_args` would make every
// choice `choices` recorded (a complete() log of x on the recorded map,
// under choose_args key `args_key`) in a changed slot of `delta` the same
// way (the recorded winner kept, every changed item losing to it), and
// stay within ws's budget. A caller that knows every other bucket the
// recorded descent visited is the same in B (and the devices' reweights
// and validity) may take the recorded result as B's. False for a choice in
// a slot `delta` does not replay. Never allocates.
// Cost: one hash per changed item of each such choice.
// REQUIRES: `ws` was created for `map`.
bool RecordedChoicesHold(const CrushMap& map, const ChoiceDelta& delta,
                         std::span<const RecordedChoice> choices, std::uint32_t x,
                         std::int64_t args_key, Workspace& ws, ChooseArgsRef choose_args = {});

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_MAPPER_H_
