// choose_args blocks, as CrushCompiler::parse_choose_args lowers them: per
// bucket, a weight set (one row of weights per position) and/or ids.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/sema_passes.h"

namespace crushkit::compiler::sema {
namespace {

using crush::ItemId;
using crush::Weight;

// int_node(): strtol then a cast to int, so 18446744073709551615 (how -1
// is decompiled) saturates to LONG_MAX and truncates to -1.
std::int64_t ChooseArgsIndex(const ast::ChooseArgs& ca) {
  return static_cast<std::int64_t>(static_cast<std::int32_t>(
      static_cast<std::uint32_t>(static_cast<std::uint64_t>(ca.index.value) & 0xffffffffu)));
}

// The rows of "weight_set [ [...] ... ]", each with one weight per item.
bool ReadWeightSet(SemaContext& ctx, const ast::ChooseArg& a, ItemId bid, std::size_t size,
                   crush::ChooseArg& arg) {
  bool ok = true;
  std::vector<std::vector<Weight>> ws;
  for (const ast::WeightList& wl : a.weight_set) {
    if (wl.weights.size() != size) {
      ctx.Error(wl.range, "bucket " + std::to_string(bid) + " needs exactly " +
                              std::to_string(size) + " weights but got " +
                              std::to_string(wl.weights.size()));
      ok = false;
      continue;
    }
    std::vector<Weight> row;
    for (const ast::Word& w : wl.weights) {
      const std::optional<Weight> v = ctx.ConvertWeightSetWeight(w);
      if (!v) {
        ok = false;
        continue;
      }
      row.push_back(*v);
    }
    ws.push_back(std::move(row));
  }
  arg.weight_set = std::move(ws);
  return ok;
}

// "ids [ ... ]", one per item.
bool ReadIds(SemaContext& ctx, const ast::ChooseArg& a, ItemId bid, std::size_t size,
             crush::ChooseArg& arg) {
  if (a.ids.size() != size) {
    ctx.Error(a.ids_keyword->range, "bucket " + std::to_string(bid) + " needs exactly " +
                                        std::to_string(size) + " ids but got " +
                                        std::to_string(a.ids.size()));
    return false;
  }
  bool ok = true;
  std::vector<ItemId> ids;
  for (const ast::Number& n : a.ids) {
    if (!ctx.CheckInt32(n, "id")) {
      ok = false;
      continue;
    }
    ids.push_back(static_cast<ItemId>(n.value));
  }
  arg.ids = std::move(ids);
  return ok;
}

// One bucket's entry of a choose_args block, into `args`.
bool LowerChooseArg(SemaContext& ctx, const ast::ChooseArg& a, crush::ChooseArgMap& args) {
  if (!ctx.CheckInt32(a.bucket_id, "bucket id")) return false;
  const auto bid = static_cast<ItemId>(a.bucket_id.value);
  const std::int64_t slot = -1 - static_cast<std::int64_t>(bid);
  if (slot < 0 || slot >= ctx.model.max_buckets()) {
    ctx.Error(a.bucket_id.range, "bucket id " + std::to_string(bid) + " is out of range");
    return false;
  }
  const crush::Bucket* bucket = ctx.model.FindBucket(bid);
  if (bucket == nullptr) {
    ctx.Error(a.bucket_id.range, "bucket " + std::to_string(bid) + " does not exist");
    return false;
  }
  const std::size_t size = bucket->items.size();
  crush::ChooseArg& arg = args[bid];
  bool ok = true;
  if (a.weight_set_keyword) ok = ReadWeightSet(ctx, a, bid, size, arg) && ok;
  if (a.ids_keyword) ok = ReadIds(ctx, a, bid, size, arg) && ok;
  return ok;
}

class ChooseArgsLowering {
 public:
  explicit ChooseArgsLowering(SemaContext& ctx) : ctx_(ctx) {}

  void Lower(const ast::ChooseArgs& ca) {
    const std::int64_t index = ChooseArgsIndex(ca);
    bool ok = true;
    if (auto it = decl_.find(index); it != decl_.end()) {
      ctx_.Error(ca.index.range, "choose_args " + std::to_string(index) + " is defined twice",
                 {SemaContext::Note(it->second, "previous definition is here")});
      ok = false;
    }
    decl_.emplace(index, ca.index.range);
    crush::ChooseArgMap args;
    for (const ast::ChooseArg& a : ca.args) ok = LowerChooseArg(ctx_, a, args) && ok;
    if (!ok) return;
    // The encoder skips buckets with neither weights nor ids; so do we.
    for (auto it = args.begin(); it != args.end();) {
      if (it->second.weight_set.empty() && it->second.ids.empty()) {
        it = args.erase(it);
      } else {
        ++it;
      }
    }
    ctx_.model.choose_args[index] = std::move(args);
  }

 private:
  SemaContext& ctx_;
  std::map<std::int64_t, SourceRange> decl_;  // where each index was defined
};

}  // namespace

void LowerChooseArgs(SemaContext& ctx, const std::vector<ast::ChooseArgs>& blocks) {
  ChooseArgsLowering pass(ctx);
  for (const ast::ChooseArgs& ca : blocks) pass.Lower(ca);
}

}  // namespace crushkit::compiler::sema
