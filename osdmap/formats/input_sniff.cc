#include "osdmap/formats/input_sniff.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "crush/codec.h"
#include "crush/util/text_excerpt.h"

namespace crushkit::osdmap {
namespace {

std::uint32_t LoadLe32(std::string_view b, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
  return v;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Text: no NUL or control bytes other than tab, CR, LF in the first 4 KiB.
bool LooksLikeText(std::string_view bytes) {
  const std::string_view head = bytes.substr(0, 4096);
  return std::none_of(head.begin(), head.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7f;
  });
}

// --- JSON shape ------------------------------------------------------------

// The keys of a JSON document down to three levels, each as a path
// ("pg_map/pg_stats", "pg_stats/[]/stat_sum", "[]/pgid"), where an array
// stands for its first element only: enough to tell Ceph's dumps apart
// without building the document. Malformed JSON yields what was seen.
struct JsonShape {
  char root = 0;          // '{' or '['
  bool complete = false;  // the root container was closed
  std::set<std::string, std::less<>> paths;
  std::vector<std::string> top_keys;  // in order, for messages

  bool Has(std::string_view path) const { return paths.count(path) != 0; }
};

JsonShape ScanJsonShape(std::string_view text) {
  constexpr std::size_t kMaxDepth = 3;
  constexpr std::size_t kMaxKeyBytes = 64;
  constexpr std::size_t kMaxPaths = 4096;

  struct Frame {
    bool array;
    bool expect_key;
    std::size_t element;  // arrays: index of the current element
    std::string path;     // of the container itself ("" for the root)
  };

  JsonShape shape;
  std::vector<Frame> stack;  // at most kMaxDepth frames
  std::size_t deep = 0;      // containers open below the deepest frame
  std::string pending_key;   // the last key read in the innermost object
  // True while every enclosing array is at its first element.
  auto first_lane = [&stack] {
    return std::all_of(stack.begin(), stack.end(),
                       [](const Frame& f) { return !f.array || f.element == 0; });
  };
  auto child_path = [&](const Frame& parent) {
    const std::string leaf = parent.array ? "[]" : pending_key;
    return parent.path.empty() ? leaf : parent.path + "/" + leaf;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      std::size_t j = i + 1;
      std::string s;
      while (j < text.size() && text[j] != '"') {
        if (text[j] == '\\') ++j;
        if (j < text.size() && s.size() < kMaxKeyBytes) s += text[j];
        ++j;
      }
      if (deep == 0 && !stack.empty() && !stack.back().array && stack.back().expect_key) {
        pending_key = s;
        if (first_lane() && shape.paths.size() < kMaxPaths) {
          shape.paths.insert(child_path(stack.back()));
          if (stack.size() == 1) shape.top_keys.push_back(s);
        }
        stack.back().expect_key = false;
      }
      i = j;
      continue;
    }
    if (c == '{' || c == '[') {
      if (stack.empty() && shape.root == 0) shape.root = c;
      if (stack.size() >= kMaxDepth) {
        ++deep;
        continue;
      }
      std::string path = stack.empty() ? "" : child_path(stack.back());
      stack.push_back(Frame{c == '[', c == '{', 0, std::move(path)});
    } else if (c == '}' || c == ']') {
      if (deep > 0) {
        --deep;
        continue;
      }
      if (!stack.empty()) stack.pop_back();
      if (stack.empty()) {  // the document ends here
        shape.complete = true;
        break;
      }
    } else if (c == ',' && deep == 0 && !stack.empty()) {
      if (stack.back().array) {
        ++stack.back().element;
      } else {
        stack.back().expect_key = true;
      }
    }
  }
  return shape;
}

InputKind ClassifyJson(const JsonShape& j) {
  if (j.root == '[') {
    // Luminous printed `pg dump pgs[_brief]` as a bare array.
    if (j.Has("[]/pgid") && !j.Has("[]/stat_sum")) return InputKind::kCephPgDumpBriefJson;
    return InputKind::kOtherJson;
  }
  if (j.Has("crush_map") || j.Has("crushMap")) return InputKind::kStateJson;
  if (j.Has("osdmap") &&
      (j.Has("monmap") || j.Has("crushmap") || j.Has("cluster_fingerprint") || j.Has("health")))
    return InputKind::kCephReportJson;
  if (j.Has("max_osd") && j.Has("pools") && j.Has("osds")) return InputKind::kCephOsdDumpJson;
  if (j.Has("buckets") && j.Has("rules") && (j.Has("devices") || j.Has("types")))
    return InputKind::kCephCrushDumpJson;
  if (j.Has("pg_map")) return InputKind::kCephPgDumpJson;
  if (j.Has("pg_stats")) {
    if (j.Has("pg_stats/[]/stat_sum")) return InputKind::kCephPgDumpPgsJson;
    // Entries without stat_sum are pgs_brief's; an empty list could be
    // either and has nothing to import.
    if (j.Has("pg_stats/[]/pgid")) return InputKind::kCephPgDumpBriefJson;
    return InputKind::kCephPgDumpPgsJson;
  }
  if (j.Has("pg_stats_sum") || j.Has("pool_stats")) return InputKind::kCephPgDumpJson;
  if (j.Has("nodes")) {
    if (j.Has("summary") || j.Has("nodes/[]/kb")) return InputKind::kCephOsdDfJson;
    // `ceph osd tree` rows are named and typed, and have no kb.
    if (j.Has("nodes/[]/name") || j.Has("nodes/[]/type")) return InputKind::kCephOsdTreeJson;
  }
  if (j.Has("pools") && (j.Has("stats") || j.Has("stats_by_class"))) return InputKind::kCephDfJson;
  return InputKind::kOtherJson;
}

// --- binary state files ----------------------------------------------------

// A crushkit state in binary protobuf: the top-level fields walk the whole
// input with valid wire types (varint, fixed64, length-delimited, fixed32;
// groups are not in the schema), and the crush map (field 11) or max_osd
// (field 2) is among them. Unknown field numbers are allowed (a newer
// crushkit's file). Linear in the number of fields.
bool LooksLikeStateProto(std::string_view b) {
  std::size_t at = 0;
  auto varint = [&](std::uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at >= b.size()) return false;
      const auto byte = static_cast<unsigned char>(b[at++]);
      *v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  };
  bool has_key_field = false;
  while (at < b.size()) {
    std::uint64_t tag = 0;
    if (!varint(&tag)) return false;
    const std::uint64_t field = tag >> 3;
    if (field == 0 || field > (1u << 29) - 1) return false;
    if (field == 2 || field == 11) has_key_field = true;
    std::uint64_t skip = 0;
    switch (tag & 7) {
      case 0:
        if (!varint(&skip)) return false;
        skip = 0;
        break;
      case 1:
        skip = 8;
        break;
      case 2:
        if (!varint(&skip)) return false;
        break;
      case 5:
        skip = 4;
        break;
      default:
        return false;
    }
    if (skip > b.size() - at) return false;
    at += static_cast<std::size_t>(skip);
  }
  return has_key_field;
}

// --- text ------------------------------------------------------------------

// The words of the first line that is neither blank nor a '#' comment (at
// most `max_words`), and whether a "# begin crush map" line came first.
std::vector<std::string_view> FirstLineWords(std::string_view text, std::size_t max_words,
                                             bool* crushtool_header) {
  *crushtool_header = false;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    while (!line.empty() && IsSpace(line.front())) line.remove_prefix(1);
    if (line.rfind("# begin crush map", 0) == 0) *crushtool_header = true;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size() && words.size() < max_words) {
      while (i < line.size() && IsSpace(line[i])) ++i;
      const std::size_t start = i;
      while (i < line.size() && !IsSpace(line[i])) ++i;
      if (i > start) words.push_back(line.substr(start, i - start));
    }
    if (!words.empty()) return words;
  }
  return {};
}

InputKind ClassifyText(std::string_view text) {
  bool crushtool_header = false;
  const std::vector<std::string_view> w = FirstLineWords(text, 4, &crushtool_header);
  if (crushtool_header) return InputKind::kCrushTextMap;
  if (w.empty()) return InputKind::kOtherText;
  static const std::set<std::string_view> kCrushStarts = {"tunable", "device", "type", "rule",
                                                          "choose_args"};
  if (kCrushStarts.count(w[0]) != 0) return InputKind::kCrushTextMap;
  // A bucket: "host node1 {".
  if (w.size() >= 3 && w[2] == "{") return InputKind::kCrushTextMap;
  const std::string_view first = w[0] == "ceph" && w.size() > 1 ? w[1] : w[0];
  if (first == "osd" || first == "add-host" || first == "drain") return InputKind::kChangeFile;
  return InputKind::kOtherText;
}

std::string Hex(std::string_view bytes, std::size_t n) {
  std::string hex;
  for (std::size_t i = 0; i < bytes.size() && i < n; ++i) {
    char buf[4];
    std::snprintf(buf, sizeof buf, " %02x", static_cast<unsigned char>(bytes[i]));
    hex += buf;
  }
  return hex;
}

// --- roles -----------------------------------------------------------------

struct RoleSpec {
  InputRole role;
  std::string_view wants;  // "<flag> wants <what>" or "expected <what>"
  std::vector<InputKind> takes;
  // Handed to the role's parser rather than refused here: kOtherText for
  // the text parsers; kOtherJson for the JSON ones when it is malformed (the
  // parser locates the syntax error), has one of `json_keys` at its top
  // (a trimmed dump: the parser names the missing field), or always with
  // `any_json`.
  std::vector<InputKind> passes_on = {};
  std::vector<std::string_view> json_keys = {};
  bool any_json = false;
};

const std::vector<RoleSpec>& Roles() {
  static const std::vector<RoleSpec>* roles = new std::vector<RoleSpec>{
      {InputRole::kImportOsdMap,
       "--osdmap wants 'ceph osd dump -f json' or Ceph's binary osdmap ('ceph osd getmap')",
       {InputKind::kCephOsdDumpJson, InputKind::kCephBinaryOsdMap},
       {},
       {"epoch", "max_osd", "osds", "pools", "fsid"}},
      {InputRole::kImportPgStats,
       "--pg-stats wants 'ceph pg dump -f json' (or 'ceph pg dump pgs -f json')",
       {InputKind::kCephPgDumpJson, InputKind::kCephPgDumpPgsJson},
       {},
       {"pg_map", "pg_stats"}},
      {InputRole::kImportOsdDf,
       "--osd-df wants 'ceph osd df -f json' (or 'ceph osd df tree -f json')",
       {InputKind::kCephOsdDfJson},
       {},
       {"nodes", "stray"}},
      {InputRole::kImportDf,
       "--df wants 'ceph df -f json' (or 'ceph df detail -f json')",
       {InputKind::kCephDfJson},
       {},
       {"pools"}},
      {InputRole::kImportReport,
       "--report wants 'ceph report'",
       {InputKind::kCephReportJson},
       {},
       {"osdmap", "crushmap"}},
      {InputRole::kState,
       "expected a crushkit state ('crushkit import --osdmap DUMP.json --crush CRUSHMAP -o "
       "state.pb') or Ceph's binary osdmap ('ceph osd getmap -o FILE')",
       {InputKind::kStateJson, InputKind::kStateBinary, InputKind::kCephBinaryOsdMap},
       {},
       {},
       /*any_json=*/true},
      {InputRole::kCrushMap,
       "expected a crush map: binary ('ceph osd getcrushmap -o FILE') or text ('crushtool -d')",
       {InputKind::kCephBinaryCrushMap, InputKind::kCrushTextMap},
       {InputKind::kOtherText}},
      {InputRole::kCrushText,
       "expected a text crush map ('crushtool -d' output)",
       {InputKind::kCrushTextMap},
       {InputKind::kOtherText}},
      {InputRole::kCrushBinary,
       "expected a binary crush map ('ceph osd getcrushmap -o FILE')",
       {InputKind::kCephBinaryCrushMap}},
      {InputRole::kChangeFile,
       "expected a change file: Ceph commands, one per line ('osd out 12', 'osd crush reweight "
       "osd.3 0', 'add-host ...')",
       {InputKind::kChangeFile},
       {InputKind::kOtherText}},
  };
  return *roles;
}

// Whether `role` hands JSON crushkit does not recognise to its parser.
bool PassesOnOtherJson(const RoleSpec& spec, std::string_view bytes) {
  if (spec.any_json) return true;
  if (spec.json_keys.empty()) return false;
  const JsonShape shape = ScanJsonShape(bytes);
  if (!shape.complete) return true;
  return std::any_of(spec.json_keys.begin(), spec.json_keys.end(),
                     [&shape](std::string_view key) { return shape.Has(key); });
}

const RoleSpec& SpecOf(InputRole role) {
  const auto& roles = Roles();
  // Every role has a row (Roles() lists the enum in order).
  return *std::find_if(roles.begin(), roles.end(),
                       [role](const RoleSpec& r) { return r.role == role; });
}

// A sentence after the refusal where the file is useful elsewhere.
std::string Hint(InputRole role, InputKind kind) {
  switch (kind) {
    case InputKind::kCephPgDumpBriefJson:
      return ", which has no byte or object counts";
    case InputKind::kCephBinaryOsdMap:
      if (role == InputRole::kCrushMap || role == InputRole::kCrushBinary)
        return ", which carries its crush map: 'osdmaptool FILE --export-crush crush.bin'";
      return role == InputRole::kChangeFile ? "; is it the state argument?" : "";
    case InputKind::kStateBinary:
    case InputKind::kStateJson:
      return role == InputRole::kChangeFile ? "; is it the state argument?" : "";
    case InputKind::kCephReportJson:
      return role == InputRole::kImportOsdMap ? ", which 'crushkit import --report' reads" : "";
    case InputKind::kCephCrushDumpJson:
      return role == InputRole::kCrushMap || role == InputRole::kCrushText
                 ? "; crushkit reads the binary map ('ceph osd getcrushmap') or its text"
                 : "";
    case InputKind::kCrushTextMap:
      if (role == InputRole::kChangeFile)
        return "; to see what a new crush map moves, use 'crushkit diff STATE --crush-after MAP'";
      if (role == InputRole::kCrushBinary) return "; compile it with 'crushkit compile'";
      return "";
    case InputKind::kCephBinaryCrushMap:
      return role == InputRole::kCrushText ? "; decompile it with 'crushkit decompile'" : "";
    default:
      return "";
  }
}

}  // namespace

InputKind SniffInput(std::string_view bytes) {
  const std::size_t first = [&] {
    std::size_t i = 0;
    while (i < bytes.size() && IsSpace(bytes[i])) ++i;
    return i;
  }();
  if (first == bytes.size()) return InputKind::kEmpty;
  if (LooksLikeCephOsdMap(bytes)) return InputKind::kCephBinaryOsdMap;
  if (crush::HasCrushMagic(bytes)) return InputKind::kCephBinaryCrushMap;
  if (LooksLikeText(bytes)) {
    if (bytes[first] == '{' || bytes[first] == '[') return ClassifyJson(ScanJsonShape(bytes));
    return ClassifyText(bytes);
  }
  if (LooksLikeStateProto(bytes)) return InputKind::kStateBinary;
  // A binary osdmap whose length field is damaged: its decoder says where.
  if (bytes.size() >= 2 && bytes[0] == 8 && bytes[1] == 7) return InputKind::kCephBinaryOsdMap;
  return InputKind::kOtherBinary;
}

std::string DescribeInput(InputKind kind, std::string_view bytes) {
  switch (kind) {
    case InputKind::kEmpty:
      return "an empty file";
    case InputKind::kCephOsdDumpJson:
      return "'ceph osd dump -f json'";
    case InputKind::kCephCrushDumpJson:
      return "'ceph osd crush dump -f json'";
    case InputKind::kCephPgDumpJson:
      return "'ceph pg dump -f json'";
    case InputKind::kCephPgDumpPgsJson:
      return "'ceph pg dump pgs -f json'";
    case InputKind::kCephPgDumpBriefJson:
      return "'ceph pg dump pgs_brief -f json'";
    case InputKind::kCephOsdDfJson:
      return "'ceph osd df -f json'";
    case InputKind::kCephDfJson:
      return "'ceph df -f json'";
    case InputKind::kCephReportJson:
      return "'ceph report'";
    case InputKind::kCephOsdTreeJson:
      return "'ceph osd tree -f json'";
    case InputKind::kStateJson:
      return "a crushkit state file (JSON, 'crushkit import')";
    case InputKind::kStateBinary:
      return "a crushkit state file (binary, 'crushkit import')";
    case InputKind::kCephBinaryOsdMap:
      return "Ceph's binary osdmap ('ceph osd getmap')";
    case InputKind::kCephBinaryCrushMap:
      return "a binary crush map ('ceph osd getcrushmap')";
    case InputKind::kCrushTextMap:
      return "a text crush map ('crushtool -d')";
    case InputKind::kChangeFile:
      return "a change file ('crushkit plan' operations)";
    case InputKind::kOtherJson: {
      const JsonShape shape = ScanJsonShape(bytes);
      if (shape.top_keys.empty()) return "JSON that is none of Ceph's dumps crushkit knows";
      std::string keys;
      std::size_t quoted = 0;
      for (std::size_t i = 0; i < shape.top_keys.size(); ++i) {
        if (i == 6 || quoted >= util::kMaxQuotedBytes) {
          keys += ", ...";
          break;
        }
        const std::string key = util::TerminalExcerpt(shape.top_keys[i], 24);
        absl::StrAppend(&keys, i == 0 ? "" : ", ", "\"", key, "\"");
        quoted += key.size();
      }
      return absl::StrCat(
          "JSON that is none of Ceph's dumps crushkit knows (top-level keys: ", keys, ")");
    }
    case InputKind::kOtherText: {
      bool header = false;
      const std::vector<std::string_view> words = FirstLineWords(bytes, 1, &header);
      if (words.empty()) return "text crushkit does not recognise";
      return absl::StrCat("text crushkit does not recognise (starts '",
                          util::TerminalExcerpt(words[0], 40), "')");
    }
    case InputKind::kOtherBinary:
      return absl::StrCat("binary data (starts", Hex(bytes, 8), ")");
  }
  return "";
}

absl::Status CheckInputKind(InputRole role, std::string_view bytes) {
  return CheckInputKind(role, SniffInput(bytes), bytes);
}

absl::Status CheckInputKind(InputRole role, InputKind kind, std::string_view bytes) {
  const RoleSpec& spec = SpecOf(role);
  auto listed = [kind](const std::vector<InputKind>& kinds) {
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
  };
  if (listed(spec.takes) || listed(spec.passes_on)) return absl::OkStatus();
  if (kind == InputKind::kOtherJson && PassesOnOtherJson(spec, bytes)) return absl::OkStatus();
  return RefuseInput(role, kind, bytes);
}

absl::Status RefuseInput(InputRole role, InputKind kind, std::string_view bytes) {
  return absl::InvalidArgumentError(absl::StrCat(std::string(SpecOf(role).wants), "; this is ",
                                                 DescribeInput(kind, bytes), Hint(role, kind)));
}

bool LooksLikeCephOsdMap(std::string_view b) {
  if (b.size() < 12 || b[0] != 8 || b[1] != 7) return false;
  const std::uint32_t len = LoadLe32(b, 2);
  const auto client_v = static_cast<unsigned char>(b[6]);
  return len == b.size() - 6 && client_v >= 7 && client_v <= 16 && b[7] == 1;
}

bool LooksLikeCephOsdDumpJson(std::string_view text) {
  return SniffInput(text) == InputKind::kCephOsdDumpJson;
}

std::string DescribeBinary(std::string_view bytes) {
  if (LooksLikeText(bytes)) return "";
  const InputKind kind = SniffInput(bytes);
  // Text that starts with whitespace only, then control bytes, is binary
  // data here.
  if (kind == InputKind::kEmpty) return DescribeInput(InputKind::kOtherBinary, bytes);
  return DescribeInput(kind, bytes);
}

std::string LocateJsonError(std::string_view text, std::string_view error) {
  // protobuf prefixes the code ("INVALID_ARGUMENT:") when printed whole.
  constexpr std::string_view kCode = "INVALID_ARGUMENT:";
  if (error.substr(0, kCode.size()) == kCode) error.remove_prefix(kCode.size());
  const std::size_t nl1 = error.find('\n');
  std::string_view message = error.substr(0, nl1);
  if (!message.empty() && message.back() == '.') message.remove_suffix(1);
  // protobuf's messages may quote a key or value of the input.
  const std::string shown_message = util::TerminalExcerpt(message, 2 * util::kMaxQuotedBytes);
  if (nl1 == std::string_view::npos) return shown_message;
  // The excerpt may itself span lines; the caret line is the last one.
  const std::size_t last_nl = error.rfind('\n');
  if (last_nl == nl1) return shown_message;
  const std::string_view excerpt = error.substr(nl1 + 1, last_nl - nl1 - 1);
  const std::string_view caret = error.substr(last_nl + 1);
  const std::size_t col_in_excerpt = caret.find('^');
  const std::size_t at = excerpt.empty() ? std::string_view::npos : text.find(excerpt);
  if (at == std::string_view::npos || col_in_excerpt == std::string_view::npos)
    return shown_message;
  const std::size_t offset = std::min(at + col_in_excerpt, text.size());
  const std::size_t previous_newline =
      offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  const std::size_t line_begin =
      previous_newline == std::string_view::npos ? 0 : previous_newline + 1;
  const auto line =
      1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  const std::size_t col = offset - line_begin + 1;
  return absl::StrCat(line, ":", col, ": ", shown_message, " (near \"",
                      util::TerminalExcerpt(excerpt), "\")");
}

}  // namespace crushkit::osdmap
