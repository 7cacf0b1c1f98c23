// What every lowering pass of sema (private to the compiler) shares: the
// options, the diagnostics reporting, the model being built and the symbol
// tables that later passes look names up in. State used by one pass only
// lives in that pass (sema_passes.h lists them). Not thread-safe: one
// context per Lower() call.
#ifndef CRUSHKIT_COMPILER_SEMA_CONTEXT_H_
#define CRUSHKIT_COMPILER_SEMA_CONTEXT_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"

#include "compiler/ast.h"
#include "compiler/diagnostics.h"
#include "compiler/source_file.h"
#include "crush/ceph_release.h"
#include "crush/model.h"
#include "crush/util/diagnostics.h"

namespace crushkit::compiler::sema {

// CRUSH_MAX_DEVICE_WEIGHT / CRUSH_MAX_BUCKET_WEIGHT (crush.h).
constexpr crush::Weight kMaxDeviceWeight = 100u * 0x10000u;
constexpr crush::Weight kMaxBucketWeight = 65535u * 0x10000u;

// `s` in single quotes, as every message quotes names.
std::string Quote(std::string_view s);

// Spirit classic real_p, the only weight syntax Ceph's grammar takes.
bool IsRealLiteral(std::string_view s);

// A device or bucket name: its id and where it was declared.
struct Named {
  crush::ItemId id = 0;
  SourceRange decl;
};

// absl::Hash for std::string_view (Debian's Abseil has its own string_view).
struct ViewHash {
  std::size_t operator()(std::string_view s) const {
    return absl::Hash<absl::string_view>{}(absl::string_view(s.data(), s.size()));
  }
};

inline SourceRange DeclOf(const SourceRange& r) { return r; }

inline SourceRange DeclOf(const Named& n) { return n.decl; }

struct SemaContext {
  SemaContext(const SourceFile& source, DiagnosticSink& diagnostics,
              crush::CephRelease ceph_release, bool ceph_quirks)
      : src(source),
        sink(diagnostics),
        release(ceph_release),
        msr(crush::HasMsr(ceph_release)),
        quirks(ceph_quirks) {}

  // ---- diagnostics ---------------------------------------------------------
  void Error(SourceRange r, std::string msg, std::vector<Diagnostic> notes = {});
  void Warning(SourceRange r, std::string msg);
  // A warning about input accepted only because Ceph accepts it.
  void Quirk(SourceRange r, std::string msg);

  static Diagnostic Note(SourceRange r, std::string msg) {
    return Diagnostic{Severity::kNote, r, std::move(msg), {}};
  }

  static constexpr const std::map<std::string, SourceRange>* kNoDecls = nullptr;

  // Reports `msg` as an error, with "; did you mean 'x'?" and a note at the
  // declaration (when `decls` has one) if a name in `defined` is close.
  template <typename Map, typename Decls = std::map<std::string, SourceRange>>
  void UnknownName(SourceRange r, std::string msg, std::string_view name, const Map& defined,
                   const Decls* decls) {
    std::vector<std::string> candidates;
    candidates.reserve(defined.size());
    for (const auto& [n, unused] : defined) candidates.emplace_back(n);
    // Levenshtein, without transpositions: the diagnostics goldens pin it.
    const std::string best = util::ClosestName(name, candidates, {.transpositions = false});
    std::vector<Diagnostic> notes;
    if (!best.empty()) {
      msg += "; did you mean " + Quote(best) + "?";
      if (decls != nullptr) {
        if (auto it = decls->find(best); it != decls->end()) {
          notes.push_back(Note(DeclOf(it->second), Quote(best) + " declared here"));
        }
      }
    }
    Error(r, std::move(msg), std::move(notes));
  }

  // ---- conversions shared by the passes ------------------------------------
  // False (and an error naming `what`) if `n` does not fit in an int32.
  bool CheckInt32(const ast::Number& n, const char* what);
  // CrushCompiler::float_node() * (float)0x10000, truncated to unsigned;
  // rejects what Ceph would turn into garbage (negative, inf, nan, > 2^32).
  std::optional<crush::Weight> ConvertWeight(const ast::Word& w);
  // A weight_set weight. Ceph's parse_weight_set_weights stores
  // float_node() * (float)0x10000 into a __u32, undefined in C++ for values
  // below 0 or from 2^32 on; x86-64 builds convert through a signed 64-bit
  // integer (cvttss2si: the low 32 bits, 0 where it overflows). Ceph's own
  // maps can hold such weights (crushtool --remove-item leaves garbage in
  // weight sets, crushtool -d prints it, -c takes it back), so with quirks
  // they compile as those builds store them, with a warning; otherwise as
  // ConvertWeight.
  std::optional<crush::Weight> ConvertWeightSetWeight(const ast::Word& w);
  // CrushWrapper::get_or_create_class_id: new ids are max(existing) + 1.
  int ClassId(std::string_view name);

  const SourceFile& src;
  DiagnosticSink& sink;
  const crush::CephRelease release;
  const bool msr;  // the release knows MSR rules (Squid and later)
  // Accept repeated type/device ids and names as CrushCompiler does (the
  // last declaration wins), with a warning, instead of refusing them.
  const bool quirks;
  int errors = 0;
  crush::MapModel model;

  // CrushCompiler::item_id (devices and buckets named in the file) and
  // where each name was declared.
  // Keys view the AST's words (which outlive the context). A flat table:
  // every item of every bucket is looked up here, and on big maps the
  // node-based std::unordered_map spent its time in cache misses.
  absl::flat_hash_map<std::string_view, Named, ViewHash> names;
  std::map<std::string_view, int> type_id;  // CrushCompiler::type_id
  std::map<std::string_view, SourceRange> type_decl;
  std::map<std::string_view, int> class_id;  // CrushWrapper::class_rname
};

}  // namespace crushkit::compiler::sema

#endif  // CRUSHKIT_COMPILER_SEMA_CONTEXT_H_
