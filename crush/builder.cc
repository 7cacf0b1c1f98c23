#include "crush/builder.h"

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>

namespace crushkit::crush {
namespace {

// builder.c crush_addition_is_unsafe().
bool AdditionIsUnsafe(Weight a, Weight b) { return b > std::numeric_limits<Weight>::max() - a; }

absl::Status Overflow(const char* what) {
  return absl::OutOfRangeError(std::string(what) + " weight overflows 32 bits");
}

// builder.c stores `(__u32)(straw * 0x10000)`, undefined in C once the
// product passes 2^32 (extreme weight ratios). Ceph's x86-64 build converts
// through a 64-bit integer and keeps the low 32 bits; do the same, defined.
Weight StrawToFixed(double straw) {
  const double scaled = straw * 0x10000;
  constexpr double kInt64Limit = 9223372036854775808.0;            // 2^63
  if (!(scaled > -kInt64Limit && scaled < kInt64Limit)) return 0;  // cvttsd2si: 1 << 63
  return static_cast<Weight>(static_cast<std::uint64_t>(static_cast<std::int64_t>(scaled)));
}

}  // namespace

// PLACEMENT-STABLE: matches builder.c crush_calc_straw() including the
// unsigned 32-bit products in `wnext` and the truncating double->u32 casts.
std::vector<Weight> CalcStraws(std::span<const Weight> weights, int straw_calc_version) {
  const std::size_t size = weights.size();
  std::vector<Weight> straws(size, 0);
  // Insertion sort of indices by ascending weight, stable.
  std::vector<std::size_t> reverse(size);
  if (size > 0) reverse[0] = 0;
  for (std::size_t i = 1; i < size; ++i) {
    std::size_t j = 0;
    for (; j < i; ++j) {
      if (weights[i] < weights[reverse[j]]) {
        for (std::size_t k = i; k > j; --k) reverse[k] = reverse[k - 1];
        reverse[j] = i;
        break;
      }
    }
    if (j == i) reverse[i] = i;
  }

  auto numleft = static_cast<std::uint32_t>(size);
  double straw = 1.0;
  double wbelow = 0;
  double lastw = 0;
  std::size_t i = 0;
  while (i < size) {
    if (straw_calc_version == 0) {
      if (weights[reverse[i]] == 0) {
        straws[reverse[i]] = 0;
        ++i;
        continue;
      }
      straws[reverse[i]] = StrawToFixed(straw);
      ++i;
      if (i == size) break;
      if (weights[reverse[i]] == weights[reverse[i - 1]]) continue;
      wbelow += (static_cast<double>(weights[reverse[i - 1]]) - lastw) * numleft;
      for (std::size_t j = i; j < size; ++j) {
        if (weights[reverse[j]] == weights[reverse[i]]) {
          --numleft;
        } else {
          break;
        }
      }
    } else {
      if (weights[reverse[i]] == 0) {
        straws[reverse[i]] = 0;
        ++i;
        --numleft;
        continue;
      }
      straws[reverse[i]] = StrawToFixed(straw);
      ++i;
      if (i == size) break;
      wbelow += (static_cast<double>(weights[reverse[i - 1]]) - lastw) * numleft;
      --numleft;
    }
    // In C this is int * __u32, an unsigned 32-bit product that may wrap.
    const std::uint32_t wnext = numleft * (weights[reverse[i]] - weights[reverse[i - 1]]);
    const double pbelow = wbelow / (wbelow + wnext);
    straw *= std::pow(1.0 / pbelow, 1.0 / static_cast<double>(numleft));
    lastw = weights[reverse[i - 1]];
  }
  return straws;
}

absl::StatusOr<Bucket> MakeBucket(BucketAlg alg, std::uint8_t hash, std::uint16_t type,
                                  std::span<const ItemId> items, std::span<const Weight> weights,
                                  int straw_calc_version) {
  if (items.size() != weights.size()) {
    return absl::InvalidArgumentError("items and weights differ in size");
  }
  Bucket b;
  b.alg = alg;
  b.hash = hash;
  b.type = type;
  b.items.assign(items.begin(), items.end());
  const std::size_t size = items.size();
  switch (alg) {
    case BucketAlg::kUniform: {
      const Weight item_weight = size > 0 ? weights[0] : 0;
      // crush_multiplication_is_unsafe() treats a zero item weight as unsafe.
      if (size > 0 && item_weight == 0) {
        return absl::InvalidArgumentError("uniform bucket item weight must not be zero");
      }
      const std::uint64_t total = static_cast<std::uint64_t>(size) * item_weight;
      if (total > std::numeric_limits<Weight>::max()) return Overflow("uniform bucket");
      b.uniform_item_weight = item_weight;
      b.weight = static_cast<Weight>(total);
      return b;
    }
    case BucketAlg::kList: {
      Weight w = 0;
      for (std::size_t i = 0; i < size; ++i) {
        if (AdditionIsUnsafe(w, weights[i])) return Overflow("list bucket");
        w += weights[i];
        b.item_weights.push_back(weights[i]);
        b.sum_weights.push_back(w);
      }
      b.weight = w;
      return b;
    }
    case BucketAlg::kTree: {
      const int depth = TreeDepth(size);
      if (size == 0) return b;
      b.node_weights.assign(std::size_t{1} << depth, 0);
      for (std::size_t i = 0; i < size; ++i) {
        int node = TreeNodeOfLeaf(static_cast<int>(i));
        b.node_weights[static_cast<std::size_t>(node)] = weights[i];
        if (AdditionIsUnsafe(b.weight, weights[i])) return Overflow("tree bucket");
        b.weight += weights[i];
        for (int j = 1; j < depth; ++j) {
          node = TreeNodeParent(node);
          Weight& nw = b.node_weights[static_cast<std::size_t>(node)];
          if (AdditionIsUnsafe(nw, weights[i])) return Overflow("tree bucket");
          nw += weights[i];
        }
      }
      return b;
    }
    case BucketAlg::kStraw:
    case BucketAlg::kStraw2: {
      // builder.c sums without an overflow check here; the compiler has
      // already rejected overflowing sums, so we check and refuse.
      for (std::size_t i = 0; i < size; ++i) {
        if (AdditionIsUnsafe(b.weight, weights[i])) return Overflow("straw bucket");
        b.weight += weights[i];
      }
      b.item_weights.assign(weights.begin(), weights.end());
      if (alg == BucketAlg::kStraw) b.straws = CalcStraws(b.item_weights, straw_calc_version);
      return b;
    }
    case BucketAlg::kNone:
      break;
  }
  return absl::InvalidArgumentError("unknown bucket algorithm");
}

absl::Status AddBucketItem(Bucket& b, ItemId item, Weight weight, int straw_calc_version) {
  if (AdditionIsUnsafe(b.weight, weight)) return Overflow("bucket");
  switch (b.alg) {
    case BucketAlg::kUniform:
      // crush_add_uniform_bucket_item (Pacific) refuses a differing weight
      // and leaves item_weight alone.
      if (weight != b.uniform_item_weight) {
        return absl::InvalidArgumentError("uniform bucket items must all have the same weight");
      }
      break;
    case BucketAlg::kList: {
      const Weight prev = b.sum_weights.empty() ? 0 : b.sum_weights.back();
      if (AdditionIsUnsafe(prev, weight)) return Overflow("list bucket");
      b.item_weights.push_back(weight);
      b.sum_weights.push_back(prev + weight);
      break;
    }
    case BucketAlg::kTree: {
      const int newsize = static_cast<int>(b.items.size()) + 1;
      const int depth = TreeDepth(static_cast<std::size_t>(newsize));
      std::vector<Weight> nodes = b.node_weights;
      nodes.resize(std::size_t{1} << depth, 0);
      int node = TreeNodeOfLeaf(newsize - 1);
      nodes[static_cast<std::size_t>(node)] = weight;
      const int root = static_cast<int>(nodes.size() / 2);
      if (depth >= 2 && node - 1 == root) {
        // The tree grew a level: the new root starts as the old root.
        nodes[static_cast<std::size_t>(root)] = nodes[static_cast<std::size_t>(root / 2)];
      }
      for (int j = 1; j < depth; ++j) {
        node = TreeNodeParent(node);
        Weight& nw = nodes[static_cast<std::size_t>(node)];
        if (AdditionIsUnsafe(nw, weight)) return Overflow("tree bucket");
        nw += weight;
      }
      b.node_weights = std::move(nodes);
      break;
    }
    case BucketAlg::kStraw:
      b.item_weights.push_back(weight);
      break;
    case BucketAlg::kStraw2:
      b.item_weights.push_back(weight);
      break;
    case BucketAlg::kNone:
      return absl::InvalidArgumentError("unknown bucket algorithm");
  }
  b.items.push_back(item);
  b.weight += weight;
  if (b.alg == BucketAlg::kStraw) b.straws = CalcStraws(b.item_weights, straw_calc_version);
  return absl::OkStatus();
}

namespace {

// crush_remove_tree_bucket_item(): the leaf is zeroed in place (its item id
// becomes 0) and only trailing zero-weight leaves are dropped.
absl::Status RemoveTreeItem(Bucket& b, std::size_t i) {
  const int depth = TreeDepth(b.items.size());
  int node = TreeNodeOfLeaf(static_cast<int>(i));
  if (static_cast<std::size_t>(node) >= b.node_weights.size()) {
    return absl::UnimplementedError("tree bucket node array too short");
  }
  b.items[i] = 0;
  const Weight weight = b.node_weights[static_cast<std::size_t>(node)];
  b.node_weights[static_cast<std::size_t>(node)] = 0;
  for (int j = 1; j < depth; ++j) {
    node = TreeNodeParent(node);
    if (static_cast<std::size_t>(node) >= b.node_weights.size()) {
      return absl::UnimplementedError("tree bucket node array too short");
    }
    b.node_weights[static_cast<std::size_t>(node)] -= weight;
  }
  b.weight = weight < b.weight ? b.weight - weight : 0;
  std::size_t newsize = b.items.size();
  while (newsize > 0) {
    const auto leaf = static_cast<std::size_t>(TreeNodeOfLeaf(static_cast<int>(newsize) - 1));
    if (leaf < b.node_weights.size() && b.node_weights[leaf] != 0) break;
    --newsize;
  }
  if (newsize == 0) {
    // builder.c reallocs the item array to 0 bytes: glibc frees it and
    // returns NULL, Ceph reports -ENOMEM and keeps the freed array (its
    // output then holds whatever reuses that memory).
    return absl::UnimplementedError("tree bucket " + std::to_string(b.id) +
                                    " would be emptied; Ceph uses its freed item array");
  }
  if (newsize != b.items.size()) {
    const int olddepth = TreeDepth(b.items.size());
    const int newdepth = TreeDepth(newsize);
    b.items.resize(newsize);
    if (olddepth != newdepth) b.node_weights.resize(std::size_t{1} << newdepth, 0);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RemoveBucketItem(Bucket& b, ItemId item, int straw_calc_version) {
  std::size_t i = 0;
  while (i < b.items.size() && b.items[i] != item) ++i;
  if (i == b.items.size()) {
    return absl::NotFoundError("item " + std::to_string(item) + " is not in bucket " +
                               std::to_string(b.id));
  }
  const auto erase_at = [i](auto& v) {
    if (i < v.size()) v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
  };
  if ((b.alg == BucketAlg::kUniform || b.alg == BucketAlg::kList) && b.items.size() == 1) {
    // builder.c reallocs the arrays to 0 bytes: glibc frees them and
    // returns NULL, Ceph reports -ENOMEM with the size already 0 and later
    // reuses (and frees again) the freed item array. Straw buckets do not
    // reallocate when emptied.
    return absl::UnimplementedError("bucket " + std::to_string(b.id) +
                                    " would be emptied; Ceph uses its freed item array");
  }
  switch (b.alg) {
    case BucketAlg::kTree:
      return RemoveTreeItem(b, i);
    case BucketAlg::kUniform:
      erase_at(b.items);
      b.weight = b.uniform_item_weight < b.weight ? b.weight - b.uniform_item_weight : 0;
      return absl::OkStatus();
    case BucketAlg::kList: {
      const Weight weight = b.item_weights[i];
      // builder.c: sum_weights[j] = sum_weights[j+1] - weight for j >= i.
      for (std::size_t j = i + 1; j < b.sum_weights.size(); ++j) b.sum_weights[j] -= weight;
      erase_at(b.items);
      erase_at(b.item_weights);
      erase_at(b.sum_weights);
      b.weight = weight < b.weight ? b.weight - weight : 0;
      return absl::OkStatus();
    }
    case BucketAlg::kStraw:
    case BucketAlg::kStraw2: {
      const Weight weight = b.item_weights[i];
      b.weight = weight < b.weight ? b.weight - weight : 0;
      erase_at(b.items);
      erase_at(b.item_weights);
      if (b.alg == BucketAlg::kStraw) {
        if (b.items.empty()) {
          erase_at(b.straws);  // builder.c does not bother recomputing
        } else {
          b.straws = CalcStraws(b.item_weights, straw_calc_version);
        }
      }
      return absl::OkStatus();
    }
    case BucketAlg::kNone:
      break;
  }
  return absl::InvalidArgumentError("unknown bucket algorithm");
}

Weight BucketItemWeight(const Bucket& b, std::size_t pos) {
  switch (b.alg) {
    case BucketAlg::kUniform:
      return pos < b.items.size() ? b.uniform_item_weight : 0;
    case BucketAlg::kTree: {
      const auto node = static_cast<std::size_t>(TreeNodeOfLeaf(static_cast<int>(pos)));
      return node < b.node_weights.size() ? b.node_weights[node] : 0;
    }
    case BucketAlg::kList:
    case BucketAlg::kStraw:
    case BucketAlg::kStraw2:
      return pos < b.item_weights.size() ? b.item_weights[pos] : 0;
    case BucketAlg::kNone:
      break;
  }
  return 0;
}

absl::StatusOr<ItemId> AddBucket(MapModel& map, ItemId id, Bucket bucket) {
  if (id > 0)
    return absl::InvalidArgumentError("bucket id " + std::to_string(id) + " is not negative");
  if (id == 0) {
    int pos = 0;
    while (pos < map.max_buckets() &&
           map.buckets[static_cast<std::size_t>(pos)].alg != BucketAlg::kNone) {
      ++pos;
    }
    id = BucketIdOfSlot(pos);
  }
  if (id < -kMaxBucketSlots) {
    return absl::InvalidArgumentError("bucket id " + std::to_string(id) +
                                      " is below the supported minimum " +
                                      std::to_string(-kMaxBucketSlots));
  }
  const int pos = BucketSlot(id);
  std::size_t slots = map.buckets.size();
  while (static_cast<std::size_t>(pos) >= slots) slots = slots == 0 ? 8 : slots * 2;
  map.buckets.resize(slots);
  Bucket& slot = map.buckets[static_cast<std::size_t>(pos)];
  if (slot.alg != BucketAlg::kNone) {
    return absl::AlreadyExistsError("bucket id " + std::to_string(id) + " already exists");
  }
  bucket.id = id;
  slot = std::move(bucket);
  return id;
}

}  // namespace crushkit::crush
