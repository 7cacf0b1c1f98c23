// Limits of the text compiler/decompiler (see tests/fuzz/README.md, "Limits").
#include <string>

#include "compiler/compile.h"
#include "compiler/source_file.h"
#include "crush/builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::compiler {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::HasSubstr;

std::string OneHost(const std::string& id) {
  return "device 0 osd.0\n"
         "type 0 osd\ntype 1 host\n"
         "host h0 {\n\tid " + id + "\n\talg straw2\n\thash 0\n\titem osd.0 weight 1.000\n}\n";
}

TEST(CompilerLimitTest, BucketIdsDownToMinusMaxSlots) {
  // -kMaxBucketSlots (-262144) is the lowest id the builder grows to.
  auto ok = Compile(SourceFile("ok.crush", OneHost(std::to_string(-crush::kMaxBucketSlots))));
  ASSERT_THAT(ok, IsOk());
  EXPECT_EQ(ok->max_buckets(), crush::kMaxBucketSlots);
  EXPECT_THAT(Compile(SourceFile("low.crush", OneHost(std::to_string(-crush::kMaxBucketSlots - 1)))),
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

}  // namespace
}  // namespace crushkit::compiler
