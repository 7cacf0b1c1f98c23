// The change-file reader: the lines split into words (comments dropped),
// each line's command matched against the op table (change_op_table.cc),
// its argument words handed to that operation's parser
// (change_op_parsers.cc), and every diagnostic rendered with its caret.
#include "osdmap/changes/change_ops.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_join.h"

#include "crush/util/diagnostics.h"
#include "osdmap/changes/change_op_table.h"
#include "osdmap/changes/change_ops_internal.h"

namespace crushkit::osdmap {

std::string FormatChangeDiagnostic(std::string_view file_name,
                                   const std::vector<std::string>& lines,
                                   const ChangeDiagnostic& d) {
  const bool in_file = d.line >= 1 && static_cast<std::size_t>(d.line) <= lines.size();
  return util::RenderCaretDiagnostic(
      {.file = file_name,
       .line = d.line,
       .column = d.column,
       .severity = "error",
       .message = d.message,
       .source = in_file
                     ? std::optional<std::string_view>(lines[static_cast<std::size_t>(d.line) - 1])
                     : std::nullopt,
       .length = d.length > 0 ? static_cast<std::size_t>(d.length) : 1});
}

std::string FormatChangeDiagnostics(std::string_view file_name,
                                    const std::vector<std::string>& lines,
                                    const std::vector<ChangeDiagnostic>& diagnostics) {
  std::string out;
  const std::size_t shown =
      std::min(diagnostics.size(), static_cast<std::size_t>(kMaxChangeErrors));
  for (std::size_t i = 0; i < shown; ++i) {
    out += FormatChangeDiagnostic(file_name, lines, diagnostics[i]);
  }
  if (diagnostics.size() > shown) {
    out += util::MoreErrorsNote(file_name, diagnostics.size() - shown);
  }
  return out;
}

namespace internal {

std::optional<std::uint64_t> ParseDecimal(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

}  // namespace internal

namespace {

using internal::DidYouMean;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// The words of one line, the comment ('#' to the end) dropped.
std::vector<Word> SplitWords(std::string_view line, int line_number) {
  std::vector<Word> words;
  std::size_t i = 0;
  while (i < line.size()) {
    if (line[i] == '#') break;
    if (IsSpace(line[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < line.size() && !IsSpace(line[i]) && line[i] != '#') ++i;
    words.push_back(
        Word{std::string(line.substr(start, i - start)), line_number, static_cast<int>(start) + 1});
  }
  return words;
}

using internal::ChangeOpSpec;
using internal::Diagnostics;

// The command whose words start `words` at `first`, or nullptr after
// reporting the first word no command continues with.
const ChangeOpSpec* MatchCommand(const std::vector<Word>& words, std::size_t first,
                                 Diagnostics& diags) {
  std::vector<const ChangeOpSpec*> candidates;
  for (const ChangeOpSpec& c : internal::ChangeOpTable()) candidates.push_back(&c);
  for (std::size_t depth = 0;; ++depth) {
    // A command complete at this depth wins (its arguments follow).
    for (const ChangeOpSpec* c : candidates) {
      if (c->words.size() == depth) return c;
    }
    std::vector<std::string> next;
    for (const ChangeOpSpec* c : candidates) {
      const std::string w(c->words[depth]);
      if (std::find(next.begin(), next.end(), w) == next.end()) next.push_back(w);
    }
    std::string prefix;
    for (std::size_t i = first; i < first + depth; ++i) prefix += words[i].text + " ";
    if (first + depth >= words.size()) {
      diags.After(words.back(), "incomplete command '" + prefix.substr(0, prefix.size() - 1) +
                                    "'; expected " + absl::StrJoin(next, ", "));
      return nullptr;
    }
    const Word& w = words[first + depth];
    std::vector<const ChangeOpSpec*> matching;
    for (const ChangeOpSpec* c : candidates) {
      if (c->words[depth] == w.text) matching.push_back(c);
    }
    if (matching.empty()) {
      diags.At(w, "unknown command '" + prefix + w.text + "'; expected " +
                      absl::StrJoin(next, ", ") + DidYouMean(w.text, next));
      return nullptr;
    }
    candidates = std::move(matching);
  }
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    start = end + 1;
  }
  if (!lines.empty() && lines.back().empty() && !text.empty() && text.back() == '\n') {
    lines.pop_back();
  }
  return lines;
}

}  // namespace

absl::StatusOr<ChangeList> ParseChange(std::string_view text, std::string_view file_name) {
  ChangeList change;
  change.file_name = std::string(file_name);
  change.lines = SplitLines(text);
  Diagnostics diags;
  for (std::size_t i = 0; i < change.lines.size(); ++i) {
    const std::vector<Word> words = SplitWords(change.lines[i], static_cast<int>(i) + 1);
    std::size_t first = 0;
    if (!words.empty() && words[0].text == "ceph") first = 1;
    if (first >= words.size()) {
      if (first == 1) diags.After(words[0], "missing command after 'ceph'");
      continue;
    }
    const ChangeOpSpec* spec = MatchCommand(words, first, diags);
    if (!spec) continue;
    ChangeOp op;
    op.kind = spec->kind;
    op.command = words[first];
    std::vector<std::string> texts;
    for (std::size_t w = first; w < words.size(); ++w) texts.push_back(words[w].text);
    op.text = absl::StrJoin(texts, " ");
    internal::Args args(words, first + spec->words.size(), spec->usage, diags);
    if (spec->parse(args, op) && args.Finish()) change.ops.push_back(std::move(op));
  }
  if (diags.size() > 0) {
    return absl::InvalidArgumentError(
        FormatChangeDiagnostics(file_name, change.lines, diags.list()));
  }
  return change;
}

std::string DescribeChangeOp(const ChangeOp& op) { return op.text; }

}  // namespace crushkit::osdmap
