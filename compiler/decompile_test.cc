#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "compiler/compile.h"
#include "crush/builder.h"
#include "crush/codec.h"
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
  absl::StatusOr<crush::MapModel> m =
      Compile(SourceFile("c.crush", kCanonical), nullptr,
              CompileOptions{.release = crush::CephRelease::kPacific});
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::string> text = Decompile(*m, crush::CephRelease::kPacific);
  ASSERT_THAT(text, IsOk());
  EXPECT_EQ(*text, kCanonical);
}

TEST(DecompileTest, ReefDialectUsesFiveDecimalsAndNoSizes) {
  absl::StatusOr<crush::MapModel> m =
      Compile(SourceFile("c.crush", kCanonical), nullptr,
              CompileOptions{.release = crush::CephRelease::kPacific});
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
  absl::StatusOr<crush::MapModel> m = Compile(SourceFile("c.crush", kCanonical), &sink,
                                              CompileOptions{.release = crush::CephRelease::kReef});
  ASSERT_THAT(m, IsOk());
  // Ceph 18.2's crushtool -c prints one line per ignored keyword, in order.
  EXPECT_THAT(sink.ceph_messages(),
              ::testing::ElementsAre("WARNING: min_size is no longer supported, ignoring",
                                     "WARNING: max_size is no longer supported, ignoring"));
  EXPECT_THAT(sink.Format(SourceFile("c.crush", kCanonical)),
              HasSubstr("warning: min_size/max_size are ignored by Ceph reef"));
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

// An MSR map as Ceph 20.2 `crushtool -d` prints it (compiled from text with
// crushtool-tentacle -c, then decompiled); kMsrMapBytes is that binary.
constexpr char kMsrText[] =
    "# begin crush map\n"
    "tunable msr_descents 3\n"
    "tunable msr_collision_tries 100\n"
    "\n"
    "# devices\n"
    "device 0 osd.0\n"
    "device 1 osd.1\n"
    "device 2 osd.2\n"
    "\n"
    "# types\n"
    "type 0 osd\n"
    "type 1 host\n"
    "type 2 root\n"
    "\n"
    "# buckets\n"
    "host h0 {\n"
    "\tid -2\t\t# do not change unnecessarily\n"
    "\t# weight 1.50000\n"
    "\talg straw2\n"
    "\thash 0\t# rjenkins1\n"
    "\titem osd.0 weight 1.00000\n"
    "\titem osd.1 weight 0.50000\n"
    "}\n"
    "host h1 {\n"
    "\tid -3\t\t# do not change unnecessarily\n"
    "\t# weight 1.00000\n"
    "\talg straw2\n"
    "\thash 0\t# rjenkins1\n"
    "\titem osd.2 weight 1.00000\n"
    "}\n"
    "root default {\n"
    "\tid -1\t\t# do not change unnecessarily\n"
    "\t# weight 2.50000\n"
    "\talg straw2\n"
    "\thash 0\t# rjenkins1\n"
    "\titem h0 weight 1.50000\n"
    "\titem h1 weight 1.00000\n"
    "}\n"
    "\n"
    "# rules\n"
    "rule ec {\n"
    "\tid 0\n"
    "\ttype msr_indep\n"
    "\tstep set_msr_descents 5\n"
    "\tstep set_msr_collision_tries 3\n"
    "\tstep take default\n"
    "\tstep choosemsr 2 type host\n"
    "\tstep choosemsr 2 type osd\n"
    "\tstep emit\n"
    "}\n"
    "rule rep {\n"
    "\tid 1\n"
    "\ttype msr_firstn\n"
    "\tstep take default\n"
    "\tstep choosemsr 0 type osd\n"
    "\tstep emit\n"
    "}\n"
    "\n"
    "# end crush map\n";
constexpr char kMsrMapHex[] =
    "0000010008000000020000000300000005000000ffffffff020005000080020002000000fefffffffdffffff008001"
    "00"
    "0000010005000000feffffff0100050000800100020000000000000001000000000001000080000005000000fdffff"
    "ff"
    "0100050000000100010000000200000000000100000000000000000000000000000000000000000001000000060000"
    "00"
    "000501640e00000005000000000000000f000000030000000000000001000000ffffffff0000000010000000020000"
    "00"
    "0100000010000000020000000000000004000000000000000000000001000000030000000104016401000000ffffff"
    "ff"
    "000000001000000000000000000000000400000000000000000000000300000000000000030000006f736401000000"
    "04"
    "000000686f73740200000004000000726f6f7406000000fdffffff020000006831feffffff020000006830ffffffff"
    "07"
    "00000064656661756c7400000000050000006f73642e3001000000050000006f73642e3102000000050000006f7364"
    "2e"
    "3202000000000000000200000065630100000003000000726570020000000500000013000000000000000000160000"
    "00"
    "00000000000000000000000000000000000300000064000000";

std::string Hex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

TEST(DecompileTest, TentacleDialectPrintsMsrRulesAndTunables) {
  absl::StatusOr<crush::MapModel> m =
      Compile(SourceFile("msr.crush", kMsrText), nullptr,
              CompileOptions{.release = crush::CephRelease::kTentacle});
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(Hex(crush::EncodeCrushMap(*m)), kMsrMapHex);
  absl::StatusOr<std::string> text = Decompile(*m, crush::CephRelease::kTentacle);
  ASSERT_THAT(text, IsOk());
  EXPECT_EQ(*text, kMsrText);
}

// Pacific's crushtool -d on the same binary: numeric rule types, min/max
// size, and no msr steps or tunables (it does not know them).
TEST(DecompileTest, PacificDialectPrintsMsrRulesAsPacificDoes) {
  absl::StatusOr<crush::MapModel> m =
      Compile(SourceFile("msr.crush", kMsrText), nullptr,
              CompileOptions{.release = crush::CephRelease::kTentacle});
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::string> text = Decompile(*m, crush::CephRelease::kPacific);
  ASSERT_THAT(text, IsOk());
  EXPECT_EQ(*text, std::string("# begin crush map\n"
                               "\n"
                               "# devices\n"
                               "device 0 osd.0\n"
                               "device 1 osd.1\n"
                               "device 2 osd.2\n"
                               "\n"
                               "# types\n"
                               "type 0 osd\n"
                               "type 1 host\n"
                               "type 2 root\n"
                               "\n"
                               "# buckets\n"
                               "host h0 {\n"
                               "\tid -2\t\t# do not change unnecessarily\n"
                               "\t# weight 1.500\n"
                               "\talg straw2\n"
                               "\thash 0\t# rjenkins1\n"
                               "\titem osd.0 weight 1.000\n"
                               "\titem osd.1 weight 0.500\n"
                               "}\n"
                               "host h1 {\n"
                               "\tid -3\t\t# do not change unnecessarily\n"
                               "\t# weight 1.000\n"
                               "\talg straw2\n"
                               "\thash 0\t# rjenkins1\n"
                               "\titem osd.2 weight 1.000\n"
                               "}\n"
                               "root default {\n"
                               "\tid -1\t\t# do not change unnecessarily\n"
                               "\t# weight 2.500\n"
                               "\talg straw2\n"
                               "\thash 0\t# rjenkins1\n"
                               "\titem h0 weight 1.500\n"
                               "\titem h1 weight 1.000\n"
                               "}\n"
                               "\n"
                               "# rules\n"
                               "rule ec {\n"
                               "\tid 0\n"
                               "\ttype 5\n"
                               "\tmin_size 1\n"
                               "\tmax_size 100\n"
                               "\tstep take default\n"
                               "\tstep emit\n"
                               "}\n"
                               "rule rep {\n"
                               "\tid 1\n"
                               "\ttype 4\n"
                               "\tmin_size 1\n"
                               "\tmax_size 100\n"
                               "\tstep take default\n"
                               "\tstep emit\n"
                               "}\n"
                               "\n"
                               "# end crush map\n"));
}

TEST(DecompileTest, MsrTunablesArePrintedInPairsOnlyWhenNotDefault) {
  absl::StatusOr<crush::MapModel> m =
      Compile(SourceFile("msr.crush", kMsrText), nullptr,
              CompileOptions{.release = crush::CephRelease::kTentacle});
  ASSERT_THAT(m, IsOk());
  m->tunables.msr_descents = 100;
  absl::StatusOr<std::string> text = Decompile(*m, crush::CephRelease::kTentacle);
  ASSERT_THAT(text, IsOk());
  EXPECT_THAT(*text, ::testing::Not(HasSubstr("tunable msr")));
  m->tunables.msr_collision_tries = 7;
  text = Decompile(*m, crush::CephRelease::kTentacle);
  ASSERT_THAT(text, IsOk());
  EXPECT_THAT(*text, HasSubstr("tunable msr_descents 100\ntunable msr_collision_tries 7\n"));
}

TEST(DecompileTest, UnnamedItemsAndTypesGetCephPlaceholders) {
  crush::MapModel m;
  absl::StatusOr<crush::Bucket> b =
      crush::MakeBucket(crush::BucketAlg::kStraw2, 0, 7, std::vector<crush::ItemId>{3},
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
    absl::StatusOr<crush::Bucket> b =
        crush::MakeBucket(crush::BucketAlg::kStraw2, 0, 1, std::vector<crush::ItemId>{other},
                          std::vector<crush::Weight>{0x10000}, 0);
    ASSERT_THAT(b, IsOk());
    ASSERT_THAT(crush::AddBucket(m, id, *b), IsOk());
  }
  EXPECT_THAT(Decompile(m),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("directed acyclic graph")));
}

}  // namespace
}  // namespace crushkit::compiler
