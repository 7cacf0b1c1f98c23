// Semantic analysis + lowering. The order of operations, id assignment and
// every derived number follow Ceph's CrushCompiler::compile/parse_* and
// CrushWrapper::populate_classes/device_class_clone; comments name the Ceph
// function reproduced. Where Ceph silently accepts nonsense (duplicate
// names, 64-bit ids truncated to int) we report an error instead; where
// Ceph crashes (uniform buckets of weight 0) we report an error too.
#include "compiler/sema.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

#include "crush/builder.h"
#include "crush/edit.h"

namespace crushkit::compiler {
namespace {

using crush::BucketAlg;
using crush::ItemId;
using crush::MapModel;
using crush::RuleOp;
using crush::Weight;

// CRUSH_MAX_DEVICE_WEIGHT / CRUSH_MAX_BUCKET_WEIGHT (crush.h).
constexpr Weight kMaxDeviceWeight = 100u * 0x10000u;
constexpr Weight kMaxBucketWeight = 65535u * 0x10000u;
// Ceph grows the rule array to any id; we stop at 16 bits to bound memory.
constexpr std::int64_t kMaxRuleId = 65535;
constexpr std::int64_t kMaxTypeId = 65535;  // bucket types are stored as u16

// Spirit classic real_p: [+-]? (digits [. digits*] | . digits) ([eE][+-]?digits)?
bool IsRealLiteral(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t int_digits = 0, frac_digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++int_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

std::string Quote(std::string_view s) {
  std::string q;
  q.reserve(s.size() + 2);
  q += '\'';
  q += s;
  q += '\'';
  return q;
}

struct AlgName {
  const char* name;
  BucketAlg alg;
};

constexpr AlgName kAlgs[] = {{"uniform", BucketAlg::kUniform},
                             {"list", BucketAlg::kList},
                             {"tree", BucketAlg::kTree},
                             {"straw", BucketAlg::kStraw},
                             {"straw2", BucketAlg::kStraw2}};

constexpr const char* kTunableNames[] = {"choose_local_tries", "choose_local_fallback_tries",
                                         "choose_total_tries", "chooseleaf_descend_once",
                                         "chooseleaf_vary_r",  "chooseleaf_stable",
                                         "straw_calc_version", "allowed_bucket_algs"};

struct Named {
  ItemId id = 0;
  SourceRange decl;
};

// absl::Hash for std::string_view (Debian's Abseil has its own string_view).
struct ViewHash {
  std::size_t operator()(std::string_view s) const {
    return absl::Hash<absl::string_view>{}(absl::string_view(s.data(), s.size()));
  }
};

SourceRange DeclOf(const SourceRange& r) { return r; }

SourceRange DeclOf(const Named& n) { return n.decl; }

class Lowerer {
 public:
  Lowerer(const SourceFile& src, DiagnosticSink& sink, crush::CephRelease release, bool ceph_quirks)
      : src_(src),
        sink_(sink),
        release_(release),
        msr_(crush::HasMsr(release)),
        quirks_(ceph_quirks) {}

  std::optional<MapModel> Run(const ast::CrushFile& file) {
    // CrushCompiler::compile: always start from legacy tunables.
    m_.tunables = crush::Tunables{};
    // Every device and bucket declares one name: size the table once.
    names_.reserve(file.header.size() + file.body.size());
    for (const ast::HeaderStatement& st : file.header) {
      if (const auto* t = std::get_if<ast::Tunable>(&st)) {
        DoTunable(*t);
      } else if (const auto* d = std::get_if<ast::Device>(&st)) {
        DoDevice(*d);
      } else {
        DoType(std::get<ast::TypeDecl>(st));
      }
    }
    DoBody(file.body);
    for (const ast::ChooseArgs& ca : file.choose_args) DoChooseArgs(ca);
    Finalize();
    if (errors_ > 0) return std::nullopt;
    return std::move(m_);
  }

 private:
  // ---- diagnostics -------------------------------------------------------
  void Error(SourceRange r, std::string msg, std::vector<Diagnostic> notes = {}) {
    ++errors_;
    sink_.Report(Diagnostic{Severity::kError, r, std::move(msg), std::move(notes)});
  }

  void Warning(SourceRange r, std::string msg) {
    sink_.Report(Diagnostic{Severity::kWarning, r, std::move(msg), {}});
  }

  // A warning about input accepted only because Ceph accepts it.
  void Quirk(SourceRange r, std::string msg) {
    const LineCol at = src_.Locate(r.offset);
    sink_.ReportCephQuirk(src_.name() + ":" + std::to_string(at.line) + ":" +
                          std::to_string(at.column) + ": warning: " + msg);
    Warning(r, std::move(msg));
  }

  static Diagnostic Note(SourceRange r, std::string msg) {
    return Diagnostic{Severity::kNote, r, std::move(msg), {}};
  }

  static constexpr const std::map<std::string, SourceRange>* kNoDecls = nullptr;

  // Appends "; did you mean 'x'?" and a note when a close name exists.
  template <typename Map, typename Decls = std::map<std::string, SourceRange>>
  void UnknownName(SourceRange r, std::string msg, std::string_view name, const Map& defined,
                   const Decls* decls) {
    std::vector<std::string> candidates;
    candidates.reserve(defined.size());
    for (const auto& [n, unused] : defined) candidates.emplace_back(n);
    const std::string best = ClosestName(std::string(name), candidates);
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

  bool CheckInt32(const ast::Number& n, const char* what) {
    if (n.fits_int32) return true;
    Error(n.range, std::string(what) + " " + std::to_string(n.value) + " does not fit in 32 bits");
    return false;
  }

  // CrushCompiler::float_node() * (float)0x10000, truncated to unsigned;
  // rejects what Ceph would turn into garbage (negative, inf, nan, > 2^32).
  std::optional<Weight> ConvertWeight(const ast::Word& w) {
    if (!IsRealLiteral(w.text)) {
      Error(w.range,
            "invalid weight " + Quote(w.text) + "; expected a non-negative decimal number");
      return std::nullopt;
    }
    // IsRealLiteral bounds the token, but strtof needs a terminated copy.
    const float f = std::strtof(std::string(w.text).c_str(), nullptr);
    if (std::signbit(f) && f != 0.0f) {
      Error(w.range, "weight " + Quote(w.text) + " is negative");
      return std::nullopt;
    }
    const float scaled = f * static_cast<float>(0x10000);
    if (!std::isfinite(f) || !(scaled < 4294967296.0f)) {
      Error(w.range,
            "weight " + Quote(w.text) + " is out of the 16.16 fixed-point range (max 65535.99998)");
      return std::nullopt;
    }
    return static_cast<Weight>(scaled);
  }

  // CrushWrapper::get_or_create_class_id: new ids are max(existing) + 1.
  int ClassId(std::string_view name) {
    if (auto it = class_id_.find(name); it != class_id_.end()) return it->second;
    const int id = m_.class_names.empty() ? 0 : m_.class_names.rbegin()->first + 1;
    m_.class_names[id] = std::string(name);
    class_id_[name] = id;
    return id;
  }

  // ---- header ------------------------------------------------------------
  void DoTunable(const ast::Tunable& t) {
    const std::string_view n = t.name.text;
    if (n == "msr_descents" || n == "msr_collision_tries") {
      if (!msr_) {
        Error(t.name.range, "tunable " + Quote(n) + " is not supported by Ceph " +
                                std::string(crush::CephReleaseName(release_)) +
                                " (MSR needs Squid or later)");
      } else if (CheckInt32(t.value, "tunable value")) {
        // CrushWrapper::set_msr_*: stored as u32.
        const auto v = static_cast<std::uint32_t>(static_cast<std::int32_t>(t.value.value));
        (n == "msr_descents" ? m_.tunables.msr_descents : m_.tunables.msr_collision_tries) = v;
      }
      return;
    }
    if (std::find_if(std::begin(kTunableNames), std::end(kTunableNames),
                     [&](const char* k) { return n == k; }) == std::end(kTunableNames)) {
      std::map<std::string, int> known;
      for (const char* k : kTunableNames) known[k] = 0;
      UnknownName(t.name.range, "unknown tunable " + Quote(n), n, known, kNoDecls);
      return;
    }
    if (!CheckInt32(t.value, "tunable value")) return;
    const auto val = static_cast<std::int32_t>(t.value.value);
    crush::Tunables& tu = m_.tunables;
    // CrushWrapper::set_* store into the struct's field types.
    if (n == "choose_local_tries")
      tu.choose_local_tries = static_cast<std::uint32_t>(val);
    else if (n == "choose_local_fallback_tries")
      tu.choose_local_fallback_tries = static_cast<std::uint32_t>(val);
    else if (n == "choose_total_tries")
      tu.choose_total_tries = static_cast<std::uint32_t>(val);
    else if (n == "chooseleaf_descend_once")
      tu.chooseleaf_descend_once = static_cast<std::uint32_t>(val);
    else if (n == "chooseleaf_vary_r")
      tu.chooseleaf_vary_r = static_cast<std::uint8_t>(val);
    else if (n == "chooseleaf_stable")
      tu.chooseleaf_stable = static_cast<std::uint8_t>(val);
    else if (n == "straw_calc_version")
      tu.straw_calc_version = static_cast<std::uint8_t>(val);
    else
      tu.allowed_bucket_algs = static_cast<std::uint32_t>(val);
  }

  void DoDevice(const ast::Device& d) {
    if (!CheckInt32(d.id, "device id")) return;
    const auto id = static_cast<ItemId>(d.id.value);
    const std::string_view name = d.name.text;
    if (auto it = names_.find(name); it != names_.end()) {
      sink_.ReportCephError("item " + std::string(name) + " defined twice\n");
      Error(d.name.range, Quote(name) + " is already defined",
            {Note(it->second.decl, "previous definition is here")});
      return;
    }
    if (auto it = m_.item_names.find(id); it != m_.item_names.end()) {
      if (quirks_) {
        // parse_device: set_item_name(id, name) renames the device; both
        // names keep resolving to `id` in the rest of the file.
        Quirk(d.id.range, "device id " + std::to_string(id) + " is already used by " +
                              Quote(it->second) + "; as Ceph, the device is renamed " +
                              Quote(name) + " and both names refer to it");
        it->second = std::string(name);
        names_.emplace(name, Named{id, d.name.range});
        if (d.device_class) m_.class_map[id] = ClassId(d.device_class->text);
        return;
      }
      std::vector<Diagnostic> notes;
      if (auto prev = names_.find(it->second); prev != names_.end()) {
        notes.push_back(Note(prev->second.decl, "previous definition is here"));
      }
      Error(d.id.range,
            "device id " + std::to_string(id) + " is already used by " + Quote(it->second),
            std::move(notes));
      return;
    }
    m_.item_names.emplace_hint(m_.item_names.end(), id, std::string(name));
    names_.emplace(name, Named{id, d.name.range});
    if (d.device_class) m_.class_map[id] = ClassId(d.device_class->text);
  }

  void DoType(const ast::TypeDecl& t) {
    if (t.id.value > kMaxTypeId) {
      Error(t.id.range, "type id " + std::to_string(t.id.value) + " is out of range (0..65535)");
      return;
    }
    const auto id = static_cast<int>(t.id.value);
    if (quirks_ && (type_decl_.count(t.name.text) != 0 || type_id_decl_.count(id) != 0)) {
      // parse_bucket_type: type_id[name] = id; set_type_name(id, name). The
      // last declaration of a name or id wins; an earlier name of this id
      // still resolves to it.
      Quirk(t.id.range, "type " + Quote(t.name.text) + " " + std::to_string(id) +
                            " repeats a type name or id; as Ceph, the last declaration wins");
      m_.type_names[id] = std::string(t.name.text);
      type_id_[t.name.text] = id;
      type_decl_[t.name.text] = t.name.range;
      type_id_decl_[id] = t.id.range;
      return;
    }
    if (auto it = type_decl_.find(t.name.text); it != type_decl_.end()) {
      Error(t.name.range, "type " + Quote(t.name.text) + " is already defined",
            {Note(it->second, "previous definition is here")});
      return;
    }
    if (auto it = type_id_decl_.find(id); it != type_id_decl_.end()) {
      Error(
          t.id.range,
          "type id " + std::to_string(id) + " is already used by type " + Quote(m_.type_names[id]),
          {Note(it->second, "previous definition is here")});
      return;
    }
    m_.type_names[id] = std::string(t.name.text);
    type_id_[t.name.text] = id;
    type_decl_[t.name.text] = t.name.range;
    type_id_decl_[id] = t.id.range;
  }

  // ---- buckets -----------------------------------------------------------
  void DoBody(const std::vector<ast::BodyStatement>& body) {
    std::vector<const ast::Bucket*> buckets;
    const ast::Rule* first_rule = nullptr;
    for (const ast::BodyStatement& st : body) {
      if (const auto* b = std::get_if<ast::Bucket>(&st)) {
        if (first_rule != nullptr) {
          sink_.ReportCephError("buckets must be defined before rules\n");
          Error(b->type.range, "buckets must be defined before rules",
                {Note(first_rule->keyword.range, "first rule is here")});
          continue;
        }
        buckets.push_back(b);
      } else if (first_rule == nullptr) {
        first_rule = &std::get<ast::Rule>(st);
      }
    }
    // CrushCompiler::find_used_bucket_ids: only a bucket's first line counts.
    for (const ast::Bucket* b : buckets) {
      if (!b->ids.empty() && b->ids[0].id.fits_int32) {
        used_bucket_ids_.insert(static_cast<ItemId>(b->ids[0].id.value));
      }
      declared_buckets_.insert(b->name.text);
    }
    FindCycles(buckets);
    for (std::size_t index : CephBucketOrder(buckets)) DoBucket(*buckets[index]);
    for (const ast::BodyStatement& st : body) {
      if (const auto* r = std::get_if<ast::Rule>(&st)) DoRule(*r);
    }
  }

  // Reports each cycle among bucket definitions once.
  void FindCycles(const std::vector<const ast::Bucket*>& buckets) {
    std::unordered_map<std::string_view, const ast::Bucket*> by_name;
    by_name.reserve(buckets.size());
    for (const ast::Bucket* b : buckets) by_name.emplace(b->name.text, b);
    std::unordered_map<std::string_view, int> color;  // 0 new, 1 on stack, 2 done
    color.reserve(buckets.size());
    std::vector<std::string_view> stack;

    // Iterative DFS to survive deep hierarchies.
    struct Frame {
      const ast::Bucket* bucket;
      std::size_t next_item;
    };

    for (const ast::Bucket* root : buckets) {
      if (color[root->name.text] != 0) continue;
      std::vector<Frame> frames{{root, 0}};
      color[root->name.text] = 1;
      stack.push_back(root->name.text);
      while (!frames.empty()) {
        Frame& f = frames.back();
        if (f.next_item == f.bucket->items.size()) {
          color[f.bucket->name.text] = 2;
          stack.pop_back();
          frames.pop_back();
          continue;
        }
        const ast::BucketItem& item = f.bucket->items[f.next_item++];
        auto child = by_name.find(item.name.text);
        if (child == by_name.end()) continue;
        int& c = color[item.name.text];
        if (c == 1) {
          auto start = std::find(stack.begin(), stack.end(), item.name.text);
          std::string path;
          for (auto it = start; it != stack.end(); ++it) {
            path += Quote(*it) + " -> ";
            cyclic_.insert(*it);
          }
          path += Quote(item.name.text);
          Error(item.name.range, "cycle in bucket hierarchy: " + path);
        } else if (c == 0) {
          c = 1;
          stack.push_back(item.name.text);
          frames.push_back(Frame{child->second, 0});
        }
      }
    }
  }

  // CrushCompiler::adjust_bucket_item_place: for i < j, if bucket i lists
  // bucket j as an item, swap the parse-tree nodes at the positions
  // recorded for the two names. This is not a topological sort (some
  // acyclic files still fail later with "not defined"), but it decides the
  // order in which ids are assigned, so it is reproduced as is.
  std::vector<std::size_t> CephBucketOrder(const std::vector<const ast::Bucket*>& buckets) {
    const std::size_t n = buckets.size();
    std::vector<std::size_t> content(n);
    std::iota(content.begin(), content.end(), 0);
    std::unordered_map<std::string_view, std::size_t>
        position;  // last definition wins, as in Ceph's map
    std::unordered_map<std::string_view, std::vector<std::size_t>> indices;
    position.reserve(n);
    indices.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      position[buckets[i]->name.text] = i;
      indices[buckets[i]->name.text].push_back(i);
    }
    // Ceph's bucket_items[name]: the item names of every bucket called name.
    auto lists = [&](std::string_view bucket, std::string_view item) {
      for (std::size_t k : indices[bucket]) {
        for (const ast::BucketItem& it : buckets[k]->items) {
          if (it.name.text == item) return true;
        }
      }
      return false;
    };
    for (std::size_t i = 0; i < n; ++i) {
      const std::string_view ni = buckets[i]->name.text;
      // Only pairs where bucket i lists bucket j matter; visit them in j order.
      std::vector<std::size_t> js;
      for (std::size_t k : indices[ni]) {
        for (const ast::BucketItem& it : buckets[k]->items) {
          if (auto found = indices.find(it.name.text); found != indices.end()) {
            for (std::size_t j : found->second) {
              if (j > i) js.push_back(j);
            }
          }
        }
      }
      std::sort(js.begin(), js.end());
      js.erase(std::unique(js.begin(), js.end()), js.end());
      for (std::size_t j : js) {
        const std::string_view nj = buckets[j]->name.text;
        if (lists(nj, ni)) continue;  // mutual inclusion: reported as a cycle
        std::swap(content[position[ni]], content[position[nj]]);
      }
    }
    return content;
  }

  // CrushCompiler::parse_bucket.
  void DoBucket(const ast::Bucket& b) {
    bool ok = true;
    int type = 0;
    if (auto it = type_id_.find(b.type.text); it != type_id_.end()) {
      type = it->second;
    } else {
      sink_.ReportCephError("bucket type '" + std::string(b.type.text) + "' is not defined\n");
      UnknownName(b.type.range, "unknown bucket type " + Quote(b.type.text), b.type.text, type_id_,
                  &type_decl_);
      ok = false;
    }
    const std::string_view name = b.name.text;
    bool register_name = true;
    if (auto it = names_.find(name); it != names_.end()) {
      sink_.ReportCephError("bucket or device '" + std::string(name) + "' is already defined\n");
      Error(b.name.range, Quote(name) + " is already defined",
            {Note(it->second.decl, "previous definition is here")});
      ok = false;
      register_name = false;
    }

    ItemId id = 0;
    bool have_id = false;
    std::map<int, ItemId> class_ids;
    std::map<int, SourceRange> class_id_ranges;
    for (const ast::BucketId& bid : b.ids) {
      if (!CheckInt32(bid.id, "bucket id")) {
        ok = false;
        continue;
      }
      const auto value = static_cast<ItemId>(bid.id.value);
      if (value < -crush::kMaxBucketSlots) {
        Error(bid.id.range, "bucket id " + std::to_string(value) +
                                " is below the supported minimum " +
                                std::to_string(-crush::kMaxBucketSlots));
        ok = false;
        continue;
      }
      if (bid.device_class) {
        // Ceph does not require the class to be used by any device.
        const int cid = ClassId(bid.device_class->text);
        if (class_ids.count(cid) != 0) {
          Error(bid.device_class->range, "duplicate device class " + Quote(bid.device_class->text) +
                                             " for bucket " + Quote(name));
          ok = false;
          continue;
        }
        class_ids[cid] = value;
        class_id_ranges[cid] = bid.id.range;
      } else {
        if (have_id) {
          Error(bid.id.range, "bucket " + Quote(name) + " has more than one id");
          ok = false;
        }
        have_id = true;
        id = value;
      }
    }

    BucketAlg alg = BucketAlg::kNone;
    for (const AlgName& a : kAlgs) {
      if (b.alg.text == a.name) alg = a.alg;
    }
    if (alg == BucketAlg::kNone) {
      std::map<std::string, int> known;
      for (const AlgName& a : kAlgs) known[a.name] = 0;
      UnknownName(b.alg.range, "unknown bucket algorithm " + Quote(b.alg.text), b.alg.text, known,
                  kNoDecls);
      ok = false;
    }
    int hash = 0;
    for (const ast::Word& h : b.hashes) {
      if (h.text == "rjenkins1") {
        hash = crush::kHashRjenkins1;
      } else {
        const long v = std::strtol(std::string(h.text).c_str(), nullptr, 10);
        if (v < 0 || v > 255) {
          Error(h.range, "hash " + Quote(h.text) + " is out of range (0..255)");
          ok = false;
        } else {
          hash = static_cast<int>(v);
        }
      }
    }

    // First pass: explicit positions.
    std::set<std::int64_t> used_pos;
    std::size_t size = b.items.size();
    for (const ast::BucketItem& it : b.items) {
      if (!it.pos) continue;
      if (used_pos.count(it.pos->value) != 0) {
        Error(it.pos->range, "item " + Quote(it.name.text) + " in bucket " + Quote(name) +
                                 " has explicit pos " + std::to_string(it.pos->value) +
                                 ", which is occupied");
        ok = false;
      }
      used_pos.insert(it.pos->value);
    }
    if (!used_pos.empty() && *used_pos.rbegin() > static_cast<std::int64_t>(size)) {
      // Ceph: size = max(size, highest pos), then pos >= size is an error.
      size = static_cast<std::size_t>(std::min<std::int64_t>(*used_pos.rbegin(), 1 << 20));
    }
    std::vector<ItemId> items(size, 0);
    std::vector<Weight> weights(size, 0);
    std::int64_t curpos = 0;
    Weight bucket_weight = 0;
    bool have_uniform = false;
    Weight uniform_weight = 0;
    std::vector<std::pair<ItemId, const ast::BucketItem*>> used_items;
    for (const ast::BucketItem& it : b.items) {
      const std::string_view iname = it.name.text;
      auto found = names_.find(iname);
      if (found == names_.end()) {
        ok = false;
        if (cyclic_.count(iname) != 0) continue;  // already reported as a cycle
        if (declared_buckets_.count(iname) != 0) {
          Error(it.name.range,
                "bucket " + Quote(iname) + " is used by bucket " + Quote(name) +
                    " before it is defined (Ceph's reordering cannot place it); move its "
                    "definition earlier");
          continue;
        }
        sink_.ReportCephError("item '" + std::string(iname) + "' in bucket '" + std::string(name) +
                              "' is not defined\n");
        UnknownName(it.name.range, "unknown item " + Quote(iname) + " in bucket " + Quote(name),
                    iname, names_, &names_);
        continue;
      }
      const ItemId item = found->second.id;
      used_items.emplace_back(item, &it);
      Weight weight = 0x10000;
      if (auto w = item_weight_.find(item); w != item_weight_.end()) weight = w->second;
      if (it.weight) {
        const std::optional<Weight> w = ConvertWeight(*it.weight);
        if (!w) {
          ok = false;
          continue;
        }
        weight = *w;
        if (weight > kMaxDeviceWeight && item >= 0) {
          Error(it.weight->range, "device weight " + Quote(it.weight->text) + " of " +
                                      Quote(iname) + " exceeds the limit of 100");
          ok = false;
          continue;
        }
        if (weight > kMaxBucketWeight && item < 0) {
          Error(it.weight->range, "bucket weight " + Quote(it.weight->text) + " of " +
                                      Quote(iname) + " exceeds the limit of 65535");
          ok = false;
          continue;
        }
      }
      if (alg == BucketAlg::kUniform) {
        if (!have_uniform) {
          have_uniform = true;
          uniform_weight = weight;
        } else if (uniform_weight != weight) {
          Error(it.weight ? it.weight->range : it.name.range,
                "item " + Quote(iname) + " in uniform bucket " + Quote(name) +
                    " must have the same weight as the previous items");
          ok = false;
          continue;
        }
      }
      std::int64_t pos = -1;
      if (it.pos) {
        pos = it.pos->value;
        if (pos >= static_cast<std::int64_t>(size)) {
          Error(it.pos->range, "item " + Quote(iname) + " in bucket " + Quote(name) + " has pos " +
                                   std::to_string(pos) + " >= size " + std::to_string(size));
          ok = false;
          continue;
        }
      } else {
        while (used_pos.count(curpos) != 0) ++curpos;
        pos = curpos++;
      }
      if (pos >= static_cast<std::int64_t>(size)) {
        ok = false;
        continue;
      }
      items[static_cast<std::size_t>(pos)] = item;
      weights[static_cast<std::size_t>(pos)] = weight;
      if (weight > std::numeric_limits<Weight>::max() - bucket_weight) {
        Error(it.weight ? it.weight->range : it.name.range,
              "the weight of bucket " + Quote(name) + " overflows the 16.16 range");
        ok = false;
        continue;
      }
      bucket_weight += weight;
    }
    // Ceph accepts an item listed twice (its own test maps do this), so this
    // is only a warning; the bucket keeps both entries.
    std::stable_sort(used_items.begin(), used_items.end(),
                     [](const auto& lhs, const auto& rhs) { return lhs.first < rhs.first; });
    for (std::size_t i = 1; i < used_items.size(); ++i) {
      if (used_items[i].first != used_items[i - 1].first) continue;
      const ast::BucketItem& again = *used_items[i].second;
      sink_.Report(
          Diagnostic{Severity::kWarning,
                     again.name.range,
                     "item " + Quote(again.name.text) + " is used twice in bucket " + Quote(name),
                     {Note(used_items[i - 1].second->name.range, "first use is here")}});
    }
    if (alg == BucketAlg::kUniform && size > 0 && ok) {
      if (uniform_weight == 0) {
        Error(b.alg.range, "uniform bucket " + Quote(name) + " needs a non-zero item weight");
        ok = false;
      } else if (static_cast<std::uint64_t>(uniform_weight) * size >
                 std::numeric_limits<Weight>::max()) {
        Error(b.alg.range,
              "the weight of uniform bucket " + Quote(name) + " overflows the 16.16 range");
        ok = false;
      }
    }

    if (id == 0) {
      for (id = -1; used_bucket_ids_.count(id) != 0; --id) {
      }
    }
    if (!register_name) return;
    for (const auto& [cid, shadow] : class_ids) {
      file_class_bucket_[id][cid] = shadow;
      file_class_bucket_decl_[{id, cid}] = class_id_ranges[cid];
    }
    used_bucket_ids_.insert(id);
    names_[name] = Named{id, b.name.range};
    item_weight_[id] = bucket_weight;
    if (!ok) return;

    absl::StatusOr<crush::Bucket> made =
        crush::MakeBucket(alg, static_cast<std::uint8_t>(hash), static_cast<std::uint16_t>(type),
                          items, weights, m_.tunables.straw_calc_version);
    if (!made.ok()) {
      Error(b.name.range,
            "cannot build bucket " + Quote(name) + ": " + std::string(made.status().message()));
      return;
    }
    absl::StatusOr<ItemId> added = crush::AddBucket(m_, id, *std::move(made));
    if (!added.ok()) {
      std::vector<Diagnostic> notes;
      std::string other;
      if (auto o = m_.item_names.find(id); o != m_.item_names.end()) {
        other = " by " + Quote(o->second);
        if (auto d = names_.find(o->second); d != names_.end()) {
          notes.push_back(Note(d->second.decl, "previous definition is here"));
        }
      }
      const SourceRange where = have_id ? b.ids.front().id.range : b.name.range;
      Error(where, "bucket id " + std::to_string(id) + " is already used" + other,
            std::move(notes));
      return;
    }
    m_.item_names[id] = name;
  }

  // ---- device classes (CrushWrapper::populate_classes) --------------------
  void PopulateClasses(SourceRange where) {
    if (m_.class_names.empty()) return;   // no class, no shadow tree to clone
    crush::ShadowCloneConflict conflict;  // original stays 0 unless an id was taken
    const absl::Status s = crush::PopulateShadowTrees(m_, file_class_bucket_, &conflict);
    if (s.ok()) return;
    // Ceph ignores populate_classes() failing and keeps what it built (every
    // shadow bucket cloned after the failure is missing too). A file shadow
    // id that is already taken is reported where it was declared.
    Diagnostic d{Severity::kWarning,
                 where,
                 "device class shadow trees are incomplete: " + std::string(s.message()),
                 {}};
    auto decl = file_class_bucket_decl_.find({conflict.original, conflict.device_class});
    if (conflict.original < 0 && decl != file_class_bucket_decl_.end()) {
      d.range = decl->second;
      std::string holder;
      if (auto h = m_.item_names.find(conflict.shadow_id); h != m_.item_names.end())
        holder = " by " + Quote(h->second);
      d.message =
          "device class shadow trees are incomplete: shadow bucket " +
          Quote(m_.item_names[conflict.original] + "~" + m_.class_names[conflict.device_class]) +
          ": id " + std::to_string(conflict.shadow_id) + " (" +
          Quote(m_.class_names[conflict.device_class]) + " shadow of " +
          Quote(m_.item_names[conflict.original]) + ") is already used" + holder +
          " (as in Ceph, this and every later shadow bucket is not built)";
      for (const auto& [key, range] : file_class_bucket_decl_) {
        if (file_class_bucket_[key.first][key.second] == conflict.shadow_id && key != decl->first) {
          d.notes.push_back(Note(range, "that id is declared here"));
          break;
        }
      }
    }
    sink_.Report(std::move(d));
  }

  // ---- rules (CrushCompiler::parse_rule) ----------------------------------
  void DoRule(const ast::Rule& r) {
    if (!saw_rule_) {
      saw_rule_ = true;
      // After an error the map is incomplete; cloning it would only produce
      // cascading diagnostics, so shadow trees (and the checks that need
      // them) are skipped.
      populated_ = errors_ == 0;
      if (populated_) PopulateClasses(r.keyword.range);
    }
    bool ok = true;
    const std::string rname = r.name ? std::string(r.name->text) : std::string();
    if (r.name) {
      if (auto it = rule_name_decl_.find(rname); it != rule_name_decl_.end()) {
        sink_.ReportCephError("rule name '" + rname + "' already defined\n\n");
        Error(r.name->range, "rule name " + Quote(rname) + " is already defined",
              {Note(it->second, "previous definition is here")});
        ok = false;
      } else {
        rule_name_decl_[r.name->text] = r.name->range;
      }
    }
    if (r.id.value > kMaxRuleId) {
      Error(r.id.range, "rule id " + std::to_string(r.id.value) + " is out of range (0..65535)");
      ok = false;
    }
    const auto ruleno = static_cast<int>(std::min<std::int64_t>(r.id.value, kMaxRuleId));
    if (auto it = rule_id_decl_.find(ruleno); it != rule_id_decl_.end() && ok) {
      sink_.ReportCephError("rule " + std::to_string(ruleno) + " already exists\n");
      Error(r.id.range, "rule id " + std::to_string(ruleno) + " is already used",
            {Note(it->second, "previous definition is here")});
      ok = false;
    }
    rule_id_decl_.emplace(ruleno, r.id.range);

    crush::Rule rule;
    rule.ruleset = static_cast<std::uint8_t>(ruleno);
    if (r.type.text == "replicated") {
      rule.type = crush::RuleType::kReplicated;
    } else if (r.type.text == "erasure") {
      rule.type = crush::RuleType::kErasure;
    } else if (msr_ && (r.type.text == "msr_firstn" || r.type.text == "msr_indep")) {
      rule.type =
          r.type.text == "msr_firstn" ? crush::RuleType::kMsrFirstn : crush::RuleType::kMsrIndep;
    } else {
      Error(r.type.range, "rule type " + Quote(r.type.text) + " is not supported by Ceph " +
                              std::string(crush::CephReleaseName(release_)) +
                              " (MSR needs Squid or later)");
      ok = false;
    }
    // Quincy made min_size/max_size optional, ignores them and encodes 1/100.
    rule.min_size = 1;
    rule.max_size = 100;
    for (auto [size, field, keyword] : {std::tuple{&r.min_size, &rule.min_size, "min_size"},
                                        std::tuple{&r.max_size, &rule.max_size, "max_size"}}) {
      if (!*size) continue;
      if (!CheckInt32(**size, keyword)) {
        ok = false;
      } else if (crush::HasRulesets(release_)) {
        *field = static_cast<std::uint8_t>((*size)->value);
      } else {
        if (!warned_sizes_ignored_) {
          // Once per map: a Pacific map has the lines in every rule.
          warned_sizes_ignored_ = true;
          Warning((*size)->range,
                  "min_size/max_size are ignored by Ceph " +
                      std::string(crush::CephReleaseName(release_)) +
                      " (rules have no size range since Quincy), here and in every rule");
        }
        sink_.ReportCephMessage("WARNING: " + std::string(keyword) +
                                " is no longer supported, ignoring");
      }
    }
    const std::string in_rule =
        r.name ? " in rule " + Quote(rname) : std::string(" in unnamed rule");
    for (const ast::Step& s : r.steps) {
      crush::RuleStep step;
      switch (s.kind) {
        case ast::StepKind::kTake: {
          auto it = names_.find(s.item.text);
          if (it == names_.end()) {
            sink_.ReportCephError("in rule '" + rname + "' item '" + std::string(s.item.text) +
                                  "' not defined\n");
            UnknownName(s.item.range, "unknown item " + Quote(s.item.text) + in_rule, s.item.text,
                        names_, &names_);
            ok = false;
            break;
          }
          ItemId id = it->second.id;
          if (s.device_class) {
            const std::string_view cname = s.device_class->text;
            auto c = class_id_.find(cname);
            if (c == class_id_.end()) {
              UnknownName(s.device_class->range, "unknown device class " + Quote(cname) + in_rule,
                          cname, class_id_, kNoDecls);
              ok = false;
              break;
            }
            if (!populated_) break;
            auto cb = m_.class_buckets.find(id);
            if (cb == m_.class_buckets.end()) {
              sink_.ReportCephError("in rule '" + rname + "' step take " +
                                    std::string(s.item.text) + " has no class information\n");
              Error(s.item.range, "step take " + Quote(s.item.text) + " has no class information" +
                                      in_rule + " (no device class shadow tree was built for it)");
              ok = false;
              break;
            }
            auto shadow = cb->second.find(c->second);
            if (shadow == cb->second.end()) {
              sink_.ReportCephError("in rule '" + rname + "' step take " +
                                    std::string(s.item.text) + " no matching bucket for class " +
                                    std::string(cname) + "\n");
              Error(s.device_class->range, "step take " + Quote(s.item.text) +
                                               " has no matching bucket for class " + Quote(cname) +
                                               in_rule);
              ok = false;
              break;
            }
            id = shadow->second;
          }
          step = {RuleOp::kTake, id, 0};
          break;
        }
        case ast::StepKind::kSetParam: {
          const std::string_view op = s.op.text;
          if (!msr_ && (op == "set_msr_descents" || op == "set_msr_collision_tries")) {
            Error(s.op.range, "step " + Quote(op) + " is not supported by Ceph " +
                                  std::string(crush::CephReleaseName(release_)) +
                                  " (MSR needs Squid or later)");
            ok = false;
            break;
          }
          if (!CheckInt32(s.count, "step argument")) {
            ok = false;
            break;
          }
          RuleOp code = RuleOp::kSetChooseTries;
          if (op == "set_choose_local_tries")
            code = RuleOp::kSetChooseLocalTries;
          else if (op == "set_choose_local_fallback_tries")
            code = RuleOp::kSetChooseLocalFallbackTries;
          else if (op == "set_chooseleaf_tries")
            code = RuleOp::kSetChooseleafTries;
          else if (op == "set_chooseleaf_vary_r")
            code = RuleOp::kSetChooseleafVaryR;
          else if (op == "set_chooseleaf_stable")
            code = RuleOp::kSetChooseleafStable;
          else if (op == "set_msr_descents")
            code = RuleOp::kSetMsrDescents;
          else if (op == "set_msr_collision_tries")
            code = RuleOp::kSetMsrCollisionTries;
          step = {code, static_cast<std::int32_t>(s.count.value), 0};
          break;
        }
        case ast::StepKind::kChoose: {
          if (s.op.text == "choosemsr" && !msr_) {
            Error(s.op.range, "step 'choosemsr' is not supported by Ceph " +
                                  std::string(crush::CephReleaseName(release_)) +
                                  " (MSR needs Squid or later)");
            ok = false;
            break;
          }
          auto t = type_id_.find(s.type.text);
          if (t == type_id_.end()) {
            sink_.ReportCephError("in rule '" + rname + "' type '" + std::string(s.type.text) +
                                  "' not defined\n");
            UnknownName(s.type.range, "unknown type " + Quote(s.type.text) + in_rule, s.type.text,
                        type_id_, &type_decl_);
            ok = false;
            break;
          }
          if (!CheckInt32(s.count, "replica count")) {
            ok = false;
            break;
          }
          const bool leaf = s.op.text == "chooseleaf";
          const bool firstn = s.mode.text == "firstn";
          RuleOp code = leaf ? (firstn ? RuleOp::kChooseleafFirstn : RuleOp::kChooseleafIndep)
                             : (firstn ? RuleOp::kChooseFirstn : RuleOp::kChooseIndep);
          if (s.op.text == "choosemsr") code = RuleOp::kChooseMsr;
          step = {code, static_cast<std::int32_t>(s.count.value), t->second};
          break;
        }
        case ast::StepKind::kEmit:
          step = {RuleOp::kEmit, 0, 0};
          break;
      }
      rule.steps.push_back(step);
    }
    if (!ok) return;
    const auto slot = static_cast<std::size_t>(ruleno);
    if (slot >= m_.rules.size()) {
      m_.rules.resize(slot + 1);
      m_.rule_exists.resize(slot + 1, false);
    }
    m_.rules[slot] = std::move(rule);
    m_.rule_exists[slot] = true;
    if (r.name) m_.rule_names[ruleno] = rname;
  }

  // ---- choose_args (CrushCompiler::parse_choose_args) ---------------------
  void DoChooseArgs(const ast::ChooseArgs& ca) {
    // int_node(): strtol then a cast to int, so 18446744073709551615 (how -1
    // is decompiled) saturates to LONG_MAX and truncates to -1.
    const auto index = static_cast<std::int64_t>(static_cast<std::int32_t>(
        static_cast<std::uint32_t>(static_cast<std::uint64_t>(ca.index.value) & 0xffffffffu)));
    bool ok = true;
    if (auto it = choose_args_decl_.find(index); it != choose_args_decl_.end()) {
      Error(ca.index.range, "choose_args " + std::to_string(index) + " is defined twice",
            {Note(it->second, "previous definition is here")});
      ok = false;
    }
    choose_args_decl_.emplace(index, ca.index.range);
    crush::ChooseArgMap args;
    for (const ast::ChooseArg& a : ca.args) {
      if (!CheckInt32(a.bucket_id, "bucket id")) {
        ok = false;
        continue;
      }
      const auto bid = static_cast<ItemId>(a.bucket_id.value);
      const std::int64_t slot = -1 - static_cast<std::int64_t>(bid);
      if (slot < 0 || slot >= m_.max_buckets()) {
        Error(a.bucket_id.range, "bucket id " + std::to_string(bid) + " is out of range");
        ok = false;
        continue;
      }
      const crush::Bucket* bucket = m_.FindBucket(bid);
      if (bucket == nullptr) {
        Error(a.bucket_id.range, "bucket " + std::to_string(bid) + " does not exist");
        ok = false;
        continue;
      }
      const std::size_t size = bucket->items.size();
      crush::ChooseArg& arg = args[bid];
      if (a.weight_set_keyword) {
        std::vector<std::vector<Weight>> ws;
        for (const ast::WeightList& wl : a.weight_set) {
          if (wl.weights.size() != size) {
            Error(wl.range, "bucket " + std::to_string(bid) + " needs exactly " +
                                std::to_string(size) + " weights but got " +
                                std::to_string(wl.weights.size()));
            ok = false;
            continue;
          }
          std::vector<Weight> row;
          for (const ast::Word& w : wl.weights) {
            const std::optional<Weight> v = ConvertWeight(w);
            if (!v) {
              ok = false;
              continue;
            }
            row.push_back(*v);
          }
          ws.push_back(std::move(row));
        }
        arg.weight_set = std::move(ws);
      }
      if (a.ids_keyword) {
        if (a.ids.size() != size) {
          Error(a.ids_keyword->range, "bucket " + std::to_string(bid) + " needs exactly " +
                                          std::to_string(size) + " ids but got " +
                                          std::to_string(a.ids.size()));
          ok = false;
          continue;
        }
        std::vector<ItemId> ids;
        for (const ast::Number& n : a.ids) {
          if (!CheckInt32(n, "id")) {
            ok = false;
            continue;
          }
          ids.push_back(static_cast<ItemId>(n.value));
        }
        arg.ids = std::move(ids);
      }
    }
    if (!ok) return;
    // The encoder skips buckets with neither weights nor ids; so do we.
    for (auto it = args.begin(); it != args.end();) {
      if (it->second.weight_set.empty() && it->second.ids.empty()) {
        it = args.erase(it);
      } else {
        ++it;
      }
    }
    m_.choose_args[index] = std::move(args);
  }

  // CrushWrapper::finalize.
  void Finalize() {
    crush::FinalizeMaxDevices(m_);
    m_.tail = msr_ ? crush::EncodedTail::kMsr : crush::EncodedTail::kChooseArgs;
  }

  const SourceFile& src_;
  DiagnosticSink& sink_;
  const crush::CephRelease release_;
  const bool msr_;  // the release knows MSR rules (Squid and later)
  // Accept repeated type/device ids and names as CrushCompiler does (the
  // last declaration wins), with a warning, instead of refusing them.
  const bool quirks_;
  int errors_ = 0;
  MapModel m_;
  // CrushCompiler::item_id (devices and buckets named in the file) and
  // where each name was declared.
  // Keys view the AST's words (which outlive the Lowerer). A flat table:
  // every item of every bucket is looked up here, and on big maps the
  // node-based std::unordered_map spent its time in cache misses.
  absl::flat_hash_map<std::string_view, Named, ViewHash> names_;
  std::set<ItemId> used_bucket_ids_;      // CrushCompiler::id_item keys
  std::map<ItemId, Weight> item_weight_;  // CrushCompiler::item_weight
  std::map<std::string_view, int> type_id_;
  std::map<std::string_view, SourceRange> type_decl_;
  std::map<int, SourceRange> type_id_decl_;
  std::map<std::string_view, int> class_id_;                // CrushWrapper::class_rname
  std::map<int, std::map<int, ItemId>> file_class_bucket_;  // CrushCompiler::class_bucket
  // Where each file_class_bucket_ entry ("id N class C") was declared: a
  // shadow id found taken is reported there.
  std::map<std::pair<int, int>, SourceRange> file_class_bucket_decl_;
  std::map<std::string_view, SourceRange> rule_name_decl_;
  std::map<int, SourceRange> rule_id_decl_;
  std::map<std::int64_t, SourceRange> choose_args_decl_;
  std::set<std::string_view> cyclic_;
  std::unordered_set<std::string_view> declared_buckets_;
  bool saw_rule_ = false;
  bool warned_sizes_ignored_ = false;
  bool populated_ = false;
};

}  // namespace

std::optional<MapModel> Lower(const SourceFile& src, const ast::CrushFile& file,
                              DiagnosticSink& sink, crush::CephRelease release, bool ceph_quirks) {
  return Lowerer(src, sink, release, ceph_quirks).Run(file);
}

}  // namespace crushkit::compiler
