// CrushWrapper's weight-adjusting methods (src/crush/CrushWrapper.cc:
// adjust_item_weight, adjust_item_weight_in_bucket, bucket_adjust_item_weight,
// choose_args_adjust_item_weight, adjust_item_weight(f)_in_loc) and
// builder.c crush_bucket_adjust_item_weight(). Moved here from
// osdmap/crush_edit.cc. The order in which weight sets are created and summed
// decides the resulting bytes, so the repeated scans are kept as in Ceph.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "crush/builder.h"
#include "crush/edit/edit.h"
#include "crush/edit/internal/editor.h"
#include "crush/status_macros.h"

namespace crushkit::crush {
namespace internal {
namespace {

// crush_bucket_adjust_item_weight() for one position; 32-bit wrapping
// arithmetic as in builder.c.
absl::Status AdjustBucketPosition(Bucket& b, std::size_t pos, Weight weight,
                                  int straw_calc_version) {
  switch (b.alg) {
    case BucketAlg::kUniform:
      b.uniform_item_weight = weight;
      b.weight = weight * static_cast<Weight>(b.items.size());
      return absl::OkStatus();
    case BucketAlg::kList: {
      const Weight diff = weight - b.item_weights[pos];
      b.item_weights[pos] = weight;
      b.weight += diff;
      for (std::size_t j = pos; j < b.sum_weights.size(); ++j) b.sum_weights[j] += diff;
      return absl::OkStatus();
    }
    case BucketAlg::kTree: {
      int node = TreeNodeOfLeaf(static_cast<int>(pos));
      if (static_cast<std::size_t>(node) >= b.node_weights.size()) {
        return absl::UnimplementedError("tree bucket " + std::to_string(b.id) +
                                        " has too few nodes; Ceph would write past them");
      }
      const Weight diff = weight - b.node_weights[static_cast<std::size_t>(node)];
      b.node_weights[static_cast<std::size_t>(node)] = weight;
      b.weight += diff;
      const int depth = TreeDepth(b.items.size());
      for (int j = 1; j < depth; ++j) {
        node = TreeNodeParent(node);
        if (node < 0 || static_cast<std::size_t>(node) >= b.node_weights.size()) break;
        b.node_weights[static_cast<std::size_t>(node)] += diff;
      }
      return absl::OkStatus();
    }
    case BucketAlg::kStraw:
    case BucketAlg::kStraw2: {
      const Weight diff = weight - b.item_weights[pos];
      b.item_weights[pos] = weight;
      b.weight += diff;
      // crush_adjust_straw_bucket_item_weight(): every straw recomputed with
      // the map's current straw_calc_version.
      if (b.alg == BucketAlg::kStraw) b.straws = CalcStraws(b.item_weights, straw_calc_version);
      return absl::OkStatus();
    }
    case BucketAlg::kNone:
      break;
  }
  return absl::InvalidArgumentError("bucket " + std::to_string(b.id) + " has an unknown algorithm");
}

// get_choose_args_positions(): positions of the first bucket slot (highest
// id) with a weight set, else 1.
std::size_t Positions(const ChooseArgMap& cmap) {
  for (auto it = cmap.rbegin(); it != cmap.rend(); ++it) {
    if (!it->second.weight_set.empty()) return it->second.weight_set.size();
  }
  return 1;
}

// The weight set of `b` in `cmap`, or nullptr; its vectors must cover the
// bucket's items (Ceph reads them unchecked).
absl::StatusOr<ChooseArg*> WeightSetOf(ChooseArgMap& cmap, const Bucket& b) {
  auto it = cmap.find(b.id);
  if (it == cmap.end() || it->second.weight_set.empty()) return nullptr;
  for (const auto& ws : it->second.weight_set) {
    if (ws.size() < b.items.size()) {
      return absl::UnimplementedError("weight set of bucket " + std::to_string(b.id) + " has " +
                                      std::to_string(ws.size()) + " weights for " +
                                      std::to_string(b.items.size()) +
                                      " items; Ceph would read past its end");
    }
  }
  return &it->second;
}

// x86-64 cvttss2si: truncation, or the "integer indefinite" minimum for NaN
// and values out of range.
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

bool WeightFitsLikeCeph(float weight) {
  // validate_weightf(): `uint64_t iweight = weight * 0x10000` (a float
  // product), refused above INT_MAX.
  return FloatToUint64LikeCeph(weight * static_cast<float>(0x10000)) <=
         static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
}

Weight FloatToWeightLikeCeph(float weight) {
  return static_cast<Weight>(TruncToInt32(weight * static_cast<float>(0x10000)));
}

absl::Status Editor::CheckDepth(int depth) const {
  if (depth > 2 * map_.max_buckets() + 8) {
    return absl::InternalError("crush map buckets form a cycle; Ceph would recurse forever");
  }
  return absl::OkStatus();
}

absl::StatusOr<int> Editor::AdjustItemWeight(ItemId id, Weight weight, bool update_weight_sets,
                                             int depth) {
  CRUSH_RETURN_IF_ERROR(CheckDepth(depth));
  int changed = 0;
  for (std::size_t slot = 0; slot < map_.buckets.size(); ++slot) {
    if (map_.buckets[slot].alg == BucketAlg::kNone) continue;
    CRUSH_ASSIGN_OR_RETURN(
        int r, AdjustItemWeightInBucket(id, weight, BucketIdOfSlot(static_cast<int>(slot)),
                                        update_weight_sets, depth));
    if (r > 0) ++changed;
  }
  return changed;
}

// adjust_item_weight_in_bucket().
absl::StatusOr<int> Editor::AdjustItemWeightInBucket(ItemId id, Weight weight, ItemId bucket_id,
                                                     bool update_weight_sets, int depth) {
  CRUSH_RETURN_IF_ERROR(CheckDepth(depth));
  if (!BucketExists(bucket_id)) return 0;
  int changed = 0;
  for (std::size_t i = 0;; ++i) {
    // The bucket is looked up again after each match (the adjustment below
    // recurses through the map); the scan between matches is a plain find.
    Bucket& b = *map_.FindBucket(bucket_id);
    if (i >= b.items.size()) break;
    const auto hit = std::find(b.items.begin() + static_cast<std::ptrdiff_t>(i), b.items.end(), id);
    if (hit == b.items.end()) break;
    i = static_cast<std::size_t>(hit - b.items.begin());
    CRUSH_RETURN_IF_ERROR(BucketAdjustItemWeight(b, id, weight, update_weight_sets));
    CRUSH_RETURN_IF_ERROR(AdjustItemWeight(bucket_id, b.weight, false, depth + 1).status());
    ++changed;
  }
  // "update weight-sets so they continue to sum": runs for every bucket
  // with a weight set, whether or not it holds `id`.
  for (auto& [index, cmap] : map_.choose_args) {
    const Bucket& b = *map_.FindBucket(bucket_id);
    if (empty_weight_sets_.count({index, bucket_id}) != 0) {
      return absl::InternalError("shadow bucket " + std::to_string(bucket_id) +
                                 " has an empty weight set; Ceph asserts "
                                 "weight_set_positions > 0");
    }
    CRUSH_ASSIGN_OR_RETURN(ChooseArg * arg, WeightSetOf(cmap, b));
    if (arg == nullptr) continue;
    std::vector<Weight> w(arg->weight_set.size(), 0);
    for (std::size_t i = 0; i < b.items.size(); ++i) {
      for (std::size_t j = 0; j < w.size(); ++j) w[j] += arg->weight_set[j][i];
    }
    CRUSH_RETURN_IF_ERROR(ChooseArgsAdjust(index, bucket_id, w, depth + 1).status());
  }
  return changed;
}

absl::StatusOr<int> Editor::AdjustItemWeightInLoc(ItemId id, Weight weight, const Location& loc,
                                                  bool update_weight_sets) {
  int changed = 0;
  for (const auto& [type, name] : loc) {
    const ItemId bid = ItemIdOf(name);
    if (!BucketExists(bid)) continue;
    CRUSH_ASSIGN_OR_RETURN(int r, AdjustItemWeightInBucket(id, weight, bid, update_weight_sets));
    if (r > 0) ++changed;
  }
  return changed;
}

absl::StatusOr<int> Editor::AdjustItemWeightFInLoc(ItemId id, float weight, const Location& loc,
                                                   bool update_weight_sets) {
  if (!WeightFitsLikeCeph(weight)) {
    return ErrnoStatus(75, "weight " + std::to_string(weight) + " does not fit 16.16");
  }
  return AdjustItemWeightInLoc(id, FloatToWeightLikeCeph(weight), loc, update_weight_sets);
}

// bucket_adjust_item_weight(): the first position of `item`, in the bucket
// and (update_weight_sets) in every weight set of the bucket.
absl::Status Editor::BucketAdjustItemWeight(Bucket& b, ItemId item, Weight weight,
                                            bool update_weight_sets) {
  std::size_t pos = 0;
  while (pos < b.items.size() && b.items[pos] != item) ++pos;
  if (update_weight_sets) {
    for (auto& [index, cmap] : map_.choose_args) {
      auto it = cmap.find(b.id);
      if (it == cmap.end()) continue;
      for (auto& ws : it->second.weight_set) {
        if (pos >= ws.size()) {
          return absl::UnimplementedError("weight set of bucket " + std::to_string(b.id) +
                                          " is shorter than the bucket; Ceph would write past it");
        }
        ws[pos] = weight;
      }
    }
  }
  return AdjustBucketPosition(b, pos, weight, map_.tunables.straw_calc_version);
}

// choose_args_adjust_item_weight().
absl::StatusOr<int> Editor::ChooseArgsAdjust(std::int64_t index, ItemId id,
                                             const std::vector<Weight>& weight, int depth) {
  CRUSH_RETURN_IF_ERROR(CheckDepth(depth));
  int changed = 0;
  for (std::size_t slot = 0; slot < map_.buckets.size(); ++slot) {
    if (map_.buckets[slot].alg == BucketAlg::kNone) continue;
    CRUSH_ASSIGN_OR_RETURN(
        int r,
        ChooseArgsAdjustInBucket(index, BucketIdOfSlot(static_cast<int>(slot)), id, weight, depth));
    changed += r;
  }
  return changed;
}

// _choose_args_adjust_item_weight_in_bucket(): gives a bucket without a
// weight set one (its CRUSH item weights; any algorithm), sets `id`'s
// weights and propagates the bucket's new sums to its parents.
absl::StatusOr<int> Editor::ChooseArgsAdjustInBucket(std::int64_t index, ItemId bucket_id,
                                                     ItemId id, const std::vector<Weight>& weight,
                                                     int depth) {
  ChooseArgMap& cmap = map_.choose_args[index];
  const Bucket& b = *map_.FindBucket(bucket_id);
  // An allocated but empty weight set is not re-created, and its position
  // count (0) never matches.
  if (empty_weight_sets_.count({index, bucket_id}) != 0) return 0;
  int changed = 0;
  auto found = cmap.find(b.id);
  ChooseArg* arg =
      found == cmap.end() || found->second.weight_set.empty() ? nullptr : &found->second;
  if (arg == nullptr) {
    const std::size_t positions = Positions(cmap);
    arg = &cmap[b.id];
    arg->weight_set.assign(positions, std::vector<Weight>(b.items.size()));
    for (auto& ws : arg->weight_set) {
      for (std::size_t i = 0; i < b.items.size(); ++i) ws[i] = BucketItemWeight(b, i);
    }
    ++changed;
  }
  if (arg->weight_set.size() != weight.size()) return 0;
  // Only now does Ceph read the weights (a position-count mismatch returns
  // before touching them).
  CRUSH_RETURN_IF_ERROR(WeightSetOf(cmap, b).status());
  for (std::size_t i = 0; i < b.items.size(); ++i) {
    if (b.items[i] != id) continue;
    for (std::size_t j = 0; j < weight.size(); ++j) arg->weight_set[j][i] = weight[j];
    ++changed;
  }
  if (changed != 0) {
    std::vector<Weight> bucket_weight(weight.size(), 0);
    for (std::size_t i = 0; i < b.items.size(); ++i) {
      for (std::size_t j = 0; j < weight.size(); ++j) bucket_weight[j] += arg->weight_set[j][i];
    }
    CRUSH_RETURN_IF_ERROR(ChooseArgsAdjust(index, b.id, bucket_weight, depth + 1).status());
  }
  return changed;
}

std::int64_t Editor::ItemWeight(ItemId id) const {
  for (const Bucket& b : map_.buckets) {
    if (b.alg == BucketAlg::kNone) continue;
    if (b.id == id) return b.weight;
    for (std::size_t i = 0; i < b.items.size(); ++i) {
      if (b.items[i] == id) return BucketItemWeight(b, i);
    }
  }
  return -2;  // -ENOENT
}

}  // namespace internal

absl::StatusOr<int> AdjustItemWeight(MapModel& map, ItemId id, Weight weight) {
  return internal::Editor(map).AdjustItemWeight(id, weight, /*update_weight_sets=*/true);
}

absl::StatusOr<int> AdjustItemWeightF(MapModel& map, ItemId id, float weight) {
  if (!internal::WeightFitsLikeCeph(weight)) {
    return absl::OutOfRangeError("weight " + std::to_string(weight) + " does not fit 16.16");
  }
  return AdjustItemWeight(map, id, internal::FloatToWeightLikeCeph(weight));
}

}  // namespace crushkit::crush
