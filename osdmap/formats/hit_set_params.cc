#include "osdmap/formats/hit_set_params.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"
#include "crush/util/text_format.h"
#include "osdmap/formats/binary_io.h"

namespace crushkit::osdmap {

absl::StatusOr<HitSetView> ParseHitSetParams(const binary::HitSetParams& params) {
  HitSetView view;
  if (params.type > static_cast<std::uint8_t>(HitSetType::kBloom)) {
    // HitSet::Params::create_impl fails: "unrecognized HitMap type".
    return absl::InvalidArgumentError(
        absl::StrCat("unrecognized HitSet type ", params.type, " (Ceph cannot decode this map)"));
  }
  view.type = static_cast<HitSetType>(params.type);
  if (view.type != HitSetType::kBloom) return view;  // the other types have no body
  binary::Reader r(params.impl);
  binary::StructFrame frame;
  auto body = [&view](binary::Reader& b, std::uint8_t) -> absl::Status {
    CRUSH_RETURN_IF_ERROR(b.U32("BloomHitSet::Params.fpp_micro", &view.fpp_micro));
    CRUSH_RETURN_IF_ERROR(b.U64("BloomHitSet::Params.target_size", &view.target_size));
    return b.U64("BloomHitSet::Params.seed", &view.seed);
  };
  CRUSH_RETURN_IF_ERROR(r.Struct("BloomHitSet::Params", 1, &frame, body));
  return view;
}

absl::Status CheckHitSetParams(const OsdMapBinary& map) {
  for (const auto& [id, pool] : map.pools) {
    auto view = ParseHitSetParams(pool.hit_set_params);
    if (!view.ok()) {
      return absl::Status(view.status().code(),
                          absl::StrCat("pool ", id, ": ", view.status().message()));
    }
  }
  return absl::OkStatus();
}

const char* HitSetTypeName(HitSetType type) {
  switch (type) {
    case HitSetType::kNone:
      return "none";
    case HitSetType::kExplicitHash:
      return "explicit_hash";
    case HitSetType::kExplicitObject:
      return "explicit_object";
    case HitSetType::kBloom:
      return "bloom";
  }
  return "???";
}

double HitSetFpp(const HitSetView& view) { return view.fpp_micro / 1000000.0; }

std::string FormatHitSetParams(const HitSetView& view) {
  std::string o = HitSetTypeName(view.type);
  if (view.type != HitSetType::kNone) o += '{';
  if (view.type == HitSetType::kBloom) {
    // BloomHitSet::Params::dump_stream, ostream defaults (%g).
    absl::StrAppend(&o, "false_positive_probability: ", util::FormatCephDouble(HitSetFpp(view)),
                    ", target_size: ", view.target_size, ", seed: ", view.seed);
  }
  return o + "}";
}

absl::StatusOr<std::vector<std::uint32_t>> HitSetGradeTable(const binary::BinaryPool& pool) {
  constexpr std::uint32_t kMaxEntries = 1u << 20;
  if (pool.hit_set_count > kMaxEntries) {
    return absl::ResourceExhaustedError(
        absl::StrCat("hit_set_count ", pool.hit_set_count, " (above ", kMaxEntries,
                     "): Ceph would print a grade table that long"));
  }
  std::vector<std::uint32_t> table;
  table.reserve(pool.hit_set_count);
  std::uint32_t v = 1000000;
  const double factor = 1 - (pool.hit_set_grade_decay_rate / 100.0);
  for (std::uint32_t i = 0; i < pool.hit_set_count; ++i) {
    // unsigned = double: GCC truncates through a 64-bit register, so a
    // negative product (decay rate > 100) wraps instead of saturating.
    v = static_cast<std::uint32_t>(static_cast<std::int64_t>(v * factor));
    table.push_back(v);
  }
  return table;
}

}  // namespace crushkit::osdmap
