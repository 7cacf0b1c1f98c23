// The argument grammar of each change operation (the functions
// change_op_table.cc names), on the words change_ops.cc split and matched
// to a command: every parser reads its words through internal::Args and
// reports into its Diagnostics with the command's usage.
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"

#include "crush/edit/edit.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/changes/change_ops_internal.h"

namespace crushkit::osdmap {
namespace {

using crush::IsValidCrushName;
using internal::DidYouMean;
using internal::ParseDecimal;

using internal::Args;
using internal::Diagnostics;

bool CheckName(const Word& w, std::string_view what, Diagnostics& diags) {
  if (IsValidCrushName(w.text)) return true;
  diags.At(w, "invalid " + std::string(what) + " '" + w.text +
                  "'; names use letters, digits, '-', '_' and '.'");
  return false;
}

// "N" or "osd.N" (Ceph's parse_osd_id()).
std::optional<std::int32_t> ParseOsdId(const Word& w, Diagnostics& diags) {
  std::string_view digits = w.text;
  if (digits.substr(0, 4) == "osd.") digits.remove_prefix(4);
  const std::optional<std::uint64_t> id = ParseDecimal(digits);
  if (!id) {
    diags.At(w, "bad OSD id '" + w.text + "'; expected N or osd.N");
    return std::nullopt;
  }
  if (*id > static_cast<std::uint64_t>(kMaxChangeOsdId)) {
    diags.At(w, "OSD id '" + w.text + "' is too large; crushkit accepts ids up to " +
                    std::to_string(kMaxChangeOsdId));
    return std::nullopt;
  }
  return static_cast<std::int32_t>(*id);
}

bool ParseOsdWord(const Word& w, ChangeOp& op, Diagnostics& diags) {
  const std::optional<std::int32_t> id = ParseOsdId(w, diags);
  if (!id) return false;
  op.osd_ids.push_back(*id);
  op.osd_words.push_back(w);
  return true;
}

// A decimal number as Ceph's CLI takes it (strtod's decimal form; no inf,
// nan or hex). nullopt after reporting.
std::optional<double> ParseNumber(const Word& w, std::string_view what, Diagnostics& diags) {
  std::string_view t = w.text;
  const bool negative = !t.empty() && t[0] == '-';
  if (negative || (!t.empty() && t[0] == '+')) t.remove_prefix(1);
  bool ok = !t.empty() && (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '.');
  ok = ok && std::none_of(t.begin(), t.end(), [](char c) {
         return c == 'x' || c == 'X' || c == 'n' || c == 'N' || c == 'i' || c == 'I';
       });
  double v = 0;
  if (ok) {
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc::result_out_of_range) {
      v = std::numeric_limits<double>::infinity();
    } else if (ec != std::errc() || end != t.data() + t.size()) {
      ok = false;
    }
  }
  if (!ok) {
    diags.At(w, "bad " + std::string(what) + " '" + w.text + "'; expected a decimal number");
    return std::nullopt;
  }
  if (negative && v != 0) {
    diags.At(w, "negative " + std::string(what) + " '" + w.text + "'");
    return std::nullopt;
  }
  return v;
}

// A CRUSH weight: >= 0 and representable in 16.16 the way Ceph's
// CrushWrapper::validate_weightf() checks it (the float product, as uint64,
// must not exceed INT_MAX).
bool ParseCrushWeight(const Word& w, ChangeOp& op, Diagnostics& diags) {
  const std::optional<double> v = ParseNumber(w, "weight", diags);
  if (!v) return false;
  const float product = static_cast<float>(*v) * static_cast<float>(0x10000);
  if (!(static_cast<double>(product) <= static_cast<double>(std::numeric_limits<int>::max()))) {
    diags.At(w, "weight '" + w.text +
                    "' overflows CRUSH's 16.16 fixed point; the largest weight is 32767.99998");
    return false;
  }
  op.weight = *v;
  op.weight_word = w;
  return true;
}

std::optional<std::uint64_t> ParseUnsigned(const Word& w, std::string_view what, std::uint64_t lo,
                                           std::uint64_t hi, Diagnostics& diags) {
  const std::optional<std::uint64_t> v = ParseDecimal(w.text);
  if (!v) {
    diags.At(w, "bad " + std::string(what) + " '" + w.text + "'; expected a whole number");
    return std::nullopt;
  }
  if (*v < lo || *v > hi) {
    diags.At(w, std::string(what) + " '" + w.text + "' is out of range; expected " +
                    std::to_string(lo) + ".." + std::to_string(hi));
    return std::nullopt;
  }
  return v;
}

// TYPE=NAME; duplicates of a type already in `op.location` are refused
// (Ceph's parse_loc_map() silently keeps the last).
bool ParseLocationWord(const Word& w, ChangeOp& op, Diagnostics& diags) {
  const std::size_t eq = w.text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == w.text.size()) {
    diags.At(w, "bad location '" + w.text + "'; expected TYPE=NAME");
    return false;
  }
  LocationWord loc{Word{w.text.substr(0, eq), w.line, w.column},
                   Word{w.text.substr(eq + 1), w.line, w.column + static_cast<int>(eq) + 1}};
  if (!CheckName(loc.type, "type", diags) || !CheckName(loc.name, "bucket name", diags)) {
    return false;
  }
  for (const LocationWord& other : op.location) {
    if (other.type.text == loc.type.text) {
      diags.At(loc.type, "location type '" + loc.type.text + "' given twice");
      return false;
    }
  }
  op.location.push_back(std::move(loc));
  return true;
}

bool ParseLocationRest(Args& args, ChangeOp& op) {
  bool ok = true;
  while (!args.empty()) ok = ParseLocationWord(*args.Next("location"), op, args.diags()) && ok;
  return ok;
}

bool NameArg(Args& args, std::string_view what, Word& out) {
  const Word* w = args.Next(what);
  if (!w) return false;
  out = *w;
  return CheckName(*w, what == "NAME" ? "name" : what, args.diags());
}

}  // namespace

namespace internal {

// Grammar of each command's arguments (after its command words).

bool ParseAddBucket(Args& args, ChangeOp& op) {
  if (!NameArg(args, "NAME", op.name)) return false;
  const Word* type = args.Next("TYPE");
  if (!type) return false;
  op.type = *type;
  return CheckName(*type, "type", args.diags()) && ParseLocationRest(args, op);
}

bool ParseAddOrSet(Args& args, ChangeOp& op) {
  const Word* id = args.Next("OSD");
  if (!id || !ParseOsdWord(*id, op, args.diags())) return false;
  const Word* weight = args.Next("WEIGHT");
  return weight && ParseCrushWeight(*weight, op, args.diags()) && ParseLocationRest(args, op);
}

bool ParseNameOnly(Args& args, ChangeOp& op) {
  return NameArg(args, "NAME", op.name) && args.Finish();
}

bool ParseReweight(Args& args, ChangeOp& op) {
  if (!NameArg(args, "NAME", op.name)) return false;
  const Word* weight = args.Next("WEIGHT");
  return weight && ParseCrushWeight(*weight, op, args.diags()) && args.Finish();
}

bool ParseMove(Args& args, ChangeOp& op) {
  if (!NameArg(args, "NAME", op.name)) return false;
  if (args.empty()) {
    args.Next("location TYPE=NAME");
    return false;
  }
  return ParseLocationRest(args, op);
}

bool ParseOsdList(Args& args, ChangeOp& op) {
  if (args.empty()) {
    args.Next("OSD id");
    return false;
  }
  bool ok = true;
  while (!args.empty()) ok = ParseOsdWord(*args.Next("OSD id"), op, args.diags()) && ok;
  return ok;
}

bool ParseSetDeviceClass(Args& args, ChangeOp& op) {
  return NameArg(args, "CLASS", op.device_class) && ParseOsdList(args, op);
}

bool ParseRuleCreate(Args& args, ChangeOp& op) {
  if (!NameArg(args, "NAME", op.name) || !NameArg(args, "ROOT", op.root) ||
      !NameArg(args, "TYPE", op.type)) {
    return false;
  }
  if (!args.empty() && !NameArg(args, "CLASS", op.device_class)) return false;
  return args.Finish();
}

bool ParseTunables(Args& args, ChangeOp& op) {
  const Word* profile = args.Next("PROFILE");
  if (!profile) return false;
  op.name = *profile;
  if (!internal::FindTunablesProfile(profile->text)) {
    std::vector<std::string> names;
    for (const auto& [name, p] : internal::TunablesProfiles()) names.emplace_back(name);
    args.diags().At(*profile, "unknown tunables profile '" + profile->text + "'; expected " +
                                  absl::StrJoin(names, ", ") + DidYouMean(profile->text, names));
    return false;
  }
  return args.Finish();
}

bool ParseSetTunable(Args& args, ChangeOp& op) {
  const Word* name = args.Next("TUNABLE");
  if (!name) return false;
  op.name = *name;
  const internal::TunableSpec* spec = internal::FindTunable(name->text);
  if (!spec) {
    std::vector<std::string> names;
    for (const internal::TunableSpec& t : internal::Tunables()) names.emplace_back(t.name);
    args.diags().At(*name, "unknown tunable '" + name->text + "'; expected " +
                               absl::StrJoin(names, ", ") + DidYouMean(name->text, names));
    return false;
  }
  const Word* value = args.Next("VALUE");
  if (!value) return false;
  const std::optional<std::uint64_t> v =
      ParseUnsigned(*value, spec->name, 0, spec->max, args.diags());
  if (!v) return false;
  op.value = *v;
  op.value_word = *value;
  return args.Finish();
}

// osd reweight / osd primary-affinity: an OSD and a value in [0, 1].
bool ParseOsdFraction(Args& args, ChangeOp& op) {
  const std::string_view what =
      op.kind == ChangeOpKind::kOsdReweight ? "reweight" : "primary affinity";
  const Word* id = args.Next("OSD");
  if (!id || !ParseOsdWord(*id, op, args.diags())) return false;
  const Word* w = args.Next(op.kind == ChangeOpKind::kOsdReweight ? "WEIGHT" : "AFFINITY");
  if (!w) return false;
  const std::optional<double> v = ParseNumber(*w, what, args.diags());
  if (!v) return false;
  if (*v > 1.0) {
    args.diags().At(*w, std::string(what) + " '" + w->text + "' is out of range; expected 0..1");
    return false;
  }
  op.weight = *v;
  op.weight_word = *w;
  return args.Finish();
}

bool ParsePg(Args& args, ChangeOp& op) {
  const Word* pg = args.Next("PGID");
  if (!pg) return false;
  const std::optional<PgId> id = ParsePgId(pg->text);
  if (!id) {
    args.diags().At(*pg, "bad PG id '" + pg->text + "'; expected POOL.SEED (e.g. 1.7f)");
    return false;
  }
  op.pg = *id;
  op.pg_word = *pg;
  return true;
}

bool ParsePgOnly(Args& args, ChangeOp& op) { return ParsePg(args, op) && args.Finish(); }

bool ParsePgUpmap(Args& args, ChangeOp& op) { return ParsePg(args, op) && ParseOsdList(args, op); }

bool ParsePgUpmapItems(Args& args, ChangeOp& op) {
  if (!ParsePg(args, op) || !ParseOsdList(args, op)) return false;
  if (op.osd_ids.size() % 2 != 0) {
    args.diags().After(op.osd_words.back(),
                       "missing TO; expected 'osd pg-upmap-items PGID FROM TO [FROM TO ...]'");
    return false;
  }
  return true;
}

// osd pg-upmap-primary PGID ID
bool ParsePgUpmapPrimary(Args& args, ChangeOp& op) {
  if (!ParsePg(args, op)) return false;
  const Word* id = args.Next("OSD");
  return id && ParseOsdWord(*id, op, args.diags()) && args.Finish();
}

constexpr std::string_view kYesReally = "--yes-i-really-mean-it";

bool ParsePurge(Args& args, ChangeOp& op) {
  const Word* id = args.Next("OSD");
  if (!id || !ParseOsdWord(*id, op, args.diags())) return false;
  if (!args.empty() && args.Peek().text == kYesReally) args.Next("");
  return args.Finish();
}

// osd crush swap-bucket SOURCE DEST [--yes-i-really-mean-it]
bool ParseSwapBucket(Args& args, ChangeOp& op) {
  if (!NameArg(args, "SOURCE", op.name) || !NameArg(args, "DEST", op.target)) return false;
  if (!args.empty() && args.Peek().text == kYesReally) {
    args.Next("");
    op.forced = true;
  }
  return args.Finish();
}

bool ParsePoolSet(Args& args, ChangeOp& op) {
  const Word* pool = args.Next("POOL");
  if (!pool) return false;
  op.name = *pool;
  const Word* var = args.Next("setting");
  if (!var) return false;
  op.type = *var;
  const Word* value = args.Next("VALUE");
  if (!value) return false;
  op.value_word = *value;
  // Ranges as OSDMonitor::prepare_command_pool_set() checks them without the
  // pool (size 1..10, pg_num up to mon_max_pool_pg_num's 65536).
  static const std::vector<std::pair<std::string, std::uint64_t>> kNumeric = {
      {"size", 10}, {"min_size", 10}, {"pg_num", 65536}, {"pgp_num", 65536}};
  bool ok = true;
  if (var->text == "crush_rule") {
    ok = ParseDecimal(value->text) || CheckName(*value, "rule name", args.diags());
  } else {
    const auto it = std::find_if(kNumeric.begin(), kNumeric.end(),
                                 [&](const auto& n) { return n.first == var->text; });
    if (it == kNumeric.end()) {
      const std::vector<std::string> names = {"size", "min_size", "pg_num", "pgp_num",
                                              "crush_rule"};
      args.diags().At(*var, "unknown pool setting '" + var->text +
                                "'; crushkit models size, min_size, pg_num, pgp_num and "
                                "crush_rule" +
                                DidYouMean(var->text, names));
      return false;
    }
    const std::optional<std::uint64_t> v =
        ParseUnsigned(*value, var->text, 1, it->second, args.diags());
    ok = v.has_value();
    if (v) op.value = *v;
  }
  if (!args.empty() && args.Peek().text == kYesReally) args.Next("");
  return ok && args.Finish();
}

bool ParseAddHost(Args& args, ChangeOp& op) {
  if (!NameArg(args, "NAME", op.name)) return false;
  bool ok = true;
  bool have_count = false;
  while (!args.empty()) {
    const Word& w = *args.Next("");
    const std::size_t eq = w.text.find('=');
    const bool keyed = eq != std::string::npos;
    const std::string key = keyed ? w.text.substr(0, eq) : "";
    const Word value{keyed ? w.text.substr(eq + 1) : "", w.line,
                     keyed ? w.column + static_cast<int>(eq) + 1 : w.column};
    if ((key == "osds" && have_count) || (key == "weight" && op.weight_word.present()) ||
        (key == "class" && op.device_class.present())) {
      args.diags().At(w, "'" + key + "=' given twice");
      ok = false;
    } else if (key == "osds") {
      const std::optional<std::uint64_t> n = ParseUnsigned(
          value, "osds", 0, static_cast<std::uint64_t>(kMaxAddHostOsds), args.diags());
      ok = n.has_value() && ok;
      op.osd_count = n ? static_cast<int>(*n) : 0;
      have_count = true;
    } else if (key == "weight") {
      ok = ParseCrushWeight(value, op, args.diags()) && ok;
      op.weight_word = value;
    } else if (key == "class") {
      op.device_class = value;
      ok = CheckName(value, "device class", args.diags()) && ok;
    } else {
      ok = ParseLocationWord(w, op, args.diags()) && ok;
    }
  }
  if (!ok) return false;
  const Word& last = op.location.empty() ? op.name : op.location.back().name;
  if (!have_count) {
    args.diags().After(last,
                       "missing osds=COUNT; expected 'add-host NAME osds=COUNT "
                       "weight=WEIGHT [class=CLASS] [TYPE=NAME ...]'");
    return false;
  }
  if (!op.weight_word.present()) {
    args.diags().After(last,
                       "missing weight=WEIGHT; expected 'add-host NAME osds=COUNT "
                       "weight=WEIGHT [class=CLASS] [TYPE=NAME ...]'");
    return false;
  }
  return true;
}

}  // namespace internal

}  // namespace crushkit::osdmap
