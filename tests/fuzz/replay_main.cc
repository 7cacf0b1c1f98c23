// A main() for running a fuzz target without libFuzzer: every argument is a
// file or a directory (searched recursively); each regular file is passed
// once to LLVMFuzzerTestOneInput. Used by ctest to replay the committed
// corpora and regressions with any compiler (gcc builds have no libFuzzer),
// and by hand to reproduce a crash: `decode_fuzzer_replay crash-1234`.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int RunFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    return 1;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  std::fprintf(stderr, "replay: %s (%zu bytes)\n", path.c_str(), bytes.size());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  int files = 0;
  int errors = 0;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg(argv[i]);
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> paths;
      for (const auto& entry : fs::recursive_directory_iterator(arg)) {
        if (entry.is_regular_file() && entry.path().filename().string()[0] != '.') {
          paths.push_back(entry.path());
        }
      }
      std::sort(paths.begin(), paths.end());
      for (const auto& p : paths) {
        errors += RunFile(p);
        ++files;
      }
    } else if (fs::is_regular_file(arg, ec)) {
      errors += RunFile(arg);
      ++files;
    } else {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
      ++errors;
    }
  }
  std::fprintf(stderr, "replay: %d inputs, %d errors\n", files, errors);
  return errors == 0 ? 0 : 1;
}
