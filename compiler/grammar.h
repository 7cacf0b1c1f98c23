// The Boost.Spirit X3 grammar of Ceph's text crush map syntax (private to
// the compiler). It produces the same ast::CrushFile as parser.h's contract:
// exactly the statement order and forms of Ceph's crush_grammar
// (src/crush/grammar.h), including newer forms (rules without
// min_size/max_size, msr rule types and steps) that sema then rejects. The
// first syntax error stops parsing (no cascades).
//
// This header deliberately includes no X3 header: the rules live in
// grammar_def.h and are instantiated only in grammar.cc, so callers do not
// pay X3's compile time.
#ifndef CRUSHKIT_COMPILER_GRAMMAR_H_
#define CRUSHKIT_COMPILER_GRAMMAR_H_

#include <optional>

#include "compiler/ast.h"
#include "compiler/diagnostics.h"
#include "compiler/source_file.h"

namespace crushkit::compiler {

// Parses `src`. On a lexical or syntax error reports one diagnostic
// ("expected X, found Y" at the offending token) to `sink` and returns
// nullopt. Cost: linear in the input size; no recursion on input depth.
std::optional<ast::CrushFile> ParseWithX3(const SourceFile& src, DiagnosticSink& sink);

}  // namespace crushkit::compiler

#endif  // CRUSHKIT_COMPILER_GRAMMAR_H_
