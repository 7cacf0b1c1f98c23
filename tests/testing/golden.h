// Golden files: a test renders what it checks to text and compares it with
// a file under version control. With the environment variable UPDATE_GOLDENS
// set, the file is rewritten instead (review the diff before committing).
// Thread-safety: reads and writes only the named files.
#ifndef CRUSHKIT_TESTS_TESTING_GOLDEN_H_
#define CRUSHKIT_TESTS_TESTING_GOLDEN_H_

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "gtest/gtest.h"

#include "tests/testing/paths.h"

namespace crush_testing {

// True when UPDATE_GOLDENS is set: golden tests rewrite their files.
inline bool UpdatingGoldens() { return std::getenv("UPDATE_GOLDENS") != nullptr; }

// Writes `text` to `path` (parent directories created) through a temporary
// file renamed over it, so an interrupted update leaves the old golden.
inline ::testing::AssertionResult WriteGolden(const std::string& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return ::testing::AssertionFailure() << "cannot write " << tmp;
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) return ::testing::AssertionFailure() << "cannot rename " << tmp << ": " << ec.message();
  return ::testing::AssertionSuccess();
}

// Compares `actual` with the golden file at `path` line by line; a failure
// names the file and lists up to `max_shown` differing lines (1-based line
// number, expected, actual). A missing file counts as empty. Under
// UPDATE_GOLDENS the file is rewritten with `actual` and the result is
// success unless the write fails.
inline ::testing::AssertionResult MatchesGolden(const std::string& path, const std::string& actual,
                                                int max_shown = 10) {
  if (UpdatingGoldens()) return WriteGolden(path, actual);
  const std::string expected = ReadFileOrEmpty(path);
  if (expected == actual) return ::testing::AssertionSuccess();
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << path << " differs (UPDATE_GOLDENS=1 rewrites it)";
  std::size_t a = 0;
  std::size_t e = 0;
  int shown = 0;
  for (int line = 1; (a < actual.size() || e < expected.size()) && shown < max_shown; ++line) {
    const std::size_t an = actual.find('\n', a);
    const std::size_t en = expected.find('\n', e);
    const std::string al = a < actual.size() ? actual.substr(a, an - a) : "<end of output>";
    const std::string el = e < expected.size() ? expected.substr(e, en - e) : "<end of file>";
    if (al != el) {
      failure << "\n  line " << line << "\n    expected: " << el << "\n      actual: " << al;
      ++shown;
    }
    a = an == std::string::npos ? actual.size() : an + 1;
    e = en == std::string::npos ? expected.size() : en + 1;
  }
  if (shown == 0) failure << "\n  (only in trailing newlines)";
  return failure;
}

}  // namespace crush_testing

#endif  // CRUSHKIT_TESTS_TESTING_GOLDEN_H_
