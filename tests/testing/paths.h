// Locating source-tree data files from tests.
#ifndef CRUSHKIT_TESTS_TESTING_PATHS_H_
#define CRUSHKIT_TESTS_TESTING_PATHS_H_

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace crush_testing {

// The repository root: $CRUSHKIT_SOURCE_DIR (set by ctest) or the compiled-in path.
inline std::string SourceDir() {
  if (const char* d = std::getenv("CRUSHKIT_SOURCE_DIR")) return d;
  return CRUSHKIT_SOURCE_DIR_DEFAULT;
}

// The shared compat corpus, ../shared/compat beside the repository.
inline std::string CompatDir() { return SourceDir() + "/../shared/compat"; }

// Whole file contents; empty string if it cannot be read.
inline std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace crush_testing

#endif  // CRUSHKIT_TESTS_TESTING_PATHS_H_
