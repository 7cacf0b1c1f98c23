// Basic CRUSH vocabulary shared by every crushkit module: item ids, weights,
// bucket algorithms and rule opcodes.
//
// Items are devices (id >= 0) or buckets (id < 0; bucket id -1-i lives in
// slot i). Weights are unsigned 16.16 fixed point (0x10000 == 1.0), exactly
// as Ceph stores them; floating point appears only at text and CLI edges.
// Everything here is a plain value type and safe to share between threads.
#ifndef CRUSHKIT_CRUSH_TYPES_H_
#define CRUSHKIT_CRUSH_TYPES_H_

#include <cstdint>

namespace crushkit::crush {

// A device (>= 0) or bucket (< 0) id.
using ItemId = std::int32_t;

// 16.16 fixed point weight; 0x10000 == 1.0.
using Weight = std::uint32_t;

inline constexpr Weight kWeightOne = 0x10000;

// Placeholder written by indep rules for a slot that could not be filled
// (CRUSH_ITEM_NONE in Ceph).
inline constexpr ItemId kItemNone = 0x7fffffff;

// True for a device in a mapping result: not a bucket (< 0) and not an
// empty slot (kItemNone).
inline constexpr bool IsDevice(ItemId id) { return id >= 0 && id != kItemNone; }

// Internal marker for a not-yet-chosen indep slot (CRUSH_ITEM_UNDEF).
inline constexpr ItemId kItemUndef = 0x7ffffffe;

// CRUSH_MAX_RULES in Ceph (256). It is not a limit on rule ids: Ceph only
// uses it when it picks a free id itself (crush_add_rule with no id), and the
// binary rule mask stores the ruleset in a u8, so rule id 300 is written
// with ruleset 300 & 0xff = 44. Explicit ids of any size are accepted.
inline constexpr int kMaxRules = 256;

// Largest number of rule slots (max_rules) a CrushMap accepts: rule ids are
// ints. The decoder reaches it only with an 8 GiB input (4 bytes per slot).
inline constexpr int kMaxRuleSlots = 0x7fffffff;

// Slot index of a bucket id (-1 -> 0, -2 -> 1, ...).
constexpr int BucketSlot(ItemId bucket_id) { return -1 - bucket_id; }

// Bucket id stored in slot `slot`.
constexpr ItemId BucketIdOfSlot(int slot) { return -1 - slot; }

// Bucket algorithms, numbered as in the binary format (crush.h).
enum class BucketAlg : std::uint8_t {
  kNone = 0,  // an empty slot in the bucket array
  kUniform = 1,
  kList = 2,
  kTree = 3,
  kStraw = 4,
  kStraw2 = 5,
};

// Ceph's crush_bucket_alg_name() (crush.c): the name the text format and
// the JSON dump use, "unknown" for kNone or any other value.
constexpr const char* BucketAlgName(BucketAlg alg) {
  switch (alg) {
    case BucketAlg::kUniform:
      return "uniform";
    case BucketAlg::kList:
      return "list";
    case BucketAlg::kTree:
      return "tree";
    case BucketAlg::kStraw:
      return "straw";
    case BucketAlg::kStraw2:
      return "straw2";
    default:
      return "unknown";
  }
}

// The only hash Ceph defines (CRUSH_HASH_RJENKINS1).
inline constexpr std::uint8_t kHashRjenkins1 = 0;

// Rule step opcodes, numbered as in the binary format (crush.h).
enum class RuleOp : std::uint32_t {
  kNoop = 0,
  kTake = 1,
  kChooseFirstn = 2,
  kChooseIndep = 3,
  kEmit = 4,
  kChooseleafFirstn = 6,
  kChooseleafIndep = 7,
  kSetChooseTries = 8,
  kSetChooseleafTries = 9,
  kSetChooseLocalTries = 10,
  kSetChooseLocalFallbackTries = 11,
  kSetChooseleafVaryR = 12,
  kSetChooseleafStable = 13,
  kSetMsrDescents = 14,
  kSetMsrCollisionTries = 15,
  kChooseMsr = 16,
};

// Rule types as stored in the binary format.
enum class RuleType : std::uint8_t {
  kReplicated = 1,
  kErasure = 3,
  kMsrFirstn = 4,
  kMsrIndep = 5,
};

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_TYPES_H_
