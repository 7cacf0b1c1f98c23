// A progress line on stderr for long runs: shown only when stderr is a
// terminal and the run has lasted a second, redrawn at most 10 times a
// second, erased when done. Thread-safety: Update() may be called from any
// thread but not concurrently (pg_table.h serialises its progress calls).
#ifndef CRUSHKIT_TOOLS_COMMON_PROGRESS_H_
#define CRUSHKIT_TOOLS_COMMON_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace crushkit::tools {

class Progress {
 public:
  // `what` names the unit ("PGs mapped").
  explicit Progress(std::string what);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Update(std::uint64_t done, std::uint64_t total);

 private:
  std::string what_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_COMMON_PROGRESS_H_
