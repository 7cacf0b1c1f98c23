// Limits of the text compiler/decompiler (see tests/fuzz/README.md, "Limits").
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "compiler/compile.h"
#include "compiler/source_file.h"
#include "crush/builder.h"
#include "crush/codec.h"
#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace crushkit::compiler {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::HasSubstr;

std::string OneHost(const std::string& id) {
  return "device 0 osd.0\n"
         "type 0 osd\ntype 1 host\n"
         "host h0 {\n\tid " +
         id + "\n\talg straw2\n\thash 0\n\titem osd.0 weight 1.000\n}\n";
}

TEST(CompilerLimitTest, BucketIdsDownToMinusMaxSlots) {
  // -kMaxBucketSlots (-262144) is the lowest id the builder grows to.
  auto ok = Compile(SourceFile("ok.crush", OneHost(std::to_string(-crush::kMaxBucketSlots))));
  ASSERT_THAT(ok, IsOk());
  EXPECT_EQ(ok->max_buckets(), crush::kMaxBucketSlots);
  EXPECT_THAT(
      Compile(SourceFile("low.crush", OneHost(std::to_string(-crush::kMaxBucketSlots - 1)))),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("below the supported minimum")));
}

// A chain of `depth` hosts-of-hosts text: b1 holds osd.0, b(i+1) holds b(i).
std::string ChainText(int depth) {
  std::string text = "device 0 osd.0\ntype 0 osd\ntype 1 node\n";
  for (int i = 1; i <= depth; ++i) {
    text += "node b" + std::to_string(i) + " {\n\tid -" + std::to_string(i) +
            "\n\talg straw2\n\thash 0\n\titem " +
            (i == 1 ? std::string("osd.0") : "b" + std::to_string(i - 1)) + " weight 1.000\n}\n";
  }
  return text;
}

TEST(CompilerLimitTest, DeepHierarchiesCompileAndDecompile) {
  // No depth limit in text either: a 2000-level chain (Ceph's decompiler
  // recurses per level; ours must not fall over on it).
  auto m = Compile(SourceFile("deep.crush", ChainText(2000)));
  ASSERT_THAT(m, IsOk());
  auto text = Decompile(*m);
  ASSERT_THAT(text, IsOk());
  auto again = Compile(SourceFile("again.crush", *text));
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(*again, *m);
}

// A class shadow id that is already taken: the root's "id -07 class ssd"
// equals h1's "id -7 class hdd". Ceph 16.2's crushtool -c builds the shadow
// trees (CrushWrapper::populate_classes) until default~ssd, whose id -7
// exists (h1~hdd), fails to be added; crushtool ignores that failure and
// writes the map without default~ssd (verified: crushtool --dump lists
// h0~ssd..h3~ssd but no default~ssd; rule hddrule still takes default~hdd,
// -10). crushkit writes the same bytes and warns where the id is declared,
// with a note at the other declaration.
TEST(CompilerLimitTest, TakenClassShadowIdGivesCephsMapAndALocatedWarning) {
  const std::string path = crush_testing::SourceDir() +
                           "/tests/fuzz/regressions/compile/duplicate-class-shadow-id.crush";
  const std::string text = crush_testing::ReadFileOrEmpty(path);
  ASSERT_FALSE(text.empty()) << path;
  DiagnosticSink sink;
  const SourceFile src("dup.crush", text);
  auto m = Compile(src, &sink,
                   CompileOptions{.release = crush::CephRelease::kPacific});  // the oracle is 16.2
  ASSERT_THAT(m, IsOk());
  // h0..h3 got their ssd shadows (-11..-14); the root did not.
  EXPECT_EQ(m->class_buckets.at(-1).count(1), 0u);
  EXPECT_EQ(m->class_buckets.at(-1).at(0), -10);
  EXPECT_EQ(m->class_buckets.at(-3).at(1), -12);
  EXPECT_EQ(sink.Format(src),
            "dup.crush:70:5: warning: device class shadow trees are incomplete: shadow bucket "
            "'default~ssd': id -7 ('ssd' shadow of 'default') is already used by 'h1~hdd' (as in "
            "Ceph, this and every later shadow bucket is not built)\n"
            "\tid -07 class ssd\t\t# do not change unnecessarily\n"
            "\t   ^~~\n"
            "dup.crush:39:5: note: that id is declared here\n"
            "\tid -7 class hdd\t\t# do not change unnecessarily\n"
            "\t   ^~\n");
  // Byte-identical with Ceph's crushtool -c when the oracle is installed.
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  const crush_testing::TempDir tmp("dup_shadow");
  ASSERT_TRUE(tmp.ok());
  const std::string& d = tmp.path();
  const int status =
      std::system(("cd " + d + " && CEPH_ARGS=--crash_dir=" + d +
                   " timeout 60 /usr/bin/crushtool -c " + path + " -o " + d + "/ceph.bin")
                      .c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(crush::EncodeCrushMap(*m), crush_testing::ReadFileOrEmpty(d + "/ceph.bin"));
}

}  // namespace
}  // namespace crushkit::compiler
