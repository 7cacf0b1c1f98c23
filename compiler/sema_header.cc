// The header of a text map: tunables, devices and bucket types, as
// CrushCompiler::parse_tunable, parse_device and parse_bucket_type read them.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "compiler/sema_passes.h"

namespace crushkit::compiler::sema {
namespace {

using crush::ItemId;

constexpr std::int64_t kMaxTypeId = 65535;  // bucket types are stored as u16

constexpr const char* kTunableNames[] = {"choose_local_tries", "choose_local_fallback_tries",
                                         "choose_total_tries", "chooseleaf_descend_once",
                                         "chooseleaf_vary_r",  "chooseleaf_stable",
                                         "straw_calc_version", "allowed_bucket_algs"};

// The MSR tunables exist from Squid on; CrushWrapper::set_msr_* store u32.
void LowerMsrTunable(SemaContext& ctx, const ast::Tunable& t) {
  const std::string_view n = t.name.text;
  if (!ctx.msr) {
    ctx.Error(t.name.range, "tunable " + Quote(n) + " is not supported by Ceph " +
                                std::string(crush::CephReleaseName(ctx.release)) +
                                " (MSR needs Squid or later)");
  } else if (ctx.CheckInt32(t.value, "tunable value")) {
    const auto v = static_cast<std::uint32_t>(static_cast<std::int32_t>(t.value.value));
    (n == "msr_descents" ? ctx.model.tunables.msr_descents
                         : ctx.model.tunables.msr_collision_tries) = v;
  }
}

void LowerTunable(SemaContext& ctx, const ast::Tunable& t) {
  const std::string_view n = t.name.text;
  if (n == "msr_descents" || n == "msr_collision_tries") {
    LowerMsrTunable(ctx, t);
    return;
  }
  if (std::find_if(std::begin(kTunableNames), std::end(kTunableNames),
                   [&](const char* k) { return n == k; }) == std::end(kTunableNames)) {
    std::map<std::string, int> known;
    for (const char* k : kTunableNames) known[k] = 0;
    ctx.UnknownName(t.name.range, "unknown tunable " + Quote(n), n, known, SemaContext::kNoDecls);
    return;
  }
  if (!ctx.CheckInt32(t.value, "tunable value")) return;
  const auto val = static_cast<std::int32_t>(t.value.value);
  crush::Tunables& tu = ctx.model.tunables;
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

// A device id already taken by another name: an error, or with quirks Ceph's
// parse_device behaviour (set_item_name(id, name) renames the device; both
// names keep resolving to `id` in the rest of the file).
void LowerDeviceIdReuse(SemaContext& ctx, const ast::Device& d, ItemId id,
                        std::string& previous_name) {
  const std::string_view name = d.name.text;
  if (ctx.quirks) {
    ctx.Quirk(d.id.range, "device id " + std::to_string(id) + " is already used by " +
                              Quote(previous_name) + "; as Ceph, the device is renamed " +
                              Quote(name) + " and both names refer to it");
    previous_name = std::string(name);
    ctx.names.emplace(name, Named{id, d.name.range});
    if (d.device_class) ctx.model.class_map[id] = ctx.ClassId(d.device_class->text);
    return;
  }
  std::vector<Diagnostic> notes;
  if (auto prev = ctx.names.find(previous_name); prev != ctx.names.end()) {
    notes.push_back(SemaContext::Note(prev->second.decl, "previous definition is here"));
  }
  ctx.Error(d.id.range,
            "device id " + std::to_string(id) + " is already used by " + Quote(previous_name),
            std::move(notes));
}

void LowerDevice(SemaContext& ctx, const ast::Device& d) {
  if (!ctx.CheckInt32(d.id, "device id")) return;
  const auto id = static_cast<ItemId>(d.id.value);
  const std::string_view name = d.name.text;
  if (auto it = ctx.names.find(name); it != ctx.names.end()) {
    ctx.sink.ReportCephError("item " + std::string(name) + " defined twice\n");
    ctx.Error(d.name.range, Quote(name) + " is already defined",
              {SemaContext::Note(it->second.decl, "previous definition is here")});
    return;
  }
  if (auto it = ctx.model.item_names.find(id); it != ctx.model.item_names.end()) {
    LowerDeviceIdReuse(ctx, d, id, it->second);
    return;
  }
  ctx.model.item_names.emplace_hint(ctx.model.item_names.end(), id, std::string(name));
  ctx.names.emplace(name, Named{id, d.name.range});
  if (d.device_class) ctx.model.class_map[id] = ctx.ClassId(d.device_class->text);
}

// Type declarations, and where each type id was declared.
class TypeLowering {
 public:
  explicit TypeLowering(SemaContext& ctx) : ctx_(ctx) {}

  void Lower(const ast::TypeDecl& t) {
    if (t.id.value > kMaxTypeId) {
      ctx_.Error(t.id.range,
                 "type id " + std::to_string(t.id.value) + " is out of range (0..65535)");
      return;
    }
    const auto id = static_cast<int>(t.id.value);
    if (ctx_.quirks && (ctx_.type_decl.count(t.name.text) != 0 || type_id_decl_.count(id) != 0)) {
      // parse_bucket_type: type_id[name] = id; set_type_name(id, name). The
      // last declaration of a name or id wins; an earlier name of this id
      // still resolves to it.
      ctx_.Quirk(t.id.range, "type " + Quote(t.name.text) + " " + std::to_string(id) +
                                 " repeats a type name or id; as Ceph, the last declaration wins");
      Define(t, id);
      return;
    }
    if (auto it = ctx_.type_decl.find(t.name.text); it != ctx_.type_decl.end()) {
      ctx_.Error(t.name.range, "type " + Quote(t.name.text) + " is already defined",
                 {SemaContext::Note(it->second, "previous definition is here")});
      return;
    }
    if (auto it = type_id_decl_.find(id); it != type_id_decl_.end()) {
      ctx_.Error(t.id.range,
                 "type id " + std::to_string(id) + " is already used by type " +
                     Quote(ctx_.model.type_names[id]),
                 {SemaContext::Note(it->second, "previous definition is here")});
      return;
    }
    Define(t, id);
  }

 private:
  void Define(const ast::TypeDecl& t, int id) {
    ctx_.model.type_names[id] = std::string(t.name.text);
    ctx_.type_id[t.name.text] = id;
    ctx_.type_decl[t.name.text] = t.name.range;
    type_id_decl_[id] = t.id.range;
  }

  SemaContext& ctx_;
  std::map<int, SourceRange> type_id_decl_;
};

}  // namespace

void LowerHeader(SemaContext& ctx, const std::vector<ast::HeaderStatement>& header) {
  TypeLowering types(ctx);
  for (const ast::HeaderStatement& st : header) {
    if (const auto* t = std::get_if<ast::Tunable>(&st)) {
      LowerTunable(ctx, *t);
    } else if (const auto* d = std::get_if<ast::Device>(&st)) {
      LowerDevice(ctx, *d);
    } else {
      types.Lower(std::get<ast::TypeDecl>(st));
    }
  }
}

}  // namespace crushkit::compiler::sema
