#include "tools/crushtool/tester.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "compiler/compile.h"
#include "compiler/source_file.h"
#include "crush/codec.h"
#include "crush/map.h"
#include "tests/testing/crush_text.h"
#include "tests/testing/paths.h"

namespace crushkit::tools::crushtool {
namespace {

// Pacific's maps and sizes: Reef and later would ignore the rules'
// min_size/max_size, and the per-rule num_rep loops would run to 100.
const compiler::CompileOptions kPacificText{.release = crush::CephRelease::kPacific};

using ::testing::HasSubstr;

std::string Pacific(const std::string& name) {
  return crush_testing::CompatDir() + "/ceph-cli-tests/pacific/crushtool/" + name;
}

// A map whose second rule emits hosts (bucket ids in the results: the
// emitted-bucket warning) and whose third maps with choose_args-free
// firstn/indep mixes; several hosts so that --weight moves data.
std::string EmitBucketsMap() {
  return crush_testing::HostsAndRootText({{1, 2}, {1, 1}, {1, 0.5}, {1, 1}}) + R"(rule replicated {
	id 0
	type replicated
	min_size 1
	max_size 5
	step take default
	step chooseleaf firstn 0 type host
	step emit
}
rule hosts {
	id 1
	type replicated
	min_size 1
	max_size 3
	step take default
	step choose firstn 0 type host
	step emit
}
rule ec {
	id 2
	type erasure
	min_size 3
	max_size 6
	step set_chooseleaf_tries 5
	step take default
	step chooseleaf indep 0 type host
	step emit
}
)";
}

struct Captured {
  int rc = 0;
  std::string out, err;
};

Captured RunTester(const crush::CrushMap& map, const TestOptions& options,
                   const TestThreading& threading, bool through_files) {
  TestOutput output;
  std::FILE* out = nullptr;
  std::FILE* err = nullptr;
  if (through_files) {
    out = std::tmpfile();
    err = std::tmpfile();
    output.out_file = out;
    output.err_file = err;
    output.flush_threshold = 100;  // flush often: exercises the writer's flushes
  }
  Captured c;
  c.rc = RunCrushTest(map, options, output, threading);
  output.Flush();
  c.out = output.out;
  c.err = output.err;
  for (auto [f, s] : {std::pair{out, &c.out}, std::pair{err, &c.err}}) {
    if (f == nullptr) continue;
    std::rewind(f);
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) s->append(buf, n);
    std::fclose(f);
  }
  return c;
}

std::vector<TestOptions> OptionVariants() {
  std::vector<TestOptions> variants;
  TestOptions a;  // everything per x, one num_rep, two reweighted devices
  a.min_x = 0;
  a.max_x = 300;
  a.min_rep = a.max_rep = 3;
  a.output_mappings = true;
  a.output_bad_mappings = true;
  a.output_statistics = true;
  a.output_utilization = true;
  a.output_choose_tries = true;
  a.device_weight = {{1, 0}, {3, 0x8000}};
  variants.push_back(a);
  TestOptions b;  // num_rep from each rule's min_size..max_size, batches, pool id
  b.min_x = 3;
  b.max_x = 400;
  b.batches = 7;
  b.pool_id = 5;
  b.output_statistics = true;
  b.output_utilization_all = true;
  b.output_bad_mappings = true;
  b.output_choose_tries = true;
  variants.push_back(b);
  TestOptions c;  // more batches than inputs; num_rep 0 (choose_tries[0] fix-up)
  c.min_x = 10;
  c.max_x = 30;
  c.batches = 50;
  c.min_rep = 0;
  c.max_rep = 1;
  c.output_mappings = true;
  c.output_statistics = true;
  c.output_choose_tries = true;
  variants.push_back(c);
  return variants;
}

std::vector<crush::MapModel> TestModels() {
  std::vector<crush::MapModel> models;
  auto compiled = compiler::Compile(compiler::SourceFile("emit-buckets.txt", EmitBucketsMap()),
                                    nullptr, kPacificText);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  if (compiled.ok()) models.push_back(*std::move(compiled));
  for (const char* name : {"test-map-a.crushmap", "test-map-indep.crushmap"}) {
    const std::string bytes = crush_testing::ReadFileOrEmpty(Pacific(name));
    if (bytes.empty()) continue;  // compat corpus absent
    auto decoded = crush::DecodeCrushMap(bytes);
    EXPECT_TRUE(decoded.ok()) << name << ": " << decoded.status();
    if (decoded.ok()) models.push_back(*std::move(decoded));
  }
  for (const char* name : {"bad-mappings.crushmap.txt", "set-choose.crushmap.txt"}) {
    const std::string text = crush_testing::ReadFileOrEmpty(Pacific(name));
    if (text.empty()) continue;
    auto m = compiler::Compile(compiler::SourceFile(name, text), nullptr, kPacificText);
    EXPECT_TRUE(m.ok()) << name << ": " << m.status();
    if (m.ok()) models.push_back(*std::move(m));
  }
  return models;
}

// The threaded tester must print exactly what the single-threaded one
// prints: per-x lines in x order, and the same merged counters.
TEST(RunCrushTestThreadsTest, ThreadedOutputIsByteIdentical) {
  const TestThreading single{.threads = 1};
  const std::vector<TestThreading> threaded = {
      {.threads = 4, .min_parallel_x = 0, .chunk_x = 7},  // many small chunks
      {.threads = 3, .min_parallel_x = 0, .chunk_x = 1},  // one input per chunk
      {.threads = 2, .min_parallel_x = 0, .chunk_x = 256},
  };
  const std::vector<crush::MapModel> models = TestModels();
  ASSERT_GE(models.size(), 1U);
  int maps = 0;
  bool saw_bad = false, saw_bucket_warning = false, saw_devices = false;
  for (const crush::MapModel& model : models) {
    auto map = crush::CrushMap::Build(model);
    ASSERT_TRUE(map.ok()) << map.status();
    ++maps;
    const std::vector<TestOptions> variants = OptionVariants();
    for (std::size_t v = 0; v < variants.size(); ++v) {
      const TestOptions& options = variants[v];
      // Through FILE*s (frequent flushes) for the per-x variant only.
      for (int mode = 0; mode < (v == 0 ? 2 : 1); ++mode) {
        const bool files = mode == 1;
        const Captured want = RunTester(*map, options, single, files);
        saw_bad = saw_bad || want.out.find("bad mapping") != std::string::npos;
        saw_devices = saw_devices || want.out.find("  device ") != std::string::npos;
        saw_bucket_warning =
            saw_bucket_warning || want.err.find("bucket id(s)") != std::string::npos;
        for (const TestThreading& t : threaded) {
          const Captured got = RunTester(*map, options, t, files);
          EXPECT_EQ(got.rc, want.rc);
          ASSERT_EQ(got.out, want.out) << "map " << maps << " threads " << t.threads;
          ASSERT_EQ(got.err, want.err) << "map " << maps << " threads " << t.threads;
        }
      }
    }
  }
  // The comparison covered the interesting outputs.
  EXPECT_TRUE(saw_bad);
  EXPECT_TRUE(saw_devices);
  EXPECT_TRUE(saw_bucket_warning);
}

// The single-threaded loop's output for a tiny case, by hand: rule 1 of
// EmitBucketsMap() emits hosts, so one mapping prints bucket ids and the
// statistics count the result size.
TEST(RunCrushTestThreadsTest, EmittedBucketsAreCountedOnceAcrossThreads) {
  auto model = compiler::Compile(compiler::SourceFile("emit-buckets.txt", EmitBucketsMap()),
                                 nullptr, kPacificText);
  ASSERT_TRUE(model.ok()) << model.status();
  auto map = crush::CrushMap::Build(*model);
  ASSERT_TRUE(map.ok()) << map.status();
  TestOptions o;
  o.min_rule = o.max_rule = 1;
  o.min_rep = o.max_rep = 2;
  o.min_x = 0;
  o.max_x = 99;
  o.output_statistics = true;
  const Captured c = RunTester(*map, o, {.threads = 4, .min_parallel_x = 0, .chunk_x = 3}, false);
  // 100 inputs x 2 distinct hosts each (4 hosts, all weighted).
  EXPECT_THAT(c.out, HasSubstr("rule 1 (hosts) num_rep 2 result size == 2:\t100/100\n"));
  EXPECT_THAT(c.err, HasSubstr("results held 200 bucket id(s)"));
}

// CRUSHKIT_THREADS: an integer 1..64 forces that many threads (and drops
// the size threshold); anything else leaves the automatic default.
TEST(RunCrushTestThreadsTest, EnvironmentVariable) {
  const char* saved = std::getenv("CRUSHKIT_THREADS");
  const std::string saved_value = saved != nullptr ? saved : "";
  const TestThreading automatic;
  for (const char* bad : {"", "0", "-1", "65", "2x", "x", " 2", "99999999999999999999"}) {
    ::setenv("CRUSHKIT_THREADS", bad, 1);
    const TestThreading t = TestThreadingFromEnvironment();
    EXPECT_EQ(t.threads, 0) << bad;
    EXPECT_EQ(t.min_parallel_x, automatic.min_parallel_x) << bad;
  }
  ::setenv("CRUSHKIT_THREADS", "1", 1);
  EXPECT_EQ(TestThreadingFromEnvironment().threads, 1);
  ::setenv("CRUSHKIT_THREADS", "64", 1);
  const TestThreading forced = TestThreadingFromEnvironment();
  EXPECT_EQ(forced.threads, 64);
  EXPECT_EQ(forced.min_parallel_x, 0U);
  ::unsetenv("CRUSHKIT_THREADS");
  EXPECT_EQ(TestThreadingFromEnvironment().threads, 0);
  if (saved != nullptr) ::setenv("CRUSHKIT_THREADS", saved_value.c_str(), 1);
}

}  // namespace
}  // namespace crushkit::tools::crushtool
