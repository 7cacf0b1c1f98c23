#include "tools/crushtool/test_batches.h"

#include <vector>

namespace crushkit::tools::crushtool {

std::vector<XSegment> BatchRanges(int min_x, int max_x, int batches, int num_objects) {
  std::vector<XSegment> ranges;
  int objects_per_batch = batches > 0 ? num_objects / batches : 0;
  int batch_min = min_x;
  int batch_max = WrapSub(WrapAdd(min_x, objects_per_batch), 1);
  for (int current_batch = 0; current_batch < batches; ++current_batch) {
    if (current_batch == batches - 1) {
      batch_max = max_x;
      objects_per_batch = WrapAdd(WrapSub(batch_max, batch_min), 1);
    }
    ranges.push_back({batch_min, batch_max});
    batch_min = WrapAdd(batch_max, 1);
    batch_max = WrapSub(WrapAdd(batch_min, objects_per_batch), 1);
  }
  return ranges;
}

std::vector<XSegment> BatchSegments(int min_x, int max_x, int batches, int num_objects) {
  std::vector<XSegment> segments;
  for (const XSegment& batch : BatchRanges(min_x, max_x, batches, num_objects)) {
    if (batch.empty()) continue;
    if (!segments.empty() && segments.back().hi + 1 == batch.lo) {
      segments.back().hi = batch.hi;
    } else {
      segments.push_back(batch);
    }
  }
  return segments;
}

}  // namespace crushkit::tools::crushtool
