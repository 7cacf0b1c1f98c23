// The editable in-memory model of a CRUSH map: everything Ceph's binary
// crushmap holds, field for field, so that decode -> encode reproduces the
// input bytes and the compiler/decompiler can round-trip text.
//
// MapModel is a plain aggregate with public fields: it is what the codec,
// the compiler and editing tools (tunables, reweights) read and write. It is
// NOT validated; call CrushMap::Build() (crush/map.h) to validate a model and
// obtain the immutable, flat representation the mapper runs on.
// Thread-safety: a plain value; const access from many threads is safe.
#ifndef CRUSHKIT_CRUSH_MODEL_H_
#define CRUSHKIT_CRUSH_MODEL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "crush/types.h"

namespace crushkit::crush {

// One bucket. Which per-algorithm arrays are used depends on `alg`:
//   uniform: uniform_item_weight (all items weigh the same)
//   list:    item_weights, sum_weights (prefix sums, as Ceph stores them)
//   tree:    node_weights (num_nodes entries; leaf i at node 2i+1)
//   straw:   item_weights, straws
//   straw2:  item_weights
// Unused arrays are empty. Arrays are stored exactly as decoded so encoding
// is byte-identical even for maps whose derived fields are inconsistent.
struct Bucket {
  ItemId id = 0;
  std::uint16_t type = 0;
  BucketAlg alg = BucketAlg::kNone;
  std::uint8_t hash = kHashRjenkins1;
  Weight weight = 0;
  std::vector<ItemId> items;
  Weight uniform_item_weight = 0;
  std::vector<Weight> item_weights;
  std::vector<Weight> sum_weights;
  std::vector<Weight> straws;
  std::vector<Weight> node_weights;

  bool operator==(const Bucket&) const = default;
};

struct RuleStep {
  RuleOp op = RuleOp::kNoop;
  std::int32_t arg1 = 0;
  std::int32_t arg2 = 0;

  bool operator==(const RuleStep&) const = default;
};

struct Rule {
  // Pacific keeps a ruleset byte beside the rule id; the compiler sets it to
  // the id. min_size/max_size are stored bytes (the mask of crush_rule_mask).
  std::uint8_t ruleset = 0;
  RuleType type = RuleType::kReplicated;
  std::uint8_t min_size = 1;
  std::uint8_t max_size = 10;
  std::vector<RuleStep> steps;

  bool operator==(const Rule&) const = default;
};

// All tunables; defaults are Ceph's legacy (argonaut) values, which is what
// a decoder assumes for a map that predates a tunable.
struct Tunables {
  std::uint32_t choose_local_tries = 2;
  std::uint32_t choose_local_fallback_tries = 5;
  std::uint32_t choose_total_tries = 19;
  std::uint32_t chooseleaf_descend_once = 0;
  std::uint8_t chooseleaf_vary_r = 0;
  std::uint8_t chooseleaf_stable = 0;
  std::uint8_t straw_calc_version = 0;
  std::uint32_t allowed_bucket_algs = 22;  // uniform | list | straw
  std::uint32_t msr_descents = 100;
  std::uint32_t msr_collision_tries = 100;

  bool operator==(const Tunables&) const = default;
};

// Named tunable profiles (CrushWrapper::set_tunables_*).
enum class TunablesProfile {
  kLegacy,
  kArgonaut,
  kBobtail,
  kFirefly,
  kHammer,
  kJewel,
  kOptimal,
  kDefault
};

// Returns the tunables of `profile`. For kLegacy/kArgonaut straw_calc_version
// is 0; for kJewel and later aliases (optimal/default) it is 1; the others
// keep `base.straw_calc_version`, as Ceph's profiles do.
Tunables TunablesFor(TunablesProfile profile, const Tunables& base = {});

// Weight-set and id overrides for one straw2 bucket (crush_choose_arg).
// weight_set[p][i] is the weight of item i at result position p; ids[i]
// replaces item i's id as straw2 hash input.
struct ChooseArg {
  std::vector<std::vector<Weight>> weight_set;
  std::vector<ItemId> ids;

  bool operator==(const ChooseArg&) const = default;
};

// choose_args for one index: bucket id -> overrides.
using ChooseArgMap = std::map<ItemId, ChooseArg>;

// Index used by the "compat" weight set, the fallback of every pool.
inline constexpr std::int64_t kCompatChooseArgs = -1;

// Which optional trailing sections the binary encoding carries. Ceph decodes
// each group only if bytes remain; crushtool always writes them all.
enum class EncodedTail : std::uint8_t {
  kNone = 0,              // ends after the rule name map
  kLocalTries = 1,        // + choose_local_tries, fallback, total_tries
  kDescendOnce = 2,       // + chooseleaf_descend_once
  kVaryR = 3,             // + chooseleaf_vary_r
  kStrawCalcVersion = 4,  // + straw_calc_version
  kAllowedAlgs = 5,       // + allowed_bucket_algs
  kStable = 6,            // + chooseleaf_stable
  kClasses = 7,           // + class_map, class_name, class_bucket
  kChooseArgs = 8,        // + choose_args  (what Pacific writes)
  kMsr = 9,               // + msr_descents, msr_collision_tries (Squid)
};

struct MapModel {
  // Slot i holds bucket id -1-i; alg == kNone marks an empty slot. The size
  // of this vector is the encoded max_buckets.
  std::vector<Bucket> buckets;
  // Rule id -> rule; nullopt-like empty slots are marked by `rule_exists`.
  std::vector<Rule> rules;
  std::vector<bool> rule_exists;
  std::int32_t max_devices = 0;

  std::map<std::int32_t, std::string> type_names;
  std::map<std::int32_t, std::string> item_names;
  std::map<std::int32_t, std::string> rule_names;

  Tunables tunables;

  // Device classes: item (device or shadow bucket) -> class id; class id ->
  // name; original bucket -> (class id -> shadow bucket id).
  std::map<std::int32_t, std::int32_t> class_map;
  std::map<std::int32_t, std::string> class_names;
  std::map<std::int32_t, std::map<std::int32_t, std::int32_t>> class_buckets;

  // choose_args index (pool id, or kCompatChooseArgs) -> per-bucket args.
  std::map<std::int64_t, ChooseArgMap> choose_args;

  EncodedTail tail = EncodedTail::kChooseArgs;

  // Convenience accessors; none of them validates.
  int max_buckets() const { return static_cast<int>(buckets.size()); }

  int max_rules() const { return static_cast<int>(rules.size()); }

  // The bucket with `id`, or nullptr if the slot is out of range or empty.
  const Bucket* FindBucket(ItemId id) const;
  Bucket* FindBucket(ItemId id);

  bool operator==(const MapModel&) const = default;
};

// max_devices as crush_finalize() + CrushWrapper::finalize() compute it: one
// more than the highest device id in any bucket or the highest named id,
// whichever is larger; 0 when there is none (so it can shrink). 64-bit so a
// device id of INT32_MAX does not overflow. Shared by the decoder, the
// compiler and the editor (FinalizeMaxDevices in edit.h). Cost: O(items).
std::int64_t FinalizedMaxDevices(const MapModel& map);

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_MODEL_H_
