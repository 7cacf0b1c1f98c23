#include "crush/codec.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace crushkit::crush {
namespace {

namespace fs = std::filesystem;
using crush_testing::CompatDir;
using crush_testing::IsOk;
using crush_testing::ReadFileOrEmpty;
using crush_testing::StatusIs;
using ::testing::AnyOf;
using ::testing::HasSubstr;

std::size_t FirstDiff(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

bool IsBinaryCrushMap(const std::string& bytes) {
  return bytes.size() >= 4 && bytes.compare(0, 4, std::string("\x00\x00\x01\x00", 4)) == 0;
}

// Every binary crushmap in the shared compat corpus (found by magic).
std::vector<fs::path> CorpusMaps() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(CompatDir())) {
    if (e.is_regular_file() && IsBinaryCrushMap(ReadFileOrEmpty(e.path().string()))) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Runs an oracle command line (crushtool/osdmaptool) with a private crash
// dir and a timeout; returns its exit status.
int RunOracle(const std::string& cmd, const crush_testing::TempDir& dir) {
  const std::string full = "CEPH_ARGS=--crash_dir=" + dir.File("crash") + " timeout 60 " + cmd +
                           " >" + dir.File("oracle.out") + " 2>&1";
  return std::system(full.c_str());
}

void ExpectRoundTrip(const std::string& bytes, const std::string& what) {
  absl::StatusOr<MapModel> m = DecodeCrushMap(bytes);
  ASSERT_THAT(m, IsOk()) << what;
  const std::string again = EncodeCrushMap(*m);
  EXPECT_EQ(again.size(), bytes.size()) << what;
  EXPECT_TRUE(again == bytes) << what << ": re-encoding differs";
}

TEST(CodecTest, RoundTripsEveryCorpusMap) {
  const std::vector<fs::path> maps = CorpusMaps();
  // 47 at the time of writing: pacific + quincy crushtool maps and examples.
  ASSERT_GE(maps.size(), 40U);
  for (const fs::path& p : maps) ExpectRoundTrip(ReadFileOrEmpty(p.string()), p.string());
}

TEST(CodecTest, RoundTripsOracleBuiltMaps) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  crush_testing::TempDir dir("codec_test");
  const std::vector<std::string> layers = {
      "host straw2 4 rack straw 3 root uniform 0",
      "host straw 4 rack straw2 3 root straw2 0",
      "host list 3 root list 0",
      "host tree 5 rack tree 2 root tree 0",
      "host uniform 4 root straw2 0",
      "host straw2 1 row straw2 2 room straw2 2 root straw2 0",
      "host tree 64 root straw2 0",
  };
  int n = 0;
  int built = 0;
  for (const std::string& layer : layers) {
    for (int osds : {1, 7, 12, 100}) {
      const std::string out = dir.File("built" + std::to_string(n++));
      for (const char* tun : {"", " --set-straw-calc-version 0 --set-chooseleaf-stable 0"}) {
        const int rc = RunOracle("crushtool --build --num_osds " + std::to_string(osds) + " " +
                                     layer + tun + " -o " + out,
                                 dir);
        if (rc != 0) continue;
        ExpectRoundTrip(ReadFileOrEmpty(out), layer + " osds=" + std::to_string(osds) + tun);
        ++built;
      }
    }
  }
  EXPECT_EQ(built, 56);  // every variant builds with Pacific crushtool
}

TEST(CodecTest, RoundTripsOracleCompiledTextMaps) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  crush_testing::TempDir dir("codec_test");
  int compiled = 0;
  for (const std::string sub : {"/ceph-cli-tests/pacific/crushtool", "/examples"}) {
    for (const auto& e : fs::directory_iterator(CompatDir() + sub)) {
      const std::string name = e.path().filename().string();
      const bool text = name.ends_with(".txt") || name.ends_with(".crush") ||
                        name.find(".template.") != std::string::npos ||
                        name.starts_with("multitype.");
      if (!text) continue;
      const std::string out = dir.File("compiled");
      if (RunOracle("crushtool -c " + e.path().string() + " -o " + out, dir) != 0) continue;
      ExpectRoundTrip(ReadFileOrEmpty(out), name);
      ++compiled;
    }
  }
  EXPECT_GE(compiled, 27);  // 27 of 33 compile with Pacific (others are error cases)
}

TEST(CodecTest, RoundTripsOsdmaptoolExportedMaps) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  crush_testing::TempDir dir("codec_test");
  for (int osds : {1, 3, 16, 200}) {
    const std::string om = dir.File("om");
    const std::string crush = dir.File("crush");
    ASSERT_EQ(
        RunOracle("osdmaptool --createsimple " + std::to_string(osds) + " --clobber " + om, dir),
        0);
    ASSERT_EQ(RunOracle("osdmaptool " + om + " --export-crush " + crush, dir), 0);
    ExpectRoundTrip(ReadFileOrEmpty(crush), "createsimple " + std::to_string(osds));
  }
}

// Decoding then re-encoding must equal what crushtool writes after decoding
// the same bytes: checks the normalisations (max_devices, choose_args).
// `--set-choose-total-tries` with the decoded value makes crushtool re-encode
// without changing anything.
std::string OracleReencode(const std::string& bytes, std::uint32_t total_tries,
                           const crush_testing::TempDir& dir, bool* ok) {
  const std::string in = dir.File("in");
  const std::string out = dir.File("out");
  {
    std::ofstream f(in, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  fs::remove(out);
  *ok = RunOracle("crushtool -i " + in + " --set-choose-total-tries " +
                      std::to_string(total_tries) + " -o " + out,
                  dir) == 0;
  return *ok ? ReadFileOrEmpty(out) : std::string();
}

// Our re-encoding with the full Pacific tail, as crushtool writes it.
std::string PacificReencode(MapModel m) {
  m.tail = EncodedTail::kChooseArgs;
  m.tunables.msr_descents = 100;
  m.tunables.msr_collision_tries = 100;
  return EncodeCrushMap(m);
}

void PutU32(std::string& s, std::size_t off, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    s[off + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

std::uint32_t GetU32(const std::string& s, std::size_t off) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(s[off + static_cast<std::size_t>(i)]);
  return v;
}

TEST(CodecTest, NormalisesMaxDevicesLikeCrushtool) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  crush_testing::TempDir dir("codec_test");
  ASSERT_EQ(
      RunOracle("crushtool --build --num_osds 12 host straw2 4 root straw2 0 -o " + dir.File("b"),
                dir),
      0);
  const std::string built = ReadFileOrEmpty(dir.File("b"));
  ASSERT_EQ(GetU32(built, 12), 12U);  // max_devices
  for (std::uint32_t stored : {0U, 5U, 100U, 0xffffffffU}) {
    std::string bytes = built;
    PutU32(bytes, 12, stored);
    absl::StatusOr<MapModel> m = DecodeCrushMap(bytes);
    ASSERT_THAT(m, IsOk());
    EXPECT_EQ(m->max_devices, 12);
    bool ok = false;
    const std::string oracle = OracleReencode(bytes, m->tunables.choose_total_tries, dir, &ok);
    ASSERT_TRUE(ok);
    EXPECT_TRUE(EncodeCrushMap(*m) == oracle) << "stored max_devices " << stored;
  }
}

// Maps to stress: small but covering every alg, classes and choose_args.
std::vector<std::string> StressMaps() {
  std::vector<std::string> out;
  for (const char* rel :
       {"/examples/classes-4host-compat-weightset.crushmap", "/examples/classes-4host.crushmap",
        "/ceph-cli-tests/pacific/crushtool/tree.template",
        "/ceph-cli-tests/pacific/crushtool/simple.template",
        "/ceph-cli-tests/pacific/crushtool/five-devices.crushmap",
        "/ceph-cli-tests/pacific/crushtool/test-map-indep.crushmap",
        "/ceph-cli-tests/pacific/crushtool/crush-classes/a"}) {
    out.push_back(ReadFileOrEmpty(CompatDir() + rel));
  }
  return out;
}

// Iterations for the fuzz-style tests; CRUSHKIT_CODEC_FUZZ_SCALE=N multiplies
// them (e.g. 20 for a long local run under ASan), and N > 1 also has the
// truncation test try every length under ASan.
int FuzzScale() {
  const char* s = std::getenv("CRUSHKIT_CODEC_FUZZ_SCALE");
  const int n = s ? std::atoi(s) : 1;
  return n > 0 ? n : 1;
}

// The prefix lengths the truncation test tries: every one, except in an
// AddressSanitizer build (gcc's __SANITIZE_ADDRESS__), where decoding every
// prefix of the 32 KB map (quadratic in its size) was a quarter of
// crush_tests' CPU time in CI. There a map over 4 KiB has its first and last
// 256 lengths tried (the header, and the tail groups whose boundaries give
// its valid prefixes: 4 and 16 bytes before the end for that map) and every
// 16th length between (8,800 of 38,300 lengths; 2 instead of 25 CPU-s).
// Only the ASan runs sample: the Release trees (the dev build, the suite of
// CRUSH_CI_FLOW=release) try every length, and so does ASan with
// CRUSHKIT_CODEC_FUZZ_SCALE=2.
#ifdef __SANITIZE_ADDRESS__
constexpr bool kSampleTruncations = true;
#else
constexpr bool kSampleTruncations = false;
#endif

bool TriesPrefixLength(std::size_t len, std::size_t size) {
  constexpr std::size_t kSmallMap = 4096;
  constexpr std::size_t kEdge = 256;
  constexpr std::size_t kStride = 16;
  if (!kSampleTruncations || FuzzScale() > 1 || size <= kSmallMap) return true;
  return len < kEdge || len + kEdge >= size || len % kStride == 0;
}

// A prefix of a valid map either fails cleanly or (when it ends exactly at a
// tail group boundary) is itself a valid map that re-encodes to the prefix.
TEST(CodecTest, TruncationAtEveryOffsetFailsCleanly) {
  int ok_prefixes = 0;
  int failures = 0;
  for (const std::string& full : StressMaps()) {
    ASSERT_FALSE(full.empty());
    for (std::size_t len = 0; len < full.size(); ++len) {
      if (!TriesPrefixLength(len, full.size())) continue;
      const std::string prefix = full.substr(0, len);
      absl::StatusOr<MapModel> m = DecodeCrushMap(prefix);
      if (m.ok()) {
        ++ok_prefixes;
        EXPECT_TRUE(EncodeCrushMap(*m) == prefix) << "prefix " << len;
        continue;
      }
      ++failures;
      if (len < 4) {
        EXPECT_THAT(m, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("too short")));
      } else {
        EXPECT_THAT(m, StatusIs(absl::StatusCode::kDataLoss, HasSubstr("truncated at offset")))
            << "prefix " << len;
      }
    }
  }
  // 38,300 lengths when every one is tried, 8,800 when sampled.
  EXPECT_GT(failures, kSampleTruncations && FuzzScale() == 1 ? 8000 : 38000);
  // Each map has up to 8 group boundaries after its name maps.
  EXPECT_GT(ok_prefixes, 0);
}

// Applies 1-4 random edits: bit flip, random byte, hostile u32, truncation.
void Mutate(std::mt19937& rng, std::string& bytes) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !bytes.empty(); ++e) {
    const std::size_t pos = rng() % bytes.size();
    switch (rng() % 4) {
      case 0:
        bytes[pos] = static_cast<char>(bytes[pos] ^ (1 << (rng() % 8)));
        break;
      case 1:
        bytes[pos] = static_cast<char>(rng());
        break;
      case 2:  // a hostile 32-bit count
        if (pos + 4 <= bytes.size()) PutU32(bytes, pos, rng() % 2 ? 0xffffffffU : 0x7fffffffU);
        break;
      case 3:
        bytes.resize(pos);
        break;
    }
  }
}

// Random corruption never crashes; any map that decodes is a fixed point of
// encode/decode.
TEST(CodecTest, RandomMutationsDecodeOrFailCleanly) {
  std::mt19937 rng(12345);
  int decoded = 0;
  int errors = 0;
  for (const std::string& base : StressMaps()) {
    for (int iter = 0; iter < 1500 * FuzzScale(); ++iter) {
      std::string bytes = base;
      Mutate(rng, bytes);
      absl::StatusOr<MapModel> m = DecodeCrushMap(bytes);
      if (!m.ok()) {
        ++errors;
        EXPECT_FALSE(m.status().message().empty());
        EXPECT_THAT(m.status().code(),
                    AnyOf(absl::StatusCode::kInvalidArgument, absl::StatusCode::kDataLoss,
                          absl::StatusCode::kUnimplemented));
        continue;
      }
      ++decoded;
      const std::string once = EncodeCrushMap(*m);
      absl::StatusOr<MapModel> again = DecodeCrushMap(once);
      ASSERT_THAT(again, IsOk());
      EXPECT_TRUE(*again == *m);
      EXPECT_TRUE(EncodeCrushMap(*again) == once);
    }
  }
  EXPECT_GT(decoded, 100);
  EXPECT_GT(errors, 100);
}

// Differential fuzzing against crushtool. When both decoders accept a
// mutant, our re-encoding equals crushtool's byte for byte. When only
// crushtool accepts it, ours must be one of the documented deliberate
// rejections (kInvalidArgument/kUnimplemented), never a truncation report.
TEST(CodecTest, MutatedMapsReencodeLikeCrushtool) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  crush_testing::TempDir dir("codec_test");
  std::mt19937 rng(777);
  const std::vector<std::string> bases = StressMaps();
  int compared = 0;
  int both_rejected = 0;
  int we_reject = 0;
  std::string we_reject_examples;
  for (int iter = 0; iter < 200 * FuzzScale(); ++iter) {
    std::string bytes = bases[static_cast<std::size_t>(iter) % bases.size()];
    std::size_t pos = 0;
    if (iter % 2 == 0) {
      // Value-only mutation (weights, ids, names, tunables): flip a bit.
      pos = 16 + rng() % (bytes.size() - 16);
      bytes[pos] = static_cast<char>(bytes[pos] ^ (1 << (rng() % 8)));
    } else {
      Mutate(rng, bytes);
    }
    absl::StatusOr<MapModel> m = DecodeCrushMap(bytes);
    bool ok = false;
    const std::string oracle =
        OracleReencode(bytes, m.ok() ? m->tunables.choose_total_tries : 50, dir, &ok);
    const std::string keep = ::testing::TempDir() + "codec_mutant_" + std::to_string(iter);
    if (!m.ok()) {
      if (!ok) {
        ++both_rejected;
        continue;
      }
      ++we_reject;
      if (we_reject <= 10) we_reject_examples += std::string(m.status().message()) + "\n";
      if (m.status().code() == absl::StatusCode::kDataLoss) {
        std::ofstream(keep, std::ios::binary) << bytes;
        ADD_FAILURE() << "iteration " << iter << ": crushtool accepts but we report " << m.status()
                      << "; mutant saved as " << keep;
      }
      continue;
    }
    if (!ok) continue;  // crushtool rejected (or crashed on) a mutant we accept
    ++compared;
    const std::string ours = PacificReencode(*m);
    if (ours != oracle) {
      std::ofstream(keep, std::ios::binary) << bytes;
      ADD_FAILURE() << "iteration " << iter << " (mutated offset " << pos
                    << "): re-encoding differs from crushtool's at offset "
                    << FirstDiff(ours, oracle) << "; mutant saved as " << keep;
    }
  }
  RecordProperty("compared", compared);
  RecordProperty("both_rejected", both_rejected);
  RecordProperty("only_we_reject", we_reject);
  RecordProperty("only_we_reject_examples", we_reject_examples);
  EXPECT_GT(compared, 50);
}

// Hand-edited choose_args exercising update_choose_args(): our decode must
// normalise exactly as crushtool does when it reads the same bytes.
TEST(CodecTest, ChooseArgsNormaliseLikeCrushtool) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  crush_testing::TempDir dir("codec_test");
  const std::string path = CompatDir() + "/examples/classes-4host-compat-weightset.crushmap";
  absl::StatusOr<MapModel> base = DecodeCrushMap(ReadFileOrEmpty(path));
  ASSERT_THAT(base, IsOk());
  ASSERT_TRUE(base->choose_args.contains(kCompatChooseArgs));
  // Only the root (-1, four items) has a compat weight set; hosts have two.
  ASSERT_TRUE(base->choose_args.at(kCompatChooseArgs).contains(-1));

  using Edit = void (*)(MapModel&);

  struct Case {
    const char* what;
    bool normalised;  // decode changes the edited model
    Edit edit;
  };

  const std::vector<Case> edits = {
      {"short weight set is zero padded", true,
       [](MapModel& m) { m.choose_args[-1][-1].weight_set[0].pop_back(); }},
      {"long weight set is truncated", true,
       [](MapModel& m) { m.choose_args[-1][-1].weight_set[0].push_back(7); }},
      {"odd position count is left alone", false,
       [](MapModel& m) {
         m.choose_args[-1][-3].weight_set = {{1, 2}, {3}};
       }},
      {"first bucket decides the position count", true,
       [](MapModel& m) {
         auto& ws = m.choose_args[-1][-1].weight_set;
         ws.push_back(ws[0]);
         m.choose_args[-1][-2].weight_set = {{5}};
         m.choose_args[-1][-3].weight_set = {{5}, {6, 7, 8}};  // resized to 2
       }},
      {"args of a non-straw2 bucket are dropped", true,
       [](MapModel& m) {
         Bucket& b = m.buckets[1];  // h0, id -2
         b.alg = BucketAlg::kStraw;
         b.straws = b.item_weights;
         m.choose_args[-1][-2].ids = {100, 101};
         m.choose_args[-1][-2].weight_set = {{1, 2}};
       }},
      {"args of an empty slot are dropped", true,
       [](MapModel& m) {
         m.buckets.emplace_back();
         m.choose_args[-1][-m.max_buckets()].weight_set = {{1, 2, 3}};
       }},
      {"ids without weights survive", false,
       [](MapModel& m) {
         m.choose_args[5][-4].ids = {9, 8};
       }},
      {"empty args vanish", true, [](MapModel& m) { m.choose_args[5][-4] = ChooseArg{}; }},
      {"several indices", false, [](MapModel& m) { m.choose_args[-7] = m.choose_args[-1]; }},
  };
  for (const auto& [what, normalised, edit] : edits) {
    MapModel m = *base;
    edit(m);
    const std::string bytes = EncodeCrushMap(m);
    absl::StatusOr<MapModel> ours = DecodeCrushMap(bytes);
    ASSERT_THAT(ours, IsOk()) << what;
    EXPECT_EQ(*ours != m, normalised) << what;
    bool ok = false;
    const std::string oracle = OracleReencode(bytes, ours->tunables.choose_total_tries, dir, &ok);
    ASSERT_TRUE(ok) << what;
    const std::string mine = PacificReencode(*ours);
    EXPECT_TRUE(mine == oracle) << what << ": differs at offset " << FirstDiff(mine, oracle);
  }
}

std::string BuiltMap() {
  return ReadFileOrEmpty(CompatDir() + "/ceph-cli-tests/pacific/crushtool/simple.template");
}

TEST(CodecTest, RejectsForeignInput) {
  EXPECT_THAT(DecodeCrushMap(std::string()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("too short")));
  EXPECT_THAT(DecodeCrushMap(std::string("127.0.0.1 localhost\n")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bad magic 0x2e373231 at offset 0 (expected 0x00010000)")));
}

TEST(CodecTest, HostileCountsAreErrorsNotAllocations) {
  const std::string base = BuiltMap();
  ASSERT_TRUE(IsBinaryCrushMap(base));
  {
    std::string b = base;
    PutU32(b, 4, 0x7fffffff);  // max_buckets
    EXPECT_THAT(DecodeCrushMap(b),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("max_buckets + max_rules")));
  }
  {
    std::string b = base;
    PutU32(b, 4, 0x80000000);
    EXPECT_THAT(DecodeCrushMap(b),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("negative max_buckets")));
  }
  {
    std::string b = base;
    PutU32(b, 8, 0xffffffff);  // max_rules
    EXPECT_THAT(DecodeCrushMap(b), StatusIs(absl::StatusCode::kDataLoss));
  }
  {
    // First bucket: slot 0 at offset 16 (alg), size at offset 16+4+4+2+1+1+4.
    std::string b = base;
    ASSERT_NE(GetU32(b, 16), 0U);
    PutU32(b, 32, 0xfffffff0);
    EXPECT_THAT(DecodeCrushMap(b),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr("truncated at offset 36: bucket size 4294967280 needs")));
  }
  {
    std::string b = base;
    PutU32(b, 16, 9);
    EXPECT_THAT(DecodeCrushMap(b),
                StatusIs(absl::StatusCode::kUnimplemented,
                         HasSubstr("unsupported bucket algorithm 9 at offset 16")));
  }
  {
    std::string b = base;
    PutU32(b, 20, static_cast<std::uint32_t>(-7));
    EXPECT_THAT(DecodeCrushMap(b),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("bucket id -7 does not match its slot 0 (expected id -1) at "
                                   "offset 20")));
  }
}

// Hand-built minimal map: header, no buckets, one rule, names, full tail.
std::string MinimalMap() {
  std::string s;
  auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  u32(kCrushMagic);
  u32(0);  // max_buckets
  u32(1);  // max_rules
  u32(0);  // max_devices
  u32(1);  // rule exists
  u32(1);  // len
  s += std::string("\x00\x01\x01\x0a", 4);
  u32(4);  // emit
  u32(0);
  u32(0);
  u32(1);  // type names: {0: "osd"}
  u32(0);
  u32(3);
  s += "osd";
  u32(0);  // item names
  u32(1);  // rule names: {0: "r"}
  u32(0);
  u32(1);
  s += "r";
  return s;
}

TEST(CodecTest, MinimalMapWithoutTailUsesLegacyTunables) {
  absl::StatusOr<MapModel> m = DecodeCrushMap(MinimalMap());
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(m->tail, EncodedTail::kNone);
  EXPECT_EQ(m->tunables, Tunables{});
  EXPECT_EQ(m->type_names.at(0), "osd");
  EXPECT_EQ(m->rule_names.at(0), "r");
  ASSERT_EQ(m->rules.size(), 1U);
  EXPECT_EQ(m->rules[0].max_size, 10);
  EXPECT_TRUE(EncodeCrushMap(*m) == MinimalMap());
}

TEST(CodecTest, EditedTunablesExtendTheTail) {
  MapModel m = *DecodeCrushMap(MinimalMap());
  m.tunables.chooseleaf_stable = 1;
  const std::string bytes = EncodeCrushMap(m);
  // 12 + 4 + 1 + 1 + 4 + 1 bytes of tunables through chooseleaf_stable.
  EXPECT_EQ(bytes.size(), MinimalMap().size() + 23);
  absl::StatusOr<MapModel> back = DecodeCrushMap(bytes);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(back->tail, EncodedTail::kStable);
  EXPECT_EQ(back->tunables.chooseleaf_stable, 1);
}

TEST(CodecTest, Legacy64BitNameKeysDecodeLikeCeph) {
  // Type names encoded with a 64-bit key: key low, key high (0), len, bytes.
  std::string s = MinimalMap();
  const std::string old_entry = std::string("\x00\x00\x00\x00\x03\x00\x00\x00osd", 11);
  const std::string new_entry =
      std::string("\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00osd", 15);
  const std::size_t at = s.find(old_entry);
  ASSERT_NE(at, std::string::npos);
  s.replace(at, old_entry.size(), new_entry);
  absl::StatusOr<MapModel> m = DecodeCrushMap(s);
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(m->type_names.at(0), "osd");
  // Normalised to 32-bit keys, as Ceph re-encodes.
  EXPECT_TRUE(EncodeCrushMap(*m) == MinimalMap());
}

TEST(CodecTest, EmptyNamesRoundTrip) {
  // A 32-bit key with length 0 would make Ceph read the next word as the
  // length; the encoder writes empty names in the 64-bit form instead.
  MapModel m = *DecodeCrushMap(MinimalMap());
  m.item_names[-1] = "";
  m.rule_names[0] = "";
  m.class_names[0] = "";
  m.tail = EncodedTail::kChooseArgs;
  const std::string bytes = EncodeCrushMap(m);
  absl::StatusOr<MapModel> back = DecodeCrushMap(bytes);
  ASSERT_THAT(back, IsOk());
  EXPECT_TRUE(*back == m);
  EXPECT_TRUE(EncodeCrushMap(*back) == bytes);
}

TEST(CodecTest, TrailingBytes) {
  // A map with the full Pacific tail (simple.template predates it).
  std::string full = ReadFileOrEmpty(CompatDir() + "/examples/classes-4host.crushmap");
  ASSERT_THAT(DecodeCrushMap(full), IsOk());
  // Exactly 8 bytes after choose_args are the Squid msr tunables.
  std::string msr = full;
  msr += std::string("\x05\x00\x00\x00\x07\x00\x00\x00", 8);
  absl::StatusOr<MapModel> m = DecodeCrushMap(msr);
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(m->tail, EncodedTail::kMsr);
  EXPECT_EQ(m->tunables.msr_descents, 5U);
  EXPECT_EQ(m->tunables.msr_collision_tries, 7U);
  EXPECT_TRUE(EncodeCrushMap(*m) == msr);

  EXPECT_THAT(DecodeCrushMap(full + "gar"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("expected u32 msr_descents")));
  EXPECT_THAT(DecodeCrushMap(msr + "x"), StatusIs(absl::StatusCode::kUnimplemented,
                                                  HasSubstr("1 unexpected bytes at offset")));
  DecodeOptions lenient;
  lenient.ignore_trailing_bytes = true;
  absl::StatusOr<MapModel> g = DecodeCrushMap(full + "gar", lenient);
  ASSERT_THAT(g, IsOk());
  EXPECT_TRUE(EncodeCrushMap(*g) == full);
  ASSERT_THAT(DecodeCrushMap(msr + "garbage", lenient), IsOk());
}

// Spot-checks decoded fields against `crushtool -d` text.
TEST(CodecTest, FieldsAgreeWithCrushtoolDecompile) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  crush_testing::TempDir dir("codec_test");
  for (const char* rel : {"/examples/classes-4host-compat-weightset.crushmap",
                          "/ceph-cli-tests/pacific/crushtool/test-map-hammer-tunables.crushmap",
                          "/ceph-cli-tests/pacific/crushtool/tree.template",
                          "/ceph-cli-tests/pacific/crushtool/crush-classes/beesly"}) {
    const std::string path = CompatDir() + rel;
    absl::StatusOr<MapModel> m = DecodeCrushMap(ReadFileOrEmpty(path));
    ASSERT_THAT(m, IsOk()) << rel;
    ASSERT_EQ(RunOracle("crushtool -d " + path + " -o " + dir.File("d.txt"), dir), 0);
    std::istringstream text(ReadFileOrEmpty(dir.File("d.txt")));
    std::map<std::string, std::int32_t> ids_by_name;
    for (const auto& [id, name] : m->item_names) ids_by_name[name] = id;
    const Bucket* bucket = nullptr;
    std::size_t item_index = 0;
    int tunables_seen = 0;
    int items_seen = 0;
    std::string line;
    while (std::getline(text, line)) {
      std::istringstream words(line);
      std::string w0, w1, w2, w3;
      words >> w0 >> w1 >> w2 >> w3;
      if (w0 == "tunable") {
        const Tunables& t = m->tunables;
        const std::map<std::string, std::uint32_t> fields = {
            {"choose_local_tries", t.choose_local_tries},
            {"choose_local_fallback_tries", t.choose_local_fallback_tries},
            {"choose_total_tries", t.choose_total_tries},
            {"chooseleaf_descend_once", t.chooseleaf_descend_once},
            {"chooseleaf_vary_r", t.chooseleaf_vary_r},
            {"chooseleaf_stable", t.chooseleaf_stable},
            {"straw_calc_version", t.straw_calc_version},
            {"allowed_bucket_algs", t.allowed_bucket_algs}};
        ASSERT_TRUE(fields.contains(w1)) << line;
        EXPECT_EQ(std::to_string(fields.at(w1)), w2) << rel << ": " << line;
        ++tunables_seen;
      } else if (w0 == "id" && w1.starts_with("-") && (w2.empty() || w2 == "#")) {
        bucket = m->FindBucket(std::stoi(w1));
        ASSERT_NE(bucket, nullptr) << line;
        item_index = 0;
      } else if (w0 == "item" && bucket != nullptr && w2 == "weight") {
        ASSERT_LT(item_index, bucket->items.size()) << line;
        EXPECT_EQ(ids_by_name.at(w1), bucket->items[item_index]) << line;
        // Decompile prints the item weight "%.3f" (tree: leaf node weight).
        Weight weight = 0;
        switch (bucket->alg) {
          case BucketAlg::kUniform:
            weight = bucket->uniform_item_weight;
            break;
          case BucketAlg::kTree:
            weight = bucket->node_weights[2 * item_index + 1];
            break;
          default:
            weight = bucket->item_weights[item_index];
            break;
        }
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%.3f",
                      static_cast<double>(static_cast<float>(weight) / 65536.0f));
        EXPECT_EQ(std::string(buf), w3) << rel << ": " << line;
        ++item_index;
        ++items_seen;
      } else if (w0 == "}") {
        bucket = nullptr;
      }
    }
    EXPECT_GT(items_seen, 0) << rel;
    // Pacific prints tunable lines only for maps with non-legacy tunables.
    if (m->tunables.choose_total_tries != 19) {
      EXPECT_GT(tunables_seen, 2) << rel;
    }
  }
}

}  // namespace
}  // namespace crushkit::crush
