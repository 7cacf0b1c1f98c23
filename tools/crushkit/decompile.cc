// `crushkit decompile IN.bin [-o OUT.txt] [--dialect pacific|quincy|tentacle]`:
// binary crush map -> text, byte-identical with Pacific `crushtool -d` by
// default. Pacific prints weights with 3 decimals, which can lose
// information; we recompile our own text and warn on stderr when it would
// not give back the input bytes.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "compiler/compile.h"
#include "crush/codec.h"
#include "tools/common/file_io.h"
#include "tools/common/heap.h"
#include "tools/crushkit/commands.h"

namespace crushkit::tools {
namespace {

struct DecompileOptions {
  std::string input;
  std::string output = "-";
  compiler::Dialect dialect = compiler::Dialect::kPacific;
};

int RunDecompile(const DecompileOptions& o) {
  // Peak heap is ~40x the binary size (model, text, then the recompile check);
  // see heap.h.
  std::error_code size_error;
  const std::uintmax_t bin_size = std::filesystem::file_size(o.input, size_error);
  if (!size_error) PrepareHeapForLargeMaps(static_cast<std::size_t>(std::min<std::uintmax_t>(bin_size, 1u << 24)) * 40);
  absl::StatusOr<std::string> bytes = ReadFileBytes(o.input);
  if (!bytes.ok()) {
    std::cerr << "crushkit decompile: cannot read " << o.input << ": " << bytes.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<crush::MapModel> model = crush::DecodeCrushMap(*bytes);
  if (!model.ok()) {
    std::cerr << "crushkit decompile: cannot decode " << o.input << ": " << model.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> text = compiler::Decompile(*model, o.dialect);
  if (!text.ok()) {
    std::cerr << "crushkit decompile: " << o.input << ": " << text.status().message() << "\n";
    return 1;
  }
  // Lossiness check: does the text compile back to the input bytes?
  const compiler::SourceFile again("<decompiled " + o.input + ">", *std::move(text));
  absl::StatusOr<crush::MapModel> recompiled = compiler::Compile(
      again, nullptr, compiler::CompileOptions{.msr = o.dialect == compiler::Dialect::kTentacle});
  if (!recompiled.ok()) {
    std::cerr << "crushkit decompile: warning: the decompiled text does not compile: "
              << recompiled.status().message() << "\n";
  } else if (crush::EncodeCrushMap(*recompiled) != *bytes) {
    std::cerr << "crushkit decompile: warning: the decompiled text will not recompile to the same map"
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
  CLI::App* cmd = app.add_subcommand("decompile", "Decompile a binary crush map to text (crushtool -d)");
  cmd->add_option("input", opts->input, "binary crush map")->required();
  cmd->add_option("-o,--output", opts->output, "text output (default: standard output)");
  const std::map<std::string, compiler::Dialect> dialects{{"pacific", compiler::Dialect::kPacific},
                                                          {"quincy", compiler::Dialect::kQuincy},
                                                          {"tentacle", compiler::Dialect::kTentacle}};
  cmd->add_option("--dialect", opts->dialect,
                  "text dialect: pacific (default, 3 decimals), quincy, or tentacle (quincy + MSR)")
      ->transform(CLI::CheckedTransformer(dialects, CLI::ignore_case));
  cmd->callback([opts] {
    if (const int rc = RunDecompile(*opts); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
