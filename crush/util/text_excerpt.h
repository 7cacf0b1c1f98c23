// Quoting what a user gave in an error message without misleading them: at
// most ~80 bytes of any input, control bytes and invalid UTF-8 as \xNN, so a
// message never echoes a whole file or sends raw bytes to a terminal (issue
// 34). Used by the caret diagnostics (crush/util/diagnostics.h) and by
// osdmap's input recognition. Part of crush_util (crush/util/README.md);
// header-only, not installed. Pure functions; thread-safe.
#ifndef CRUSHKIT_CRUSH_UTIL_TEXT_EXCERPT_H_
#define CRUSHKIT_CRUSH_UTIL_TEXT_EXCERPT_H_

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace crushkit::util {

// Most bytes of input one message quotes (and columns a caret excerpt shows).
inline constexpr std::size_t kMaxQuotedBytes = 80;

// Longest message BoundMessage lets through.
inline constexpr std::size_t kMaxMessageBytes = 600;

namespace internal {

// Length of the well-formed UTF-8 sequence at s[i] encoding a printable
// code point (not a C1 control U+0080..U+009F), or 0.
inline std::size_t PrintableUtf8Length(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  }
  const auto b1 = static_cast<unsigned char>(s[i + 1]);
  if (b0 == 0xc2 && b1 < 0xa0) return 0;   // C1 controls
  if (b0 == 0xe0 && b1 < 0xa0) return 0;   // overlong
  if (b0 == 0xed && b1 >= 0xa0) return 0;  // surrogates
  if (b0 == 0xf0 && b1 < 0x90) return 0;   // overlong
  if (b0 == 0xf4 && b1 >= 0x90) return 0;  // beyond U+10FFFF
  return n;
}

// One byte as "\xNN".
inline std::string HexEscape(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

// How the bytes at s[i] print: printable ASCII and printable UTF-8 as they
// are, `keep` (e.g. "\t") as is, anything else as \xNN. Sets *used to the
// bytes consumed and returns the text; *columns is its width.
inline std::string RenderAt(std::string_view s, std::size_t i, std::string_view keep,
                            std::size_t* used, std::size_t* columns) {
  const auto c = static_cast<unsigned char>(s[i]);
  *used = 1;
  *columns = 1;
  if ((c >= 0x20 && c < 0x7f) || keep.find(s[i]) != std::string_view::npos)
    return std::string(1, s[i]);
  if (const std::size_t n = PrintableUtf8Length(s, i); n > 0) {
    *used = n;
    return std::string(s.substr(i, n));
  }
  *columns = 4;
  return HexEscape(c);
}

}  // namespace internal

// `s` for a message: printable ASCII and printable UTF-8 kept, every other
// byte (tabs and newlines included) as \xNN; at most `max_bytes` bytes of
// `s`, with "..." when cut.
inline std::string TerminalExcerpt(std::string_view s, std::size_t max_bytes = kMaxQuotedBytes) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size() && i < max_bytes) {
    std::size_t used = 0;
    std::size_t columns = 0;
    out += internal::RenderAt(s, i, "", &used, &columns);
    i += used;
  }
  if (i < s.size()) out += "...";
  return out;
}

// A message made safe to print: control bytes other than tab and newline,
// and invalid UTF-8, as \xNN; every '-quoted span longer than
// kMaxQuotedBytes cut to that with "..."; the whole cut after about
// kMaxMessageBytes (an escape or a character may run a few bytes over).
// An apostrophe between two letters ("Ceph's") does not open a quote.
// Messages with short quotes and no control bytes come back unchanged.
inline std::string BoundMessage(std::string_view message) {
  auto is_alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto is_quote = [&](std::size_t i) {
    return message[i] == '\'' && !(i > 0 && i + 1 < message.size() && is_alpha(message[i - 1]) &&
                                   is_alpha(message[i + 1]));
  };
  std::string out;
  std::size_t i = 0;
  std::size_t quoted = 0;  // bytes so far inside the current quote
  bool in_quote = false;
  while (i < message.size() && out.size() < kMaxMessageBytes) {
    if (is_quote(i)) {
      in_quote = !in_quote;
      quoted = 0;
      out += '\'';
      ++i;
      continue;
    }
    if (in_quote && quoted >= kMaxQuotedBytes) {
      out += "...";
      // Skip to the closing quote, which the next iteration prints.
      while (i < message.size() && !is_quote(i)) ++i;
      continue;
    }
    std::size_t used = 0;
    std::size_t columns = 0;
    out += internal::RenderAt(message, i, "\t\n", &used, &columns);
    i += used;
    if (in_quote) quoted += used;
  }
  if (i < message.size()) out += "...";
  return out;
}

// The two lines a caret diagnostic prints under its "file:line:col:" line,
// each ending in '\n': the source `line` and a caret line with '^' under
// 0-based byte `column` and '~' under the rest of the `length` bytes from
// there (clipped to the line; a column past the end puts '^' after it).
// Tabs are copied into the caret line so it lines up at any tab width.
// Control bytes and invalid UTF-8 print as \xNN. A line wider than `width`
// columns is cut to a window of about `width` columns around the column,
// with "..." where cut. For a line of printable ASCII and tabs no wider than
// `width` this is the line itself and the classic caret line.
inline std::string CaretLines(std::string_view line, std::size_t column, std::size_t length,
                              std::size_t width = kMaxQuotedBytes) {
  struct Token {
    std::size_t begin;
    std::size_t end;
    std::string text;
    std::size_t columns;
  };

  // Only bytes within `width` of the column can show; longer lines are
  // never rendered whole.
  const std::size_t scan_begin = column > width ? column - width : 0;
  const std::size_t scan_end = std::min(line.size(), std::max(column, scan_begin) + width);
  std::vector<Token> tokens;
  std::size_t total = 0;
  for (std::size_t i = scan_begin; i < scan_end;) {
    std::size_t used = 0;
    std::size_t columns = 0;
    std::string text = internal::RenderAt(line, i, "\t", &used, &columns);
    tokens.push_back(Token{i, i + used, std::move(text), columns});
    total += columns;
    i += used;
  }
  const std::size_t n = tokens.size();
  std::size_t k = 0;  // the token under the caret (n: past the end)
  while (k < n && tokens[k].end <= column) ++k;
  std::size_t first = 0;
  std::size_t last = n;
  const bool whole = scan_begin == 0 && scan_end == line.size() && total <= width;
  if (!whole) {
    // About a third of the window before the caret, the rest after it,
    // then any room left to the left.
    first = k;
    last = k;
    std::size_t used = 0;
    while (first > 0 && used + tokens[first - 1].columns <= width / 3)
      used += tokens[--first].columns;
    while (last < n && used + tokens[last].columns <= width) used += tokens[last++].columns;
    while (first > 0 && used + tokens[first - 1].columns <= width) used += tokens[--first].columns;
  }
  const bool cut_left = first > 0 || scan_begin > 0;
  const bool cut_right = last < n || scan_end < line.size();
  std::string out = cut_left ? "..." : "";
  for (std::size_t t = first; t < last; ++t) out += tokens[t].text;
  if (cut_right) out += "...";
  out += '\n';
  if (cut_left) out += "   ";
  for (std::size_t t = first; t < k && t < last; ++t)
    out += tokens[t].text == "\t" ? std::string("\t") : std::string(tokens[t].columns, ' ');
  if (column > line.size()) out.append(std::min(column - line.size(), width), ' ');
  out += '^';
  std::size_t covered = 0;
  for (std::size_t t = k; t < last && tokens[t].begin < column + length; ++t)
    covered += tokens[t].columns;
  if (covered > 1) out.append(covered - 1, '~');
  out += '\n';
  return out;
}

}  // namespace crushkit::util

#endif  // CRUSHKIT_CRUSH_UTIL_TEXT_EXCERPT_H_
