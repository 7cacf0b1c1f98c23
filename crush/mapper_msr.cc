// The MSR ("multi-step retry") rule path: Ceph's crush_msr_do_rule() and
// its helpers crush_msr_* (src/crush/mapper.c, Ceph 19.2+; design notes in
// Ceph's doc/dev/crush-msr.rst). Each function below names the Ceph
// function it reproduces; control flow, unsigned arithmetic and the order
// of hash draws must stay exactly as there (PLACEMENT-STABLE throughout).
//
// Where Ceph asserts, loops forever or reads out of bounds, MsrAbort() ends
// the call with no items and flags the workspace (mapper.h lists the cases).

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "crush/internal/map_access.h"
#include "crush/internal/mapper_impl.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"

namespace crushkit::crush {

namespace {

bool IsMsrConfigOp(RuleOp op) {
  return op == RuleOp::kSetMsrDescents || op == RuleOp::kSetMsrCollisionTries;
}

// crush_msr_scan_config_steps(): the index of the first step that is not a
// set_msr_* step; the last of each kind wins.
std::uint32_t ScanConfigSteps(const RuleStep* steps, std::uint32_t len, std::uint32_t* descents,
                              std::uint32_t* collision_tries) {
  std::uint32_t stepno = 0;
  for (; stepno < len && IsMsrConfigOp(steps[stepno].op); ++stepno) {
    const auto arg = static_cast<std::uint32_t>(steps[stepno].arg1);
    if (steps[stepno].op == RuleOp::kSetMsrDescents) {
      if (descents != nullptr) *descents = arg;
    } else if (collision_tries != nullptr) {
      *collision_tries = arg;
    }
  }
  return stepno;
}

// crush_msr_scan_next(): validates one TAKE CHOOSE_MSR* EMIT block starting
// at `stepno`; yields the product of its choosemsr counts (0 counts as
// result_max; unsigned, wrapping as in C) and the EMIT's index.
bool ScanNext(const RuleStep* steps, std::uint32_t len, std::uint32_t result_max,
              std::uint32_t stepno, std::uint32_t* total_children, std::uint32_t* next_emit) {
  if (stepno + 1 >= len || steps[stepno].op != RuleOp::kTake) return false;
  std::uint32_t total = 1;
  for (++stepno; stepno < len; ++stepno) {
    const RuleStep& step = steps[stepno];
    if (step.op == RuleOp::kEmit) break;
    if (step.op != RuleOp::kChooseMsr) return false;
    total *= step.arg1 != 0 ? static_cast<std::uint32_t>(step.arg1) : result_max;
  }
  if (stepno >= len) return false;
  *total_children = total;
  *next_emit = stepno;
  return true;
}

}  // namespace

namespace internal {

// crush_work_size()'s MSR part (crush_msr_scan_rule): the longest run of
// choosemsr steps in any MSR rule, counted up to the first malformed block
// as Ceph does (a mapping never gets past that block).
std::uint32_t MsrMaxChooseRun(const CrushMap& map) {
  const RuleStep* all_steps = MapAccess::Steps(map);
  std::uint32_t longest = 0;
  for (int r = 0; r < map.max_rules(); ++r) {
    if (!map.RuleExists(r)) continue;
    const FlatRule& rule = MapAccess::Rule(map, r);
    if (rule.type != RuleType::kMsrFirstn && rule.type != RuleType::kMsrIndep) continue;
    const RuleStep* steps = all_steps + rule.first_step;
    std::uint32_t stepno = ScanConfigSteps(steps, rule.num_steps, nullptr, nullptr);
    while (stepno < rule.num_steps) {
      std::uint32_t total = 0;
      std::uint32_t emit = 0;
      if (!ScanNext(steps, rule.num_steps, 1, stepno, &total, &emit)) break;
      longest = std::max(longest, emit - (stepno + 1));
      stepno = emit + 1;
    }
  }
  return longest;
}

}  // namespace internal

// One crush_msr_do_rule() call's invariant inputs (crush_msr_input) and the
// current block's workspace (crush_msr_workspace) and output
// (crush_msr_output).
struct MapperImpl::MsrCall {
  const RuleStep* steps = nullptr;
  bool firstn = false;
  std::uint32_t result_max = 0;
  std::uint32_t descents = 0;
  std::uint32_t collision_tries = 0;
  // The block being mapped: choose steps [start_stepno, end_stepno), where
  // end_stepno is its EMIT. Step k's collision vector is
  // vecs + (k - start_stepno) * result_max; likewise undo (one entry per
  // stride, the undo[] array Ceph keeps on the stack).
  std::uint32_t start_stepno = 0;
  std::uint32_t end_stepno = 0;
  ItemId* vecs = nullptr;
  ItemId* undo = nullptr;
  ItemId* out = nullptr;
  std::uint32_t returned = 0;
  bool aborted = false;

  ItemId* Vec(std::uint32_t stepno) const {
    return vecs + std::size_t{stepno - start_stepno} * result_max;
  }
};

void MapperImpl::MsrAbort(MsrCall& call) {
  call.aborted = true;
  ws_.tree_out_of_range_ = true;
}

// crush_msr_descend(): bucket choices with one constant r from `bucket`
// down to a device or a bucket of `type`. r is
// crush_msr_get_retry_value(): ((tryno * result_max + index) << 16) +
// local_tryno, in unsigned arithmetic; the choose_args position is `index`.
// Aborts the call (MsrAbort) where Ceph would fault.
ItemId MapperImpl::MsrDescend(MsrCall& call, const internal::FlatBucket& bucket, int type,
                              std::uint32_t tryno, std::uint32_t local_tryno, std::uint32_t index) {
  const std::uint32_t r = ((tryno * call.result_max + index) << 16) + local_tryno;
  const internal::FlatBucket* in = &bucket;
  for (;;) {
    // crush_bucket_choose() asserts a non-empty bucket.
    if (in->size == 0) break;
    const ItemId item = BucketChoose(*in, r, static_cast<int>(index));
    if (item >= 0) return item;
    const auto slot = static_cast<std::size_t>(BucketSlot(item));
    if (slot >= num_buckets_ || buckets_[slot].alg == BucketAlg::kNone) break;
    in = &buckets_[slot];
    if (in->type == type) return item;
  }
  MsrAbort(call);
  return kItemNone;
}

// PLACEMENT-STABLE: mapper.c crush_msr_choose(). Maps indices
// [start_index, end_index) below `bucket` with choose steps
// [stepno, call.end_stepno), depth first, dividing the range into the
// step's strides; returns how many results it emitted.
// Mirrors Ceph's crush_msr_choose() (src/crush/mapper.c) line by line.
std::uint32_t MapperImpl::MsrChoose(MsrCall& call, const internal::FlatBucket& bucket,
                                    std::uint32_t total_descendants, std::uint32_t start_index,
                                    std::uint32_t end_index, std::uint32_t stepno,
                                    std::uint32_t tryno) {
  const RuleStep& step = call.steps[stepno];
  // A block without choosemsr steps reaches here with its EMIT: Ceph
  // asserts (BUG_ON op != CHOOSE_MSR).
  if (step.op != RuleOp::kChooseMsr) {
    MsrAbort(call);
    return 0;
  }
  const std::uint32_t num_strides =
      step.arg1 != 0 ? static_cast<std::uint32_t>(step.arg1) : call.result_max;
  // Ceph divides by num_strides and asserts it divides the total; an
  // overflowed product can break both, and a zero stride loops forever.
  if (num_strides == 0 || total_descendants % num_strides != 0 ||
      total_descendants / num_strides == 0) {
    MsrAbort(call);
    return 0;
  }
  const std::uint32_t stride_length = total_descendants / num_strides;
  const bool leaf_step = stepno + 1 == call.end_stepno;
  ItemId* vec = call.Vec(stepno);
  ItemId* undo = call.undo + std::size_t{stepno - call.start_stepno} * call.result_max;
  // crush_msr_leaf_vec_populated() reads the block's last step vector.
  const ItemId* leaf_vec = call.Vec(call.end_stepno - 1);

  std::uint32_t mapped = 0;
  std::uint32_t stride_index = 0;
  for (std::uint32_t stride_start = start_index; stride_start < end_index;
       stride_start += stride_length, ++stride_index) {
    undo[stride_index] = kItemUndef;
    if (call.aborted || ws_.exhausted_) continue;
    const std::uint32_t stride_end = std::min(stride_start + stride_length, end_index);
    bool populated = true;
    for (std::uint32_t i = stride_start; i < stride_end && populated; ++i) {
      populated = leaf_vec[i] != kItemUndef;
    }
    if (populated) continue;

    // A candidate is valid if this stride already uses it or no other
    // stride of [start_index, end_index) does (crush_msr_valid_candidate).
    ItemId candidate = kItemNone;
    bool found = false;
    for (std::uint32_t local = 0; local < call.collision_tries && !found; ++local) {
      candidate = MsrDescend(call, bucket, step.arg2, tryno, local, stride_index);
      if (call.aborted) break;
      found = true;
      for (std::uint32_t i = start_index; i < end_index; ++i) {
        if (vec[i] == candidate) {
          found = i >= stride_start && i < stride_end;
          break;
        }
      }
    }
    if (!found || call.aborted) continue;

    if (step.arg2 == 0) {
      // The leaf step must be the block's last with one index per stride;
      // otherwise the rule is malformed and the stride is skipped.
      if (stride_length != 1 || !leaf_step) continue;
      // An out device is retried by the next descent (crush_msr_do_rule).
      if (IsOut(candidate)) continue;
      vec[stride_start] = candidate;  // crush_msr_push_used(), stride of one
      // crush_msr_emit_result(): firstn in discovery order, indep in place.
      call.out[call.firstn ? call.returned : stride_start] = candidate;
      ++call.returned;
      ++mapped;
      continue;
    }
    if (leaf_step) continue;  // a non-leaf type with no step after it
    // Ceph indexes its bucket array with a device id here.
    if (candidate >= 0) {
      MsrAbort(call);
      continue;
    }
    const std::uint32_t child_mapped = MsrChoose(call, BucketOf(candidate), stride_length,
                                                 stride_start, stride_end, stepno + 1, tryno);
    // crush_msr_push_used(): add unless already recorded for this stride.
    bool pushed = false;
    for (std::uint32_t i = stride_start; i < stride_end; ++i) {
      if (vec[i] == candidate) break;
      if (vec[i] == kItemUndef) {
        vec[i] = candidate;
        pushed = true;
        break;
      }
    }
    if (pushed && child_mapped == 0) {
      undo[stride_index] = candidate;  // popped once every stride is done
    } else {
      mapped += child_mapped;
    }
  }

  // crush_msr_pop_used(): drop the buckets under which nothing was mapped
  // (the last recorded entry of their stride), now rather than at once so
  // they still collided for the later strides of this pass.
  stride_index = 0;
  for (std::uint32_t stride_start = start_index; stride_start < end_index;
       stride_start += stride_length, ++stride_index) {
    if (undo[stride_index] == kItemUndef) continue;
    const std::uint32_t stride_end = std::min(stride_start + stride_length, end_index);
    for (std::uint32_t i = stride_end; i > stride_start;) {
      --i;
      if (vec[i] != kItemUndef) {
        vec[i] = kItemUndef;
        break;
      }
    }
  }
  return mapped;
}

// PLACEMENT-STABLE: mapper.c crush_msr_do_rule(). Results are pre-filled
// with kItemNone; each block retries whole descents (crush_msr_choose with
// a new tryno) up to msr_descents times until its index range is full.
int MapperImpl::MsrDoRule(const internal::FlatRule& rule, const RuleStep* steps,
                          const Tunables& tunables, ItemId* result, int result_max) {
  MsrCall call;
  call.steps = steps + rule.first_step;
  call.firstn = rule.type == RuleType::kMsrFirstn;
  call.result_max = static_cast<std::uint32_t>(result_max);
  call.descents = tunables.msr_descents;
  call.collision_tries = tunables.msr_collision_tries;
  // Results go to scratch first (Ceph writes its result array directly):
  // DoRule() writes nothing past the count it returns, and a rule found
  // malformed in a later block returns 0 as Ceph does.
  call.out = ws_.a_.data();
  const std::uint32_t len = rule.num_steps;
  std::uint32_t stepno = ScanConfigSteps(call.steps, len, &call.descents, &call.collision_tries);
  std::fill(call.out, call.out + result_max, kItemNone);

  std::uint32_t start_index = 0;
  while (stepno < len) {
    std::uint32_t total_children = 0;
    std::uint32_t emit = 0;
    if (!ScanNext(call.steps, len, call.result_max, stepno, &total_children, &emit)) return 0;
    const ItemId root = call.steps[stepno].arg1;
    // A TAKE of a device emits it without advancing: Ceph then re-runs the
    // block until an assertion stops it. A missing bucket faults.
    const auto slot = static_cast<std::size_t>(BucketSlot(root));
    if (root >= 0 || slot >= num_buckets_ || buckets_[slot].alg == BucketAlg::kNone ||
        emit - (stepno + 1) > ws_.msr_steps_) {
      MsrAbort(call);
      return 0;
    }
    call.start_stepno = stepno + 1;
    call.end_stepno = emit;
    call.vecs = ws_.msr_vecs_.data();
    call.undo = ws_.msr_undo_.data();
    // crush_msr_clear_workspace().
    std::fill_n(call.vecs, std::size_t{emit - call.start_stepno} * call.result_max, kItemUndef);
    const std::uint32_t end_index = std::min(start_index + total_children, call.result_max);
    const std::uint32_t limit = call.returned + (end_index - start_index);
    for (std::uint32_t tries = 0; tries < call.descents && call.returned < limit && !ws_.exhausted_;
         ++tries) {
      MsrChoose(call, buckets_[slot], total_children, start_index, end_index, call.start_stepno,
                tries);
      if (call.aborted) return 0;
    }
    start_index = end_index;
    stepno = emit + 1;
  }
  const int count = call.firstn ? static_cast<int>(call.returned) : result_max;
  std::copy(call.out, call.out + count, result);
  return count;
}

}  // namespace crushkit::crush
