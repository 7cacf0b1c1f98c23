#include "tools/crushtool/tester.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"

#include "crush/hash.h"
#include "crush/mapper.h"
#include "crush/model.h"
#include "crush/text_format.h"
#include "crush/types.h"
#include "tools/crushtool/lrand48.h"
#include "tools/crushtool/mark_down.h"
#include "tools/crushtool/random_placement.h"
#include "tools/crushtool/test_batches.h"
#include "tools/crushtool/test_csv.h"

namespace crushkit::tools::crushtool {
namespace {

using crush::CrushMap;
using crush::ItemId;
using crush::MapModel;
using crush::Weight;

// CrushWrapper::get_bucket_type(): the bucket's type, or -ENOENT (-2) for a
// device id or a missing bucket.
int BucketTypeOrEnoent(const MapModel& m, ItemId id) {
  const crush::Bucket* b = m.FindBucket(id);
  if (b == nullptr || b->alg == crush::BucketAlg::kNone) return -2;
  return b->type;
}

// CrushTester::get_maximum_affected_by_rule(), quirks included: every step
// whose op is >= 2 and != emit (so also the set_* steps, with their arg2)
// counts as a "choose" of type arg2; the candidates are all *named* items
// whose bucket type matches (shadow buckets included).
int MaximumAffectedByRule(const CrushMap& map, int rule) {
  const MapModel& m = map.model();
  const crush::Rule& r = m.rules[static_cast<std::size_t>(rule)];
  std::vector<int> affected_types;
  std::map<int, int> replications_by_type;
  for (const crush::RuleStep& s : r.steps) {
    const auto op = static_cast<std::uint32_t>(s.op);
    if (op >= 2 && op != 4) {
      affected_types.push_back(s.arg2);
      replications_by_type[s.arg2] = s.arg1;
    }
  }
  std::map<int, int> max_devices_of_type;
  for (int type : affected_types) {
    for (const auto& [id, name] : m.item_names) {
      if (BucketTypeOrEnoent(m, id) == type) max_devices_of_type[type]++;
    }
  }
  for (int type : affected_types) {
    if (replications_by_type[type] > 0 && replications_by_type[type] < max_devices_of_type[type]) {
      max_devices_of_type[type] = replications_by_type[type];
    }
  }
  int max_affected = std::max(map.max_buckets(), map.max_devices());
  for (int type : affected_types) {
    if (max_devices_of_type[type] > 0 && max_devices_of_type[type] < max_affected) {
      max_affected = max_devices_of_type[type];
    }
  }
  return max_affected;
}

// CrushWrapper::check_item_present(): the item is in some bucket.
std::vector<bool> PresentDevices(const MapModel& m, int max_devices) {
  std::vector<bool> present(static_cast<std::size_t>(max_devices), false);
  for (const crush::Bucket& b : m.buckets) {
    if (b.alg == crush::BucketAlg::kNone) continue;
    for (ItemId item : b.items) {
      if (item >= 0 && item < max_devices) present[static_cast<std::size_t>(item)] = true;
    }
  }
  return present;
}

void AppendVector(std::string& s, const ItemId* v, int n) {
  s.push_back('[');
  char buf[16];
  for (int i = 0; i < n; ++i) {
    if (i > 0) s.push_back(',');
    const int len = std::snprintf(buf, sizeof(buf), "%d", v[i]);
    s.append(buf, static_cast<std::size_t>(len));
  }
  s.push_back(']');
}

std::string RuleName(const MapModel& m, int rule) {
  // Ceph streams a null char* here (and then builds a std::string from it,
  // which throws); crushkit prints an unnamed rule's name as empty.
  auto it = m.rule_names.find(rule);
  return it == m.rule_names.end() ? std::string() : it->second;
}

}  // namespace

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

namespace {

// The inputs CrushTester's batch loop visits, in order: the non-empty
// batches, adjacent ones joined (the common case is one segment).
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

// What every mapping of one (rule, num_rep) shares; read-only while the
// workers run.
struct RuleRun {
  const CrushMap* map = nullptr;
  int rule = 0;
  int num_rep = 0;
  std::span<const Weight> weight;
  crush::ChooseArgsRef choose_args;
  std::int64_t pool_id = -1;
  bool output_mappings = false;
  bool output_bad_mappings = false;
  // --simulate: Ceph's random placements instead of CRUSH (single-threaded:
  // one lrand48 stream).
  RandomPlacer* placer = nullptr;
  Lrand48* rng = nullptr;
  // --output-csv: every result in input order (single-threaded).
  std::vector<std::vector<ItemId>>* placements = nullptr;
  std::vector<XSegment> segments;
  std::vector<std::uint64_t> starts;  // index of each segment's first input
  std::uint64_t total = 0;            // inputs in all segments
};

// One thread's mapper state and counters (merged by the caller).
struct Worker {
  Worker(const CrushMap& map, int num_rep, int max_devices, bool profile)
      : ws(map, std::max(num_rep, 0)),
        result(static_cast<std::size_t>(std::max(num_rep, 0))),
        per(static_cast<std::size_t>(max_devices), 0),
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

// Maps inputs [begin, end) of `run` (indexes into its segments) with `w`,
// appending the per-x lines to `out`; if `flush` is set, lets it flush
// after every input (the single-threaded path writes straight to it).
void MapIndices(const RuleRun& run, Worker& w, std::uint64_t begin, std::uint64_t end,
                std::string& out, TestOutput* flush) {
  if (begin >= end) return;
  const int max_devices = static_cast<int>(w.per.size());
  const int r = run.rule;
  const int nr = run.num_rep;
  std::size_t s = static_cast<std::size_t>(
      std::upper_bound(run.starts.begin(), run.starts.end(), begin) - run.starts.begin() - 1);
  std::uint64_t i = begin;
  while (i < end) {
    const XSegment& seg = run.segments[s];
    const std::uint64_t seg_end = std::min(end, run.starts[s] + seg.count());
    for (long long xl = seg.lo + static_cast<long long>(i - run.starts[s]); i < seg_end;
         ++xl, ++i) {
      const int x = static_cast<int>(xl);
      auto real_x = static_cast<std::uint32_t>(x);
      if (run.pool_id != -1) {
        real_x = crush::Hash32_2(real_x, static_cast<std::uint32_t>(run.pool_id));
      }
      int n = 0;
      if (run.placer != nullptr) {
        std::vector<ItemId> placed;
        w.error = run.placer->Place(nr, run.weight, *run.rng, placed);
        if (!w.error.ok()) return;
        std::copy(placed.begin(), placed.end(), w.result.begin());
        n = static_cast<int>(placed.size());
      } else {
        n = crush::DoRule(*run.map, r, real_x, run.weight, w.ws, w.result, run.choose_args);
      }
      if (run.placements != nullptr) {
        run.placements->emplace_back(w.result.begin(), w.result.begin() + std::max(n, 0));
      }
      if (w.ws.diverged_from_ceph()) ++w.diverged;
      if (run.output_mappings) {
        out += run.placer != nullptr ? "RNG rule " : "CRUSH rule ";
        out += std::to_string(r);
        out += " x ";
        out += std::to_string(x);
        out.push_back(' ');
        AppendVector(out, w.result.data(), n);
        out.push_back('\n');
      }
      bool has_item_none = false;
      for (int k = 0; k < n; ++k) {
        const ItemId item = w.result[static_cast<std::size_t>(k)];
        if (item == crush::kItemNone) {
          has_item_none = true;
        } else if (item < 0) {
          ++w.emitted_buckets;
        } else if (item < max_devices) {
          // Ceph indexes its counters with any item (a bucket id writes
          // out of bounds); crushkit counts devices only.
          ++w.per[static_cast<std::size_t>(item)];
        }
      }
      if (n >= 0 && static_cast<std::size_t>(n) < w.sizes.size())
        ++w.sizes[static_cast<std::size_t>(n)];
      if (run.output_bad_mappings && (n != nr || has_item_none)) {
        out += "bad mapping rule " + std::to_string(r) + " x " + std::to_string(x) + " num_rep " +
               std::to_string(nr) + " result ";
        AppendVector(out, w.result.data(), n);
        out.push_back('\n');
      }
      if (flush != nullptr) flush->MaybeFlush();
    }
    ++s;
  }
}

// Maps all of `run` with workers.size() threads: chunk c covers inputs
// [c * chunk_x, (c + 1) * chunk_x); threads claim chunks in order and fill
// a ring of buffers at most `window` chunks ahead of the writer (this
// thread), which appends them to `output` in chunk order, so memory stays
// bounded whatever the range. Returns false, having mapped nothing, if no
// thread could be started (the caller then maps on this thread).
bool MapParallel(const RuleRun& run, std::vector<std::unique_ptr<Worker>>& workers,
                 std::uint64_t chunk_x, TestOutput& output) {
  const std::uint64_t num_chunks = (run.total + chunk_x - 1) / chunk_x;
  const std::uint64_t window = 4 * static_cast<std::uint64_t>(workers.size());

  struct Slot {
    std::string text;
    std::uint64_t ready = UINT64_MAX;  // the chunk whose text this holds
  };

  std::vector<Slot> slots(static_cast<std::size_t>(window));
  std::mutex mu;
  std::condition_variable ready_cv;  // a slot was filled
  std::condition_variable space_cv;  // the writer consumed a slot
  std::uint64_t written = 0;         // chunks appended to `output` (under mu)
  std::atomic<std::uint64_t> next{0};

  auto work = [&](Worker& w) {
    for (;;) {
      const std::uint64_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (c >= num_chunks) return;
      {
        std::unique_lock lock(mu);
        space_cv.wait(lock, [&] { return c < written + window; });
      }
      Slot& slot = slots[static_cast<std::size_t>(c % window)];
      slot.text.clear();
      MapIndices(run, w, c * chunk_x, std::min(run.total, (c + 1) * chunk_x), slot.text, nullptr);
      {
        std::lock_guard lock(mu);
        slot.ready = c;
      }
      ready_cv.notify_one();
    }
  };

  std::vector<std::thread> threads;
  threads.reserve(workers.size());
  for (auto& w : workers) {
    try {
      threads.emplace_back(work, std::ref(*w));
    } catch (const std::system_error&) {
      break;  // resource limits: go on with the threads we have
    }
  }
  if (threads.empty()) return false;

  for (std::uint64_t c = 0; c < num_chunks; ++c) {
    Slot& slot = slots[static_cast<std::size_t>(c % window)];
    {
      std::unique_lock lock(mu);
      ready_cv.wait(lock, [&] { return slot.ready == c; });
    }
    output.out += slot.text;
    output.MaybeFlush();
    {
      std::lock_guard lock(mu);
      ++written;
    }
    space_cv.notify_all();
  }
  for (std::thread& t : threads) t.join();
  return true;
}

int AutomaticThreads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return std::clamp(static_cast<int>(std::min(hw, 1024U)), 1, kMaxAutoTestThreads);
}

}  // namespace

std::vector<Weight> TestDeviceWeights(const CrushMap& map, const TestOptions& opt) {
  const int max_devices = map.max_devices();
  const std::vector<bool> present = PresentDevices(map.model(), max_devices);
  std::vector<Weight> weight(static_cast<std::size_t>(max_devices));
  for (int o = 0; o < max_devices; ++o) {
    auto it = opt.device_weight.find(o);
    if (it != opt.device_weight.end()) {
      weight[static_cast<std::size_t>(o)] = it->second;
    } else {
      weight[static_cast<std::size_t>(o)] = present[static_cast<std::size_t>(o)] ? 0x10000 : 0;
    }
  }
  return weight;
}

std::pair<int, int> TestNumRepRange(const crush::Rule& rule, const TestOptions& opt) {
  if (opt.rule_sizes_default && (opt.min_rep < 0 || opt.max_rep < 0)) {
    return {rule.min_size, rule.max_size};
  }
  return {opt.min_rep, opt.max_rep};
}

TestThreading TestThreadingFromEnvironment() {
  TestThreading threading;
  const char* env = std::getenv("CRUSHKIT_THREADS");
  if (env == nullptr || *env < '0' || *env > '9') return threading;  // digits only
  char* end = nullptr;
  const long n = std::strtol(env, &end, 10);
  if (*end != '\0' || n < 1 || n > kMaxTestThreads) return threading;
  threading.threads = static_cast<int>(n);
  threading.min_parallel_x = 0;
  return threading;
}

void TestOutput::MaybeFlush() {
  if (out_file != nullptr && out.size() >= flush_threshold) Flush();
}

void TestOutput::Flush() {
  if (out_file != nullptr && !out.empty()) {
    std::fwrite(out.data(), 1, out.size(), out_file);
    std::fflush(out_file);
    out.clear();
  }
}

void TestOutput::WriteErr(const std::string& text) {
  if (err_file == nullptr) {
    err += text;
    return;
  }
  Flush();
  std::fwrite(text.data(), 1, text.size(), err_file);
  std::fflush(err_file);
}

std::string DivergedMappingsWarning(long long diverged) {
  return "crushkit crushtool: warning: " + std::to_string(diverged) +
         " mapping(s) hit a tree bucket descent past its last item (Ceph reads out of"
         " bounds there) or the mapper's work budget; those results are crushkit's"
         " documented answers (crush/mapper.h), not Ceph's\n";
}

TestRanges TestRangesFor(const CrushMap& map, const TestOptions& opt) {
  TestRanges r{opt.min_rule, opt.max_rule, opt.min_x, opt.max_x};
  if (r.min_rule < 0 || r.max_rule < 0) {
    r.min_rule = 0;
    r.max_rule = map.max_rules() - 1;
  }
  if (r.min_x < 0 || r.max_x < 0) {
    r.min_x = 0;
    r.max_x = 1023;
  }
  return r;
}

int RunCrushTest(const CrushMap& map, const TestOptions& opt, TestOutput& output) {
  return RunCrushTest(map, opt, output, TestThreadingFromEnvironment());
}

int RunCrushTest(const CrushMap& map, const TestOptions& opt, TestOutput& output,
                 const TestThreading& threading) {
  const MapModel& m = map.model();
  const bool statistics =
      opt.output_statistics || opt.output_utilization || opt.output_utilization_all;
  const auto [min_rule, max_rule, min_x, max_x] = TestRangesFor(map, opt);

  // Mappings whose result is crushkit's documented answer where Ceph's is
  // undefined (see crush/mapper.h); reported once on stderr at the end.
  long long diverged = 0;
  // Bucket ids in results: Ceph's tester indexes its per-device counters
  // with them, writing out of bounds (often into its choose_tries histogram).
  long long emitted_buckets = 0;
  // Quincy+ accept a negative --min-rep/--max-rep and size a stack array with
  // it (undefined: they print garbage or die of stack smashing).
  bool negative_num_rep = false;

  const int max_devices = map.max_devices();
  std::vector<Weight> weight = TestDeviceWeights(map, opt);
  if (opt.output_utilization_all) {
    std::string line = "devices weights (hex): [";
    char buf[16];
    for (std::size_t i = 0; i < weight.size(); ++i) {
      if (i > 0) line.push_back(',');
      line.append(buf, static_cast<std::size_t>(std::snprintf(buf, sizeof(buf), "%x", weight[i])));
    }
    line += "]\n";
    output.WriteErr(line);
  }
  Lrand48 rng;  // CrushTester's lrand48() stream
  if (auto s =
          MarkDevicesDown(m, opt.mark_down_device_ratio, opt.mark_down_bucket_ratio, weight, rng);
      !s.ok()) {
    output.WriteErr("crushkit crushtool: undefined in Ceph: " + std::string(s.message()) + "\n");
    return 1;
  }

  // Ceph's choose_tries array has choose_total_tries + 1 slots and prints
  // choose_total_tries of them; the mapper caps the histogram at 2^16.
  const std::uint64_t profile_slots =
      std::min<std::uint64_t>(std::uint64_t{m.tunables.choose_total_tries} + 1, 1U << 16);
  std::vector<std::uint32_t> choose_tries(
      opt.output_choose_tries ? static_cast<std::size_t>(profile_slots) : 0, 0);
  const crush::ChooseArgsRef choose_args = map.ResolveChooseArgs(0);
  std::string& out = output.out;
  char buf[64];

  for (int r = min_rule; r < map.max_rules() && r <= max_rule; ++r) {
    if (!map.RuleExists(r)) {
      if (statistics) out += "rule " + std::to_string(r) + " dne\n";
      continue;
    }
    const crush::Rule& rule = m.rules[static_cast<std::size_t>(r)];
    if (opt.ruleset >= 0 && rule.ruleset != opt.ruleset) continue;
    const auto [minr, maxr] = TestNumRepRange(rule, opt);
    const std::string name = RuleName(m, r);
    const std::string rule_prefix = "rule " + std::to_string(r) + " (" + name + ")";
    if (statistics) {
      out += rule_prefix + ", x = " + std::to_string(min_x) + ".." + std::to_string(max_x) +
             ", numrep = " + std::to_string(minr) + ".." + std::to_string(maxr) + "\n";
    }
    const int max_affected = MaximumAffectedByRule(map, r);

    for (int nr = minr; nr <= maxr; ++nr) {
      if (nr > kMaxNumRep) {
        // Ceph keeps rawout and its workspace on the stack and dies of a
        // stack overflow well below this; we refuse instead of allocating.
        output.WriteErr("crushkit crushtool: num_rep " + std::to_string(nr) +
                        " exceeds the supported maximum " + std::to_string(kMaxNumRep) + "\n");
        return 1;
      }
      if (nr < 0) negative_num_rep = true;
      const int num_objects = WrapAdd(WrapSub(max_x, min_x), 1);
      int total_weight = 0;
      for (Weight w : weight) total_weight = WrapAdd(total_weight, static_cast<int>(w));
      if (total_weight == 0) {
        if (nr == maxr) break;
        continue;
      }
      const auto expected_objects =
          static_cast<float>(WrapMul(std::min(nr, max_affected), num_objects));
      std::vector<float> num_objects_expected(static_cast<std::size_t>(max_devices));
      for (std::size_t i = 0; i < num_objects_expected.size(); ++i) {
        const float proportional = static_cast<float>(weight[i]) / static_cast<float>(total_weight);
        num_objects_expected[i] = proportional * expected_objects;
      }

      RuleRun run;
      run.map = &map;
      run.rule = r;
      run.num_rep = nr;
      run.weight = weight;
      run.choose_args = choose_args;
      run.pool_id = opt.pool_id;
      run.output_mappings = opt.output_mappings;
      run.output_bad_mappings = opt.output_bad_mappings;
      std::optional<RandomPlacer> placer;
      std::vector<std::vector<ItemId>> placements;
      if (opt.simulate) {
        absl::StatusOr<RandomPlacer> p = RandomPlacer::ForRule(m, r, max_affected);
        if (!p.ok()) {
          output.WriteErr(
              "crushkit crushtool: undefined in Ceph: " + std::string(p.status().message()) + "\n");
          return 1;
        }
        placer.emplace(*std::move(p));
        run.placer = &*placer;
        run.rng = &rng;
      }
      if (opt.output_csv) run.placements = &placements;
      run.segments = BatchSegments(min_x, max_x, opt.batches, num_objects);
      for (const XSegment& seg : run.segments) {
        run.starts.push_back(run.total);
        run.total += seg.count();
      }

      const std::uint64_t chunk_x = std::max<std::uint64_t>(threading.chunk_x, 1);
      const std::uint64_t num_chunks = (run.total + chunk_x - 1) / chunk_x;
      int threads =
          threading.threads > 0 ? std::min(threading.threads, kMaxTestThreads) : AutomaticThreads();
      // One lrand48 stream, or one list of results in input order.
      if (run.total < threading.min_parallel_x || opt.simulate || opt.output_csv) threads = 1;
      threads = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(threads),
                                                         std::max<std::uint64_t>(num_chunks, 1)));
      std::vector<std::unique_ptr<Worker>> workers;
      for (int t = 0; t < threads; ++t) {
        workers.push_back(std::make_unique<Worker>(map, nr, max_devices, opt.output_choose_tries));
      }
      if (threads <= 1 || !MapParallel(run, workers, chunk_x, output)) {
        MapIndices(run, *workers[0], 0, run.total, output.out, &output);
      }

      if (!workers[0]->error.ok()) {
        output.WriteErr("crushkit crushtool: undefined in Ceph: " +
                        std::string(workers[0]->error.message()) + "\n");
        return 1;
      }
      // Merge the workers' counters (sums: independent of which thread
      // mapped which input).
      std::vector<long long>& per = workers[0]->per;
      std::vector<std::uint64_t>& sizes = workers[0]->sizes;
      std::vector<std::uint32_t> profile;
      for (std::size_t t = 0; t < workers.size(); ++t) {
        Worker& w = *workers[t];
        diverged += w.diverged;
        emitted_buckets += w.emitted_buckets;
        if (opt.output_choose_tries) {
          const auto p = w.ws.choose_tries_profile();
          if (profile.size() < p.size()) profile.resize(p.size(), 0);
          for (std::size_t i = 0; i < p.size(); ++i) profile[i] += p[i];
        }
        if (t == 0) continue;
        for (std::size_t i = 0; i < per.size(); ++i) per[i] += w.per[i];
        for (std::size_t i = 0; i < sizes.size(); ++i) sizes[i] += w.sizes[i];
      }
      if (opt.output_choose_tries) {
        const std::size_t n = std::min(profile.size(), choose_tries.size());
        for (std::size_t i = 0; i < n; ++i) choose_tries[i] += profile[i];
      }

      if (statistics) {
        for (std::size_t size = 0; size < sizes.size(); ++size) {
          if (sizes[size] == 0) continue;
          // Ceph counts in an int (std::map<int, int>); x86-64 wraps.
          const auto count = static_cast<int>(static_cast<std::uint32_t>(sizes[size]));
          out += rule_prefix + " num_rep " + std::to_string(nr) +
                 " result size == " + std::to_string(size) + ":\t" + std::to_string(count) + "/" +
                 std::to_string(WrapAdd(WrapSub(max_x, min_x), 1)) + "\n";
        }
        for (std::size_t i = 0; i < per.size(); ++i) {
          const bool print = opt.output_utilization ? (num_objects_expected[i] > 0 && per[i] > 0)
                                                    : opt.output_utilization_all;
          if (!print) continue;
          const int len =
              std::snprintf(buf, sizeof(buf), "  device %zu:\t\t stored : %lld\t", i, per[i]);
          out.append(buf, static_cast<std::size_t>(len));
          out += " expected : " + crush::FormatCephFloat(num_objects_expected[i]) + "\n";
        }
      }
      if (opt.output_csv) {
        const CsvRuleRun csv{r, nr, min_x, max_x, weight, per, num_objects_expected, placements};
        if (auto s = WriteTestCsv(m, opt, csv); !s.ok()) {
          output.WriteErr("crushkit crushtool: --output-csv: " + std::string(s.message()) + "\n");
          return 1;
        }
      }
      output.MaybeFlush();
      if (nr == maxr) break;  // nr <= maxr with maxr == INT_MAX must not overflow
    }
  }

  if (opt.output_choose_tries) {
    const std::uint32_t total_tries = m.tunables.choose_total_tries;
    const std::size_t n = std::min<std::size_t>(total_tries, choose_tries.size());
    for (std::size_t i = 0; i < n; ++i) {
      const int len = std::snprintf(buf, sizeof(buf), "%2zu: %9u\n", i, choose_tries[i]);
      out.append(buf, static_cast<std::size_t>(len));
    }
  }
  output.MaybeFlush();
  if (emitted_buckets > 0) {
    output.WriteErr("crushkit crushtool: warning: results held " + std::to_string(emitted_buckets) +
                    " bucket id(s); Ceph's crushtool counts them at negative device indexes (it"
                    " reads out of bounds there and may corrupt its other counters); crushkit"
                    " counts devices only\n");
  }
  if (negative_num_rep) {
    output.WriteErr(
        "crushkit crushtool: warning: a negative num_rep was tested; Ceph's crushtool"
        " sizes a stack array with it (its answer is undefined, it reads out of bounds);"
        " crushkit maps nothing for it\n");
  }
  if (diverged > 0) {
    output.WriteErr(DivergedMappingsWarning(diverged));
  }
  return 0;
}

}  // namespace crushkit::tools::crushtool
