// The mapping loop of `crushtool --test` for one (rule, num_rep): every
// input of Ceph's batch loop mapped (CRUSH, or --simulate's random
// placements), per-x lines (--show-mappings, --show-bad-mappings) appended
// to the output in x order, and the counters the report needs summed.
//
// Large input ranges are cut into chunks mapped on worker threads through
// crush/util/chunk_pipeline.h, each thread with its own
// crush::Workspace on the shared immutable CrushMap; the lines of each chunk
// are buffered and written in chunk order, and the counters are sums merged
// afterwards, so output and counts do not depend on the thread count.
// Thread-safety: MapRule uses only its arguments.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_TEST_MAPPING_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_TEST_MAPPING_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/map.h"
#include "crush/mapper.h"
#include "tools/crushtool/lrand48.h"
#include "tools/crushtool/random_placement.h"
#include "tools/crushtool/test_batches.h"
#include "tools/crushtool/tester.h"

namespace crushkit::tools::crushtool {

// What mapping one (rule, num_rep) needs; read-only while it is mapped.
struct RuleRun {
  const crush::CrushMap* map = nullptr;
  int rule = 0;
  int num_rep = 0;
  std::span<const crush::Weight> weight;
  crush::ChooseArgsRef choose_args;
  std::int64_t pool_id = -1;  // -1: x itself, else Hash32_2(x, pool_id)
  bool output_mappings = false;
  bool output_bad_mappings = false;
  bool choose_tries_profile = false;  // --show-choose-tries
  // --simulate: Ceph's random placements instead of CRUSH (one thread: one
  // lrand48 stream).
  RandomPlacer* placer = nullptr;
  Lrand48* rng = nullptr;
  // --output-csv: every result in input order (one thread).
  std::vector<std::vector<crush::ItemId>>* placements = nullptr;
  // The inputs, in order (BatchSegments()).
  std::vector<XSegment> segments;
};

// The sums over one (rule, num_rep)'s mappings.
struct RuleCounts {
  std::vector<long long> per_device;        // results per device 0..max_devices-1
  std::vector<std::uint64_t> sizes;         // mappings per result length 0..num_rep
  std::vector<std::uint32_t> choose_tries;  // the mapper's profile, if asked for
  long long diverged = 0;                   // results that are crushkit's, not Ceph's
  long long emitted_buckets = 0;            // bucket ids among the results
};

// Maps every input of `run` on the threads `threading` allows (one for
// --simulate and --output-csv), appending the per-x lines to `output` in
// input order and flushing it as it grows. Errors: the draw of a --simulate
// placement whose answer is undefined in Ceph (the lines before it are
// already in `output`).
absl::StatusOr<RuleCounts> MapRule(const RuleRun& run, const TestThreading& threading,
                                   TestOutput& output);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_TEST_MAPPING_H_
