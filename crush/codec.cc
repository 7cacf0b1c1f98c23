#include "crush/codec.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "crush/builder.h"
#include "crush/status_macros.h"
#include "crush/util/byte_io.h"

namespace crushkit::crush {
namespace {

using util::ByteReader;

constexpr std::uint32_t kMaxKnownAlg = 5;

std::string Hex32(std::uint32_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) s.push_back(kDigits[(v >> shift) & 0xf]);
  return s;
}

// Ceph's decoder state machine, with every read checked. `context_` names
// the structure being decoded ("bucket -3 (slot 2)") for error messages.
class Decoder {
 public:
  Decoder(std::span<const std::byte> bytes, const DecodeOptions& options)
      : r_(bytes), options_(options) {}

  absl::StatusOr<MapModel> Run();

 private:
  // `status` of a read, a truncation naming the structure being decoded.
  absl::Status InContext(absl::Status status) const {
    if (status.ok() || context_.empty()) return status;
    return absl::DataLossError(std::string(status.message()) + " for " + context_);
  }

  // Fails unless `count` elements of `elem_size` bytes (+ `extra`) remain.
  absl::Status NeedCount(std::uint64_t count, std::uint64_t elem_size, const char* what,
                         std::uint64_t extra = 0) const {
    if (r_.Fits(count, elem_size, extra)) return absl::OkStatus();
    std::string msg = "truncated at offset " + std::to_string(r_.offset()) + ": " + what + " " +
                      std::to_string(count) + " needs at least " +
                      std::to_string(count * elem_size + extra) + " bytes but only " +
                      std::to_string(r_.remaining()) + " remain";
    if (!context_.empty()) msg += " (" + context_ + ")";
    return absl::DataLossError(msg);
  }

  absl::Status Invalid(std::size_t offset, const std::string& what) const {
    std::string msg = what + " at offset " + std::to_string(offset);
    if (!context_.empty()) msg += " (" + context_ + ")";
    return absl::InvalidArgumentError(msg);
  }

  absl::Status U8(std::uint8_t* v, const char* what) { return InContext(r_.U8(what, v)); }

  absl::Status U16(std::uint16_t* v, const char* what) { return InContext(r_.U16(what, v)); }

  absl::Status U32(std::uint32_t* v, const char* what) { return InContext(r_.U32(what, v)); }

  absl::Status S32(std::int32_t* v, const char* what) { return InContext(r_.S32(what, v)); }

  absl::Status S64(std::int64_t* v, const char* what) { return InContext(r_.S64(what, v)); }

  absl::Status String(std::uint32_t len, std::string* out, const char* what) {
    if (len > r_.remaining()) {
      return absl::DataLossError("truncated at offset " + std::to_string(r_.offset()) +
                                 ": expected " + std::to_string(len) + " bytes of " + what +
                                 " but only " + std::to_string(r_.remaining()) + " remain" +
                                 (context_.empty() ? "" : " (" + context_ + ")"));
    }
    return r_.Bytes(what, len, out);
  }

  absl::Status DecodeBucket(int slot, Bucket* b);
  absl::Status DecodeRule(std::uint32_t slot, Rule* rule, bool* exists);
  absl::Status DecodeNameMap(const char* name, std::map<std::int32_t, std::string>* out);
  absl::Status DecodeClasses(MapModel* m);
  absl::Status DecodeChooseArgs(MapModel* m);
  absl::Status DecodeTail(MapModel* m);
  absl::Status Finish(MapModel* m);

  ByteReader r_;
  DecodeOptions options_;
  std::string context_;
};

// Mirrors Ceph's CrushWrapper::decode_crush_bucket() (src/crush/CrushWrapper.cc) line by line:
// alg (0: an empty slot), id, type, alg, hash, weight, size, the items, then the alg's arrays;
// every read checked, and the bounds builder.c relies on enforced.
absl::Status Decoder::DecodeBucket(int slot, Bucket* b) {
  context_ = "bucket slot " + std::to_string(slot);
  const std::size_t alg_offset = r_.offset();
  std::uint32_t alg = 0;
  CRUSH_RETURN_IF_ERROR(U32(&alg, "u32 bucket alg"));
  if (alg == 0) return absl::OkStatus();  // empty slot
  if (alg > kMaxKnownAlg) {
    return absl::UnimplementedError("unsupported bucket algorithm " + std::to_string(alg) +
                                    " at offset " + std::to_string(alg_offset) + " (" + context_ +
                                    "); known algorithms are 1..5");
  }
  const std::size_t id_offset = r_.offset();
  CRUSH_RETURN_IF_ERROR(S32(&b->id, "s32 bucket id"));
  if (b->id != BucketIdOfSlot(slot)) {
    return Invalid(id_offset, "bucket id " + std::to_string(b->id) + " does not match its slot " +
                                  std::to_string(slot) + " (expected id " +
                                  std::to_string(BucketIdOfSlot(slot)) + ")");
  }
  context_ = "bucket " + std::to_string(b->id) + " (slot " + std::to_string(slot) + ")";
  CRUSH_RETURN_IF_ERROR(U16(&b->type, "u16 bucket type"));
  const std::size_t alg8_offset = r_.offset();
  std::uint8_t alg8 = 0;
  CRUSH_RETURN_IF_ERROR(U8(&alg8, "u8 bucket alg"));
  if (alg8 != alg) {
    return Invalid(alg8_offset, "bucket alg byte " + std::to_string(alg8) +
                                    " disagrees with the slot's alg word " + std::to_string(alg));
  }
  b->alg = static_cast<BucketAlg>(alg8);
  CRUSH_RETURN_IF_ERROR(U8(&b->hash, "u8 bucket hash"));
  CRUSH_RETURN_IF_ERROR(U32(&b->weight, "u32 bucket weight"));
  std::uint32_t size = 0;
  CRUSH_RETURN_IF_ERROR(U32(&size, "u32 bucket size"));

  // Bytes per item, items included, and fixed bytes after the items.
  std::uint64_t per_item = 4;
  std::uint64_t fixed = 0;
  switch (b->alg) {
    case BucketAlg::kUniform:
      fixed = 4;
      break;
    case BucketAlg::kList:
      per_item += 8;
      break;
    case BucketAlg::kTree:
      fixed = 1;
      break;
    case BucketAlg::kStraw:
      per_item += 8;
      break;
    case BucketAlg::kStraw2:
      per_item += 4;
      break;
    case BucketAlg::kNone:
      break;
  }
  CRUSH_RETURN_IF_ERROR(NeedCount(size, per_item, "bucket size", fixed));

  b->items.resize(size);
  for (ItemId& item : b->items) CRUSH_RETURN_IF_ERROR(S32(&item, "s32 bucket item"));

  switch (b->alg) {
    case BucketAlg::kUniform:
      CRUSH_RETURN_IF_ERROR(U32(&b->uniform_item_weight, "u32 uniform item weight"));
      break;
    case BucketAlg::kList:
      b->item_weights.resize(size);
      b->sum_weights.resize(size);
      for (std::uint32_t j = 0; j < size; ++j) {
        CRUSH_RETURN_IF_ERROR(U32(&b->item_weights[j], "u32 list item weight"));
        CRUSH_RETURN_IF_ERROR(U32(&b->sum_weights[j], "u32 list sum weight"));
      }
      break;
    case BucketAlg::kTree: {
      const std::size_t nodes_offset = r_.offset();
      std::uint8_t num_nodes = 0;
      CRUSH_RETURN_IF_ERROR(U8(&num_nodes, "u8 tree num_nodes"));
      if (size > 0) {
        // builder.c sizes the node array 1 << depth; the mapper walks it from
        // node num_nodes/2 and reads items[leaf/2], so any other value lets a
        // hostile map index out of bounds.
        const int depth = TreeDepth(size);
        const std::uint64_t expected = std::uint64_t{1} << depth;
        if (num_nodes != expected) {
          return Invalid(nodes_offset, "tree num_nodes " + std::to_string(num_nodes) +
                                           " is inconsistent with size " + std::to_string(size) +
                                           " (expected " + std::to_string(expected) + ")");
        }
      }
      CRUSH_RETURN_IF_ERROR(NeedCount(num_nodes, 4, "tree num_nodes"));
      b->node_weights.resize(num_nodes);
      for (Weight& w : b->node_weights) CRUSH_RETURN_IF_ERROR(U32(&w, "u32 tree node weight"));
      break;
    }
    case BucketAlg::kStraw:
      b->item_weights.resize(size);
      b->straws.resize(size);
      for (std::uint32_t j = 0; j < size; ++j) {
        CRUSH_RETURN_IF_ERROR(U32(&b->item_weights[j], "u32 straw item weight"));
        CRUSH_RETURN_IF_ERROR(U32(&b->straws[j], "u32 straw value"));
      }
      break;
    case BucketAlg::kStraw2:
      b->item_weights.resize(size);
      for (Weight& w : b->item_weights) CRUSH_RETURN_IF_ERROR(U32(&w, "u32 straw2 item weight"));
      break;
    case BucketAlg::kNone:
      break;
  }
  return absl::OkStatus();
}

absl::Status Decoder::DecodeRule(std::uint32_t slot, Rule* rule, bool* exists) {
  context_ = "rule " + std::to_string(slot);
  std::uint32_t yes = 0;
  CRUSH_RETURN_IF_ERROR(U32(&yes, "u32 rule exists flag"));
  *exists = yes != 0;
  if (!*exists) return absl::OkStatus();
  std::uint32_t len = 0;
  CRUSH_RETURN_IF_ERROR(U32(&len, "u32 rule length"));
  CRUSH_RETURN_IF_ERROR(NeedCount(len, 12, "rule length", 4));
  std::uint8_t type = 0;
  CRUSH_RETURN_IF_ERROR(U8(&rule->ruleset, "u8 ruleset"));
  CRUSH_RETURN_IF_ERROR(U8(&type, "u8 rule type"));
  // Unknown types are preserved as stored; the mapper treats types as opaque.
  rule->type = static_cast<RuleType>(type);
  CRUSH_RETURN_IF_ERROR(U8(&rule->min_size, "u8 rule min_size"));
  CRUSH_RETURN_IF_ERROR(U8(&rule->max_size, "u8 rule max_size"));
  rule->steps.resize(len);
  for (RuleStep& step : rule->steps) {
    std::uint32_t op = 0;
    CRUSH_RETURN_IF_ERROR(U32(&op, "u32 rule step op"));
    step.op = static_cast<RuleOp>(op);
    CRUSH_RETURN_IF_ERROR(S32(&step.arg1, "s32 rule step arg1"));
    CRUSH_RETURN_IF_ERROR(S32(&step.arg2, "s32 rule step arg2"));
  }
  return absl::OkStatus();
}

// Matches CrushWrapper's decode_32_or_64_string_map(): a zero string length
// means the key was encoded as 64 bits by a long-fixed bug, so the real
// length follows. (A genuinely empty name is therefore unreadable, in Ceph
// too.)
absl::Status Decoder::DecodeNameMap(const char* name, std::map<std::int32_t, std::string>* out) {
  context_ = name;
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(U32(&n, "u32 entry count"));
  CRUSH_RETURN_IF_ERROR(NeedCount(n, 8, "entry count"));
  for (std::uint32_t i = 0; i < n; ++i) {
    std::int32_t key = 0;
    CRUSH_RETURN_IF_ERROR(S32(&key, "s32 key"));
    std::uint32_t len = 0;
    CRUSH_RETURN_IF_ERROR(U32(&len, "u32 string length"));
    if (len == 0) CRUSH_RETURN_IF_ERROR(U32(&len, "u32 string length after a 64-bit key"));
    CRUSH_RETURN_IF_ERROR(String(len, &(*out)[key], "name"));
  }
  return absl::OkStatus();
}

// Ceph decodes these three maps with denc, which inserts without
// overwriting: on a duplicate key the FIRST entry wins (verified against
// Pacific crushtool). The name maps above and choose_args are decoded by
// hand with assignment, so there the last entry wins.
absl::Status Decoder::DecodeClasses(MapModel* m) {
  context_ = "class_map";
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(U32(&n, "u32 entry count"));
  CRUSH_RETURN_IF_ERROR(NeedCount(n, 8, "entry count"));
  for (std::uint32_t i = 0; i < n; ++i) {
    std::int32_t key = 0;
    std::int32_t cls = 0;
    CRUSH_RETURN_IF_ERROR(S32(&key, "s32 item id"));
    CRUSH_RETURN_IF_ERROR(S32(&cls, "s32 class id"));
    m->class_map.try_emplace(key, cls);
  }

  context_ = "class_name";
  CRUSH_RETURN_IF_ERROR(U32(&n, "u32 entry count"));
  CRUSH_RETURN_IF_ERROR(NeedCount(n, 8, "entry count"));
  for (std::uint32_t i = 0; i < n; ++i) {
    std::int32_t key = 0;
    CRUSH_RETURN_IF_ERROR(S32(&key, "s32 class id"));
    std::uint32_t len = 0;
    CRUSH_RETURN_IF_ERROR(U32(&len, "u32 string length"));
    std::string name;
    CRUSH_RETURN_IF_ERROR(String(len, &name, "class name"));
    m->class_names.try_emplace(key, std::move(name));
  }

  context_ = "class_bucket";
  CRUSH_RETURN_IF_ERROR(U32(&n, "u32 entry count"));
  CRUSH_RETURN_IF_ERROR(NeedCount(n, 8, "entry count"));
  for (std::uint32_t i = 0; i < n; ++i) {
    std::int32_t key = 0;
    CRUSH_RETURN_IF_ERROR(S32(&key, "s32 bucket id"));
    std::map<std::int32_t, std::int32_t> inner;
    std::uint32_t k = 0;
    CRUSH_RETURN_IF_ERROR(U32(&k, "u32 inner entry count"));
    CRUSH_RETURN_IF_ERROR(NeedCount(k, 8, "inner entry count"));
    for (std::uint32_t j = 0; j < k; ++j) {
      std::int32_t class_id = 0;
      std::int32_t shadow = 0;
      CRUSH_RETURN_IF_ERROR(S32(&class_id, "s32 class id"));
      CRUSH_RETURN_IF_ERROR(S32(&shadow, "s32 shadow bucket id"));
      inner.try_emplace(class_id, shadow);
    }
    m->class_buckets.try_emplace(key, std::move(inner));
  }
  return absl::OkStatus();
}

absl::Status Decoder::DecodeChooseArgs(MapModel* m) {
  context_ = "choose_args";
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(U32(&n, "u32 choose_args count"));
  CRUSH_RETURN_IF_ERROR(NeedCount(n, 12, "choose_args count"));
  for (std::uint32_t i = 0; i < n; ++i) {
    context_ = "choose_args #" + std::to_string(i);
    std::int64_t index = 0;
    CRUSH_RETURN_IF_ERROR(S64(&index, "s64 choose_args index"));
    context_ = "choose_args " + std::to_string(index);
    // Ceph replaces the whole arg map on a duplicate index.
    ChooseArgMap& args = m->choose_args[index];
    args.clear();
    std::uint32_t n_args = 0;
    CRUSH_RETURN_IF_ERROR(U32(&n_args, "u32 bucket arg count"));
    CRUSH_RETURN_IF_ERROR(NeedCount(n_args, 12, "bucket arg count"));
    for (std::uint32_t j = 0; j < n_args; ++j) {
      const std::size_t slot_offset = r_.offset();
      std::uint32_t slot = 0;
      CRUSH_RETURN_IF_ERROR(U32(&slot, "u32 bucket slot"));
      if (slot >= static_cast<std::uint32_t>(m->max_buckets())) {
        return Invalid(slot_offset, "choose_args bucket slot " + std::to_string(slot) +
                                        " is out of range (max_buckets " +
                                        std::to_string(m->max_buckets()) + ")");
      }
      const ItemId id = BucketIdOfSlot(static_cast<int>(slot));
      context_ = "choose_args " + std::to_string(index) + " bucket " + std::to_string(id);
      ChooseArg& arg = args[id];
      arg = ChooseArg{};
      std::uint32_t positions = 0;
      CRUSH_RETURN_IF_ERROR(U32(&positions, "u32 weight_set positions"));
      CRUSH_RETURN_IF_ERROR(NeedCount(positions, 4, "weight_set positions", 4));
      arg.weight_set.resize(positions);
      for (std::vector<Weight>& ws : arg.weight_set) {
        std::uint32_t size = 0;
        CRUSH_RETURN_IF_ERROR(U32(&size, "u32 weight_set size"));
        CRUSH_RETURN_IF_ERROR(NeedCount(size, 4, "weight_set size"));
        ws.resize(size);
        for (Weight& w : ws) CRUSH_RETURN_IF_ERROR(U32(&w, "u32 weight_set weight"));
      }
      const std::size_t ids_offset = r_.offset();
      std::uint32_t ids_size = 0;
      CRUSH_RETURN_IF_ERROR(U32(&ids_size, "u32 ids size"));
      if (ids_size != 0) {
        // Ceph asserts ids_size == bucket size (and dereferences the bucket).
        const Bucket& b = m->buckets[slot];
        if (b.alg == BucketAlg::kNone) {
          return Invalid(ids_offset,
                         "choose_args ids for empty bucket slot " + std::to_string(slot));
        }
        if (ids_size != b.items.size()) {
          return Invalid(ids_offset, "choose_args ids size " + std::to_string(ids_size) +
                                         " differs from bucket size " +
                                         std::to_string(b.items.size()));
        }
        CRUSH_RETURN_IF_ERROR(NeedCount(ids_size, 4, "ids size"));
        arg.ids.resize(ids_size);
        for (ItemId& v : arg.ids) CRUSH_RETURN_IF_ERROR(S32(&v, "s32 choose_args id"));
      }
    }
  }
  return absl::OkStatus();
}

// Ceph-equivalent normalisation after decoding; see the header comment.
absl::Status Decoder::Finish(MapModel* m) {
  // CrushWrapper::update_choose_args().
  for (auto& [index, args] : m->choose_args) {
    // get_choose_args_positions(): the first bucket slot with positions.
    std::size_t positions = 1;
    for (auto it = args.rbegin(); it != args.rend(); ++it) {
      if (!it->second.weight_set.empty()) {
        positions = it->second.weight_set.size();
        break;
      }
    }
    for (auto it = args.begin(); it != args.end();) {
      const Bucket* b = m->FindBucket(it->first);
      ChooseArg& arg = it->second;
      if (b == nullptr || b->alg != BucketAlg::kStraw2) {
        it = args.erase(it);
        continue;
      }
      if (!arg.weight_set.empty() && arg.weight_set.size() == positions) {
        for (std::vector<Weight>& ws : arg.weight_set) ws.resize(b->items.size(), 0);
      }
      if (arg.weight_set.empty() && arg.ids.empty()) {
        it = args.erase(it);
        continue;
      }
      ++it;
    }
  }

  // crush_finalize() + CrushWrapper::finalize().
  const std::int64_t max_devices = FinalizedMaxDevices(*m);
  if (max_devices > kMaxDecodedDevices) {
    // Name the first place holding the highest id, buckets before names.
    const std::int64_t id = max_devices - 1;
    std::string where = "an item_names key";
    for (const Bucket& b : m->buckets) {
      if (std::find(b.items.begin(), b.items.end(), id) != b.items.end()) {
        where = "an item of bucket " + std::to_string(b.id);
        break;
      }
    }
    return absl::InvalidArgumentError("device id " + std::to_string(id) + " (" + where +
                                      ") is too large; decoded maps are limited to ids "
                                      "below " +
                                      std::to_string(kMaxDecodedDevices));
  }
  m->max_devices = static_cast<std::int32_t>(max_devices);
  return absl::OkStatus();
}

// The optional tail, each group only if bytes remain (CrushWrapper::decode);
// m->tail records the last group present.
absl::Status Decoder::DecodeTail(MapModel* m) {
  Tunables& t = m->tunables;
  m->tail = EncodedTail::kNone;
  context_ = "tunables";
  if (!r_.at_end()) {
    CRUSH_RETURN_IF_ERROR(U32(&t.choose_local_tries, "u32 choose_local_tries"));
    CRUSH_RETURN_IF_ERROR(U32(&t.choose_local_fallback_tries, "u32 choose_local_fallback_tries"));
    CRUSH_RETURN_IF_ERROR(U32(&t.choose_total_tries, "u32 choose_total_tries"));
    m->tail = EncodedTail::kLocalTries;
  }
  if (!r_.at_end()) {
    CRUSH_RETURN_IF_ERROR(U32(&t.chooseleaf_descend_once, "u32 chooseleaf_descend_once"));
    m->tail = EncodedTail::kDescendOnce;
  }
  if (!r_.at_end()) {
    CRUSH_RETURN_IF_ERROR(U8(&t.chooseleaf_vary_r, "u8 chooseleaf_vary_r"));
    m->tail = EncodedTail::kVaryR;
  }
  if (!r_.at_end()) {
    CRUSH_RETURN_IF_ERROR(U8(&t.straw_calc_version, "u8 straw_calc_version"));
    m->tail = EncodedTail::kStrawCalcVersion;
  }
  if (!r_.at_end()) {
    CRUSH_RETURN_IF_ERROR(U32(&t.allowed_bucket_algs, "u32 allowed_bucket_algs"));
    m->tail = EncodedTail::kAllowedAlgs;
  }
  if (!r_.at_end()) {
    CRUSH_RETURN_IF_ERROR(U8(&t.chooseleaf_stable, "u8 chooseleaf_stable"));
    m->tail = EncodedTail::kStable;
  }
  if (!r_.at_end()) {
    CRUSH_RETURN_IF_ERROR(DecodeClasses(m));
    m->tail = EncodedTail::kClasses;
  }
  if (!r_.at_end()) {
    CRUSH_RETURN_IF_ERROR(DecodeChooseArgs(m));
    m->tail = EncodedTail::kChooseArgs;
  }
  context_ = "msr tunables";
  if (!r_.at_end()) {
    const std::size_t msr_offset = r_.offset();
    // With ignore_trailing_bytes, fewer than 8 bytes are ignored (Pacific).
    if (r_.remaining() >= 8 || !options_.ignore_trailing_bytes) {
      CRUSH_RETURN_IF_ERROR(U32(&t.msr_descents, "u32 msr_descents"));
      CRUSH_RETURN_IF_ERROR(U32(&t.msr_collision_tries, "u32 msr_collision_tries"));
      m->tail = EncodedTail::kMsr;
    }
    if (!r_.at_end() && !options_.ignore_trailing_bytes) {
      return absl::UnimplementedError(
          std::to_string(r_.remaining()) + " unexpected bytes at offset " +
          std::to_string(r_.offset()) + " after the msr tunables (which start at offset " +
          std::to_string(msr_offset) + "); a newer encoding, or trailing garbage");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<MapModel> Decoder::Run() {
  MapModel m;
  std::uint32_t magic = 0;
  if (!r_.U32("magic", &magic).ok()) {
    return absl::InvalidArgumentError("not a crush map: input is " +
                                      std::to_string(r_.remaining()) +
                                      " bytes, too short for the 4-byte magic");
  }
  if (magic != kCrushMagic) {
    return absl::InvalidArgumentError("not a crush map: bad magic " + Hex32(magic) +
                                      " at offset 0 (expected " + Hex32(kCrushMagic) + ")");
  }
  const std::size_t max_buckets_offset = r_.offset();
  std::int32_t max_buckets = 0;
  std::uint32_t max_rules = 0;
  std::int32_t stored_max_devices = 0;
  CRUSH_RETURN_IF_ERROR(S32(&max_buckets, "s32 max_buckets"));
  CRUSH_RETURN_IF_ERROR(U32(&max_rules, "u32 max_rules"));
  CRUSH_RETURN_IF_ERROR(S32(&stored_max_devices, "s32 max_devices"));
  if (max_buckets < 0) {
    return Invalid(max_buckets_offset, "negative max_buckets " + std::to_string(max_buckets));
  }
  // Each bucket and rule slot takes at least 4 bytes; the three name maps 12.
  CRUSH_RETURN_IF_ERROR(NeedCount(static_cast<std::uint64_t>(max_buckets) + max_rules, 4,
                                  "max_buckets + max_rules", 12));

  m.buckets.resize(static_cast<std::size_t>(max_buckets));
  for (int i = 0; i < max_buckets; ++i) {
    CRUSH_RETURN_IF_ERROR(DecodeBucket(i, &m.buckets[static_cast<std::size_t>(i)]));
  }
  m.rules.resize(max_rules);
  m.rule_exists.resize(max_rules);
  for (std::uint32_t i = 0; i < max_rules; ++i) {
    bool exists = false;
    CRUSH_RETURN_IF_ERROR(DecodeRule(i, &m.rules[i], &exists));
    m.rule_exists[i] = exists;
    if (!exists) m.rules[i] = Rule{};
  }
  CRUSH_RETURN_IF_ERROR(DecodeNameMap("type names", &m.type_names));
  CRUSH_RETURN_IF_ERROR(DecodeNameMap("item names", &m.item_names));
  CRUSH_RETURN_IF_ERROR(DecodeNameMap("rule names", &m.rule_names));

  CRUSH_RETURN_IF_ERROR(DecodeTail(&m));
  context_.clear();
  CRUSH_RETURN_IF_ERROR(Finish(&m));
  return m;
}

}  // namespace

absl::StatusOr<MapModel> DecodeCrushMap(std::span<const std::byte> bytes,
                                        const DecodeOptions& options) {
  return Decoder(bytes, options).Run();
}

absl::StatusOr<MapModel> DecodeCrushMap(const std::string& bytes, const DecodeOptions& options) {
  return DecodeCrushMap(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), options);
}

}  // namespace crushkit::crush
