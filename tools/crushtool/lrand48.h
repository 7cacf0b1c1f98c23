// glibc's lrand48() from its default state (no srand48 call), which Ceph's
// CrushTester draws from for --mark-down-ratio and --simulate: crushtool's
// "random" choices are the same on every run, and so are crushkit's.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_LRAND48_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_LRAND48_H_

#include <cstdint>

namespace crushkit::tools::crushtool {

class Lrand48 {
 public:
  // POSIX drand48 family: X' = (a X + c) mod 2^48; lrand48 returns the top
  // 31 bits. glibc starts from X = 0 when never seeded.
  long Next() {
    state_ = (kA * state_ + kC) & kMask;
    return static_cast<long>(state_ >> 17);
  }

 private:
  static constexpr std::uint64_t kA = 0x5DEECE66DULL;
  static constexpr std::uint64_t kC = 0xB;
  static constexpr std::uint64_t kMask = (std::uint64_t{1} << 48) - 1;
  std::uint64_t state_ = 0;
};

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_LRAND48_H_
