// Bucket construction exactly as Ceph's builder.c does it (crush_make_bucket,
// crush_bucket_add_item, crush_calc_straw, crush_add_bucket), so that maps
// built here encode to the same bytes as maps built by Ceph: list prefix
// sums, tree node weights and depth, straw lengths (straw_calc_version 0 and
// 1, double precision with the C library's pow) and uniform item weights.
// Used by the compiler and by map-editing tools. Pure functions on values;
// thread-compatible.
#ifndef CRUSHKIT_CRUSH_BUILDER_H_
#define CRUSHKIT_CRUSH_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "crush/model.h"
#include "crush/types.h"

namespace crushkit::crush {

// Largest bucket slot count AddBucket() will grow the slot array to. Ceph has
// no limit; we refuse ids below -kMaxBucketSlots so a hostile id cannot make
// us allocate gigabytes.
inline constexpr int kMaxBucketSlots = 1 << 18;

// Straw lengths for `weights` as builder.c crush_calc_straw() computes them
// for `straw_calc_version` (0 = the original, buggy one; >= 1 = fixed).
// PLACEMENT-STABLE: straw buckets store these numbers; do not "improve".
std::vector<Weight> CalcStraws(std::span<const Weight> weights, int straw_calc_version);

// Tree-bucket node arithmetic (builder.c). Nodes are labelled so that leaf
// `i` is node 2i+1 and a node's height is its number of trailing zero bits;
// the root of a tree of depth d is node 1 << (d - 1). Shared by the builder,
// the editor and the decoder; the mapper walks the same labels downwards.

// Node index of leaf `i` in a tree bucket (crush_calc_tree_node).
constexpr int TreeNodeOfLeaf(int i) { return ((i + 1) << 1) - 1; }

// Height of node `n` above the leaves (builder.c height()).
// REQUIRES: n > 0.
constexpr int TreeNodeHeight(int n) {
  int h = 0;
  while ((n & 1) == 0) {
    ++h;
    n >>= 1;
  }
  return h;
}

// Parent of node `n` (builder.c parent(), via on_right()).
// REQUIRES: n > 0.
constexpr int TreeNodeParent(int n) {
  const int h = TreeNodeHeight(n);
  return (n & (1 << (h + 1))) != 0 ? n - (1 << h) : n + (1 << h);
}

// Tree depth for `size` leaves (builder.c calc_depth(); 0 for an empty
// tree). Takes the unsigned size so a decoder's 32-bit count is safe.
constexpr int TreeDepth(std::size_t size) {
  if (size == 0) return 0;
  int depth = 1;
  for (std::size_t t = size - 1; t != 0; t >>= 1) ++depth;
  return depth;
}

// Builds a bucket (crush_make_bucket). `items` and `weights` have equal
// size; id is left 0 (AddBucket assigns it). Uniform buckets take weights[0]
// as the item weight (0 if empty). Errors: kInvalidArgument for kNone or
// mismatched sizes, kOutOfRange when a sum overflows 32 bits.
absl::StatusOr<Bucket> MakeBucket(BucketAlg alg, std::uint8_t hash, std::uint16_t type,
                                  std::span<const ItemId> items, std::span<const Weight> weights,
                                  int straw_calc_version);

// Appends `item` with `weight` (crush_bucket_add_item): list extends the
// prefix sums, tree re-derives its depth and updates ancestors (new nodes
// start at zero, where Ceph leaves them uninitialised), straw recomputes
// every straw, uniform requires the bucket's item weight (kInvalidArgument
// otherwise, as in Pacific). Errors: kOutOfRange on 32-bit overflow (the bucket is unchanged).
absl::Status AddBucketItem(Bucket& bucket, ItemId item, Weight weight, int straw_calc_version);

// Removes the first occurrence of `item` (crush_bucket_remove_item), as
// builder.c does it: uniform/list/straw/straw2 shift later items down and
// subtract the weight (bucket weight clamped at 0); list prefix sums after
// it are reduced by the weight; straw recomputes every straw (unless the
// bucket becomes empty); tree zeroes the leaf, sets its item id to 0 and
// trims trailing zero-weight leaves (shrinking node_weights when the depth
// drops). Errors: kNotFound if `item` is not in the bucket; kUnimplemented
// for a tree whose node array is too short (Ceph writes past it), and for
// a tree, uniform or list bucket that would be left empty (Ceph's realloc to
// 0 bytes frees the item array it goes on using; straw and straw2 are fine).
absl::Status RemoveBucketItem(Bucket& bucket, ItemId item, int straw_calc_version);

// Weight of the item at `pos` (crush_get_bucket_item_weight): the uniform
// item weight, a tree leaf's node weight, or item_weights[pos]; 0 when `pos`
// is out of range (decoded maps may be inconsistent).
Weight BucketItemWeight(const Bucket& bucket, std::size_t pos);

// Stores `bucket` in `map` (crush_add_bucket): id 0 means the first empty
// slot; the slot array grows by doubling from 8 until it holds the id.
// Returns the id used. Errors: kAlreadyExists if the slot is taken,
// kInvalidArgument for a non-negative id or one below -kMaxBucketSlots.
absl::StatusOr<ItemId> AddBucket(MapModel& map, ItemId id, Bucket bucket);

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_BUILDER_H_
