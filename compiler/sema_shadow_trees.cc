// Device-class shadow trees of a compiled map: CrushWrapper::populate_classes
// as CrushCompiler runs it before the first rule, and the warning when Ceph
// would silently keep a partial result.
#include <string>
#include <utility>

#include "absl/status/status.h"

#include "compiler/sema_passes.h"
#include "crush/edit/edit.h"

namespace crushkit::compiler::sema {
namespace {

// The file's other "id N class C" line that holds `shadow_id`, if any.
const SourceRange* OtherDeclOfShadowId(const FileShadowIds& shadow_ids,
                                       const std::pair<int, int>& except, crush::ItemId shadow_id) {
  for (const auto& [key, range] : shadow_ids.decl) {
    auto by_class = shadow_ids.ids.find(key.first);
    if (by_class == shadow_ids.ids.end()) continue;
    auto id = by_class->second.find(key.second);
    if (id != by_class->second.end() && id->second == shadow_id && key != except) return &range;
  }
  return nullptr;
}

// Rewrites `d` to name the shadow bucket whose file id (declared at `decl`)
// was already taken, and where else that id is declared.
void BlameTakenShadowId(SemaContext& ctx, const FileShadowIds& shadow_ids,
                        const crush::ShadowCloneConflict& conflict,
                        const std::pair<const std::pair<int, int>, SourceRange>& decl,
                        Diagnostic& d) {
  crush::MapModel& m = ctx.model;
  d.range = decl.second;
  std::string holder;
  if (auto h = m.item_names.find(conflict.shadow_id); h != m.item_names.end())
    holder = " by " + Quote(h->second);
  d.message = "device class shadow trees are incomplete: shadow bucket " +
              Quote(m.item_names[conflict.original] + "~" + m.class_names[conflict.device_class]) +
              ": id " + std::to_string(conflict.shadow_id) + " (" +
              Quote(m.class_names[conflict.device_class]) + " shadow of " +
              Quote(m.item_names[conflict.original]) + ") is already used" + holder +
              " (as in Ceph, this and every later shadow bucket is not built)";
  if (const SourceRange* other = OtherDeclOfShadowId(shadow_ids, decl.first, conflict.shadow_id)) {
    d.notes.push_back(SemaContext::Note(*other, "that id is declared here"));
  }
}

}  // namespace

void PopulateClasses(SemaContext& ctx, const FileShadowIds& shadow_ids, SourceRange where) {
  if (ctx.model.class_names.empty()) return;  // no class, no shadow tree to clone
  crush::ShadowCloneConflict conflict;        // original stays 0 unless an id was taken
  const absl::Status s = crush::PopulateShadowTrees(ctx.model, shadow_ids.ids, &conflict);
  if (s.ok()) return;
  // Ceph ignores populate_classes() failing and keeps what it built (every
  // shadow bucket cloned after the failure is missing too). A file shadow
  // id that is already taken is reported where it was declared.
  Diagnostic d{Severity::kWarning,
               where,
               "device class shadow trees are incomplete: " + std::string(s.message()),
               {}};
  auto decl = shadow_ids.decl.find({conflict.original, conflict.device_class});
  if (conflict.original < 0 && decl != shadow_ids.decl.end()) {
    BlameTakenShadowId(ctx, shadow_ids, conflict, *decl, d);
  }
  ctx.sink.Report(std::move(d));
}

}  // namespace crushkit::compiler::sema
