// Caret diagnostics in gcc/clang form and "did you mean" suggestions: the
// one renderer and the one edit distance behind the compiler's diagnostics
// (compiler/diagnostics.h) and the change files' (osdmap/changes/
// change_ops.h), and the suggestions of the change applier and the plan
// warnings.
//
//   rack.crush:12:7: error: unknown bucket 'host9'; did you mean 'host1'?
//   	item host9 weight 1.000
//   	     ^~~~~
//
// The message is bounded and the source line cut around the caret as
// text_excerpt.h says (BoundMessage, CaretLines), so no diagnostic echoes a
// whole file or raw control bytes. Header-only (part of crush_util,
// crush/util/README.md). Pure functions; thread-safe.
#ifndef CRUSHKIT_CRUSH_UTIL_DIAGNOSTICS_H_
#define CRUSHKIT_CRUSH_UTIL_DIAGNOSTICS_H_

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crush/util/text_excerpt.h"

namespace crushkit::util {

// One diagnostic to render. `line` and `column` are 1-based and printed as
// given; the caret goes under byte column - 1 of `source` (column 0 counts
// as 1) and '~' under the rest of `length` bytes.
struct CaretDiagnostic {
  std::string_view file;
  int line = 0;
  int column = 0;
  std::string_view severity = "error";  // "error", "warning" or "note"
  std::string_view message;
  // The text of the line, without its terminator; nullopt prints no source
  // and caret lines (a line outside the file).
  std::optional<std::string_view> source;
  std::size_t length = 1;
};

// "FILE:LINE:COLUMN: SEVERITY: MESSAGE\n", then, with a source line, the
// line and its caret line (CaretLines), each ending in '\n'.
inline std::string RenderCaretDiagnostic(const CaretDiagnostic& d) {
  std::string out = std::string(d.file) + ":" + std::to_string(d.line) + ":" +
                    std::to_string(d.column) + ": " + std::string(d.severity) + ": " +
                    BoundMessage(d.message) + "\n";
  if (d.source.has_value()) {
    out +=
        CaretLines(*d.source, d.column > 0 ? static_cast<std::size_t>(d.column) - 1 : 0, d.length);
  }
  return out;
}

// The last line of a capped list: "FILE: note: N more errors not shown\n".
inline std::string MoreErrorsNote(std::string_view file, std::size_t not_shown) {
  return std::string(file) + ": note: " + std::to_string(not_shown) + " more errors not shown\n";
}

// How names are compared for suggestions.
struct NameDistance {
  // An adjacent transposition counts as one edit (optimal string alignment,
  // "hots0" is one edit from "host0"), not two (Levenshtein). Change files
  // count it as one; the compiler as two, as its goldens pin.
  bool transpositions = true;
};

// Edit distance: insertions, deletions, substitutions and, as `how` says,
// adjacent transpositions, one edit each. Cost: O(|a| x |b|).
inline std::size_t EditDistance(std::string_view a, std::string_view b, NameDistance how = {}) {
  // Three rows: the one before the previous is needed for transpositions.
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (how.transpositions && i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);
      }
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The candidate closest to `word` when at most a third of its length (at
// least one edit) differs, like clang's typo correction; of equally close
// ones the lexicographically smallest, whatever the candidates' order; ""
// when none is close enough.
inline std::string ClosestName(std::string_view word, const std::vector<std::string>& candidates,
                               NameDistance how = {}) {
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    // Skip the obviously too different before the quadratic distance.
    const std::size_t diff =
        c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
    if (diff > limit) continue;
    const std::size_t d = EditDistance(word, c, how);
    if (d < best_distance || (d == best_distance && c < best)) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

// "; did you mean 'X'?" for ClosestName(word, candidates), or "".
inline std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates,
                              NameDistance how = {}) {
  const std::string best = ClosestName(word, candidates, how);
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}

}  // namespace crushkit::util

#endif  // CRUSHKIT_CRUSH_UTIL_DIAGNOSTICS_H_
