// Fuzz target: the reader of `ceph osd crush dump -f json`
// (osdmap::ReadCrushDumpJson), on JSON text.
//
// For any input the reader must return. A failure is kInvalidArgument with a
// short one-line message without control bytes (the JSON path or a located
// syntax error). A success is a model whose encoding, as each release crushkit
// writes it, decodes and re-encodes to the same bytes (the reader builds
// nothing Ceph's decoder would normalise away).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "crush/ceph_release.h"
#include "crush/codec.h"
#include "osdmap/formats/crush_dump_json.h"
#include "tests/fuzz/fuzz_check.h"

namespace crush = crushkit::crush;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Bucket and device ids reach 2^18 / 2^24 slots: keep inputs small enough
  // that a few such ids stay cheap.
  if (size > (1u << 16)) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<crush::MapModel> model = crushkit::osdmap::ReadCrushDumpJson(text);
  if (!model.ok()) {
    FUZZ_CHECK(model.status().code() == absl::StatusCode::kInvalidArgument,
               model.status().ToString());
    const std::string msg(model.status().message());
    FUZZ_CHECK(!msg.empty() && msg.size() < 1000, msg);
    FUZZ_CHECK(crushkit::fuzz::PrintableLine(msg), msg);
    return 0;
  }
  for (crush::CephRelease release :
       {crush::CephRelease::kPacific, crush::CephRelease::kReef, crush::CephRelease::kTentacle}) {
    const std::string bytes = crush::EncodeCrushMapAs(*model, release);
    absl::StatusOr<crush::MapModel> decoded = crush::DecodeCrushMap(bytes);
    FUZZ_CHECK(decoded.ok(), decoded.status().ToString());
    FUZZ_CHECK(crush::EncodeCrushMap(*decoded) == bytes, "re-encoding changed the bytes");
  }
  return 0;
}
