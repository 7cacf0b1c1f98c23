// The passes of sema (private to the compiler), in the order Lower()
// (sema.cc) runs them, one file each. Each pass reports into and builds
// through the shared SemaContext; what one pass hands to a later one is
// spelled out in the signatures (FileShadowIds).
#ifndef CRUSHKIT_COMPILER_SEMA_PASSES_H_
#define CRUSHKIT_COMPILER_SEMA_PASSES_H_

#include <cstddef>
#include <map>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ast.h"
#include "compiler/sema_context.h"
#include "compiler/source_file.h"
#include "crush/types.h"

namespace crushkit::compiler::sema {

// sema_header.cc: tunables, devices and types, in file order
// (CrushCompiler::parse_tunable, parse_device, parse_bucket_type).
void LowerHeader(SemaContext& ctx, const std::vector<ast::HeaderStatement>& header);

// The "id N class C" lines of the file's buckets (CrushCompiler::class_bucket):
// populate_classes gives those shadow buckets these ids.
struct FileShadowIds {
  std::map<int, std::map<int, crush::ItemId>> ids;  // bucket id -> class id -> shadow id
  // Where each entry was declared: a shadow id found taken is reported there.
  std::map<std::pair<int, int>, SourceRange> decl;
};

// sema_bucket_order.cc: reports each cycle among bucket definitions once and
// returns the names on a cycle (their items are not reported again).
std::set<std::string_view> ReportBucketCycles(SemaContext& ctx,
                                              const std::vector<const ast::Bucket*>& buckets);
// sema_bucket_order.cc: the order (indexes into `buckets`) in which Ceph's
// CrushCompiler lowers bucket definitions, which decides their ids.
std::vector<std::size_t> CephBucketOrder(const std::vector<const ast::Bucket*>& buckets);

// sema_buckets.cc: every bucket definition (CrushCompiler::parse_bucket), in
// Ceph's order. Returns the file's shadow ids for PopulateClasses.
FileShadowIds LowerBuckets(SemaContext& ctx, const std::vector<const ast::Bucket*>& buckets);

// sema_shadow_trees.cc: CrushWrapper::populate_classes, as CrushCompiler
// runs it before the first rule. A failure is a warning at `where` (or at
// the file shadow id that was taken), as Ceph ignores it.
void PopulateClasses(SemaContext& ctx, const FileShadowIds& shadow_ids, SourceRange where);

// sema_rules.cc: every rule (CrushCompiler::parse_rule), in file order;
// builds the shadow trees before the first one.
void LowerRules(SemaContext& ctx, const std::vector<const ast::Rule*>& rules,
                const FileShadowIds& shadow_ids);

// sema_choose_args.cc: every choose_args block (CrushCompiler::parse_choose_args).
void LowerChooseArgs(SemaContext& ctx, const std::vector<ast::ChooseArgs>& blocks);

}  // namespace crushkit::compiler::sema

#endif  // CRUSHKIT_COMPILER_SEMA_PASSES_H_
