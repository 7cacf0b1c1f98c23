// Private to crush_core: MapperImpl's straw2 choice (mapper.c
// bucket_straw2_choose()), defined here so that mapper.cc (the plain path,
// BucketChoose) and mapper_straw2_memo.cc (the memo paths) both inline it.
// Include only after crush/internal/mapper_impl.h.
#ifndef CRUSHKIT_CRUSH_INTERNAL_MAPPER_STRAW2_H_
#define CRUSHKIT_CRUSH_INTERNAL_MAPPER_STRAW2_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

#include "crush/hash.h"
#include "crush/internal/map_access.h"
#include "crush/internal/mapper_impl.h"
#include "crush/internal/straw2_draw.h"
#include "crush/internal/straw2_hash.h"
#include "crush/map.h"
#include "crush/types.h"

namespace crushkit::crush {

// PLACEMENT-STABLE: mapper.c bucket_straw2_choose() as built in userspace
// Ceph >= Mimic: the weight reaches generate_exponential_distribution() as
// an `int`, so weights >= 0x80000000 are negative and win every draw; the
// draw is a signed 64-bit division truncating toward zero.
std::uint32_t MapperImpl::Straw2ChooseIndex(const internal::FlatBucket& b, std::uint32_t r,
                                            int position, std::int64_t* draw_out) const {
  const ItemId* items = items_ + b.items;
  // divisors[i] stands for weights[i]: internal::Straw2Draw() returns exactly
  // Ceph's quotient without a 64-bit division (see straw2_draw.h).
  const internal::Straw2Divisor* divisors = divisors_ + b.weights;
  const ItemId* ids = items;
  if (choose_args_ != nullptr) {
    const internal::FlatChooseArg& arg =
        choose_args_->slots[static_cast<std::size_t>(BucketSlot(b.id))];
    if (arg.positions != 0) {
      std::uint32_t pos = static_cast<std::uint32_t>(position);
      if (pos >= arg.positions) pos = arg.positions - 1;
      divisors = choose_args_->divisors.data() + arg.weight_set + std::size_t{pos} * b.size;
    }
    if (arg.has_ids) ids = choose_args_->ids.data() + arg.ids;
  }
  // Hashes are computed a block at a time by the workspace's SIMD kernel
  // (straw2_hash.h); zero-weight items are hashed needlessly but never
  // used, exactly as if skipped. straw2_n_[u] is the draw's numerator n.
  const std::uint8_t uniform = divisors == divisors_ + b.weights
                                   ? ws_.straw2_uniform_[static_cast<std::size_t>(BucketSlot(b.id))]
                                   : 0;
  if (uniform == 2) {
    // One weight d <= Straw2KeyOrder::min_gap: the winner is the first item
    // whose key shares the top key's numerator, found by a kernel that
    // keeps the hashes in registers. The winner's hash is computed again
    // (and its numerator loaded) only if the caller wants the draw.
    const std::uint32_t high = straw2_key_winner_(x_, r, ids, b.size, ws_.straw2_ties_lower_);
    const std::uint32_t win_u = Hash32_3(x_, static_cast<std::uint32_t>(ids[high]), r) & 0xffffu;
    *draw_out = internal::Straw2DrawFromNumerator(ws_.straw2_n_[win_u], divisors[0]);
    return high;
  }
  if (uniform == 1) return Straw2UniformIndex(b, ids, r, draw_out);
  return Straw2GeneralIndex(b, ids, divisors, r, draw_out);
}

// Straw2ChooseIndex for a bucket whose items all weigh one positive d (no
// weight set): straw2_uniform_ 1.
std::uint32_t MapperImpl::Straw2UniformIndex(const internal::FlatBucket& b, const ItemId* ids,
                                             std::uint32_t r, std::int64_t* draw_out) const {
  constexpr std::uint32_t kBlock = 32;
  std::uint32_t u[kBlock];
  const std::uint64_t* ntable = ws_.straw2_n_;
  const internal::Straw2Divisor* divisors = divisors_ + b.weights;
  std::uint32_t high = 0;
  // Every item has the same positive weight d, so draw_i = -(n_i / d) and
  // item i beats the current best (ties keep the lower index, as Ceph's
  // strict '>') iff n_i / d < q_best, i.e. iff n_i < q_best * d (exact
  // integer floor division). n is non-increasing in Straw2Key(u), so only
  // an item whose key exceeds the best's can beat it: the table lookup
  // (a likely cache miss) and the compare run for the few running maxima
  // of the key, not for every item.
  const internal::Straw2Divisor& div = divisors[0];
  const std::uint64_t d = weights_[b.weights];
  ws_.straw2_hash_(x_, r, ids, std::min(kBlock, b.size), u);
  std::uint64_t q_best =
      static_cast<std::uint64_t>(-internal::Straw2DrawFromNumerator(ntable[u[0]], div));
  std::uint64_t threshold = q_best * d;
  std::uint32_t key_best = internal::Straw2Key(u[0]);
  for (std::uint32_t base = 0; base < b.size; base += kBlock) {
    const std::uint32_t n = std::min(kBlock, b.size - base);
    if (base != 0) ws_.straw2_hash_(x_, r, ids + base, n, u);
    for (std::uint32_t j = 0; j < n; ++j) {
      const std::uint32_t key = internal::Straw2Key(u[j]);
      if (key <= key_best) continue;
      const std::uint64_t num = ntable[u[j]];
      if (num < threshold) {
        high = base + j;
        key_best = key;
        q_best = static_cast<std::uint64_t>(-internal::Straw2DrawFromNumerator(num, div));
        threshold = q_best * d;
      }
    }
  }
  *draw_out = -static_cast<std::int64_t>(q_best);
  return high;
}

// Straw2ChooseIndex's general path: any weights, or a weight set.
std::uint32_t MapperImpl::Straw2GeneralIndex(const internal::FlatBucket& b, const ItemId* ids,
                                             const internal::Straw2Divisor* divisors,
                                             std::uint32_t r, std::int64_t* draw_out) const {
  constexpr std::uint32_t kBlock = 32;
  std::uint32_t u[kBlock];
  const std::uint64_t* ntable = ws_.straw2_n_;
  std::uint32_t high = 0;
  if (b.size <= kBlock) {
    ws_.straw2_hash_(x_, r, ids, b.size, u);
    if (Straw2BoundedIndex(b.size, u, divisors, &high, draw_out)) return high;
  }
  // The draws of a block first (independent table loads and multiplies),
  // then the first largest without branches: a branch per new maximum
  // mispredicted about ln(n) times a call.
  std::int64_t high_draw = std::numeric_limits<std::int64_t>::min();
  for (std::uint32_t base = 0; base < b.size; base += kBlock) {
    const std::uint32_t n = std::min(kBlock, b.size - base);
    if (b.size > kBlock) ws_.straw2_hash_(x_, r, ids + base, n, u);
    std::int64_t draws[kBlock];
    for (std::uint32_t j = 0; j < n; ++j) {
      draws[j] = internal::Straw2DrawFromNumerator(ntable[u[j]], divisors[base + j]);
    }
    for (std::uint32_t j = 0; j < n; ++j) {
      // Item 0 wins even at INT64_MIN (all weights 0), as Ceph's i == 0.
      const bool better = draws[j] > high_draw || base + j == 0;
      high = better ? base + j : high;
      high_draw = better ? draws[j] : high_draw;
    }
  }
  *draw_out = high_draw;
  return high;
}

// Straw2GeneralIndex for n <= 32 items whose hashes u[] are known, when no
// weight is negative as an int (else false, nothing set): the winner is
// among internal::Straw2Candidates (nearly always one); only when there are
// two or more do they load their exact numerators, a likely cache miss
// each. Zero weights never win unless all weigh 0: then item 0, as Ceph.
bool MapperImpl::Straw2BoundedIndex(std::uint32_t n, const std::uint32_t* u,
                                    const internal::Straw2Divisor* divisors, std::uint32_t* high,
                                    std::int64_t* draw_out) const {
  std::uint32_t candidates = 0;
  if (!internal::Straw2Candidates(n, u, divisors, ws_.straw2_n_bounds_f_, &candidates)) {
    return false;
  }
  if (candidates == 0) {  // every weight 0
    *high = 0;
    *draw_out = std::numeric_limits<std::int64_t>::min();
    return true;
  }
  std::uint32_t best = static_cast<std::uint32_t>(std::countr_zero(candidates));
  candidates &= candidates - 1;
  if (candidates == 0) {
    *high = best;
    // A single candidate wins without its numerator: this load (a likely
    // cache miss in the 512 KiB table) is dead where the caller drops the
    // draw (PlainStraw2Choose). Computed before the candidate test, as it
    // was, GCC kept it on every call: 1/3 of this path's time (perf).
    *draw_out = -static_cast<std::int64_t>(
        internal::Straw2Quotient(ws_.straw2_n_[u[best]], divisors[best]));
    return true;
  }
  std::uint64_t q_best = internal::Straw2Quotient(ws_.straw2_n_[u[best]], divisors[best]);
  for (; candidates != 0; candidates &= candidates - 1) {
    const auto j = static_cast<std::uint32_t>(std::countr_zero(candidates));
    const std::uint64_t q = internal::Straw2Quotient(ws_.straw2_n_[u[j]], divisors[j]);
    if (q < q_best) {
      best = j;
      q_best = q;
    }
  }
  *high = best;
  *draw_out = -static_cast<std::int64_t>(q_best);
  return true;
}

ItemId MapperImpl::PlainStraw2Choose(const internal::FlatBucket& b, std::uint32_t r,
                                     int position) const {
  std::int64_t draw = 0;
  return items_[b.items + Straw2ChooseIndex(b, r, position, &draw)];
}

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_INTERNAL_MAPPER_STRAW2_H_
