// EncodeCrushMap(): CrushWrapper::encode()'s layout (crush/codec.h documents it
// field by field), the tail written up to the last group the map needs or
// was decoded with. The decoder is crush/codec.cc.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "crush/codec.h"
#include "crush/util/byte_io.h"

namespace crushkit::crush {
namespace {

using util::ByteWriter;

// The tail group holding the last non-default value of `m`.
EncodedTail NeededTail(const MapModel& m) {
  const Tunables& t = m.tunables;
  const Tunables legacy;
  if (t.msr_descents != legacy.msr_descents ||
      t.msr_collision_tries != legacy.msr_collision_tries) {
    return EncodedTail::kMsr;
  }
  if (!m.choose_args.empty()) return EncodedTail::kChooseArgs;
  if (!m.class_map.empty() || !m.class_names.empty() || !m.class_buckets.empty()) {
    return EncodedTail::kClasses;
  }
  if (t.chooseleaf_stable != legacy.chooseleaf_stable) return EncodedTail::kStable;
  if (t.allowed_bucket_algs != legacy.allowed_bucket_algs) return EncodedTail::kAllowedAlgs;
  if (t.straw_calc_version != legacy.straw_calc_version) return EncodedTail::kStrawCalcVersion;
  if (t.chooseleaf_vary_r != legacy.chooseleaf_vary_r) return EncodedTail::kVaryR;
  if (t.chooseleaf_descend_once != legacy.chooseleaf_descend_once) return EncodedTail::kDescendOnce;
  if (t.choose_local_tries != legacy.choose_local_tries ||
      t.choose_local_fallback_tries != legacy.choose_local_fallback_tries ||
      t.choose_total_tries != legacy.choose_total_tries) {
    return EncodedTail::kLocalTries;
  }
  return EncodedTail::kNone;
}

Weight At(const std::vector<Weight>& v, std::size_t i) { return i < v.size() ? v[i] : 0; }

void EncodeBucket(const Bucket& b, ByteWriter& w) {
  const auto alg = static_cast<std::uint8_t>(b.alg);
  w.U32(alg);
  if (b.alg == BucketAlg::kNone) return;
  w.S32(b.id);
  w.U16(b.type);
  w.U8(alg);
  w.U8(b.hash);
  w.U32(b.weight);
  const std::size_t size = b.items.size();
  w.U32(static_cast<std::uint32_t>(size));
  for (ItemId item : b.items) w.S32(item);
  switch (b.alg) {
    case BucketAlg::kUniform:
      w.U32(b.uniform_item_weight);
      break;
    case BucketAlg::kList:
      for (std::size_t j = 0; j < size; ++j) {
        w.U32(At(b.item_weights, j));
        w.U32(At(b.sum_weights, j));
      }
      break;
    case BucketAlg::kTree: {
      const std::size_t n = std::min<std::size_t>(b.node_weights.size(), 255);
      w.U8(static_cast<std::uint8_t>(n));
      for (std::size_t j = 0; j < n; ++j) w.U32(b.node_weights[j]);
      break;
    }
    case BucketAlg::kStraw:
      for (std::size_t j = 0; j < size; ++j) {
        w.U32(At(b.item_weights, j));
        w.U32(At(b.straws, j));
      }
      break;
    case BucketAlg::kStraw2:
      for (std::size_t j = 0; j < size; ++j) w.U32(At(b.item_weights, j));
      break;
    case BucketAlg::kNone:
      break;
  }
}

// `legacy_empty`: the type/item/rule name maps are read by Ceph's
// decode_32_or_64_string_map(), which takes a zero length as the high half
// of a 64-bit key. An empty name is therefore written in that 64-bit form
// (key, 0, length 0), the only form either decoder reads back as empty; it
// is also exactly the bytes such a name was decoded from.
void EncodeNameMap(const std::map<std::int32_t, std::string>& names, bool legacy_empty,
                   ByteWriter& w) {
  w.U32(static_cast<std::uint32_t>(names.size()));
  for (const auto& [key, name] : names) {
    w.S32(key);
    if (legacy_empty && name.empty()) w.U32(0);
    w.String(name);
  }
}

void EncodeChooseArgs(const MapModel& m, ByteWriter& w) {
  w.U32(static_cast<std::uint32_t>(m.choose_args.size()));
  for (const auto& [index, args] : m.choose_args) {
    w.S64(index);
    // CrushWrapper::encode walks slots upward (bucket ids downward) and skips
    // args with neither positions nor ids.
    auto encodable = [&](const std::pair<const ItemId, ChooseArg>& e) {
      return e.first < 0 && BucketSlot(e.first) < m.max_buckets() &&
             (!e.second.weight_set.empty() || !e.second.ids.empty());
    };
    std::uint32_t count = 0;
    for (const auto& e : args) count += encodable(e) ? 1U : 0U;
    w.U32(count);
    for (auto it = args.rbegin(); it != args.rend(); ++it) {
      if (!encodable(*it)) continue;
      const ChooseArg& arg = it->second;
      w.U32(static_cast<std::uint32_t>(BucketSlot(it->first)));
      w.U32(static_cast<std::uint32_t>(arg.weight_set.size()));
      for (const std::vector<Weight>& ws : arg.weight_set) {
        w.U32(static_cast<std::uint32_t>(ws.size()));
        for (Weight v : ws) w.U32(v);
      }
      w.U32(static_cast<std::uint32_t>(arg.ids.size()));
      for (ItemId v : arg.ids) w.S32(v);
    }
  }
}

}  // namespace

std::string EncodeCrushMap(const MapModel& m) {
  ByteWriter w;
  w.U32(kCrushMagic);
  w.S32(m.max_buckets());
  w.U32(static_cast<std::uint32_t>(m.rules.size()));
  w.S32(m.max_devices);
  for (const Bucket& b : m.buckets) EncodeBucket(b, w);
  for (std::size_t i = 0; i < m.rules.size(); ++i) {
    const bool exists = i < m.rule_exists.size() && m.rule_exists[i];
    w.U32(exists ? 1 : 0);
    if (!exists) continue;
    const Rule& r = m.rules[i];
    w.U32(static_cast<std::uint32_t>(r.steps.size()));
    w.U8(r.ruleset);
    w.U8(static_cast<std::uint8_t>(r.type));
    w.U8(r.min_size);
    w.U8(r.max_size);
    for (const RuleStep& s : r.steps) {
      w.U32(static_cast<std::uint32_t>(s.op));
      w.S32(s.arg1);
      w.S32(s.arg2);
    }
  }
  EncodeNameMap(m.type_names, /*legacy_empty=*/true, w);
  EncodeNameMap(m.item_names, /*legacy_empty=*/true, w);
  EncodeNameMap(m.rule_names, /*legacy_empty=*/true, w);

  const EncodedTail tail = std::max(m.tail, NeededTail(m));
  const Tunables& t = m.tunables;
  if (tail >= EncodedTail::kLocalTries) {
    w.U32(t.choose_local_tries);
    w.U32(t.choose_local_fallback_tries);
    w.U32(t.choose_total_tries);
  }
  if (tail >= EncodedTail::kDescendOnce) w.U32(t.chooseleaf_descend_once);
  if (tail >= EncodedTail::kVaryR) w.U8(t.chooseleaf_vary_r);
  if (tail >= EncodedTail::kStrawCalcVersion) w.U8(t.straw_calc_version);
  if (tail >= EncodedTail::kAllowedAlgs) w.U32(t.allowed_bucket_algs);
  if (tail >= EncodedTail::kStable) w.U8(t.chooseleaf_stable);
  if (tail >= EncodedTail::kClasses) {
    w.U32(static_cast<std::uint32_t>(m.class_map.size()));
    for (const auto& [item, cls] : m.class_map) {
      w.S32(item);
      w.S32(cls);
    }
    EncodeNameMap(m.class_names, /*legacy_empty=*/false, w);
    w.U32(static_cast<std::uint32_t>(m.class_buckets.size()));
    for (const auto& [bucket, by_class] : m.class_buckets) {
      w.S32(bucket);
      w.U32(static_cast<std::uint32_t>(by_class.size()));
      for (const auto& [cls, shadow] : by_class) {
        w.S32(cls);
        w.S32(shadow);
      }
    }
  }
  if (tail >= EncodedTail::kChooseArgs) EncodeChooseArgs(m, w);
  if (tail >= EncodedTail::kMsr) {
    w.U32(t.msr_descents);
    w.U32(t.msr_collision_tries);
  }
  return w.Take();
}

}  // namespace crushkit::crush
