// Compiler diagnostics in gcc/clang form:
//
//   rack.crush:12:7: error: unknown bucket 'host9' in bucket 'rack1'; did you mean 'host1'?
//   	item host9 weight 1.000
//   	     ^~~~~
//   rack.crush:3:6: note: 'host1' declared here
//
// Messages are lowercase, without a trailing period, and quote names. The
// source line is copied (tabs kept) and the caret line reuses its tabs so
// the caret lines up in any tab width. A line wider than ~80 columns shows
// ~80 columns around the caret, control bytes print as \xNN and quotes in
// messages are cut at 80 bytes (rendered by crush/util/diagnostics.h, as the
// change files' are), so no diagnostic echoes a whole file. A DiagnosticSink
// collects diagnostics of one compilation; it is not thread-safe.
#ifndef CRUSHKIT_COMPILER_DIAGNOSTICS_H_
#define CRUSHKIT_COMPILER_DIAGNOSTICS_H_

#include <string>
#include <utility>
#include <vector>

#include "compiler/source_file.h"

namespace crushkit::compiler {

enum class Severity { kError, kWarning, kNote };

struct Diagnostic {
  Severity severity = Severity::kError;
  SourceRange range;
  std::string message;
  // Notes printed after the main message (e.g. "'x' declared here").
  std::vector<Diagnostic> notes;
};

class DiagnosticSink {
 public:
  // Semantic errors reported in one run are capped at this many.
  static constexpr int kMaxErrors = 20;

  // Records `d`. Errors beyond kMaxErrors are counted but not stored.
  void Report(Diagnostic d);

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  int error_count() const { return error_count_; }

  // Lines Ceph's own compiler prints on stderr for this input (e.g. Reef's
  // "WARNING: min_size is no longer supported, ignoring"), in order; the
  // crushtool front repeats them verbatim. Each also has a diagnostic.
  void ReportCephMessage(std::string line) { ceph_messages_.push_back(std::move(line)); }

  const std::vector<std::string>& ceph_messages() const { return ceph_messages_; }

  // What Ceph's CrushCompiler prints (with its newline) for the first error
  // it stops at, where crushkit knows its wording; "" otherwise (also when
  // an earlier error had no Ceph wording). Called just before reporting that
  // error. The crushtool front prints it instead of crushkit's diagnostics.
  void ReportCephError(std::string text) {
    if (error_count_ == 0 && ceph_error_.empty()) ceph_error_ = std::move(text);
  }

  const std::string& ceph_error() const { return ceph_error_; }

  // Inputs accepted only for Ceph's sake (CompileOptions::ceph_quirks), one
  // line each, also reported as warnings; the crushtool front prints them.
  void ReportCephQuirk(std::string line) { ceph_quirks_.push_back(std::move(line)); }

  const std::vector<std::string>& ceph_quirks() const { return ceph_quirks_; }

  bool has_errors() const { return error_count_ > 0; }

  void Clear();

  // All stored diagnostics formatted against `src`, each ending in '\n'.
  // Adds a final "N errors generated" style line when errors were dropped.
  std::string Format(const SourceFile& src) const;

 private:
  std::vector<Diagnostic> diagnostics_;
  std::vector<std::string> ceph_messages_;
  std::string ceph_error_;
  std::vector<std::string> ceph_quirks_;
  int error_count_ = 0;
};

// Formats one diagnostic (and its notes) against `src`.
std::string FormatDiagnostic(const SourceFile& src, const Diagnostic& d);

}  // namespace crushkit::compiler

#endif  // CRUSHKIT_COMPILER_DIAGNOSTICS_H_
