// Bucket definitions, as CrushCompiler::parse_bucket lowers them: the
// type, ids, algorithm and hash lines, then the items (explicit positions
// first, then the rest in order), then the bucket itself.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

#include "compiler/sema_passes.h"
#include "crush/builder.h"
#include "crush/edit/edit.h"

namespace crushkit::compiler::sema {
namespace {

using crush::BucketAlg;
using crush::ItemId;
using crush::Weight;

struct AlgName {
  const char* name;
  BucketAlg alg;
};

constexpr AlgName kAlgs[] = {{"uniform", BucketAlg::kUniform},
                             {"list", BucketAlg::kList},
                             {"tree", BucketAlg::kTree},
                             {"straw", BucketAlg::kStraw},
                             {"straw2", BucketAlg::kStraw2}};

// An "id N class C" line of a bucket.
struct ClassShadowId {
  ItemId id = 0;
  SourceRange decl;
};

// What the lines before a bucket's items say.
struct BucketHeader {
  int type = 0;
  ItemId id = 0;  // 0 until assigned: the file gave none
  bool have_id = false;
  std::map<int, ClassShadowId> class_ids;  // by class id
  BucketAlg alg = BucketAlg::kNone;
  int hash = 0;
};

// A bucket's items as placed (by position), and their weights.
struct PlacedItems {
  std::vector<ItemId> items;
  std::vector<Weight> weights;
  Weight bucket_weight = 0;
  bool have_uniform = false;  // uniform_weight holds the first item's weight
  Weight uniform_weight = 0;
  // Every resolved item with the line listing it, to warn about repeats.
  std::vector<std::pair<ItemId, const ast::BucketItem*>> used_items;
};

// The bucket pass: the state CrushCompiler keeps from one bucket definition
// to the next.
class BucketLowering {
 public:
  BucketLowering(SemaContext& ctx, const std::vector<const ast::Bucket*>& buckets);

  void Lower(const ast::Bucket& b);

  FileShadowIds TakeShadowIds() { return std::move(shadow_ids_); }

 private:
  bool ResolveType(const ast::Bucket& b, int& type);
  bool CheckNameIsNew(const ast::Bucket& b);
  bool ReadIds(const ast::Bucket& b, BucketHeader& h);
  bool ResolveAlg(const ast::Bucket& b, BucketAlg& alg);
  bool ResolveHash(const ast::Bucket& b, int& hash);

  bool PlaceItems(const ast::Bucket& b, BucketAlg alg, PlacedItems& placed);
  bool ReserveExplicitPositions(const ast::Bucket& b, std::set<std::int64_t>& used_pos);
  bool PlaceItem(std::string_view bucket, BucketAlg alg, const ast::BucketItem& it,
                 const std::set<std::int64_t>& used_pos, std::int64_t& curpos, PlacedItems& placed);
  std::optional<ItemId> ResolveItem(std::string_view bucket, const ast::BucketItem& it);
  std::optional<Weight> ItemWeight(ItemId item, const ast::BucketItem& it);
  bool SameUniformWeight(std::string_view bucket, const ast::BucketItem& it, Weight weight,
                         PlacedItems& placed);
  std::optional<std::size_t> ItemPosition(std::string_view bucket, const ast::BucketItem& it,
                                          const std::set<std::int64_t>& used_pos,
                                          std::int64_t& curpos, std::size_t size);

  void WarnRepeatedItems(std::string_view bucket, PlacedItems& placed);
  bool CheckUniformBucketWeight(const ast::Bucket& b, const PlacedItems& placed);
  ItemId FirstFreeBucketId() const;
  void Register(const ast::Bucket& b, const BucketHeader& h, Weight bucket_weight);
  void AddToModel(const ast::Bucket& b, const BucketHeader& h, const PlacedItems& placed);
  void ReportTakenBucketId(const ast::Bucket& b, const BucketHeader& h);

  SemaContext& ctx_;
  std::set<ItemId> used_bucket_ids_;      // CrushCompiler::id_item keys
  std::map<ItemId, Weight> item_weight_;  // CrushCompiler::item_weight
  std::set<std::string_view> cyclic_;     // already reported as a cycle
  std::unordered_set<std::string_view> declared_buckets_;
  FileShadowIds shadow_ids_;
};

BucketLowering::BucketLowering(SemaContext& ctx, const std::vector<const ast::Bucket*>& buckets)
    : ctx_(ctx) {
  // CrushCompiler::find_used_bucket_ids: only a bucket's first line counts.
  for (const ast::Bucket* b : buckets) {
    if (!b->ids.empty() && b->ids[0].id.fits_int32) {
      used_bucket_ids_.insert(static_cast<ItemId>(b->ids[0].id.value));
    }
    declared_buckets_.insert(b->name.text);
  }
  cyclic_ = ReportBucketCycles(ctx_, buckets);
}

// CrushCompiler::parse_bucket. Every line is checked (all errors are
// reported); a bucket with errors still registers its name and id, so later
// buckets and rules do not cascade, but is not added to the model.
void BucketLowering::Lower(const ast::Bucket& b) {
  BucketHeader h;
  bool ok = ResolveType(b, h.type);
  const bool register_name = CheckNameIsNew(b);
  ok = register_name && ok;
  ok = ReadIds(b, h) && ok;
  ok = ResolveAlg(b, h.alg) && ok;
  ok = ResolveHash(b, h.hash) && ok;
  PlacedItems placed;
  ok = PlaceItems(b, h.alg, placed) && ok;
  WarnRepeatedItems(b.name.text, placed);
  if (h.alg == BucketAlg::kUniform && !placed.items.empty() && ok) {
    ok = CheckUniformBucketWeight(b, placed);
  }
  if (h.id == 0) h.id = FirstFreeBucketId();
  if (!register_name) return;
  Register(b, h, placed.bucket_weight);
  if (!ok) return;
  AddToModel(b, h, placed);
}

bool BucketLowering::ResolveType(const ast::Bucket& b, int& type) {
  if (auto it = ctx_.type_id.find(b.type.text); it != ctx_.type_id.end()) {
    type = it->second;
    return true;
  }
  ctx_.sink.ReportCephError("bucket type '" + std::string(b.type.text) + "' is not defined\n");
  ctx_.UnknownName(b.type.range, "unknown bucket type " + Quote(b.type.text), b.type.text,
                   ctx_.type_id, &ctx_.type_decl);
  return false;
}

bool BucketLowering::CheckNameIsNew(const ast::Bucket& b) {
  const std::string_view name = b.name.text;
  auto it = ctx_.names.find(name);
  if (it == ctx_.names.end()) return true;
  ctx_.sink.ReportCephError("bucket or device '" + std::string(name) + "' is already defined\n");
  ctx_.Error(b.name.range, Quote(name) + " is already defined",
             {SemaContext::Note(it->second.decl, "previous definition is here")});
  return false;
}

// The "id N" line and the "id N class C" lines (Ceph does not require the
// class to be used by any device).
bool BucketLowering::ReadIds(const ast::Bucket& b, BucketHeader& h) {
  const std::string_view name = b.name.text;
  bool ok = true;
  for (const ast::BucketId& bid : b.ids) {
    if (!ctx_.CheckInt32(bid.id, "bucket id")) {
      ok = false;
      continue;
    }
    const auto value = static_cast<ItemId>(bid.id.value);
    if (value < -crush::kMaxBucketSlots) {
      ctx_.Error(bid.id.range, "bucket id " + std::to_string(value) +
                                   " is below the supported minimum " +
                                   std::to_string(-crush::kMaxBucketSlots));
      ok = false;
      continue;
    }
    if (bid.device_class) {
      const int cid = ctx_.ClassId(bid.device_class->text);
      if (h.class_ids.count(cid) != 0) {
        ctx_.Error(bid.device_class->range, "duplicate device class " +
                                                Quote(bid.device_class->text) + " for bucket " +
                                                Quote(name));
        ok = false;
        continue;
      }
      h.class_ids[cid] = ClassShadowId{value, bid.id.range};
    } else {
      if (h.have_id) {
        ctx_.Error(bid.id.range, "bucket " + Quote(name) + " has more than one id");
        ok = false;
      }
      h.have_id = true;
      h.id = value;
    }
  }
  return ok;
}

bool BucketLowering::ResolveAlg(const ast::Bucket& b, BucketAlg& alg) {
  for (const AlgName& a : kAlgs) {
    if (b.alg.text == a.name) alg = a.alg;
  }
  if (alg != BucketAlg::kNone) return true;
  std::map<std::string, int> known;
  for (const AlgName& a : kAlgs) known[a.name] = 0;
  ctx_.UnknownName(b.alg.range, "unknown bucket algorithm " + Quote(b.alg.text), b.alg.text, known,
                   SemaContext::kNoDecls);
  return false;
}

// The last hash line wins, as in Ceph.
bool BucketLowering::ResolveHash(const ast::Bucket& b, int& hash) {
  bool ok = true;
  for (const ast::Word& w : b.hashes) {
    if (w.text == "rjenkins1") {
      hash = crush::kHashRjenkins1;
      continue;
    }
    const long v = std::strtol(std::string(w.text).c_str(), nullptr, 10);
    if (v < 0 || v > 255) {
      ctx_.Error(w.range, "hash " + Quote(w.text) + " is out of range (0..255)");
      ok = false;
    } else {
      hash = static_cast<int>(v);
    }
  }
  return ok;
}

bool BucketLowering::PlaceItems(const ast::Bucket& b, BucketAlg alg, PlacedItems& placed) {
  std::set<std::int64_t> used_pos;
  bool ok = ReserveExplicitPositions(b, used_pos);
  std::size_t size = b.items.size();
  if (!used_pos.empty() && *used_pos.rbegin() > static_cast<std::int64_t>(size)) {
    // Ceph: size = max(size, highest pos), then pos >= size is an error.
    size = static_cast<std::size_t>(std::min<std::int64_t>(*used_pos.rbegin(), 1 << 20));
  }
  placed.items.assign(size, 0);
  placed.weights.assign(size, 0);
  std::int64_t curpos = 0;
  for (const ast::BucketItem& it : b.items) {
    ok = PlaceItem(b.name.text, alg, it, used_pos, curpos, placed) && ok;
  }
  return ok;
}

// First pass: the explicit "pos N" of every item.
bool BucketLowering::ReserveExplicitPositions(const ast::Bucket& b,
                                              std::set<std::int64_t>& used_pos) {
  bool ok = true;
  for (const ast::BucketItem& it : b.items) {
    if (!it.pos) continue;
    if (used_pos.count(it.pos->value) != 0) {
      ctx_.Error(it.pos->range, "item " + Quote(it.name.text) + " in bucket " + Quote(b.name.text) +
                                    " has explicit pos " + std::to_string(it.pos->value) +
                                    ", which is occupied");
      ok = false;
    }
    used_pos.insert(it.pos->value);
  }
  return ok;
}

bool BucketLowering::PlaceItem(std::string_view bucket, BucketAlg alg, const ast::BucketItem& it,
                               const std::set<std::int64_t>& used_pos, std::int64_t& curpos,
                               PlacedItems& placed) {
  const std::optional<ItemId> item = ResolveItem(bucket, it);
  if (!item) return false;
  placed.used_items.emplace_back(*item, &it);
  const std::optional<Weight> weight = ItemWeight(*item, it);
  if (!weight) return false;
  if (alg == BucketAlg::kUniform && !SameUniformWeight(bucket, it, *weight, placed)) return false;
  const std::optional<std::size_t> pos =
      ItemPosition(bucket, it, used_pos, curpos, placed.items.size());
  if (!pos) return false;
  placed.items[*pos] = *item;
  placed.weights[*pos] = *weight;
  if (*weight > std::numeric_limits<Weight>::max() - placed.bucket_weight) {
    ctx_.Error(it.weight ? it.weight->range : it.name.range,
               "the weight of bucket " + Quote(bucket) + " overflows the 16.16 range");
    return false;
  }
  placed.bucket_weight += *weight;
  return true;
}

// The item's id; an item not (yet) defined is an error unless it is on a
// cycle, which was reported already.
std::optional<ItemId> BucketLowering::ResolveItem(std::string_view bucket,
                                                  const ast::BucketItem& it) {
  const std::string_view iname = it.name.text;
  auto found = ctx_.names.find(iname);
  if (found != ctx_.names.end()) return found->second.id;
  if (cyclic_.count(iname) != 0) return std::nullopt;
  if (declared_buckets_.count(iname) != 0) {
    ctx_.Error(it.name.range,
               "bucket " + Quote(iname) + " is used by bucket " + Quote(bucket) +
                   " before it is defined (Ceph's reordering cannot place it); move its "
                   "definition earlier");
    return std::nullopt;
  }
  ctx_.sink.ReportCephError("item '" + std::string(iname) + "' in bucket '" + std::string(bucket) +
                            "' is not defined\n");
  ctx_.UnknownName(it.name.range, "unknown item " + Quote(iname) + " in bucket " + Quote(bucket),
                   iname, ctx_.names, &ctx_.names);
  return std::nullopt;
}

// The "weight W" of the item line, else the weight of the bucket it names
// (CrushCompiler::item_weight), else 1.0.
std::optional<Weight> BucketLowering::ItemWeight(ItemId item, const ast::BucketItem& it) {
  Weight weight = 0x10000;
  if (auto w = item_weight_.find(item); w != item_weight_.end()) weight = w->second;
  if (!it.weight) return weight;
  const std::optional<Weight> w = ctx_.ConvertWeight(*it.weight);
  if (!w) return std::nullopt;
  if (*w > kMaxDeviceWeight && item >= 0) {
    ctx_.Error(it.weight->range, "device weight " + Quote(it.weight->text) + " of " +
                                     Quote(it.name.text) + " exceeds the limit of 100");
    return std::nullopt;
  }
  if (*w > kMaxBucketWeight && item < 0) {
    ctx_.Error(it.weight->range, "bucket weight " + Quote(it.weight->text) + " of " +
                                     Quote(it.name.text) + " exceeds the limit of 65535");
    return std::nullopt;
  }
  return *w;
}

bool BucketLowering::SameUniformWeight(std::string_view bucket, const ast::BucketItem& it,
                                       Weight weight, PlacedItems& placed) {
  if (!placed.have_uniform) {
    placed.have_uniform = true;
    placed.uniform_weight = weight;
    return true;
  }
  if (placed.uniform_weight == weight) return true;
  ctx_.Error(it.weight ? it.weight->range : it.name.range,
             "item " + Quote(it.name.text) + " in uniform bucket " + Quote(bucket) +
                 " must have the same weight as the previous items");
  return false;
}

// The item's explicit pos, or the next position no explicit pos took.
std::optional<std::size_t> BucketLowering::ItemPosition(std::string_view bucket,
                                                        const ast::BucketItem& it,
                                                        const std::set<std::int64_t>& used_pos,
                                                        std::int64_t& curpos, std::size_t size) {
  std::int64_t pos = -1;
  if (it.pos) {
    pos = it.pos->value;
    if (pos >= static_cast<std::int64_t>(size)) {
      ctx_.Error(it.pos->range, "item " + Quote(it.name.text) + " in bucket " + Quote(bucket) +
                                    " has pos " + std::to_string(pos) + " >= size " +
                                    std::to_string(size));
      return std::nullopt;
    }
  } else {
    while (used_pos.count(curpos) != 0) ++curpos;
    pos = curpos++;
  }
  if (pos >= static_cast<std::int64_t>(size)) return std::nullopt;
  return static_cast<std::size_t>(pos);
}

// Ceph accepts an item listed twice (its own test maps do this), so this
// is only a warning; the bucket keeps both entries.
void BucketLowering::WarnRepeatedItems(std::string_view bucket, PlacedItems& placed) {
  auto& used = placed.used_items;
  std::stable_sort(used.begin(), used.end(),
                   [](const auto& lhs, const auto& rhs) { return lhs.first < rhs.first; });
  for (std::size_t i = 1; i < used.size(); ++i) {
    if (used[i].first != used[i - 1].first) continue;
    const ast::BucketItem& again = *used[i].second;
    ctx_.sink.Report(
        Diagnostic{Severity::kWarning,
                   again.name.range,
                   "item " + Quote(again.name.text) + " is used twice in bucket " + Quote(bucket),
                   {SemaContext::Note(used[i - 1].second->name.range, "first use is here")}});
  }
}

// Ceph asserts on a uniform bucket of weight 0; refuse it, and refuse a
// bucket weight (item weight x size) beyond 16.16.
bool BucketLowering::CheckUniformBucketWeight(const ast::Bucket& b, const PlacedItems& placed) {
  const std::string_view name = b.name.text;
  if (placed.uniform_weight == 0) {
    ctx_.Error(b.alg.range, "uniform bucket " + Quote(name) + " needs a non-zero item weight");
    return false;
  }
  if (static_cast<std::uint64_t>(placed.uniform_weight) * placed.items.size() >
      std::numeric_limits<Weight>::max()) {
    ctx_.Error(b.alg.range,
               "the weight of uniform bucket " + Quote(name) + " overflows the 16.16 range");
    return false;
  }
  return true;
}

ItemId BucketLowering::FirstFreeBucketId() const {
  ItemId id = -1;
  while (used_bucket_ids_.count(id) != 0) --id;
  return id;
}

// Makes the name and id known to later buckets, rules and shadow trees.
void BucketLowering::Register(const ast::Bucket& b, const BucketHeader& h, Weight bucket_weight) {
  for (const auto& [cid, shadow] : h.class_ids) {
    shadow_ids_.ids[h.id][cid] = shadow.id;
    shadow_ids_.decl[{h.id, cid}] = shadow.decl;
  }
  used_bucket_ids_.insert(h.id);
  ctx_.names[b.name.text] = Named{h.id, b.name.range};
  item_weight_[h.id] = bucket_weight;
}

void BucketLowering::AddToModel(const ast::Bucket& b, const BucketHeader& h,
                                const PlacedItems& placed) {
  absl::StatusOr<crush::Bucket> made = crush::MakeBucket(
      h.alg, static_cast<std::uint8_t>(h.hash), static_cast<std::uint16_t>(h.type), placed.items,
      placed.weights, ctx_.model.tunables.straw_calc_version);
  if (!made.ok()) {
    ctx_.Error(b.name.range, "cannot build bucket " + Quote(b.name.text) + ": " +
                                 std::string(made.status().message()));
    return;
  }
  absl::StatusOr<ItemId> added = crush::AddBucket(ctx_.model, h.id, *std::move(made));
  if (!added.ok()) {
    ReportTakenBucketId(b, h);
    return;
  }
  ctx_.model.item_names[h.id] = b.name.text;
}

void BucketLowering::ReportTakenBucketId(const ast::Bucket& b, const BucketHeader& h) {
  std::vector<Diagnostic> notes;
  std::string other;
  if (auto o = ctx_.model.item_names.find(h.id); o != ctx_.model.item_names.end()) {
    other = " by " + Quote(o->second);
    if (auto d = ctx_.names.find(o->second); d != ctx_.names.end()) {
      notes.push_back(SemaContext::Note(d->second.decl, "previous definition is here"));
    }
  }
  const SourceRange where = h.have_id ? b.ids.front().id.range : b.name.range;
  ctx_.Error(where, "bucket id " + std::to_string(h.id) + " is already used" + other,
             std::move(notes));
}

}  // namespace

FileShadowIds LowerBuckets(SemaContext& ctx, const std::vector<const ast::Bucket*>& buckets) {
  BucketLowering pass(ctx, buckets);
  for (std::size_t index : CephBucketOrder(buckets)) pass.Lower(*buckets[index]);
  return pass.TakeShadowIds();
}

}  // namespace crushkit::compiler::sema
