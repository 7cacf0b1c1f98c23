#include "crush/map.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "crush/internal/straw2_draw.h"
#include "crush/model.h"
#include "crush/status_macros.h"
#include "crush/types.h"

namespace crushkit::crush {
namespace {

// "bucket -3 'host1'" or "bucket -3" when the map has no name for it.
std::string BucketLabel(const MapModel& model, ItemId id) {
  std::string label = "bucket " + std::to_string(id);
  if (auto it = model.item_names.find(id); it != model.item_names.end()) {
    label += " '" + it->second + "'";
  }
  return label;
}

// Source of CrushMap::layout_id(); 0 is never handed out.
std::atomic<std::uint64_t> next_layout_id{1};

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

bool IsPowerOfTwo(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

absl::Status CheckAlgArrays(const MapModel& model, const Bucket& b) {
  const std::size_t size = b.items.size();
  const auto need = [&](const std::vector<Weight>& v, const char* what) -> absl::Status {
    if (v.size() != size) {
      return Invalid(BucketLabel(model, b.id) + ": " + what + " has " + std::to_string(v.size()) +
                     " entries, expected one per item (" + std::to_string(size) + ")");
    }
    return absl::OkStatus();
  };
  switch (b.alg) {
    case BucketAlg::kUniform:
      return absl::OkStatus();
    case BucketAlg::kList:
      if (auto s = need(b.item_weights, "item_weights"); !s.ok()) return s;
      return need(b.sum_weights, "sum_weights");
    case BucketAlg::kStraw:
      if (auto s = need(b.item_weights, "item_weights"); !s.ok()) return s;
      return need(b.straws, "straws");
    case BucketAlg::kStraw2:
      return need(b.item_weights, "item_weights");
    case BucketAlg::kTree: {
      if (size == 0) return absl::OkStatus();
      const std::size_t nodes = b.node_weights.size();
      // Ceph's descent starts at num_nodes/2 and follows left/right by the
      // node's height; it stays in [1, num_nodes) only for a power of two,
      // and leaf i lives at node 2i+1.
      if (!IsPowerOfTwo(nodes) || 2 * (size - 1) + 1 >= nodes) {
        return Invalid(BucketLabel(model, b.id) + ": tree has " + std::to_string(nodes) +
                       " node weights, expected a power of two above " +
                       std::to_string(2 * (size - 1) + 1));
      }
      return absl::OkStatus();
    }
    case BucketAlg::kNone:
      break;
  }
  return Invalid(BucketLabel(model, b.id) + ": unknown bucket alg " +
                 std::to_string(static_cast<int>(b.alg)));
}

// Rejects cycles among buckets (Ceph's descent would never terminate).
// Iterative three-colour DFS so deep hierarchies cannot overflow the stack.
absl::Status CheckAcyclic(const MapModel& model) {
  const std::size_t n = model.buckets.size();
  std::vector<std::uint8_t> colour(n, 0);                  // 0 new, 1 on stack, 2 done
  std::vector<std::pair<std::size_t, std::size_t>> stack;  // (slot, next item index)
  for (std::size_t root = 0; root < n; ++root) {
    if (colour[root] != 0 || model.buckets[root].alg == BucketAlg::kNone) continue;
    stack.emplace_back(root, 0);
    colour[root] = 1;
    while (!stack.empty()) {
      auto& [slot, next] = stack.back();
      const Bucket& b = model.buckets[slot];
      if (next == b.items.size()) {
        colour[slot] = 2;
        stack.pop_back();
        continue;
      }
      const ItemId item = b.items[next++];
      if (item >= 0) continue;
      const auto child = static_cast<std::size_t>(BucketSlot(item));
      if (colour[child] == 1) {
        return Invalid(BucketLabel(model, b.id) + " contains " + BucketLabel(model, item) +
                       ", which is its own ancestor (cycle)");
      }
      if (colour[child] == 0) {
        colour[child] = 1;
        stack.emplace_back(child, 0);
      }
    }
  }
  return absl::OkStatus();
}

// One bucket slot: its id, hash, per-algorithm arrays and child buckets.
absl::Status CheckBucketSlot(const MapModel& model, std::size_t slot) {
  const Bucket& b = model.buckets[slot];
  const ItemId expected_id = BucketIdOfSlot(static_cast<int>(slot));
  if (b.id != expected_id) {
    return Invalid("bucket slot " + std::to_string(slot) + " holds id " + std::to_string(b.id) +
                   ", expected " + std::to_string(expected_id));
  }
  if (b.hash != kHashRjenkins1) {
    return Invalid(BucketLabel(model, b.id) + ": unsupported hash " + std::to_string(b.hash) +
                   ", expected 0 (rjenkins1)");
  }
  CRUSH_RETURN_IF_ERROR(CheckAlgArrays(model, b));
  for (const ItemId item : b.items) {
    if (item >= 0) continue;
    const auto child = static_cast<std::size_t>(BucketSlot(item));
    if (child >= model.buckets.size() || model.buckets[child].alg == BucketAlg::kNone) {
      return Invalid(BucketLabel(model, b.id) + " contains missing bucket " + std::to_string(item));
    }
  }
  return absl::OkStatus();
}

// Every bucket invariant the mapper relies on (CrushMap::Build's contract).
// Returns the number of items in all buckets together.
absl::StatusOr<std::uint64_t> CheckBuckets(const MapModel& model) {
  if (model.max_devices < 0) {
    return Invalid("max_devices is " + std::to_string(model.max_devices) + ", expected >= 0");
  }
  const std::size_t num_slots = model.buckets.size();
  if (num_slots > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    return Invalid("too many bucket slots");
  }
  std::uint64_t total_items = 0;
  for (std::size_t slot = 0; slot < num_slots; ++slot) {
    if (model.buckets[slot].alg == BucketAlg::kNone) continue;
    CRUSH_RETURN_IF_ERROR(CheckBucketSlot(model, slot));
    total_items += model.buckets[slot].items.size();
    if (total_items > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
      return Invalid("too many bucket items in total");
    }
  }
  CRUSH_RETURN_IF_ERROR(CheckAcyclic(model));
  return total_items;
}

// The bucket arrays of a CrushMap (see its private members).
struct FlatBuckets {
  std::vector<internal::FlatBucket> buckets;
  std::vector<ItemId> items;
  std::vector<Weight> weights;
  std::vector<internal::Straw2Divisor> divisors;  // parallel to weights
  std::uint32_t perm_total = 0;
};

// Appends `b` (checked) to the shared arrays and points `f` at it.
void FlattenBucket(const Bucket& b, internal::FlatBucket& f, FlatBuckets& out) {
  f.type = b.type;
  f.alg = b.alg;
  f.size = static_cast<std::uint32_t>(b.items.size());
  f.items = static_cast<std::uint32_t>(out.items.size());
  out.items.insert(out.items.end(), b.items.begin(), b.items.end());
  f.perm = out.perm_total;
  out.perm_total += f.size;
  f.uniform_weight = b.uniform_item_weight;
  const auto append = [&out](const std::vector<Weight>& v) {
    const auto offset = static_cast<std::uint32_t>(out.weights.size());
    out.weights.insert(out.weights.end(), v.begin(), v.end());
    return offset;
  };
  switch (b.alg) {
    case BucketAlg::kList:
      f.weights = append(b.item_weights);
      f.aux = append(b.sum_weights);
      break;
    case BucketAlg::kStraw:
      f.weights = append(b.item_weights);
      f.aux = append(b.straws);
      break;
    case BucketAlg::kStraw2:
      f.weights = append(b.item_weights);
      out.divisors.resize(out.weights.size());
      for (std::size_t i = 0; i < b.item_weights.size(); ++i) {
        out.divisors[f.weights + i] = internal::MakeStraw2Divisor(b.item_weights[i]);
      }
      break;
    case BucketAlg::kTree:
      f.num_nodes = static_cast<std::uint32_t>(b.node_weights.size());
      f.weights = append(b.node_weights);
      break;
    default:
      break;
  }
}

FlatBuckets FlattenBuckets(const MapModel& model, std::uint64_t total_items) {
  FlatBuckets out;
  out.buckets.resize(model.buckets.size());
  out.items.reserve(total_items);
  for (std::size_t slot = 0; slot < model.buckets.size(); ++slot) {
    internal::FlatBucket& f = out.buckets[slot];
    f.id = BucketIdOfSlot(static_cast<int>(slot));
    if (model.buckets[slot].alg != BucketAlg::kNone) FlattenBucket(model.buckets[slot], f, out);
  }
  out.divisors.resize(out.weights.size());
  return out;
}

// The rule arrays of a CrushMap (see its private members).
struct FlatRules {
  std::vector<internal::FlatRule> rules;
  std::vector<RuleStep> steps;
};

absl::StatusOr<FlatRules> FlattenRules(const MapModel& model) {
  if (model.rule_exists.size() != model.rules.size()) {
    return Invalid("rule_exists has " + std::to_string(model.rule_exists.size()) +
                   " entries but there are " + std::to_string(model.rules.size()) + " rule slots");
  }
  // Rule ids are slot indexes with no limit in Ceph 16.2 (crushtool compiles
  // and maps "id 1000000" with 1000001 slots; the u8 ruleset byte wraps).
  // Only the int rule id and the u32 step offsets must not overflow; the
  // model already holds every slot, so this costs nothing it did not.
  if (model.rules.size() > static_cast<std::size_t>(kMaxRuleSlots)) {
    return Invalid(std::to_string(model.rules.size()) + " rule slots, at most " +
                   std::to_string(kMaxRuleSlots) + " allowed (rule ids are ints)");
  }
  std::size_t total_steps = 0;
  for (std::size_t i = 0; i < model.rules.size(); ++i) {
    if (model.rule_exists[i]) total_steps += model.rules[i].steps.size();
  }
  if (total_steps > std::numeric_limits<std::uint32_t>::max()) {
    return Invalid(std::to_string(total_steps) + " rule steps in all rules, at most " +
                   std::to_string(std::numeric_limits<std::uint32_t>::max()) + " allowed");
  }
  FlatRules out;
  out.steps.reserve(total_steps);
  out.rules.resize(model.rules.size());
  for (std::size_t i = 0; i < model.rules.size(); ++i) {
    if (!model.rule_exists[i]) continue;
    const Rule& rule = model.rules[i];
    internal::FlatRule& f = out.rules[i];
    f.exists = true;
    f.type = rule.type;
    f.first_step = static_cast<std::uint32_t>(out.steps.size());
    f.num_steps = static_cast<std::uint32_t>(rule.steps.size());
    out.steps.insert(out.steps.end(), rule.steps.begin(), rule.steps.end());
  }
  return out;
}

// Appends bucket `bucket_id`'s entry of choose_args `index` to `flat`.
absl::Status FlattenChooseArg(const MapModel& model, std::int64_t index, ItemId bucket_id,
                              const ChooseArg& arg, internal::FlatChooseArgs& flat) {
  const std::size_t num_slots = model.buckets.size();
  const std::string where = "choose_args " + std::to_string(index) + " ";
  if (bucket_id >= 0 || static_cast<std::size_t>(BucketSlot(bucket_id)) >= num_slots ||
      model.buckets[static_cast<std::size_t>(BucketSlot(bucket_id))].alg == BucketAlg::kNone) {
    return Invalid(where + "names missing bucket " + std::to_string(bucket_id));
  }
  const Bucket& b = model.buckets[static_cast<std::size_t>(BucketSlot(bucket_id))];
  const std::size_t size = b.items.size();
  internal::FlatChooseArg& slot = flat.slots[static_cast<std::size_t>(BucketSlot(bucket_id))];
  if (!arg.ids.empty()) {
    if (arg.ids.size() != size) {
      return Invalid(where + BucketLabel(model, bucket_id) + ": ids has " +
                     std::to_string(arg.ids.size()) + " entries, expected " + std::to_string(size));
    }
    slot.has_ids = true;
    slot.ids = static_cast<std::uint32_t>(flat.ids.size());
    flat.ids.insert(flat.ids.end(), arg.ids.begin(), arg.ids.end());
  }
  if (arg.weight_set.empty()) return absl::OkStatus();
  slot.positions = static_cast<std::uint32_t>(arg.weight_set.size());
  slot.weight_set = static_cast<std::uint32_t>(flat.weights.size());
  for (std::size_t p = 0; p < arg.weight_set.size(); ++p) {
    if (arg.weight_set[p].size() != size) {
      return Invalid(where + BucketLabel(model, bucket_id) + ": weight_set position " +
                     std::to_string(p) + " has " + std::to_string(arg.weight_set[p].size()) +
                     " weights, expected " + std::to_string(size));
    }
    flat.weights.insert(flat.weights.end(), arg.weight_set[p].begin(), arg.weight_set[p].end());
    for (const Weight w : arg.weight_set[p])
      flat.divisors.push_back(internal::MakeStraw2Divisor(w));
  }
  return absl::OkStatus();
}

absl::StatusOr<internal::FlatChooseArgs> FlattenChooseArgs(const MapModel& model,
                                                           std::int64_t index,
                                                           const ChooseArgMap& args) {
  internal::FlatChooseArgs flat;
  flat.index = index;
  flat.slots.resize(model.buckets.size());
  for (const auto& [bucket_id, arg] : args) {
    CRUSH_RETURN_IF_ERROR(FlattenChooseArg(model, index, bucket_id, arg, flat));
  }
  return flat;
}

}  // namespace

absl::StatusOr<CrushMap> CrushMap::Build(const MapModel& model) {
  CRUSH_ASSIGN_OR_RETURN(const std::uint64_t total_items, CheckBuckets(model));
  FlatBuckets buckets = FlattenBuckets(model, total_items);
  CRUSH_ASSIGN_OR_RETURN(FlatRules rules, FlattenRules(model));
  CrushMap map;
  map.buckets_ = std::move(buckets.buckets);
  map.items_ = std::move(buckets.items);
  map.weights_ = std::move(buckets.weights);
  map.divisors_ = std::move(buckets.divisors);
  map.perm_total_ = buckets.perm_total;
  map.rules_ = std::move(rules.rules);
  map.steps_ = std::move(rules.steps);
  for (const auto& [index, args] : model.choose_args) {
    CRUSH_ASSIGN_OR_RETURN(internal::FlatChooseArgs flat, FlattenChooseArgs(model, index, args));
    map.choose_args_.push_back(std::move(flat));
  }
  map.model_ = model;
  map.layout_id_ = next_layout_id.fetch_add(1, std::memory_order_relaxed);
  return map;
}

bool CrushMap::RuleExists(int rule) const {
  return rule >= 0 && rule < max_rules() && rules_[static_cast<std::size_t>(rule)].exists;
}

bool CrushMap::BucketExists(ItemId id) const {
  if (id >= 0) return false;
  const auto slot = static_cast<std::size_t>(BucketSlot(id));
  return slot < buckets_.size() && buckets_[slot].alg != BucketAlg::kNone;
}

ChooseArgsRef CrushMap::FindChooseArgs(std::int64_t index) const {
  for (std::size_t i = 0; i < choose_args_.size(); ++i) {
    if (choose_args_[i].index == index) return ChooseArgsRef(layout_id_, static_cast<int>(i));
  }
  return {};
}

ChooseArgsRef CrushMap::ResolveChooseArgs(std::int64_t index) const {
  ChooseArgsRef ref = FindChooseArgs(index);
  if (ref.none()) ref = FindChooseArgs(kCompatChooseArgs);
  return ref;
}

const internal::FlatChooseArgs* CrushMap::FlatChooseArgsOf(ChooseArgsRef ref) const {
  if (ref.none() || ref.layout_ != layout_id_ ||
      static_cast<std::size_t>(ref.slot_) >= choose_args_.size()) {
    return nullptr;
  }
  return &choose_args_[static_cast<std::size_t>(ref.slot_)];
}

}  // namespace crushkit::crush
