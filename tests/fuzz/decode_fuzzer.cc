// Fuzz target: the binary crushmap decoder, and everything downstream of it.
//
// For any input: DecodeCrushMap must return (no crash, no hang, bounded
// memory). If it decodes: encode -> decode must reproduce the same model and
// encoding is a fixed point (encode(decode(encode(m))) == encode(m)). If
// CrushMap::Build accepts the model, a few inputs are mapped through each of
// the first 8 rules, with and without choose_args, and the results checked
// (map_invariants.h).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "crush/codec.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/model.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/map_invariants.h"

namespace {

using crushkit::crush::CrushMap;
using crushkit::crush::DecodeCrushMap;
using crushkit::crush::EncodeCrushMap;
using crushkit::crush::MapModel;
using crushkit::crush::Weight;

// Keeps each input fast (>= 1,000 execs per CPU second under ASan+UBSan):
// the mapper's budget bounds work per call (2^13 bucket items: enough for
// every map a short input can describe, and budget exhaustion is exercised
// too), 8 rules x 2 inputs are mapped, and the reweight vector is capped
// (devices past it count as "out").
constexpr std::uint64_t kBudget = 1 << 13;
constexpr std::size_t kMaxReweights = 4096;
constexpr int kMaxRulesMapped = 8;

void CheckRoundTrip(const MapModel& model) {
  const std::string encoded = EncodeCrushMap(model);
  auto again = DecodeCrushMap(encoded);
  FUZZ_CHECK(again.ok(), "re-decoding our own encoding failed: " + again.status().ToString());
  FUZZ_CHECK(*again == model, "decode(encode(m)) != m");
  FUZZ_CHECK(EncodeCrushMap(*again) == encoded, "encoding is not a fixed point");
}

void MapSome(const CrushMap& map, std::uint8_t seed) {
  std::vector<Weight> reweights(
      std::min<std::size_t>(static_cast<std::size_t>(map.max_devices()), kMaxReweights),
      crushkit::crush::kWeightOne);
  // Vary reweights a little so is_out() paths are taken.
  for (std::size_t i = 0; i < reweights.size(); i += 3) reweights[i] = (seed & 1) ? 0 : 0x8000;
  const auto with_args = map.ResolveChooseArgs(0);
  for (int rule = 0; rule < std::min(map.max_rules(), kMaxRulesMapped); ++rule) {
    if (!map.RuleExists(rule)) continue;
    for (std::uint32_t x = 0; x < 2; ++x) {
      const std::uint32_t input = x * 0x9e3779b9u + seed;
      crushkit::fuzz::MapAndCheck(map, rule, input, reweights, /*max_result=*/4,
                                  /*out_size=*/3, {}, kBudget);
      if (!with_args.none()) {
        crushkit::fuzz::MapAndCheck(map, rule, input, reweights, /*max_result=*/3,
                                    /*out_size=*/5, with_args, kBudget);
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  auto model = DecodeCrushMap(bytes);
  // The lenient mode must agree with the strict one whenever strict succeeds.
  crushkit::crush::DecodeOptions lenient;
  lenient.ignore_trailing_bytes = true;
  auto lenient_model = DecodeCrushMap(bytes, lenient);
  if (model.ok()) {
    FUZZ_CHECK(lenient_model.ok() && *lenient_model == *model,
               "ignore_trailing_bytes changed a strictly valid decode");
  } else {
    FUZZ_CHECK(!model.status().message().empty(), "error without a message");
  }
  if (!lenient_model.ok()) return 0;
  CheckRoundTrip(*lenient_model);
  auto map = CrushMap::Build(*lenient_model);
  if (!map.ok()) return 0;
  MapSome(*map, size > 0 ? data[size - 1] : 0);
  return 0;
}
