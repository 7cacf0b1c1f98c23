#include "compiler/sema_context.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>

namespace crushkit::compiler::sema {

std::string Quote(std::string_view s) {
  std::string q;
  q.reserve(s.size() + 2);
  q += '\'';
  q += s;
  q += '\'';
  return q;
}

// Spirit classic real_p: [+-]? (digits [. digits*] | . digits) ([eE][+-]?digits)?
bool IsRealLiteral(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t int_digits = 0, frac_digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++int_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

void SemaContext::Error(SourceRange r, std::string msg, std::vector<Diagnostic> notes) {
  ++errors;
  sink.Report(Diagnostic{Severity::kError, r, std::move(msg), std::move(notes)});
}

void SemaContext::Warning(SourceRange r, std::string msg) {
  sink.Report(Diagnostic{Severity::kWarning, r, std::move(msg), {}});
}

void SemaContext::Quirk(SourceRange r, std::string msg) {
  const LineCol at = src.Locate(r.offset);
  sink.ReportCephQuirk(src.name() + ":" + std::to_string(at.line) + ":" +
                       std::to_string(at.column) + ": warning: " + msg);
  Warning(r, std::move(msg));
}

bool SemaContext::CheckInt32(const ast::Number& n, const char* what) {
  if (n.fits_int32) return true;
  Error(n.range, std::string(what) + " " + std::to_string(n.value) + " does not fit in 32 bits");
  return false;
}

std::optional<crush::Weight> SemaContext::ConvertWeight(const ast::Word& w) {
  if (!IsRealLiteral(w.text)) {
    Error(w.range, "invalid weight " + Quote(w.text) + "; expected a non-negative decimal number");
    return std::nullopt;
  }
  // IsRealLiteral bounds the token, but strtof needs a terminated copy.
  const float f = std::strtof(std::string(w.text).c_str(), nullptr);
  if (std::signbit(f) && f != 0.0f) {
    Error(w.range, "weight " + Quote(w.text) + " is negative");
    return std::nullopt;
  }
  const float scaled = f * static_cast<float>(0x10000);
  if (!std::isfinite(f) || !(scaled < 4294967296.0f)) {
    Error(w.range,
          "weight " + Quote(w.text) + " is out of the 16.16 fixed-point range (max 65535.99998)");
    return std::nullopt;
  }
  return static_cast<crush::Weight>(scaled);
}

std::optional<crush::Weight> SemaContext::ConvertWeightSetWeight(const ast::Word& w) {
  if (!quirks || !IsRealLiteral(w.text)) return ConvertWeight(w);
  const float scaled =
      std::strtof(std::string(w.text).c_str(), nullptr) * static_cast<float>(0x10000);
  if (scaled >= 0.0f && scaled < 4294967296.0f) return ConvertWeight(w);
  constexpr float kTwo63 = 9223372036854775808.0f;
  const std::int64_t wide = std::fabs(scaled) < kTwo63 ? static_cast<std::int64_t>(scaled)
                                                       : std::numeric_limits<std::int64_t>::min();
  const auto stored = static_cast<crush::Weight>(static_cast<std::uint64_t>(wide));
  Quirk(w.range, "weight_set weight " + Quote(w.text) +
                     " is outside 0 to 65535.99998; Ceph's conversion to an unsigned 32-bit "
                     "weight is undefined there, stored as x86-64 builds of Ceph store it (" +
                     std::to_string(stored) + " / 0x10000)");
  return stored;
}

int SemaContext::ClassId(std::string_view name) {
  if (auto it = class_id.find(name); it != class_id.end()) return it->second;
  const int id = model.class_names.empty() ? 0 : model.class_names.rbegin()->first + 1;
  model.class_names[id] = std::string(name);
  class_id[name] = id;
  return id;
}

}  // namespace crushkit::compiler::sema
