// `crushkit compile IN.txt -o OUT.bin [--ceph-release R]`: text crush map ->
// Ceph binary map, byte-identical with that release's `crushtool -c`. Diagnostics go to stderr; on
// any error nothing is written and the exit code is 1.
#include "compiler/compile.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "crush/ceph_release.h"
#include "osdmap/formats/crush_dump_json.h"
#include "osdmap/formats/input_sniff.h"
#include "tools/common/ceph_release_env.h"
#include "tools/common/file_io.h"
#include "tools/common/heap.h"
#include "tools/crushkit/ceph_release_option.h"
#include "tools/crushkit/commands.h"

namespace crushkit::tools {
namespace {

struct CompileOptions {
  std::string input;
  std::string output;
  std::string ceph_release;
  bool ceph_quirks = false;
};

int RunCompile(const CompileOptions& o) {
  absl::StatusOr<crush::CephRelease> release = ResolveCephRelease(o.ceph_release);
  if (!release.ok()) {
    std::cerr << "crushkit compile: " << release.status().message() << "\n";
    return 1;
  }
  // Peak heap is ~17x the text size (AST + model + output); see heap.h.
  std::error_code size_error;
  const std::uintmax_t text_size = std::filesystem::file_size(o.input, size_error);
  if (!size_error)
    PrepareHeapForLargeMaps(
        static_cast<std::size_t>(std::min<std::uintmax_t>(text_size, 1u << 26)) * 20);
  absl::StatusOr<std::string> text = ReadFileBytes(o.input);
  if (!text.ok()) {
    std::cerr << "crushkit compile: cannot read " << o.input << ": " << text.status().message()
              << "\n";
    return 1;
  }
  // `ceph osd crush dump -f json` compiles to the map it holds.
  if (osdmap::LooksLikeCrushDumpJson(*text)) {
    absl::StatusOr<crush::MapModel> dumped = osdmap::ReadCrushDumpJson(*text);
    if (!dumped.ok()) {
      std::cerr << "crushkit compile: " << o.input << ": " << dumped.status().message() << "\n";
      return 1;
    }
    if (absl::Status s = WriteFileAtomically(o.output, crush::EncodeCrushMapAs(*dumped, *release));
        !s.ok()) {
      std::cerr << "crushkit compile: cannot write " << o.output << ": " << s.message() << "\n";
      return 1;
    }
    return 0;
  }
  // A binary file, another JSON dump or a change file is refused saying what it is.
  if (absl::Status s = osdmap::CheckInputKind(osdmap::InputRole::kCrushText, *text); !s.ok()) {
    std::cerr << "crushkit compile: " << o.input << ": " << s.message() << "\n";
    return 1;
  }
  const compiler::SourceFile src(o.input, *std::move(text));
  compiler::DiagnosticSink sink;
  absl::StatusOr<crush::MapModel> model = compiler::Compile(
      src, &sink, compiler::CompileOptions{.release = *release, .ceph_quirks = o.ceph_quirks});
  std::cerr << sink.Format(src);
  if (!model.ok()) {
    if (sink.diagnostics().empty()) std::cerr << model.status().message() << "\n";
    return 1;
  }
  const std::string bytes = crush::EncodeCrushMapAs(*std::move(model), *release);
  if (absl::Status s = WriteFileAtomically(o.output, bytes); !s.ok()) {
    std::cerr << "crushkit compile: cannot write " << o.output << ": " << s.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

void AddCompileCommand(CLI::App& app) {
  auto opts = std::make_shared<CompileOptions>();
  CLI::App* cmd =
      app.add_subcommand("compile",
                         "Compile a text crush map to Ceph's binary format (crushtool -c)\n"
                         "  example: crushkit compile map.txt -o map.bin");
  cmd->add_option("input", opts->input, "text crush map")->required();
  cmd->add_option("-o,--output", opts->output, "binary crush map to write")->required();
  AddCephReleaseOption(cmd, &opts->ceph_release);
  cmd->add_flag(
      "--allow-ceph-quirks", opts->ceph_quirks,
      "accept repeated type ids, type names and device ids as Ceph does (the last wins), with a "
      "warning each");
  cmd->callback([opts] {
    if (const int rc = RunCompile(*opts); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
