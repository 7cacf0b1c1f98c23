// Fuzz target: Ceph's binary OSDMap decoder (osdmap/formats/osdmap_binary.h) and the
// ClusterState built from it.
//
// For any input (with its trailing crc32c fixed up when only that is
// wrong): DecodeOsdMap returns (no crash, no hang, memory bounded by
// the input) and an error message holds printable ASCII only. If it
// decodes: encode -> decode reproduces the same map, encoding is a fixed
// point, and ClusterStateFromOsdMap either fails cleanly (printable
// message) or yields a state (ValidateState has accepted it) with the map's
// max_osd. `--print`'s renderer (FormatOsdMapPlain: HitSet bodies, snap
// sets, legacy and msgr2 addresses, blocklists) and CheckHitSetParams return
// (a text or a printable error) on every decoded map.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/strings/match.h"

#include "osdmap/formats/crc32c.h"
#include "osdmap/formats/hit_set_params.h"
#include "osdmap/formats/osdmap_binary.h"
#include "osdmap/formats/osdmap_binary_state.h"
#include "osdmap/formats/osdmap_print.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using crushkit::osdmap::ClusterStateFromOsdMap;
using crushkit::osdmap::DecodeOsdMap;
using crushkit::osdmap::EncodeOsdMap;

bool Printable(std::string_view s) {
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  auto map = DecodeOsdMap(input);
  if (!map.ok() && absl::StartsWith(map.status().message(), "bad crc") && input.size() >= 4) {
    // Mutations nearly always break the trailing crc; fix it (it is the
    // last 4 bytes unless the wrapper has a tail) so the round-trip checks
    // below see mutated maps too.
    const std::uint32_t crc =
        crushkit::osdmap::Crc32c(0xffffffffu, std::string_view(input).substr(0, input.size() - 4));
    for (std::size_t k = 0; k < 4; ++k)
      input[input.size() - 4 + k] = static_cast<char>((crc >> (8 * k)) & 0xff);
    map = DecodeOsdMap(input);
  }
  if (!map.ok()) {
    FUZZ_CHECK(Printable(std::string(map.status().message())), "raw byte in a DecodeOsdMap error");
    return 0;
  }
  const std::string encoded = EncodeOsdMap(*map);
  auto again = DecodeOsdMap(encoded);
  FUZZ_CHECK(again.ok(), "re-decoding our own encoding failed: " + again.status().ToString());
  FUZZ_CHECK(*again == *map, "decode(encode(m)) != m");
  FUZZ_CHECK(EncodeOsdMap(*again) == encoded, "encoding is not a fixed point");
  const absl::Status hit_sets = crushkit::osdmap::CheckHitSetParams(*map);
  FUZZ_CHECK(Printable(std::string(hit_sets.message())), "raw byte in a CheckHitSetParams error");
  // Tentacle's pools as Reef reads them (their v30 peering fields misread).
  crushkit::osdmap::OsdMapBinary as_reef = *map;
  const absl::Status reef =
      crushkit::osdmap::ReadAsRelease(crushkit::crush::CephRelease::kReef, &as_reef);
  FUZZ_CHECK(Printable(std::string(reef.message())), "raw byte in a ReadAsRelease error");
  auto text = crushkit::osdmap::FormatOsdMapPlain(*map);
  if (!text.ok()) {
    FUZZ_CHECK(Printable(std::string(text.status().message())),
               "raw byte in a FormatOsdMapPlain error");
  }
  auto state = ClusterStateFromOsdMap(*map);
  if (!state.ok()) {
    FUZZ_CHECK(Printable(std::string(state.status().message())),
               "raw byte in a ClusterStateFromOsdMap error");
    return 0;
  }
  FUZZ_CHECK(state->max_osd() == map->max_osd, "state max_osd differs from the map's");
  return 0;
}
