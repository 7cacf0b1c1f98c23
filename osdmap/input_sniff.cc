#include "osdmap/input_sniff.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "absl/strings/str_cat.h"

#include "crush/codec.h"

namespace crushkit::osdmap {
namespace {

std::uint32_t LoadLe32(std::string_view b, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
  return v;
}

// Printable ASCII kept, everything else as \xNN.
std::string Printable(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out.push_back(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    }
  }
  return out;
}

}  // namespace

bool LooksLikeCephOsdMap(std::string_view b) {
  if (b.size() < 12 || b[0] != 8 || b[1] != 7) return false;
  const std::uint32_t len = LoadLe32(b, 2);
  const auto client_v = static_cast<unsigned char>(b[6]);
  return len == b.size() - 6 && client_v >= 7 && client_v <= 16 && b[7] == 1;
}

bool LooksLikeCephOsdDumpJson(std::string_view text) {
  for (std::string_view key : {"\"fsid\"", "\"max_osd\"", "\"osds\"", "\"pools\""}) {
    if (text.find(key) == std::string_view::npos) return false;
  }
  return true;
}

std::string DescribeBinary(std::string_view bytes) {
  const std::string_view head = bytes.substr(0, 4096);
  const bool binary = std::any_of(head.begin(), head.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 && c != '\t' && c != '\n' && c != '\r';
  });
  if (!binary) return "";
  if (LooksLikeCephOsdMap(bytes)) return "Ceph's binary osdmap (`ceph osd getmap`)";
  if (crush::HasCrushMagic(bytes)) return "a binary crush map";
  std::string hex;
  for (std::size_t i = 0; i < bytes.size() && i < 8; ++i) {
    char buf[4];
    std::snprintf(buf, sizeof buf, " %02x", static_cast<unsigned char>(bytes[i]));
    hex += buf;
  }
  return "binary data (starts" + hex + ")";
}

std::string LocateJsonError(std::string_view text, std::string_view error) {
  // protobuf prefixes the code ("INVALID_ARGUMENT:") when printed whole.
  constexpr std::string_view kCode = "INVALID_ARGUMENT:";
  if (error.substr(0, kCode.size()) == kCode) error.remove_prefix(kCode.size());
  const std::size_t nl1 = error.find('\n');
  std::string_view message = error.substr(0, nl1);
  if (!message.empty() && message.back() == '.') message.remove_suffix(1);
  if (nl1 == std::string_view::npos) return Printable(message);
  // The excerpt may itself span lines; the caret line is the last one.
  const std::size_t last_nl = error.rfind('\n');
  if (last_nl == nl1) return Printable(message);
  const std::string_view excerpt = error.substr(nl1 + 1, last_nl - nl1 - 1);
  const std::string_view caret = error.substr(last_nl + 1);
  const std::size_t col_in_excerpt = caret.find('^');
  const std::size_t at = excerpt.empty() ? std::string_view::npos : text.find(excerpt);
  if (at == std::string_view::npos || col_in_excerpt == std::string_view::npos)
    return Printable(message);
  const std::size_t offset = std::min(at + col_in_excerpt, text.size());
  const std::size_t previous_newline =
      offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  const std::size_t line_begin =
      previous_newline == std::string_view::npos ? 0 : previous_newline + 1;
  const auto line =
      1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  const std::size_t col = offset - line_begin + 1;
  const std::string shown = Printable(excerpt);
  return absl::StrCat(line, ":", col, ": ", Printable(message), " (near \"", shown, "\")");
}

}  // namespace crushkit::osdmap
