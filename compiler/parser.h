// Parser for Ceph's text crush map syntax (private to the compiler). It
// accepts exactly the statement order and forms of Ceph's crush_grammar
// (src/crush/grammar.h), including newer forms (rules without
// min_size/max_size, msr rule types and steps) that sema then rejects with a
// clear message. The first syntax error stops parsing (no cascades).
//
// Implemented by the Boost.Spirit X3 grammar in grammar_def.h, instantiated
// only in grammar.cc (see grammar_def.h for how errors are produced).
#ifndef CRUSHKIT_COMPILER_PARSER_H_
#define CRUSHKIT_COMPILER_PARSER_H_

#include <optional>

#include "compiler/ast.h"
#include "compiler/diagnostics.h"
#include "compiler/source_file.h"

namespace crushkit::compiler {

// Parses `src`. On a syntax error reports one diagnostic to `sink` and
// returns nullopt. Cost: linear in the input size.
std::optional<ast::CrushFile> Parse(const SourceFile& src, DiagnosticSink& sink);

}  // namespace crushkit::compiler

#endif  // CRUSHKIT_COMPILER_PARSER_H_
