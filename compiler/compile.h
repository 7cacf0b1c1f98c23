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
#include "crush/ceph_release.h"
#include "crush/model.h"

namespace crushkit::compiler {

struct CompileOptions {
  // The text dialect: Pacific keeps each rule's min_size/max_size; Reef and
  // later ignore them (with a warning, and Ceph's own line in
  // DiagnosticSink::ceph_messages) and store 1/100, as their CrushCompiler
  // does. Tentacle also accepts MSR rules (Ceph 19.2+): rule types
  // msr_firstn/msr_indep, steps `choosemsr N type T`, `set_msr_descents N`,
  // `set_msr_collision_tries N`, tunables msr_descents/msr_collision_tries;
  // like Ceph's compiler no rule shape is checked (the mapper maps a
  // malformed MSR rule to nothing). Older releases report them as errors.
  crush::CephRelease release = crush::kDefaultCephRelease;
  // Ceph's CrushCompiler accepts repeated type ids, type names and device
  // ids (the last declaration wins, earlier names keep resolving); crushkit
  // refuses them unless this is set (then: a warning each, Ceph's bytes).
  // The crushtool front sets it; `crushkit compile --allow-ceph-quirks` too.
  bool ceph_quirks = false;
};

// Compiles `src`. On success returns the model; on failure returns
// kInvalidArgument whose message is the first formatted diagnostic, and, if
// `sink` is non-null, records every diagnostic there (the first syntax error,
// or all semantic errors up to DiagnosticSink::kMaxErrors). Never throws.
// Cost: linear in the text size plus Ceph's O(buckets^2) bucket reordering.
absl::StatusOr<crush::MapModel> Compile(const SourceFile& src, DiagnosticSink* sink = nullptr,
                                        const CompileOptions& options = {});

// Decompiles `m` to text exactly as `release`'s `crushtool -d` prints it:
// Pacific prints weights with 3 decimals and each rule's min_size/max_size;
// Reef and later print 5 decimals and no sizes. Fails with kInvalidArgument
// if the buckets contain a cycle (Ceph prints an error in that case too).
// Never throws.
absl::StatusOr<std::string> Decompile(const crush::MapModel& m,
                                      crush::CephRelease release = crush::kDefaultCephRelease);

}  // namespace crushkit::compiler

#endif  // CRUSHKIT_COMPILER_COMPILE_H_
