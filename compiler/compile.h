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

// Syntax newer than Pacific's that Compile() accepts on request.
struct CompileOptions {
  // MSR rules (Ceph 19.2+ `crushtool -c`): rule types msr_firstn and
  // msr_indep, steps `choosemsr N type T`, `set_msr_descents N` and
  // `set_msr_collision_tries N`, tunables msr_descents and
  // msr_collision_tries. Like Ceph's compiler, no rule shape is checked (the
  // mapper maps a malformed MSR rule to nothing). The model then carries the
  // msr tail (EncodedTail::kMsr), which Ceph 19.2+ always writes.
  // Off (the Pacific default): each is an error naming Ceph Pacific.
  bool msr = false;
};

// Compile() with `options`; the overload above uses CompileOptions{}.
absl::StatusOr<crush::MapModel> Compile(const SourceFile& src, DiagnosticSink* sink,
                                        const CompileOptions& options);

// Text flavours of the decompiler. kPacific is byte-identical with Ceph 16.2
// `crushtool -d`; kQuincy prints weights with 5 decimals and omits
// min_size/max_size (Ceph 17+); kTentacle is kQuincy plus MSR rule types,
// steps and tunables (Ceph 19.2+, byte-identical with 20.2 `crushtool -d`).
enum class Dialect { kPacific, kQuincy, kTentacle };

// Decompiles `m` to text. Fails with kInvalidArgument if the buckets contain
// a cycle (Ceph prints an error in that case too). Never throws.
absl::StatusOr<std::string> Decompile(const crush::MapModel& m,
                                      Dialect dialect = Dialect::kPacific);

}  // namespace crushkit::compiler

#endif  // CRUSHKIT_COMPILER_COMPILE_H_
