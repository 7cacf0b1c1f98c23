// Parse() (parser.h), implemented by the Boost.Spirit X3 grammar in
// grammar_def.h. This is the only translation unit that instantiates it: X3
// expansion is slow to compile, so nothing else includes grammar_def.h.
#include <cstddef>
#include <string>

#include <boost/spirit/home/x3.hpp>

#include "compiler/grammar_def.h"
#include "compiler/parser.h"

namespace crushkit::compiler {
namespace {

// "\xNN" for bytes that would not print.
std::string ShowChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string(1, c);
  constexpr char kHex[] = "0123456789abcdef";
  return std::string("\\x") + kHex[(u >> 4) & 0xf] + kHex[u & 0xf];
}

}  // namespace

std::optional<ast::CrushFile> Parse(const SourceFile& src, DiagnosticSink& sink) {
  namespace x3 = boost::spirit::x3;
  const std::string& text = src.text();
  const char* const base = text.data();
  const char* const end = base + text.size();

  // Lexical errors first, wherever they are: a stray byte anywhere makes
  // the whole input unreadable, as for Ceph's tokenizer.
  const char* lex = base;
  x3::parse(lex, end, grammar::lexical_check);
  if (lex != end) {
    sink.Report(Diagnostic{Severity::kError,
                           SourceRange{static_cast<std::size_t>(lex - base), 1},
                           "unexpected character '" + ShowChar(*lex) + "'",
                           {}});
    return std::nullopt;
  }
  if (text.size() > 0xffffffffu) {  // SourceRange users assume 32-bit offsets
    sink.Report(Diagnostic{Severity::kError, SourceRange{0, 0}, "input larger than 4 GiB", {}});
    return std::nullopt;
  }

  const grammar::SyntaxErrorReporter reporter(src, sink);
  ast::CrushFile file;
  // Header statements (devices above all) take a line each in any real map;
  // reserving for that many avoids regrowing a large vector of nodes.
  file.header.reserve(static_cast<std::size_t>(src.line_count()));
  const char* first = base;
  const bool ok =
      x3::phrase_parse(first, end,
                       x3::with<grammar::BaseTag>(
                           base)[x3::with<grammar::ReporterTag>(reporter)[grammar::crush_file]],
                       grammar::skipper, file);
  if (!ok || first != end) {
    // crush_file ends with eoi and every failure inside it is an expectation,
    // so this is only reached after on_error reported; keep the promise of
    // one diagnostic regardless.
    if (!reporter.reported()) reporter.Expected(first, "a statement");
    return std::nullopt;
  }
  return file;
}

}  // namespace crushkit::compiler
