// Helpers shared by the crushkit fuzz targets (tests/fuzz/*_fuzzer.cc).
//
// FUZZ_CHECK(cond, what) aborts with a message when an invariant fails, so
// libFuzzer records the input as a crash and the replay binaries (ctest) fail.
// ByteSource turns fuzz bytes into bounded integers for structured targets:
// it never fails, it just returns zeros once the input is exhausted.
// PrintableLine and CheckRefusal state what a parser's error must look like.
#ifndef CRUSHKIT_TESTS_FUZZ_FUZZ_CHECK_H_
#define CRUSHKIT_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/status.h"

#define FUZZ_CHECK(cond, what)                                                                  \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s: %s\n", __FILE__, __LINE__, #cond, \
                   std::string(what).c_str());                                                  \
      std::abort();                                                                             \
    }                                                                                           \
  } while (false)

namespace crushkit::fuzz {

// One line without control bytes (printable UTF-8 may be quoted).
inline bool PrintableLine(std::string_view s) {
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
  }
  return true;
}

// A parser's refusal of bad input: kInvalidArgument with a non-empty
// message of one printable line under 1,000 bytes.
inline void CheckRefusal(const absl::Status& s) {
  FUZZ_CHECK(s.code() == absl::StatusCode::kInvalidArgument, s.ToString());
  const std::string msg(s.message());
  FUZZ_CHECK(!msg.empty() && msg.size() < 1000, msg);
  FUZZ_CHECK(PrintableLine(msg), msg);
}

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
