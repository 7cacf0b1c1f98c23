// `crushkit decompile IN.bin [-o OUT.txt] [--ceph-release R]`: binary crush
// map -> text, byte-identical with that release's `crushtool -d`. Pacific
// prints weights with 3 decimals, which can lose information; we recompile
// our own text and warn on stderr when it would not give back the input
// bytes (as that release would encode them).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "compiler/compile.h"
#include "crush/ceph_release.h"
#include "crush/codec.h"
#include "osdmap/formats/crush_dump_json.h"
#include "osdmap/formats/input_sniff.h"
#include "tools/common/ceph_release_env.h"
#include "tools/common/file_io.h"
#include "tools/common/heap.h"
#include "tools/crushkit/ceph_release_option.h"
#include "tools/crushkit/commands.h"

namespace crushkit::tools {
namespace {

struct DecompileOptions {
  std::string input;
  std::string output = "-";
  std::string ceph_release;
};

int RunDecompile(const DecompileOptions& o) {
  absl::StatusOr<crush::CephRelease> release = ResolveCephRelease(o.ceph_release);
  if (!release.ok()) {
    std::cerr << "crushkit decompile: " << release.status().message() << "\n";
    return 1;
  }
  // Peak heap is ~40x the binary size (model, text, then the recompile check);
  // see heap.h.
  std::error_code size_error;
  const std::uintmax_t bin_size = std::filesystem::file_size(o.input, size_error);
  if (!size_error)
    PrepareHeapForLargeMaps(static_cast<std::size_t>(std::min<std::uintmax_t>(bin_size, 1u << 24)) *
                            40);
  absl::StatusOr<std::string> bytes = ReadFileBytes(o.input);
  if (!bytes.ok()) {
    std::cerr << "crushkit decompile: cannot read " << o.input << ": " << bytes.status().message()
              << "\n";
    return 1;
  }
  // `ceph osd crush dump -f json` decompiles as the map it holds.
  const bool dumped = osdmap::LooksLikeCrushDumpJson(*bytes);
  // A text map, another dump or other data is refused saying what it is; a
  // damaged binary map gets the decoder's error.
  if (absl::Status s = dumped ? absl::OkStatus()
                              : osdmap::CheckInputKind(osdmap::InputRole::kCrushBinary, *bytes);
      !s.ok()) {
    std::cerr << "crushkit decompile: " << o.input << ": " << s.message() << "\n";
    return 1;
  }
  absl::StatusOr<crush::MapModel> model =
      dumped ? osdmap::ReadCrushDumpJson(*bytes) : crush::DecodeCrushMap(*bytes);
  if (!model.ok()) {
    std::cerr << "crushkit decompile: cannot decode " << o.input << ": " << model.status().message()
              << "\n";
    return 1;
  }
  absl::StatusOr<std::string> text = compiler::Decompile(*model, *release);
  if (!text.ok()) {
    std::cerr << "crushkit decompile: " << o.input << ": " << text.status().message() << "\n";
    return 1;
  }
  // Lossiness check: does the text compile back to the input bytes?
  const compiler::SourceFile again("<decompiled " + o.input + ">", *std::move(text));
  absl::StatusOr<crush::MapModel> recompiled =
      compiler::Compile(again, nullptr, compiler::CompileOptions{.release = *release});
  if (!recompiled.ok()) {
    std::cerr << "crushkit decompile: warning: the decompiled text does not compile: "
              << recompiled.status().message() << "\n";
  } else if (crush::EncodeCrushMapAs(*std::move(recompiled), *release) !=
             crush::EncodeCrushMapAs(*model, *release)) {
    std::cerr
        << "crushkit decompile: warning: the decompiled text will not recompile to the same map"
        << " (text weights are rounded, or the map was not made by the compiler)\n";
  }
  if (absl::Status s = WriteFileAtomically(o.output, again.text()); !s.ok()) {
    std::cerr << "crushkit decompile: cannot write " << o.output << ": " << s.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

void AddDecompileCommand(CLI::App& app) {
  auto opts = std::make_shared<DecompileOptions>();
  CLI::App* cmd = app.add_subcommand(
      "decompile",
      "Decompile a binary crush map to text (crushtool -d)\n"
      "  example: ceph osd getcrushmap -o map.bin && crushkit decompile map.bin -o map.txt");
  cmd->add_option("input", opts->input, "binary crush map")->required();
  cmd->add_option("-o,--output", opts->output, "text output (default: standard output)");
  AddCephReleaseOption(cmd, &opts->ceph_release);
  cmd->callback([opts] {
    if (const int rc = RunDecompile(*opts); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
