// A pool's HitSet::Params (osd/HitSet.{h,cc}) read out of the opaque bytes
// the binary codec keeps (pool_binary.h HitSetParams), and the two ways
// osdmaptool 16.2 shows them: HitSet::Params operator<< in the `--print`
// pool line, and the values HitSet::Params::dump and pg_pool_t's
// grade_table give `--dump`.
// Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_HIT_SET_PARAMS_H_
#define CRUSHKIT_OSDMAP_FORMATS_HIT_SET_PARAMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/formats/osdmap_binary.h"
#include "osdmap/formats/pool_binary.h"

namespace crushkit::osdmap {

// HitSet::impl_type_t as Pacific knows it.
enum class HitSetType : std::uint8_t {
  kNone = 0,
  kExplicitHash = 1,
  kExplicitObject = 2,
  kBloom = 3,
};

struct HitSetView {
  HitSetType type = HitSetType::kNone;
  // BloomHitSet::Params (type kBloom only).
  std::uint32_t fpp_micro = 0;
  std::uint64_t target_size = 0;
  std::uint64_t seed = 0;
};

// What Ceph's HitSet::Params::decode makes of `params`. Errors (where
// Ceph's decode throws and osdmaptool cannot read the map):
// kInvalidArgument for a type Pacific does not know (> 3) or a bloom body
// whose compat is above 1; kDataLoss for a bloom body shorter than its
// three fields.
absl::StatusOr<HitSetView> ParseHitSetParams(const binary::HitSetParams& params);

// ParseHitSetParams over every pool of `map`: OK when Ceph's decoder would
// accept their HitSet parameters; else that error, prefixed "pool N: ".
absl::Status CheckHitSetParams(const OsdMapBinary& map);

// HitSet::get_type_name: "none", "explicit_hash", "explicit_object", "bloom".
const char* HitSetTypeName(HitSetType type);

// HitSet::Params operator<<: "bloom{false_positive_probability: 0.05,
// target_size: 1000, seed: 9}", "explicit_hash{}", "none}" (sic: no impl,
// no opening brace).
std::string FormatHitSetParams(const HitSetView& view);

// BloomHitSet::Params::get_fpp(): fpp_micro / 1000000.0.
double HitSetFpp(const HitSetView& view);

// pg_pool_t::calc_grade_table() as pg_pool_t::decode runs it: hit_set_count
// entries, each the previous (from 1000000) times (1 - decay_rate / 100.0),
// truncated to unsigned as x86-64 GCC converts (through int64) so that
// decay rates above 100 give Ceph's wrapped values. Errors:
// kResourceExhausted above 1 << 20 entries (Ceph would allocate and print
// them all; crushkit refuses rather than print gigabytes).
absl::StatusOr<std::vector<std::uint32_t>> HitSetGradeTable(const binary::BinaryPool& pool);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_HIT_SET_PARAMS_H_
