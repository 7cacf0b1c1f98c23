#include "tools/common/progress.h"

#include <unistd.h>

#include <cstdio>

namespace crushkit::tools {

Progress::Progress(std::string what)
    : what_(std::move(what)),
      enabled_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() {
  if (shown_) std::fputs("\r\033[K", stderr);
}

void Progress::Update(std::uint64_t done, std::uint64_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100))
    return;
  last_ = now;
  shown_ = true;
  const double pct =
      total == 0 ? 100.0 : 100.0 * static_cast<double>(done) / static_cast<double>(total);
  std::fprintf(stderr, "\r%s: %llu / %llu (%.0f%%)\033[K", what_.c_str(),
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), pct);
  std::fflush(stderr);
}

}  // namespace crushkit::tools
