// Helpers shared by the crushkit fuzz targets (tests/fuzz/*_fuzzer.cc).
//
// FUZZ_CHECK(cond, what) aborts with a message when an invariant fails, so
// libFuzzer records the input as a crash and the replay binaries (ctest) fail.
// ByteSource turns fuzz bytes into bounded integers for structured targets:
// it never fails, it just returns zeros once the input is exhausted.
#ifndef CRUSHKIT_TESTS_FUZZ_FUZZ_CHECK_H_
#define CRUSHKIT_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#define FUZZ_CHECK(cond, what)                                                                  \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s: %s\n", __FILE__, __LINE__, #cond, \
                   std::string(what).c_str());                                                  \
      std::abort();                                                                             \
    }                                                                                           \
  } while (false)

namespace crushkit::fuzz {

class ByteSource {
 public:
  ByteSource(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }

  std::uint32_t U32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | U8();
    return v;
  }

  // Uniform-ish integer in [lo, hi]; lo when the input is exhausted.
  // REQUIRES: lo <= hi.
  std::int64_t Range(std::int64_t lo, std::int64_t hi) {
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    std::uint64_t v = span <= 256 ? U8() : U32();
    return lo + static_cast<std::int64_t>(v % span);
  }

  bool Bool() { return (U8() & 1) != 0; }

  std::size_t remaining() const { return size_ - pos_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace crushkit::fuzz

#endif  // CRUSHKIT_TESTS_FUZZ_FUZZ_CHECK_H_
