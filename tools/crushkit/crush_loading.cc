#include "tools/crushkit/crush_loading.h"

#include <iostream>

#include "compiler/compile.h"
#include "crush/ceph_release.h"
#include "crush/codec.h"
#include "osdmap/formats/crush_dump_json.h"
#include "osdmap/formats/input_sniff.h"
#include "tools/common/ceph_release_env.h"
#include "tools/common/file_io.h"

namespace crushkit::tools {

absl::StatusOr<std::string> LoadCrushMapBytes(const std::string& path, crush::CephRelease release) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  if (crush::HasCrushMagic(*bytes)) return bytes;
  // `ceph osd crush dump -f json` (or a `ceph report`): the map it holds,
  // encoded as the release writes it.
  if (osdmap::LooksLikeCrushDumpJson(*bytes)) {
    absl::StatusOr<crush::MapModel> dumped = osdmap::ReadCrushDumpJson(*bytes);
    if (!dumped.ok()) return dumped.status();
    return crush::EncodeCrushMapAs(*std::move(dumped), release);
  }
  // Anything but a map (or text that may be one) is refused saying what it is.
  if (absl::Status s = osdmap::CheckInputKind(osdmap::InputRole::kCrushMap, *bytes); !s.ok())
    return s;
  // A text map: compile it to the bytes the release's `crushtool -c` writes.
  const compiler::SourceFile src(path, *std::move(bytes));
  compiler::DiagnosticSink sink;
  absl::StatusOr<crush::MapModel> model =
      // A map Ceph's crushtool compiles is what the cluster runs: accept its
      // quirks (repeated type/device declarations) with a warning each.
      compiler::Compile(src, &sink,
                        compiler::CompileOptions{.release = release, .ceph_quirks = true});
  std::cerr << sink.Format(src);
  if (!model.ok()) {
    return absl::InvalidArgumentError(
        sink.diagnostics().empty()
            ? std::string(model.status().message())
            : "neither a binary crush map (no CRUSH magic) nor a valid text map");
  }
  return crush::EncodeCrushMapAs(*std::move(model), release);
}

absl::StatusOr<crush::MapModel> LoadCrushModel(const std::string& path,
                                               crush::CephRelease release) {
  absl::StatusOr<std::string> bytes = LoadCrushMapBytes(path, release);
  if (!bytes.ok())
    return absl::Status(bytes.status().code(), path + ": " + std::string(bytes.status().message()));
  absl::StatusOr<crush::MapModel> model = crush::DecodeCrushMap(*bytes);
  if (!model.ok()) {
    return absl::Status(model.status().code(),
                        path + ": cannot decode: " + std::string(model.status().message()));
  }
  return model;
}

absl::StatusOr<crush::MapModel> LoadCrushModel(const std::string& path) {
  absl::StatusOr<crush::CephRelease> release = CephReleaseFromEnvironment();
  if (!release.ok()) return release.status();
  return LoadCrushModel(path, *release);
}

}  // namespace crushkit::tools
