// Hopeless-choose proofs: when may the mapper stop retrying a choose and
// still give exactly Ceph's result? (mapper.h, "Hopeless chooses".)
//
// A try of a choose descends from its bucket to an item of the wanted type
// and fails if that item collides with what the choose already holds, or
// (chooseleaf) if no leaf below it can be taken, or if the device is out.
// Which item a try reaches depends on r, but whether that item fails does
// not: collisions are with a fixed set while nothing succeeds, and is_out()
// hashes only (x, device). So if every item a descent can end on fails,
// every remaining try fails too, and Ceph's result is the one after its
// last try. The walks over-approximate what a descent can reach (weight
// sets and most zero weights are ignored), which only makes proofs rarer.
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

bool Contains(const ItemId* items, int n, ItemId item) {
  for (int i = 0; i < n; ++i) {
    if (items[i] == item) return true;
  }
  return false;
}

}  // namespace

template <class End>
bool MapperImpl::EveryEndFails(Workspace::SlotWalk& walk, const internal::FlatBucket& root,
                               int type, End&& end) {
  if (++walk.stamp == 0) {  // stamps wrapped: forget every old visit
    std::fill(walk.seen.begin(), walk.seen.end(), 0u);
    walk.stamp = 1;
  }
  std::size_t depth = 0;
  auto queue = [&](ItemId id) {
    const auto slot = static_cast<std::size_t>(BucketSlot(id));
    if (walk.seen[slot] == walk.stamp) return;
    walk.seen[slot] = walk.stamp;
    walk.stack[depth++] = id;
  };
  queue(root.id);
  while (depth > 0) {
    const internal::FlatBucket& b = BucketOf(walk.stack[--depth]);
    // A tree descent over zero weights leaves the bucket (mapper.h): no
    // proof through tree buckets.
    if (b.alg == BucketAlg::kTree) return false;
    // A straw2 item of weight 0 is drawn only when every item weighs 0,
    // and then only the first; weight sets may change that, so with
    // choose_args every item counts.
    const bool by_weight = b.alg == BucketAlg::kStraw2 && choose_args_ == nullptr;
    bool all_zero = by_weight;
    for (std::uint32_t i = 0; i < b.size && all_zero; ++i) {
      all_zero = divisors_[b.weights + i].magic == 0;
    }
    for (std::uint32_t i = 0; i < b.size; ++i) {
      if (by_weight && (all_zero ? i > 0 : divisors_[b.weights + i].magic == 0)) continue;
      const ItemId item = items_[b.items + i];
      if (item >= 0) {
        if (!end(item)) return false;
        continue;
      }
      const auto slot = static_cast<std::size_t>(BucketSlot(item));
      if (slot >= num_buckets_ || buckets_[slot].alg == BucketAlg::kNone) return false;
      const internal::FlatBucket& child = buckets_[slot];
      if (child.type == type) {
        if (!end(item)) return false;
      } else {
        queue(item);  // an empty child fails every try that reaches it
      }
    }
  }
  return true;
}

bool MapperImpl::LeavesHopeless(const internal::FlatBucket& bucket, const ItemId* collide,
                                int ncollide) {
  return EveryEndFails(ws_.walks_[1], bucket, 0, [&](ItemId leaf) {
    if (leaf >= max_devices_) return true;  // the inner choose gives up
    if (leaf < 0) return false;             // a type-0 bucket: IsOut diverges
    return Contains(collide, ncollide, leaf) || IsOut(leaf);
  });
}

// crush_choose_firstn(): a try ends the rep at once on an id past
// max_devices or a device of the wrong type (skip_rep), and otherwise
// fails on a collision, a candidate with no usable leaf, or an out device.
// A failed rep leaves nothing behind (no histogram entry), so skipping it
// now is exact.
bool MapperImpl::FirstnRepHopeless(const internal::FlatBucket& bucket, int type, const ItemId* out,
                                   int outpos, bool recurse_to_leaf, const ItemId* out2) {
  return EveryEndFails(ws_.walks_[0], bucket, type, [&](ItemId item) {
    if (item >= max_devices_) return true;
    if (item >= 0 && type != 0) return true;
    if (Contains(out, outpos, item)) return true;
    if (item < 0) {
      if (type == 0) return false;  // a type-0 bucket: IsOut diverges
      return recurse_to_leaf && LeavesHopeless(BucketOf(item), out2, outpos);
    }
    return IsOut(item);
  });
}

// crush_choose_indep(): slots only fail by collision, by a candidate with no
// usable leaf, or by an out device; nothing succeeds, so the collision set
// stays as it is. Not proved where Ceph's result or histogram would depend
// on the tries themselves: an id past max_devices or a wrong-type device
// (the slot is closed early, changing the final ftotal), an out device under
// chooseleaf (out2 keeps the last one tried), and, when choose_tries is
// profiled, chooseleaf candidates (each inner choose adds to the histogram).
bool MapperImpl::IndepHopeless(const internal::FlatBucket& bucket, int type, const ItemId* out,
                               int outpos, int endpos, bool recurse_to_leaf) {
  const bool profiling = !ws_.choose_tries_.empty();
  return EveryEndFails(ws_.walks_[0], bucket, type, [&](ItemId item) {
    if (item >= max_devices_) return false;
    if (item >= 0 && type != 0) return false;
    if (Contains(out + outpos, endpos - outpos, item)) return true;
    if (item < 0) {
      if (!recurse_to_leaf || type == 0 || profiling) return false;
      return LeavesHopeless(BucketOf(item), nullptr, 0);
    }
    return !recurse_to_leaf && IsOut(item);
  });
}

}  // namespace crushkit::crush
