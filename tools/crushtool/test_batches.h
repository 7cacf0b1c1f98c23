// CrushTester's int arithmetic and its batch loop, shared by the --test
// mapping loop (tester.cc, test_mapping.cc), --compare (compare.cc) and the
// --output-csv writer (test_csv.cc).
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_TEST_BATCHES_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_TEST_BATCHES_H_

#include <cstdint>
#include <vector>

namespace crushkit::tools::crushtool {

// Ceph computes these in `int`; x86-64 wraps on overflow, so do we
// (explicitly, through unsigned arithmetic).
inline int WrapAdd(int a, int b) {
  return static_cast<int>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

inline int WrapSub(int a, int b) {
  return static_cast<int>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}

inline int WrapMul(int a, int b) {
  return static_cast<int>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

// A run of consecutive inputs lo..hi (inclusive, both ints; empty if
// hi < lo).
struct XSegment {
  long long lo = 0;
  long long hi = 0;

  bool empty() const { return hi < lo; }

  std::uint64_t count() const { return empty() ? 0 : static_cast<std::uint64_t>(hi - lo + 1); }
};

// Batch b of CrushTester::test(): batch_min..batch_max with Ceph's int
// arithmetic; the last batch ends at max_x. One entry per batch, empty ones
// included. --batches <= 0 gives none (Ceph maps nothing; no division by 0).
std::vector<XSegment> BatchRanges(int min_x, int max_x, int batches, int num_objects);

// The inputs CrushTester's batch loop visits, in order: the non-empty
// batches of BatchRanges(), adjacent ones joined (the common case is one
// segment).
std::vector<XSegment> BatchSegments(int min_x, int max_x, int batches, int num_objects);

// Ceph's num_objects for x = min_x..max_x: max_x - min_x + 1 in `int`.
inline int InputCount(int min_x, int max_x) { return WrapAdd(WrapSub(max_x, min_x), 1); }

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_TEST_BATCHES_H_
