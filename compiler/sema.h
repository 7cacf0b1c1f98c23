// Semantic analysis and lowering (private to the compiler): turns a parsed
// crush map into a MapModel with exactly the semantics of Ceph's
// CrushCompiler (src/crush/CrushCompiler.cc) and CrushWrapper's shadow-tree
// construction (populate_classes / device_class_clone).
#ifndef CRUSHKIT_COMPILER_SEMA_H_
#define CRUSHKIT_COMPILER_SEMA_H_

#include <optional>

#include "compiler/ast.h"
#include "compiler/diagnostics.h"
#include "compiler/source_file.h"
#include "crush/ceph_release.h"
#include "crush/model.h"

namespace crushkit::compiler {

// Lowers `file`. Reports every semantic error (up to the sink's cap) and
// returns nullopt if there was any; warnings alone do not fail.
// `release` selects the text dialect, `ceph_quirks` Ceph's handling of
// repeated ids and names (see CompileOptions).
std::optional<crush::MapModel> Lower(const SourceFile& src, const ast::CrushFile& file,
                                     DiagnosticSink& sink, crush::CephRelease release,
                                     bool ceph_quirks = false);

}  // namespace crushkit::compiler

#endif  // CRUSHKIT_COMPILER_SEMA_H_
