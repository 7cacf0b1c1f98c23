// Public API of the CRUSH text compiler: Ceph's text crush map syntax (as
// accepted by Pacific `crushtool -c`, plus newer syntax that is parsed and
// then rejected with a clear error) to a crush::MapModel, and back to text
// exactly as Pacific `crushtool -d` prints it.
//
// Compile() reproduces Ceph's CrushCompiler semantics, so that encoding the
// returned model with crush/codec.h yields the same bytes as `crushtool -c`.
// Errors are reported gcc-style through a DiagnosticSink (see
// diagnostics.h). All functions are pure; concurrent calls on distinct
// arguments are safe.
#ifndef CRUSHKIT_COMPILER_COMPILE_H_
#define CRUSHKIT_COMPILER_COMPILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "compiler/diagnostics.h"
#include "compiler/source_file.h"
#include "crush/model.h"

namespace crushkit::compiler {

// Compiles `src`. On success returns the model; on failure returns
// kInvalidArgument whose message is the first formatted diagnostic, and, if
// `sink` is non-null, records every diagnostic there (the first syntax error,
// or all semantic errors up to DiagnosticSink::kMaxErrors). Never throws.
// Cost: linear in the text size plus Ceph's O(buckets^2) bucket reordering.
absl::StatusOr<crush::MapModel> Compile(const SourceFile& src,
                                        DiagnosticSink* sink = nullptr);

// Text flavours of the decompiler. kPacific is byte-identical with Ceph 16.2
// `crushtool -d`; kQuincy prints weights with 5 decimals and omits
// min_size/max_size (Ceph 17+).
enum class Dialect { kPacific, kQuincy };

// Decompiles `m` to text. Fails with kInvalidArgument if the buckets contain
// a cycle (Ceph prints an error in that case too). Never throws.
absl::StatusOr<std::string> Decompile(const crush::MapModel& m,
                                      Dialect dialect = Dialect::kPacific);

}  // namespace crushkit::compiler

#endif  // CRUSHKIT_COMPILER_COMPILE_H_
