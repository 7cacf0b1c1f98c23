// Numbers printed as Ceph's C++ streams print them with default flags
// (`ostream << double`: printf "%g", precision 6), and strings as Ceph's
// JSONFormatter quotes them, for the tools that reproduce Ceph's text output
// byte for byte (the crushtool --test report, crushtool's --dump and
// osdmaptool's --tree=json, crushtool's and osdmaptool's messages). Part of
// crush_util (crush/util/README.md); not installed. Thread-safe.
#ifndef CRUSHKIT_CRUSH_UTIL_TEXT_FORMAT_H_
#define CRUSHKIT_CRUSH_UTIL_TEXT_FORMAT_H_

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace crushkit::util {

// `ostream << v` with default flags: "0.002", "3", "1.23457e+06", "1e-05".
inline std::string FormatCephDouble(double v) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof(buf), "%g", v);
  return std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
}

// `ostream << v` for a float: Ceph's streams widen it to double first.
inline std::string FormatCephFloat(float v) { return FormatCephDouble(static_cast<double>(v)); }

// Ceph's cpp_strerror(err): "(22) Invalid argument".
inline std::string CppStrerror(int err) {
  // Appended piece by piece: `"(" + std::to_string(err)` trips GCC 12's
  // -Wrestrict false positive once inlined at -O3.
  std::string s = "(";
  s += std::to_string(err);
  s += ") ";
  s += std::strerror(err);
  return s;
}

// Ceph's json_stream_escaper (common/escape.cc), through which
// JSONFormatter prints every string: '"', '\\', tab and newline as
// backslash escapes, other control bytes and DEL as \u00XX, everything else
// (including '/' and bytes >= 0x80) as is. Without the surrounding quotes.
inline std::string CephJsonEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out;
}

}  // namespace crushkit::util

#endif  // CRUSHKIT_CRUSH_UTIL_TEXT_FORMAT_H_
