// Semantic analysis + lowering. The order of operations, id assignment and
// every derived number follow Ceph's CrushCompiler::compile/parse_* and
// CrushWrapper::populate_classes/device_class_clone; comments name the Ceph
// function reproduced. Where Ceph silently accepts nonsense (duplicate
// names, 64-bit ids truncated to int) we report an error instead; where
// Ceph crashes (uniform buckets of weight 0) we report an error too.
//
// This file runs the passes (sema_passes.h) in CrushCompiler::compile's
// order: header, buckets, rules (shadow trees before the first),
// choose_args, finalize.
#include "compiler/sema.h"

#include <utility>
#include <variant>
#include <vector>

#include "compiler/sema_context.h"
#include "compiler/sema_passes.h"
#include "crush/edit/edit.h"

namespace crushkit::compiler {
namespace {

using sema::SemaContext;

// The body's buckets and rules, each in file order. A bucket after the
// first rule is an error (Ceph's grammar stops there) and is left out.
struct Body {
  std::vector<const ast::Bucket*> buckets;
  std::vector<const ast::Rule*> rules;
};

Body SplitBody(SemaContext& ctx, const std::vector<ast::BodyStatement>& body) {
  Body split;
  for (const ast::BodyStatement& st : body) {
    if (const auto* b = std::get_if<ast::Bucket>(&st)) {
      if (!split.rules.empty()) {
        ctx.sink.ReportCephError("buckets must be defined before rules\n");
        ctx.Error(b->type.range, "buckets must be defined before rules",
                  {SemaContext::Note(split.rules.front()->keyword.range, "first rule is here")});
        continue;
      }
      split.buckets.push_back(b);
    } else {
      split.rules.push_back(&std::get<ast::Rule>(st));
    }
  }
  return split;
}

// CrushWrapper::finalize.
void Finalize(SemaContext& ctx) {
  crush::FinalizeMaxDevices(ctx.model);
  ctx.model.tail = ctx.msr ? crush::EncodedTail::kMsr : crush::EncodedTail::kChooseArgs;
}

}  // namespace

std::optional<crush::MapModel> Lower(const SourceFile& src, const ast::CrushFile& file,
                                     DiagnosticSink& sink, crush::CephRelease release,
                                     bool ceph_quirks) {
  SemaContext ctx(src, sink, release, ceph_quirks);
  // CrushCompiler::compile: always start from legacy tunables.
  ctx.model.tunables = crush::Tunables{};
  // Every device and bucket declares one name: size the table once.
  ctx.names.reserve(file.header.size() + file.body.size());
  sema::LowerHeader(ctx, file.header);
  const Body body = SplitBody(ctx, file.body);
  const sema::FileShadowIds shadow_ids = sema::LowerBuckets(ctx, body.buckets);
  sema::LowerRules(ctx, body.rules, shadow_ids);
  sema::LowerChooseArgs(ctx, file.choose_args);
  Finalize(ctx);
  if (ctx.errors > 0) return std::nullopt;
  return std::move(ctx.model);
}

}  // namespace crushkit::compiler
