#include "osdmap/crush_edit.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "crush/builder.h"
#include "crush/status_macros.h"

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
absl::Status AdjustBucketPosition(crush::Bucket& b, std::size_t pos, crush::Weight weight,
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

// CrushWrapper's weight-adjusting methods on a MapModel, kept in the same
// procedural shape as Ceph (src/crush/CrushWrapper.cc): the order in which
// weight sets are created and summed decides the resulting bytes, so do not
// "simplify" the repeated scans.
class WeightAdjuster {
 public:
  explicit WeightAdjuster(crush::MapModel& map) : map_(map) {}

  // adjust_item_weight(): every bucket holding `id`, then parents.
  absl::StatusOr<int> AdjustItemWeight(crush::ItemId id, crush::Weight weight,
                                       bool update_weight_sets, int depth) {
    CRUSH_RETURN_IF_ERROR(CheckDepth(depth));
    int changed = 0;
    for (std::size_t slot = 0; slot < map_.buckets.size(); ++slot) {
      if (map_.buckets[slot].alg == crush::BucketAlg::kNone) continue;
      CRUSH_ASSIGN_OR_RETURN(int r, AdjustInBucket(id, weight, slot, update_weight_sets, depth));
      if (r > 0) ++changed;
    }
    return changed;
  }

 private:
  absl::Status CheckDepth(int depth) const {
    if (depth > 2 * map_.max_buckets() + 8) {
      return absl::InvalidArgumentError("crush map buckets form a cycle");
    }
    return absl::OkStatus();
  }

  // The weight set of bucket `b` in `cmap`, or nullptr; its per-position
  // vectors must cover the bucket's items (Ceph reads them unchecked).
  absl::StatusOr<crush::ChooseArg*> WeightSetOf(crush::ChooseArgMap& cmap, const crush::Bucket& b) {
    auto it = cmap.find(b.id);
    if (it == cmap.end() || it->second.weight_set.empty()) return nullptr;
    for (const auto& ws : it->second.weight_set) {
      if (ws.size() < b.items.size()) {
        return absl::UnimplementedError(absl::StrCat(
            "weight set of bucket ", b.id, " has ", ws.size(), " weights for ", b.items.size(),
            " items; Ceph would read past its end"));
      }
    }
    return &it->second;
  }

  // adjust_item_weight_in_bucket().
  absl::StatusOr<int> AdjustInBucket(crush::ItemId id, crush::Weight weight, std::size_t slot,
                                     bool update_weight_sets, int depth) {
    crush::Bucket& b = map_.buckets[slot];
    int changed = 0;
    for (std::size_t i = 0; i < b.items.size(); ++i) {
      if (b.items[i] != id) continue;
      CRUSH_RETURN_IF_ERROR(BucketAdjustItemWeight(b, id, weight, update_weight_sets));
      CRUSH_RETURN_IF_ERROR(AdjustItemWeight(b.id, b.weight, false, depth + 1).status());
      ++changed;
    }
    // "update weight-sets so they continue to sum": runs for every bucket
    // with a weight set, whether or not it holds `id`.
    for (auto& [index, cmap] : map_.choose_args) {
      CRUSH_ASSIGN_OR_RETURN(crush::ChooseArg * arg, WeightSetOf(cmap, b));
      if (arg == nullptr) continue;
      std::vector<crush::Weight> w(arg->weight_set.size(), 0);
      for (std::size_t i = 0; i < b.items.size(); ++i) {
        for (std::size_t j = 0; j < w.size(); ++j) w[j] += arg->weight_set[j][i];
      }
      CRUSH_RETURN_IF_ERROR(ChooseArgsAdjust(cmap, b.id, w, depth + 1).status());
    }
    return changed;
  }

  // bucket_adjust_item_weight(): the first position of `id`, in the bucket
  // and (update_weight_sets) in every weight set of the bucket.
  absl::Status BucketAdjustItemWeight(crush::Bucket& b, crush::ItemId id, crush::Weight weight,
                                      bool update_weight_sets) {
    std::size_t pos = 0;
    while (pos < b.items.size() && b.items[pos] != id) ++pos;
    if (update_weight_sets) {
      for (auto& [index, cmap] : map_.choose_args) {
        CRUSH_ASSIGN_OR_RETURN(crush::ChooseArg * arg, WeightSetOf(cmap, b));
        if (arg == nullptr) continue;
        for (auto& ws : arg->weight_set) ws[pos] = weight;
      }
    }
    return AdjustBucketPosition(b, pos, weight, map_.tunables.straw_calc_version);
  }

  // get_choose_args_positions(): the first bucket slot with a weight set.
  static std::size_t Positions(const crush::ChooseArgMap& cmap) {
    for (auto it = cmap.rbegin(); it != cmap.rend(); ++it) {
      if (!it->second.weight_set.empty()) return it->second.weight_set.size();
    }
    return 1;
  }

  // choose_args_adjust_item_weight().
  absl::StatusOr<int> ChooseArgsAdjust(crush::ChooseArgMap& cmap, crush::ItemId id,
                                       const std::vector<crush::Weight>& weight, int depth) {
    CRUSH_RETURN_IF_ERROR(CheckDepth(depth));
    int changed = 0;
    for (std::size_t slot = 0; slot < map_.buckets.size(); ++slot) {
      if (map_.buckets[slot].alg == crush::BucketAlg::kNone) continue;
      CRUSH_ASSIGN_OR_RETURN(int r, ChooseArgsAdjustInBucket(cmap, slot, id, weight, depth));
      changed += r;
    }
    return changed;
  }

  // _choose_args_adjust_item_weight_in_bucket(): gives a bucket without a
  // weight set one (its CRUSH item weights), sets `id`'s weights and
  // propagates the bucket's new sums to its parents.
  absl::StatusOr<int> ChooseArgsAdjustInBucket(crush::ChooseArgMap& cmap, std::size_t slot,
                                               crush::ItemId id,
                                               const std::vector<crush::Weight>& weight,
                                               int depth) {
    const crush::Bucket& b = map_.buckets[slot];
    int changed = 0;
    auto found = cmap.find(b.id);
    crush::ChooseArg* arg =
        found == cmap.end() || found->second.weight_set.empty() ? nullptr : &found->second;
    if (arg != nullptr && arg->weight_set.size() != weight.size()) return 0;
    if (arg != nullptr) {
      // Only now does Ceph read the weights (a position-count mismatch
      // returns before touching them).
      CRUSH_RETURN_IF_ERROR(WeightSetOf(cmap, b).status());
    }
    if (arg == nullptr) {
      const std::size_t positions = Positions(cmap);
      arg = &cmap[b.id];
      arg->weight_set.assign(positions, std::vector<crush::Weight>(b.items.size()));
      for (auto& ws : arg->weight_set) {
        for (std::size_t i = 0; i < b.items.size(); ++i) ws[i] = crush::BucketItemWeight(b, i);
      }
      ++changed;
    }
    if (arg->weight_set.size() != weight.size()) return 0;
    for (std::size_t i = 0; i < b.items.size(); ++i) {
      if (b.items[i] != id) continue;
      for (std::size_t j = 0; j < weight.size(); ++j) arg->weight_set[j][i] = weight[j];
      ++changed;
    }
    if (changed) {
      std::vector<crush::Weight> bucket_weight(weight.size(), 0);
      for (std::size_t i = 0; i < b.items.size(); ++i) {
        for (std::size_t j = 0; j < weight.size(); ++j) bucket_weight[j] += arg->weight_set[j][i];
      }
      CRUSH_RETURN_IF_ERROR(ChooseArgsAdjust(cmap, b.id, bucket_weight, depth + 1).status());
    }
    return changed;
  }

  crush::MapModel& map_;
};

// x86-64 cvttss2si: truncation, or INT64_MIN / INT_MIN for NaN and values
// out of range.
std::int64_t TruncToInt64(float x) {
  if (std::isnan(x) || x >= 9223372036854775808.0F || x < -9223372036854775808.0F) {
    return std::numeric_limits<std::int64_t>::min();
  }
  return static_cast<std::int64_t>(x);
}

std::int32_t TruncToInt32(float x) {
  if (std::isnan(x) || x >= 2147483648.0F || x < -2147483648.0F) {
    return std::numeric_limits<std::int32_t>::min();
  }
  return static_cast<std::int32_t>(x);
}

// GCC's float -> uint64_t on x86-64: values >= 2^63 are converted after
// subtracting 2^63 (high bit restored), everything else (NaN included)
// through the signed conversion.
std::uint64_t FloatToUint64LikeCeph(float x) {
  if (x >= 9223372036854775808.0F) {
    return static_cast<std::uint64_t>(TruncToInt64(x - 9223372036854775808.0F)) ^ (1ULL << 63);
  }
  return static_cast<std::uint64_t>(TruncToInt64(x));
}

}  // namespace

absl::StatusOr<int> AdjustItemWeightF(crush::MapModel& map, crush::ItemId id, float weight) {
  const float scaled = weight * static_cast<float>(0x10000);
  if (FloatToUint64LikeCeph(scaled) >
      static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
    return absl::OutOfRangeError(absl::StrCat("weight ", weight, " does not fit 16.16"));
  }
  return AdjustItemWeight(map, id, static_cast<crush::Weight>(TruncToInt32(scaled)));
}

absl::StatusOr<int> AdjustItemWeight(crush::MapModel& map, crush::ItemId id,
                                     crush::Weight weight) {
  return WeightAdjuster(map).AdjustItemWeight(id, weight, /*update_weight_sets=*/true, 0);
}

}  // namespace crushkit::osdmap
