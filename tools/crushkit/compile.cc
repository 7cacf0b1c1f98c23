// `crushkit compile IN.txt -o OUT.bin [--msr]`: text crush map -> Ceph binary
// map, byte-identical with `crushtool -c` (with --msr: with Ceph 20.2's, for
// maps using MSR rules or tunables). Diagnostics go to stderr; on any error
// nothing is written and the exit code is 1.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "compiler/compile.h"
#include "crush/codec.h"
#include "tools/common/file_io.h"
#include "tools/common/heap.h"
#include "tools/crushkit/commands.h"

namespace crushkit::tools {
namespace {

struct CompileOptions {
  std::string input;
  std::string output;
  bool msr = false;  // compiler::CompileOptions::msr
};

int RunCompile(const CompileOptions& o) {
  // Peak heap is ~17x the text size (AST + model + output); see heap.h.
  std::error_code size_error;
  const std::uintmax_t text_size = std::filesystem::file_size(o.input, size_error);
  if (!size_error) PrepareHeapForLargeMaps(static_cast<std::size_t>(std::min<std::uintmax_t>(text_size, 1u << 26)) * 20);
  absl::StatusOr<std::string> text = ReadFileBytes(o.input);
  if (!text.ok()) {
    std::cerr << "crushkit compile: cannot read " << o.input << ": " << text.status().message() << "\n";
    return 1;
  }
  const compiler::SourceFile src(o.input, *std::move(text));
  compiler::DiagnosticSink sink;
  absl::StatusOr<crush::MapModel> model = compiler::Compile(src, &sink, compiler::CompileOptions{.msr = o.msr});
  std::cerr << sink.Format(src);
  if (!model.ok()) {
    if (sink.diagnostics().empty()) std::cerr << model.status().message() << "\n";
    return 1;
  }
  if (absl::Status s = WriteFileAtomically(o.output, crush::EncodeCrushMap(*model)); !s.ok()) {
    std::cerr << "crushkit compile: cannot write " << o.output << ": " << s.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

void AddCompileCommand(CLI::App& app) {
  auto opts = std::make_shared<CompileOptions>();
  CLI::App* cmd = app.add_subcommand("compile", "Compile a text crush map to Ceph's binary format (crushtool -c)");
  cmd->add_option("input", opts->input, "text crush map")->required();
  cmd->add_option("-o,--output", opts->output, "binary crush map to write")->required();
  cmd->add_flag("--msr", opts->msr,
                "accept MSR rules and tunables (Ceph 19.2+) and write the msr tunables as 19.2+ does");
  cmd->callback([opts] {
    if (const int rc = RunCompile(*opts); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
