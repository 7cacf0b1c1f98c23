#include "compiler/source_file.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace crushkit::compiler {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.reserve(static_cast<std::size_t>(std::count(text_.begin(), text_.end(), '\n')) + 1);
  line_starts_.push_back(0);
  for (const char *p = text_.data(), *const end = p + text_.size();
       (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)))) !=
       nullptr;) {
    ++p;
    line_starts_.push_back(static_cast<std::size_t>(p - text_.data()));
  }
}

LineCol SourceFile::Locate(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const std::size_t line_index = static_cast<std::size_t>(it - line_starts_.begin()) - 1;
  return LineCol{static_cast<int>(line_index) + 1,
                 static_cast<int>(offset - line_starts_[line_index]) + 1};
}

std::string_view SourceFile::Line(int line) const {
  if (line < 1 || line > line_count()) return {};
  const std::size_t begin = line_starts_[static_cast<std::size_t>(line) - 1];
  std::size_t end = static_cast<std::size_t>(line) < line_starts_.size()
                        ? line_starts_[static_cast<std::size_t>(line)] - 1
                        : text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

}  // namespace crushkit::compiler
