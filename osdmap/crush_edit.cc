#include "osdmap/crush_edit.h"

#include "absl/strings/str_cat.h"
#include "crush/builder.h"

namespace crushkit::osdmap {
namespace {

// builder.c calc_depth().
int TreeDepthOf(std::size_t size) {
  if (size == 0) return 0;
  int depth = 1;
  for (std::size_t t = size - 1; t != 0; t >>= 1) ++depth;
  return depth;
}

// builder.c height() / parent() of a tree node.
int NodeHeight(int n) {
  int h = 0;
  while ((n & 1) == 0) {
    ++h;
    n >>= 1;
  }
  return h;
}

int NodeParent(int n) {
  const int h = NodeHeight(n);
  return (n & (1 << (h + 1))) ? n - (1 << h) : n + (1 << h);
}

// crush_bucket_adjust_item_weight() for one position; 32-bit wrapping
// arithmetic as in builder.c.
absl::Status AdjustInBucket(crush::Bucket& b, std::size_t pos, crush::Weight weight,
                            int straw_calc_version) {
  switch (b.alg) {
    case crush::BucketAlg::kUniform:
      b.uniform_item_weight = weight;
      b.weight = weight * static_cast<crush::Weight>(b.items.size());
      return absl::OkStatus();
    case crush::BucketAlg::kList: {
      const crush::Weight diff = weight - b.item_weights[pos];
      b.item_weights[pos] = weight;
      b.weight += diff;
      for (std::size_t j = pos; j < b.sum_weights.size(); ++j) b.sum_weights[j] += diff;
      return absl::OkStatus();
    }
    case crush::BucketAlg::kTree: {
      int node = static_cast<int>(((pos + 1) << 1) - 1);
      const crush::Weight diff = weight - b.node_weights[static_cast<std::size_t>(node)];
      b.node_weights[static_cast<std::size_t>(node)] = weight;
      b.weight += diff;
      const int depth = TreeDepthOf(b.items.size());
      for (int j = 1; j < depth; ++j) {
        node = NodeParent(node);
        if (node < 0 || static_cast<std::size_t>(node) >= b.node_weights.size()) break;
        b.node_weights[static_cast<std::size_t>(node)] += diff;
      }
      return absl::OkStatus();
    }
    case crush::BucketAlg::kStraw2: {
      const crush::Weight diff = weight - b.item_weights[pos];
      b.item_weights[pos] = weight;
      b.weight += diff;
      return absl::OkStatus();
    }
    case crush::BucketAlg::kStraw: {
      // crush_adjust_straw_bucket_item_weight(): recompute every straw with
      // the map's current straw_calc_version.
      const crush::Weight diff = weight - b.item_weights[pos];
      b.item_weights[pos] = weight;
      b.weight += diff;
      b.straws = crush::CalcStraws(b.item_weights, straw_calc_version);
      return absl::OkStatus();
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("bucket ", b.id, " has an unknown algorithm"));
  }
}

absl::StatusOr<int> Adjust(crush::MapModel& map, crush::ItemId id, crush::Weight weight,
                           int depth) {
  if (depth > 1000) return absl::InvalidArgumentError("crush map buckets form a cycle");
  int changed = 0;
  for (std::size_t slot = 0; slot < map.buckets.size(); ++slot) {
    if (map.buckets[slot].alg == crush::BucketAlg::kNone) continue;
    bool here = false;
    for (std::size_t i = 0; i < map.buckets[slot].items.size(); ++i) {
      crush::Bucket& b = map.buckets[slot];
      if (b.items[i] != id) continue;
      if (auto s = AdjustInBucket(b, i, weight, map.tunables.straw_calc_version); !s.ok()) {
        return s;
      }
      const crush::Weight bucket_weight = b.weight;
      const crush::ItemId bucket_id = b.id;
      auto r = Adjust(map, bucket_id, bucket_weight, depth + 1);
      if (!r.ok()) return r.status();
      here = true;
    }
    if (here) ++changed;
  }
  return changed;
}

}  // namespace

absl::StatusOr<int> AdjustItemWeight(crush::MapModel& map, crush::ItemId id,
                                     crush::Weight weight) {
  if (!map.choose_args.empty()) {
    return absl::UnimplementedError(
        "adjusting CRUSH weights of a map with choose_args (weight sets) is not supported");
  }
  return Adjust(map, id, weight, 0);
}

}  // namespace crushkit::osdmap
