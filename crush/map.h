// CrushMap: the immutable, validated, flat form of a MapModel that the
// mapper (crush/mapper.h) runs on.
//
// Build() checks every invariant the mapper relies on (see Build()), so that
// DoRule() has no error paths and can never read out of bounds, then lays the
// buckets out in contiguous arrays (items, weights, per-algorithm data) for
// cache-friendly descents. A CrushMap is a value: copyable, movable, and
// immutable after Build(). Share one between threads as
// std::shared_ptr<const CrushMap>; all const methods are thread-safe.
#ifndef CRUSHKIT_CRUSH_MAP_H_
#define CRUSHKIT_CRUSH_MAP_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/model.h"
#include "crush/types.h"

namespace crushkit::crush {

class CrushMap;

namespace internal {

class MapAccess;

// One straw2 weight's draw divisor: a Granlund-Montgomery reciprocal giving
// the same quotient as Ceph's division (crush/internal/straw2_draw.h, where
// the draws are computed).
struct Straw2Divisor {
  std::uint64_t magic = 0;  // 0: weight 0 (never chosen unless all are 0)
  std::uint8_t shift = 0;
  bool negative_weight = false;  // (int)w < 0: draws are >= 0
  // 1 / |(int)w| rounded to float (+inf for weight 0): only for bounding
  // quotients (internal::Straw2Candidates), never for a draw itself.
  float inverse = std::numeric_limits<float>::infinity();
};

// One bucket slot, flattened. Offsets index the CrushMap's shared arrays.
struct FlatBucket {
  ItemId id = 0;
  std::uint16_t type = 0;
  BucketAlg alg = BucketAlg::kNone;  // kNone: empty slot
  std::uint32_t size = 0;            // number of items
  std::uint32_t items = 0;           // offset into items_ (size entries)
  std::uint32_t weights = 0;         // offset into weights_: item weights, or tree node weights
  std::uint32_t aux = 0;             // offset into weights_: list sum_weights / straw straws
  std::uint32_t num_nodes = 0;       // tree only
  Weight uniform_weight = 0;         // uniform only
  std::uint32_t perm = 0;            // offset of this bucket's permutation in a Workspace
};

// One choose_args index, flattened: per bucket slot, an optional weight set
// (positions x size weights) and optional substitute hash ids.
struct FlatChooseArg {
  std::uint32_t positions = 0;   // 0: no weight set (use the bucket's weights)
  std::uint32_t weight_set = 0;  // offset into FlatChooseArgs::weights
  bool has_ids = false;
  std::uint32_t ids = 0;  // offset into FlatChooseArgs::ids
};

struct FlatChooseArgs {
  std::int64_t index = 0;
  std::vector<FlatChooseArg> slots;  // max_buckets entries
  std::vector<Weight> weights;
  std::vector<Straw2Divisor> divisors;  // parallel to weights
  std::vector<ItemId> ids;
};

struct FlatRule {
  bool exists = false;
  RuleType type = RuleType::kReplicated;
  std::uint32_t first_step = 0;
  std::uint32_t num_steps = 0;
};

}  // namespace internal

// A resolved choose_args selection (weight sets for straw2 buckets), or
// "none". A small value that refers to the CrushMap it came from (or any
// copy of it) by position; passed to DoRule() with an unrelated map it is
// treated as "none". Default-constructed: none.
class ChooseArgsRef {
 public:
  ChooseArgsRef() = default;

  bool none() const { return slot_ < 0; }

 private:
  friend class CrushMap;

  ChooseArgsRef(std::uint64_t layout, int slot) : layout_(layout), slot_(slot) {}

  std::uint64_t layout_ = 0;
  int slot_ = -1;
};

class CrushMap {
 public:
  // Validates `model` and flattens it. Errors (kInvalidArgument, one line
  // naming the offending bucket/rule/choose_args):
  //   - max_devices < 0, or a bucket's id not matching its slot;
  //   - unknown bucket alg, or a hash other than rjenkins1 (0);
  //   - per-alg arrays of the wrong size (list: item_weights + sum_weights,
  //     straw: item_weights + straws, straw2: item_weights, tree:
  //     node_weights with a power-of-two node count holding every leaf
  //     2i+1); more than 2^31 items in all buckets together;
  //   - a bucket item naming a bucket slot that is out of range or empty;
  //     a cycle among buckets (Ceph would descend forever);
  //   - rule_exists and rules of different sizes, more than kMaxRuleSlots
  //     rule slots, or more than 2^32 - 1 steps in all rules together
  //     (rule ids themselves are unlimited, as in Ceph: any id >= 0 is a
  //     slot index);
  //   - a choose_args entry for a missing bucket, or whose ids/weight-set
  //     rows do not have one entry per bucket item.
  // Device ids >= max_devices inside buckets are allowed: the mapper treats
  // them as "bad item" exactly as Ceph does. Tunables are taken as they are,
  // however large: DoRule's work budget (mapper.h) bounds the cost instead.
  // Cost: linear in the model size.
  static absl::StatusOr<CrushMap> Build(const MapModel& model);

  // The model this map was built from (unchanged).
  const MapModel& model() const { return model_; }

  const Tunables& tunables() const { return model_.tunables; }

  int max_devices() const { return model_.max_devices; }

  int max_buckets() const { return static_cast<int>(buckets_.size()); }

  int max_rules() const { return static_cast<int>(rules_.size()); }

  // True iff 0 <= rule < max_rules() and the slot holds a rule.
  bool RuleExists(int rule) const;
  // True iff `id` names an existing bucket.
  bool BucketExists(ItemId id) const;

  // Selects choose_args as Ceph's CrushWrapper::choose_args_get_with_fallback:
  // `index` if the map has it, else kCompatChooseArgs (-1) if present, else
  // none. OSDMap passes the pool id; crushtool --test passes 0.
  ChooseArgsRef ResolveChooseArgs(std::int64_t index) const;
  // Exactly `index`, or none (no fallback).
  ChooseArgsRef FindChooseArgs(std::int64_t index) const;

  // Size of the per-call permutation scratch a Workspace needs (sum of all
  // bucket sizes).
  std::uint32_t perm_scratch_size() const { return perm_total_; }

  // Identifies this map's flat layout: unique per Build(), shared by copies.
  // Workspaces and ChooseArgsRefs remember it to refuse foreign maps.
  std::uint64_t layout_id() const { return layout_id_; }

 private:
  // The mapper reads the flat arrays through internal::MapAccess
  // (crush/internal/map_access.h, not installed).
  friend class internal::MapAccess;

  CrushMap() = default;

  const internal::FlatChooseArgs* FlatChooseArgsOf(ChooseArgsRef ref) const;

  MapModel model_;
  std::vector<internal::FlatBucket> buckets_;
  std::vector<ItemId> items_;
  std::vector<Weight> weights_;
  std::vector<internal::Straw2Divisor> divisors_;
  std::vector<internal::FlatRule> rules_;
  std::vector<RuleStep> steps_;
  std::vector<internal::FlatChooseArgs> choose_args_;
  std::uint32_t perm_total_ = 0;
  std::uint64_t layout_id_ = 0;
};

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_MAP_H_
