#include "compiler/diagnostics.h"

#include <cstddef>
#include <string>
#include <utility>

#include "crush/util/diagnostics.h"

namespace crushkit::compiler {

void DiagnosticSink::Report(Diagnostic d) {
  if (d.severity == Severity::kError) {
    ++error_count_;
    if (error_count_ > kMaxErrors) return;
  }
  diagnostics_.push_back(std::move(d));
}

void DiagnosticSink::Clear() {
  diagnostics_.clear();
  ceph_messages_.clear();
  ceph_error_.clear();
  ceph_quirks_.clear();
  error_count_ = 0;
}

std::string DiagnosticSink::Format(const SourceFile& src) const {
  std::string out;
  for (const Diagnostic& d : diagnostics_) out += FormatDiagnostic(src, d);
  if (error_count_ > kMaxErrors) {
    out += util::MoreErrorsNote(src.name(), static_cast<std::size_t>(error_count_ - kMaxErrors));
  }
  return out;
}

namespace {

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

}  // namespace

std::string FormatDiagnostic(const SourceFile& src, const Diagnostic& d) {
  const LineCol lc = src.Locate(d.range.offset);
  std::string out = util::RenderCaretDiagnostic({.file = src.name(),
                                                 .line = lc.line,
                                                 .column = lc.column,
                                                 .severity = SeverityName(d.severity),
                                                 .message = d.message,
                                                 .source = src.Line(lc.line),
                                                 .length = d.range.length});
  for (const Diagnostic& n : d.notes) out += FormatDiagnostic(src, n);
  return out;
}

}  // namespace crushkit::compiler
