#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "compiler/compile.h"
#include "crush/builder.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::compiler {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::HasSubstr;

// The exact text Pacific crushtool -d prints for this map (tabs, comments,
// blank lines, children before parents, pos for tree/uniform items).
constexpr char kCanonical[] =
    "# begin crush map\n"
    "tunable choose_total_tries 50\n"
    "\n"
    "# devices\n"
    "device 0 osd.0 class hdd\n"
    "device 1 osd.1\n"
    "\n"
    "# types\n"
    "type 0 osd\n"
    "type 1 host\n"
    "type 2 root\n"
    "\n"
    "# buckets\n"
    "host h0 {\n"
    "\tid -2\t\t# do not change unnecessarily\n"
    "\tid -3 class hdd\t\t# do not change unnecessarily\n"
    "\t# weight 1.500\n"
    "\talg tree\t# do not change pos for existing items unnecessarily\n"
    "\thash 0\t# rjenkins1\n"
    "\titem osd.0 weight 1.000 pos 0\n"
    "\titem osd.1 weight 0.500 pos 1\n"
    "}\n"
    "root default {\n"
    "\tid -1\t\t# do not change unnecessarily\n"
    "\tid -4 class hdd\t\t# do not change unnecessarily\n"
    "\t# weight 1.500\n"
    "\talg straw2\n"
    "\thash 0\t# rjenkins1\n"
    "\titem h0 weight 1.500\n"
    "}\n"
    "\n"
    "# rules\n"
    "rule replicated_rule {\n"
    "\tid 0\n"
    "\ttype replicated\n"
    "\tmin_size 1\n"
    "\tmax_size 10\n"
    "\tstep take default class hdd\n"
    "\tstep chooseleaf firstn 0 type host\n"
    "\tstep emit\n"
    "}\n"
    "\n"
    "# choose_args\n"
    "choose_args 18446744073709551615 {\n"
    "  {\n"
    "    bucket_id -1\n"
    "    weight_set [\n"
    "      [ 2.000 ]\n"
    "    ]\n"
    "    ids [ -20 ]\n"
    "  }\n"
    "}\n"
    "\n"
    "# end crush map\n";

TEST(DecompileTest, CanonicalTextRoundTrips) {
  absl::StatusOr<crush::MapModel> m = Compile(SourceFile("c.crush", kCanonical), nullptr, CompileOptions{.release = crush::CephRelease::kPacific});
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::string> text = Decompile(*m, crush::CephRelease::kPacific);
  ASSERT_THAT(text, IsOk());
  EXPECT_EQ(*text, kCanonical);
}

TEST(DecompileTest, ReefDialectUsesFiveDecimalsAndNoSizes) {
  absl::StatusOr<crush::MapModel> m = Compile(SourceFile("c.crush", kCanonical), nullptr, CompileOptions{.release = crush::CephRelease::kPacific});
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::string> text = Decompile(*m, crush::CephRelease::kReef);
  ASSERT_THAT(text, IsOk());
  EXPECT_THAT(*text, HasSubstr("\titem osd.1 weight 0.50000 pos 1\n"));
  EXPECT_THAT(*text, ::testing::Not(HasSubstr("min_size")));
  // Both dialects compile back to the same model.
  absl::StatusOr<crush::MapModel> again = Compile(SourceFile("q.crush", *text));
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->buckets, m->buckets);
}

TEST(DecompileTest, ReefCompilerIgnoresSizesWithCephsWarnings) {
  DiagnosticSink sink;
  absl::StatusOr<crush::MapModel> m =
      Compile(SourceFile("c.crush", kCanonical), &sink, CompileOptions{.release = crush::CephRelease::kReef});
  ASSERT_THAT(m, IsOk());
  // Ceph 18.2's crushtool -c prints one line per ignored keyword, in order.
  EXPECT_THAT(sink.ceph_messages(), ::testing::ElementsAre("WARNING: min_size is no longer supported, ignoring",
                                                           "WARNING: max_size is no longer supported, ignoring"));
  EXPECT_THAT(sink.Format(SourceFile("c.crush", kCanonical)), HasSubstr("warning: min_size/max_size are ignored by Ceph reef"));
  for (std::size_t i = 0; i < m->rules.size(); ++i) {
    if (!m->rule_exists[i]) continue;
    EXPECT_EQ(m->rules[i].min_size, 1);
    EXPECT_EQ(m->rules[i].max_size, 100);
  }
  DiagnosticSink pacific;
  ASSERT_THAT(Compile(SourceFile("c.crush", kCanonical), &pacific,
                      CompileOptions{.release = crush::CephRelease::kPacific}),
              IsOk());
  EXPECT_TRUE(pacific.ceph_messages().empty());
}

TEST(DecompileTest, UnnamedItemsAndTypesGetCephPlaceholders) {
  crush::MapModel m;
  absl::StatusOr<crush::Bucket> b = crush::MakeBucket(crush::BucketAlg::kStraw2, 0, 7, std::vector<crush::ItemId>{3},
                                                      std::vector<crush::Weight>{0x10000}, 0);
  ASSERT_THAT(b, IsOk());
  ASSERT_THAT(crush::AddBucket(m, -3, *b), IsOk());
  m.max_devices = 4;
  m.type_names[1] = "host";
  absl::StatusOr<std::string> text = Decompile(m, crush::CephRelease::kPacific);
  ASSERT_THAT(text, IsOk());
  EXPECT_THAT(*text, HasSubstr("# types\ntype 0 osd\ntype 1 host\n"));
  EXPECT_THAT(*text, HasSubstr("type7 bucket2 {\n"));
  EXPECT_THAT(*text, HasSubstr("\titem device3 weight 1.000\n"));
}

TEST(DecompileTest, CycleIsAnError) {
  crush::MapModel m;
  for (crush::ItemId id : {-1, -2}) {
    const crush::ItemId other = id == -1 ? -2 : -1;
    absl::StatusOr<crush::Bucket> b = crush::MakeBucket(crush::BucketAlg::kStraw2, 0, 1,
                                                        std::vector<crush::ItemId>{other},
                                                        std::vector<crush::Weight>{0x10000}, 0);
    ASSERT_THAT(b, IsOk());
    ASSERT_THAT(crush::AddBucket(m, id, *b), IsOk());
  }
  EXPECT_THAT(Decompile(m), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("directed acyclic graph")));
}

}  // namespace
}  // namespace crushkit::compiler
