#include "compiler/diagnostics.h"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <utility>

#include "crush/util/text_excerpt.h"

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
    out += src.name() + ": note: " + std::to_string(error_count_ - kMaxErrors) +
           " more errors not shown\n";
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
  // Messages may quote the source, and a "line" may be a whole one-line
  // file (JSON given as a text map): both are bounded (crush/util/text_excerpt.h).
  std::string out = src.name() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column) +
                    ": " + SeverityName(d.severity) + ": " + util::BoundMessage(d.message) + "\n";
  out +=
      util::CaretLines(src.Line(lc.line), static_cast<std::size_t>(lc.column) - 1, d.range.length);
  for (const Diagnostic& n : d.notes) out += FormatDiagnostic(src, n);
  return out;
}

namespace {

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string ClosestName(const std::string& name, const std::vector<std::string>& candidates) {
  // Like clang's typo correction: accept up to a third of the name's length.
  const std::size_t limit = std::max<std::size_t>(1, name.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    // Skip the obviously too different before the quadratic distance.
    const std::size_t diff =
        c.size() > name.size() ? c.size() - name.size() : name.size() - c.size();
    if (diff > limit) continue;
    const std::size_t d = EditDistance(name, c);
    // Ties go to the lexicographically smallest name, whatever the
    // candidates' order.
    if (d < best_distance || (d == best_distance && c < best)) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace crushkit::compiler
