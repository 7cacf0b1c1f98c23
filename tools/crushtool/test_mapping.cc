#include "tools/crushtool/test_mapping.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"

#include "crush/hash.h"
#include "crush/util/chunk_pipeline.h"
#include "tools/crushtool/test_report.h"

namespace crushkit::tools::crushtool {
namespace {

using crush::ItemId;

// The inputs of a run numbered 0..total-1 across its segments.
struct InputIndex {
  explicit InputIndex(const std::vector<XSegment>& segments) {
    for (const XSegment& seg : segments) {
      starts.push_back(total);
      total += seg.count();
    }
  }

  std::vector<std::uint64_t> starts;  // index of each segment's first input
  std::uint64_t total = 0;            // inputs in all segments
};

// One thread's mapper state and counters (merged by MergeCounts).
struct Worker {
  Worker(const crush::CrushMap& map, int num_rep, bool profile)
      : ws(map, std::max(num_rep, 0)),
        result(static_cast<std::size_t>(std::max(num_rep, 0))),
        per(static_cast<std::size_t>(map.max_devices()), 0),
        sizes(static_cast<std::size_t>(std::max(num_rep, 0)) + 1, 0) {
    if (profile) ws.EnableChooseTriesProfile(map);
  }

  crush::Workspace ws;
  std::vector<ItemId> result;
  std::vector<long long> per;        // results per device
  std::vector<std::uint64_t> sizes;  // mappings per result length
  long long diverged = 0;
  long long emitted_buckets = 0;
  absl::Status error;  // a --simulate draw whose answer is undefined in Ceph
};

// Maps input x of `run` into w.result; returns the result length.
int MapOne(const RuleRun& run, Worker& w, int x) {
  if (run.placer != nullptr) {
    std::vector<ItemId> placed;
    w.error = run.placer->Place(run.num_rep, run.weight, *run.rng, placed);
    if (!w.error.ok()) return 0;
    std::copy(placed.begin(), placed.end(), w.result.begin());
    return static_cast<int>(placed.size());
  }
  auto real_x = static_cast<std::uint32_t>(x);
  if (run.pool_id != -1) {
    real_x = crush::Hash32_2(real_x, static_cast<std::uint32_t>(run.pool_id));
  }
  return crush::DoRule(*run.map, run.rule, real_x, run.weight, w.ws, w.result, run.choose_args);
}

// Counts one result of length n in w and appends its lines to `out`.
void Record(const RuleRun& run, Worker& w, int x, int n, std::string& out) {
  const std::span<const ItemId> result(w.result.data(), static_cast<std::size_t>(std::max(n, 0)));
  if (run.placements != nullptr) run.placements->emplace_back(result.begin(), result.end());
  if (w.ws.diverged_from_ceph()) ++w.diverged;
  if (run.output_mappings) AppendMappingLine(out, run.placer != nullptr, run.rule, x, result);
  bool has_item_none = false;
  for (const ItemId item : result) {
    if (item == crush::kItemNone) {
      has_item_none = true;
    } else if (item < 0) {
      ++w.emitted_buckets;
    } else if (static_cast<std::size_t>(item) < w.per.size()) {
      // Ceph indexes its counters with any item (a bucket id writes out of
      // bounds); crushkit counts devices only.
      ++w.per[static_cast<std::size_t>(item)];
    }
  }
  if (n >= 0 && static_cast<std::size_t>(n) < w.sizes.size())
    ++w.sizes[static_cast<std::size_t>(n)];
  if (run.output_bad_mappings && (n != run.num_rep || has_item_none)) {
    AppendBadMappingLine(out, run.rule, x, run.num_rep, result);
  }
}

// Maps inputs [begin, end) of `run` with `w`, appending the per-x lines to
// `out`; if `flush` is set, lets it flush after every input (the
// single-threaded path writes straight to it). Stops at a --simulate error.
void MapIndices(const RuleRun& run, const InputIndex& index, Worker& w, std::uint64_t begin,
                std::uint64_t end, std::string& out, TestOutput* flush) {
  if (begin >= end) return;
  auto s = static_cast<std::size_t>(
      std::upper_bound(index.starts.begin(), index.starts.end(), begin) - index.starts.begin() - 1);
  for (std::uint64_t i = begin; i < end; ++s) {
    const XSegment& seg = run.segments[s];
    const std::uint64_t seg_end = std::min(end, index.starts[s] + seg.count());
    for (long long xl = seg.lo + static_cast<long long>(i - index.starts[s]); i < seg_end;
         ++xl, ++i) {
      const int x = static_cast<int>(xl);
      const int n = MapOne(run, w, x);
      if (!w.error.ok()) return;
      Record(run, w, x, n, out);
      if (flush != nullptr) flush->MaybeFlush();
    }
  }
}

int AutomaticThreads() { return std::min(util::HardwareThreads(), kMaxAutoTestThreads); }

// The threads for `total` inputs in chunks of `chunk_x`: one for --simulate
// (one lrand48 stream) and --output-csv (one list of results in input
// order), and at most one per chunk.
int ThreadsFor(const RuleRun& run, const TestThreading& threading, std::uint64_t total,
               std::uint64_t chunk_x) {
  const std::uint64_t num_chunks = (total + chunk_x - 1) / chunk_x;
  int threads =
      threading.threads > 0 ? std::min(threading.threads, kMaxTestThreads) : AutomaticThreads();
  if (total < threading.min_parallel_x || run.placer != nullptr || run.placements != nullptr) {
    threads = 1;
  }
  return static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(threads),
                                                  std::max<std::uint64_t>(num_chunks, 1)));
}

// Sums the workers' counters (sums do not depend on which thread mapped
// which input).
RuleCounts MergeCounts(std::vector<std::unique_ptr<Worker>>& workers, bool profile) {
  RuleCounts counts;
  counts.per_device = std::move(workers[0]->per);
  counts.sizes = std::move(workers[0]->sizes);
  for (std::size_t t = 0; t < workers.size(); ++t) {
    Worker& w = *workers[t];
    counts.diverged += w.diverged;
    counts.emitted_buckets += w.emitted_buckets;
    if (profile) {
      const auto p = w.ws.choose_tries_profile();
      if (counts.choose_tries.size() < p.size()) counts.choose_tries.resize(p.size(), 0);
      for (std::size_t i = 0; i < p.size(); ++i) counts.choose_tries[i] += p[i];
    }
    if (t == 0) continue;
    for (std::size_t i = 0; i < counts.per_device.size(); ++i) counts.per_device[i] += w.per[i];
    for (std::size_t i = 0; i < counts.sizes.size(); ++i) counts.sizes[i] += w.sizes[i];
  }
  return counts;
}

}  // namespace

absl::StatusOr<RuleCounts> MapRule(const RuleRun& run, const TestThreading& threading,
                                   TestOutput& output) {
  const InputIndex index(run.segments);
  const std::uint64_t chunk_x = std::max<std::uint64_t>(threading.chunk_x, 1);
  const int threads = ThreadsFor(run, threading, index.total, chunk_x);
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < threads; ++t) {
    workers.push_back(std::make_unique<Worker>(*run.map, run.num_rep, run.choose_tries_profile));
  }
  // Chunk c is inputs [c * chunk_x, (c + 1) * chunk_x); a ring of 4 chunks
  // per thread bounds the buffered lines whatever the range.
  const bool parallel =
      threads > 1 &&
      util::ForEachChunkInOrder<std::string>(
          (index.total + chunk_x - 1) / chunk_x, threads, 4 * static_cast<std::uint64_t>(threads),
          [&](int slot, std::uint64_t c, std::string& text) {
            text.clear();
            MapIndices(run, index, *workers[static_cast<std::size_t>(slot)], c * chunk_x,
                       std::min(index.total, (c + 1) * chunk_x), text, nullptr);
          },
          [&](std::uint64_t, const std::string& text) {
            output.out += text;
            output.MaybeFlush();
          });
  if (!parallel) MapIndices(run, index, *workers[0], 0, index.total, output.out, &output);
  if (!workers[0]->error.ok()) return workers[0]->error;
  return MergeCounts(workers, run.choose_tries_profile);
}

}  // namespace crushkit::tools::crushtool
