#include "compiler/compile.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/codec.h"
#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::compiler {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::StatusOr<crush::MapModel> CompileText(const std::string& text) {
  return Compile(SourceFile("test.crush", text), nullptr,
                 CompileOptions{.release = crush::CephRelease::kPacific});
}

// Root "default" (-1) over hosts h0..h3 (-2..-5), one hdd and one ssd device
// per host, and a rule so that shadow trees are built.
constexpr char kClassMap[] = R"(
device 0 osd.0 class hdd
device 1 osd.1 class ssd
device 2 osd.2 class hdd
device 3 osd.3 class ssd
device 4 osd.4 class hdd
device 5 osd.5 class ssd
device 6 osd.6 class hdd
device 7 osd.7 class ssd
type 0 osd
type 1 host
type 2 root
host h0 { id -2 alg straw2 hash 0 item osd.0 weight 1.0 item osd.1 weight 1.0 }
host h1 { id -3 alg straw2 hash 0 item osd.2 weight 1.0 item osd.3 weight 1.0 }
host h2 { id -4 alg straw2 hash 0 item osd.4 weight 1.0 item osd.5 weight 1.0 }
host h3 { id -5 alg straw2 hash 0 item osd.6 weight 1.0 item osd.7 weight 1.0 }
root default { id -1 alg straw2 hash 0 item h0 item h1 item h2 item h3 }
rule r { id 0 type replicated min_size 1 max_size 10
  step take default class hdd step chooseleaf firstn 0 type host step emit }
)";

TEST(CompileTest, ShadowTreeIdsFollowCephOrder) {
  // Verified on Pacific (notes §2.3): per class in class-id order, children
  // first: hdd h0..h3 = -6..-9, default~hdd = -10; ssd -11..-14, -15.
  absl::StatusOr<crush::MapModel> m = CompileText(kClassMap);
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(m->class_buckets.at(-2).at(0), -6);
  EXPECT_EQ(m->class_buckets.at(-5).at(0), -9);
  EXPECT_EQ(m->class_buckets.at(-1).at(0), -10);
  EXPECT_EQ(m->class_buckets.at(-2).at(1), -11);
  EXPECT_EQ(m->class_buckets.at(-1).at(1), -15);
  EXPECT_EQ(m->item_names.at(-10), "default~hdd");
  EXPECT_EQ(m->class_map.at(-15), 1);
  // 15 buckets: the slot array doubled 8 -> 16.
  EXPECT_EQ(m->max_buckets(), 16);
  // The rule takes the hdd shadow root.
  EXPECT_EQ(m->rules[0].steps[0].arg1, -10);
  // default~hdd holds the four hdd clones, each of weight 1.0.
  EXPECT_THAT(m->FindBucket(-10)->items, ElementsAre(-6, -7, -8, -9));
  EXPECT_EQ(m->FindBucket(-10)->weight, 4u * 0x10000u);
}

TEST(CompileTest, NoRulesMeansNoShadowTrees) {
  std::string text = kClassMap;
  text = text.substr(0, text.find("rule r"));
  absl::StatusOr<crush::MapModel> m = CompileText(text);
  ASSERT_THAT(m, IsOk());
  EXPECT_TRUE(m->class_buckets.empty());
  EXPECT_EQ(m->max_buckets(), 8);
}

TEST(CompileTest, WeightsUseFloatMultiplyAndTruncation) {
  // (unsigned)(strtof(s) * (float)0x10000): 0.1 -> 6553, 3.33333 -> 218453.
  absl::StatusOr<crush::MapModel> m = CompileText(
      "device 0 a\ndevice 1 b\ntype 0 osd\ntype 1 host\n"
      "host h { alg straw2 item a weight 0.1 item b weight 3.33333 }\n");
  ASSERT_THAT(m, IsOk());
  EXPECT_THAT(m->FindBucket(-1)->item_weights, ElementsAre(6553u, 218453u));
  EXPECT_EQ(m->FindBucket(-1)->weight, 6553u + 218453u);
}

TEST(CompileTest, OmittedIdsSkipEveryDeclaredFirstLineId) {
  // find_used_bucket_ids: 'b' declares -1 on its first line, so 'a' (no id)
  // gets -2; the parent's default item weight is the child's sum.
  absl::StatusOr<crush::MapModel> m = CompileText(
      "device 0 d0\ntype 0 osd\ntype 1 host\ntype 2 root\n"
      "host a { alg straw2 item d0 weight 2.5 }\n"
      "root b { id -1 alg straw2 item a }\n");
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(m->item_names.at(-2), "a");
  EXPECT_EQ(m->FindBucket(-1)->item_weights[0], 0x28000u);
}

TEST(CompileTest, BucketsAreReorderedLikeCeph) {
  // adjust_bucket_item_place moves the used bucket before its user, so ids
  // are assigned child first.
  absl::StatusOr<crush::MapModel> m = CompileText(
      "device 0 d0\ntype 0 osd\ntype 1 host\ntype 2 root\n"
      "root r { alg straw2 item h }\n"
      "host h { alg straw2 item d0 }\n");
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(m->item_names.at(-1), "h");
  EXPECT_EQ(m->item_names.at(-2), "r");
}

TEST(CompileTest, MaxDevicesCoversNamedUnusedDevices) {
  absl::StatusOr<crush::MapModel> m = CompileText("device 0 a\ndevice 10 k\ntype 0 osd\n");
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(m->max_devices, 11);
}

TEST(CompileTest, ChooseArgsIndexOfMinusOneRoundTrips) {
  // Decompile prints -1 as an unsigned 64-bit number; strtol saturates and
  // the cast to int gives -1 back.
  absl::StatusOr<crush::MapModel> m = CompileText(
      "device 0 a\ndevice 1 b\ntype 0 osd\ntype 1 host\n"
      "host h { id -1 alg straw2 item a item b }\n"
      "choose_args 18446744073709551615 { { bucket_id -1 weight_set [ [ 1.0 2.0 ] ] ids [ 5 6 ] } "
      "}\n");
  ASSERT_THAT(m, IsOk());
  ASSERT_EQ(m->choose_args.count(-1), 1u);
  const crush::ChooseArg& a = m->choose_args.at(-1).at(-1);
  EXPECT_THAT(a.weight_set, ElementsAre(ElementsAre(0x10000u, 0x20000u)));
  EXPECT_THAT(a.ids, ElementsAre(5, 6));
}

TEST(CompileTest, QuincyRulesWithoutMinMaxSizeCompile) {
  absl::StatusOr<crush::MapModel> m = CompileText(
      "device 0 a\ntype 0 osd\ntype 1 root\nroot r { alg straw2 item a }\n"
      "rule x { id 3 type erasure step take r step emit }\n");
  ASSERT_THAT(m, IsOk());
  ASSERT_EQ(m->max_rules(), 4);
  EXPECT_EQ(m->rules[3].min_size, 1);
  EXPECT_EQ(m->rules[3].max_size, 100);
  EXPECT_EQ(m->rules[3].ruleset, 3);
  EXPECT_EQ(m->rules[3].type, crush::RuleType::kErasure);
}

TEST(CompileTest, MsrRulesAreRejectedClearly) {
  EXPECT_THAT(
      CompileText(
          "device 0 a\ntype 0 osd\ntype 1 root\nroot r { alg straw2 item a }\n"
          "rule x { id 0 type msr_indep step take r step choosemsr 2 type osd step emit }\n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("not supported by Ceph pacific (MSR needs Squid or later)")));
}

// As Tentacle (CompileOptions::release) the same text compiles, as Ceph 19.2+ does: ops
// 14..16, rule types 4/5, the msr tunables and the msr encoding tail.
TEST(CompileTest, MsrRulesCompileWhenEnabled) {
  const std::string text =
      "tunable msr_descents 4\ntunable msr_collision_tries 6\n"
      "device 0 a\ntype 0 osd\ntype 1 root\nroot r { id -1 alg straw2 item a }\n"
      "rule x { id 0 type msr_indep step set_msr_descents 2 step set_msr_collision_tries 3 "
      "step take r step choosemsr 2 type osd step emit }\n"
      "rule y { id 1 type msr_firstn step take r step choosemsr 0 type osd step emit }\n";
  absl::StatusOr<crush::MapModel> m =
      Compile(SourceFile("msr.crush", text), nullptr,
              CompileOptions{.release = crush::CephRelease::kTentacle});
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(m->tunables.msr_descents, 4u);
  EXPECT_EQ(m->tunables.msr_collision_tries, 6u);
  EXPECT_EQ(m->tail, crush::EncodedTail::kMsr);
  ASSERT_EQ(m->max_rules(), 2);
  EXPECT_EQ(m->rules[0].type, crush::RuleType::kMsrIndep);
  EXPECT_EQ(m->rules[1].type, crush::RuleType::kMsrFirstn);
  EXPECT_EQ(m->rules[0].steps,
            (std::vector<crush::RuleStep>{{crush::RuleOp::kSetMsrDescents, 2, 0},
                                          {crush::RuleOp::kSetMsrCollisionTries, 3, 0},
                                          {crush::RuleOp::kTake, -1, 0},
                                          {crush::RuleOp::kChooseMsr, 2, 0},
                                          {crush::RuleOp::kEmit, 0, 0}}));
  // Pacific's default still rejects every MSR construct.
  EXPECT_THAT(CompileText(text),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not supported by Ceph pacific (MSR needs Squid or later)")));
}

TEST(CompileTest, SyntaxErrorIsLocated) {
  EXPECT_THAT(CompileText("device 0 a\ntype 0 osd\nroot r { item a }\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("test.crush:3:10: error: expected 'id' or 'alg'")));
}

TEST(CompileTest, UnknownItemSuggestsClosestName) {
  DiagnosticSink sink;
  const SourceFile src(
      "r.crush",
      "device 0 osd.0\ntype 0 osd\ntype 1 host\n"
      "host host1 { alg straw2 item osd.0 }\nhost rack1 { alg straw2 item host9 }\n");
  EXPECT_FALSE(Compile(src, &sink, CompileOptions{.release = crush::CephRelease::kPacific}).ok());
  EXPECT_THAT(sink.Format(src),
              HasSubstr("r.crush:5:30: error: unknown item 'host9' in bucket 'rack1'; "
                        "did you mean 'host1'?"));
  EXPECT_THAT(sink.Format(src), HasSubstr("r.crush:4:6: note: 'host1' declared here"));
}

TEST(CompileTest, CephQuirksLetTheLastDeclarationWin) {
  const std::string text =
      "device 0 osd.0\ndevice 0 renamed\ntype 0 osd\ntype 1 host\ntype 1 node\n"
      "host h { alg straw2 item osd.0 }\nnode n { alg straw2 item renamed }\n";
  const SourceFile src("q.crush", text);
  DiagnosticSink strict;
  EXPECT_FALSE(Compile(src, &strict, CompileOptions{.release = crush::CephRelease::kPacific}).ok());
  DiagnosticSink sink;
  auto model = Compile(
      src, &sink, CompileOptions{.release = crush::CephRelease::kPacific, .ceph_quirks = true});
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->item_names.at(0), "renamed");
  EXPECT_EQ(model->type_names.at(1), "node");
  EXPECT_EQ(model->FindBucket(-1)->type, 1);  // "host" still resolves to 1
  EXPECT_EQ(model->FindBucket(-2)->items, (std::vector<crush::ItemId>{0}));
  ASSERT_EQ(sink.ceph_quirks().size(), 2u);
  EXPECT_THAT(sink.ceph_quirks()[0],
              HasSubstr("q.crush:2:8: warning: device id 0 is already used by 'osd.0'"));
}

// Weight-set weights below 0 or from 65536 on: Ceph's float-to-__u32
// conversion is undefined there; crushtool 16.2 on x86-64 stored -2.5 as
// 2^32 - 2.5 * 0x10000 and 70000.0 as (70000 * 0x10000) mod 2^32 (its -d
// prints them back as -2.500 and 4464.000). With quirks crushkit stores the
// same, saying so; without, they are errors.
TEST(CompileTest, CephQuirksStoreOutOfRangeWeightSetWeightsAsX86Ceph) {
  const std::string text =
      "device 0 osd.0\ndevice 1 osd.1\ntype 0 osd\ntype 1 root\n"
      "root default { id -1 alg straw2 hash 0 item osd.0 weight 1.0 item osd.1 weight 1.0 }\n"
      "choose_args 1 { { bucket_id -1 weight_set [ [ -2.500 70000.0 ] [ 1.0 2.0 ] ] } }\n";
  const SourceFile src("w.crush", text);
  DiagnosticSink strict;
  EXPECT_FALSE(Compile(src, &strict, CompileOptions{.release = crush::CephRelease::kPacific}).ok());
  EXPECT_THAT(strict.Format(src), HasSubstr("w.crush:6:47: error: weight '-2.500' is negative"));
  DiagnosticSink sink;
  auto model = Compile(
      src, &sink, CompileOptions{.release = crush::CephRelease::kPacific, .ceph_quirks = true});
  ASSERT_TRUE(model.ok()) << model.status();
  const auto& ws = model->choose_args.at(1).at(-1).weight_set;
  ASSERT_EQ(ws.size(), 2u);
  EXPECT_EQ(ws[0], (std::vector<crush::Weight>{4294803456u, 292552704u}));
  EXPECT_EQ(ws[1], (std::vector<crush::Weight>{0x10000u, 0x20000u}));
  ASSERT_EQ(sink.ceph_quirks().size(), 2u);
  EXPECT_THAT(sink.ceph_quirks()[0],
              HasSubstr("w.crush:6:47: warning: weight_set weight '-2.500' is outside 0 to "
                        "65535.99998"));
}

TEST(CompileTest, CephErrorTextForTheFirstError) {
  DiagnosticSink sink;
  const SourceFile src("r.crush",
                       "device 0 osd.0\ntype 0 osd\ntype 1 host\nhost h { alg straw2 item osd.0 }\n"
                       "rule bad { id 0 type replicated step take nowhere step emit }\n");
  EXPECT_FALSE(Compile(src, &sink, CompileOptions{.release = crush::CephRelease::kPacific}).ok());
  EXPECT_EQ(sink.ceph_error(), "in rule 'bad' item 'nowhere' not defined\n");
}

// ---- differential tests against Ceph's crushtool, run at test time -------

// Runs `crushtool ARGS` in `dir`; returns its exit status.
int Crushtool(const std::filesystem::path& dir, const std::string& args) {
  const std::string cmd = "cd '" + dir.string() + "' && CEPH_ARGS=--crash_dir='" + dir.string() +
                          "' timeout 60 crushtool " + args + " >/dev/null 2>&1";
  return std::system(cmd.c_str());
}

std::vector<std::filesystem::path> CorpusTextMaps() {
  const std::filesystem::path d = crush_testing::CompatDir() + "/ceph-cli-tests/pacific/crushtool";
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::exists(d)) return out;
  for (const auto& e : std::filesystem::directory_iterator(d)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".txt" || ext == ".crush") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CompileOracleTest, CorpusMapsMatchCrushtoolBytesAndText) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  const std::vector<std::filesystem::path> maps = CorpusTextMaps();
  if (maps.empty()) GTEST_SKIP() << "compat corpus not found";
  const std::filesystem::path tmp =
      std::filesystem::temp_directory_path() / ("compile_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(tmp);
  int compared = 0;
  for (const auto& path : maps) {
    SCOPED_TRACE(path.filename().string());
    const std::string text = crush_testing::ReadFileOrEmpty(path.string());
    absl::StatusOr<crush::MapModel> ours =
        Compile(SourceFile(path.filename().string(), text), nullptr,
                CompileOptions{.release = crush::CephRelease::kPacific});
    const int rc = Crushtool(tmp, "-c '" + path.string() + "' -o theirs.bin");
    if (rc != 0) {
      EXPECT_FALSE(ours.ok()) << "crushtool rejects this map, we accept it";
      continue;
    }
    ASSERT_THAT(ours, IsOk());
    const std::string theirs = crush_testing::ReadFileOrEmpty((tmp / "theirs.bin").string());
    EXPECT_EQ(crush::EncodeCrushMap(*ours), theirs);
    ASSERT_EQ(Crushtool(tmp, "-d theirs.bin -o theirs.txt"), 0);
    absl::StatusOr<crush::MapModel> decoded = crush::DecodeCrushMap(theirs);
    ASSERT_THAT(decoded, IsOk());
    absl::StatusOr<std::string> text_out = Decompile(*decoded, crush::CephRelease::kPacific);
    ASSERT_THAT(text_out, IsOk());
    EXPECT_EQ(*text_out, crush_testing::ReadFileOrEmpty((tmp / "theirs.txt").string()));
    // text -> bin -> text -> bin.
    absl::StatusOr<crush::MapModel> again =
        Compile(SourceFile("again", *text_out), nullptr,
                CompileOptions{.release = crush::CephRelease::kPacific});
    ASSERT_THAT(again, IsOk());
    EXPECT_EQ(crush::EncodeCrushMap(*again), theirs);
    ++compared;
  }
  std::filesystem::remove_all(tmp);
  EXPECT_GE(compared, 10);
}

}  // namespace
}  // namespace crushkit::compiler
