#include "compiler/compile.h"

#include <exception>
#include <optional>
#include <string>

#include "compiler/parser.h"
#include "compiler/sema.h"

namespace crushkit::compiler {
namespace {

absl::Status FirstError(const SourceFile& src, const DiagnosticSink& sink) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity != Severity::kError) continue;
    std::string text = FormatDiagnostic(src, d);
    return absl::InvalidArgumentError(text.substr(0, text.find('\n')));
  }
  return absl::InvalidArgumentError(src.name() + ": compilation failed");
}

}  // namespace

absl::StatusOr<crush::MapModel> Compile(const SourceFile& src, DiagnosticSink* sink,
                                        const CompileOptions& options) {
  DiagnosticSink local;
  DiagnosticSink& s = sink != nullptr ? *sink : local;
  try {
    std::optional<ast::CrushFile> file = Parse(src, s);
    if (!file) return FirstError(src, s);
    std::optional<crush::MapModel> model =
        Lower(src, *file, s, options.release, options.ceph_quirks);
    if (!model) return FirstError(src, s);
    return *std::move(model);
  } catch (const std::exception& e) {
    return absl::InternalError(std::string("compiler failure: ") + e.what());
  }
}

}  // namespace crushkit::compiler
