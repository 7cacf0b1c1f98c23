// SourceFile: a named text buffer with its line offsets indexed once, so
// diagnostics can turn byte offsets into 1-based line/column and print the
// source line. Immutable after construction; safe to share between threads.
#ifndef CRUSHKIT_COMPILER_SOURCE_FILE_H_
#define CRUSHKIT_COMPILER_SOURCE_FILE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace crushkit::compiler {

// A byte range in a SourceFile.
struct SourceRange {
  std::size_t offset = 0;
  std::size_t length = 0;
};

// 1-based line and column (column counts bytes; a tab is one column).
struct LineCol {
  int line = 1;
  int column = 1;
};

class SourceFile {
 public:
  // `name` is what diagnostics print before the line number.
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }

  const std::string& text() const { return text_; }

  // Line and column of `offset`; offsets past the end map to the end.
  LineCol Locate(std::size_t offset) const;

  // The text of 1-based `line` without its line terminator ("" if out of
  // range).
  std::string_view Line(int line) const;

  int line_count() const { return static_cast<int>(line_starts_.size()); }

 private:
  std::string name_;
  std::string text_;
  std::vector<std::size_t> line_starts_;  // offset of the first byte of each line
};

}  // namespace crushkit::compiler

#endif  // CRUSHKIT_COMPILER_SOURCE_FILE_H_
