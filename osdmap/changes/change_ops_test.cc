// Parser goldens for the `crushkit plan` change language: every command's
// fields, and every diagnostic's exact text (file:line:col, caret line).
#include "osdmap/changes/change_ops.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using ::crush_testing::IsOk;
using ::crush_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

ChangeList ParseOk(const std::string& text) {
  auto change = ParseChange(text, "ops.txt");
  EXPECT_THAT(change, IsOk());
  return change.ok() ? *change : ChangeList{};
}

ChangeOp ParseOne(const std::string& line) {
  ChangeList change = ParseOk(line);
  EXPECT_EQ(change.ops.size(), 1u) << line;
  return change.ops.empty() ? ChangeOp{} : change.ops[0];
}

// The diagnostics text of a file that must not parse.
std::string Errors(const std::string& text) {
  auto change = ParseChange(text, "ops.txt");
  EXPECT_THAT(change, StatusIs(absl::StatusCode::kInvalidArgument));
  return change.ok() ? "" : std::string(change.status().message());
}

TEST(ParseChangeTest, EmptyCommentsAndBlankLines) {
  const ChangeList change = ParseOk("\n# just a comment\n   \t\n# ceph osd out 3\n");
  EXPECT_TRUE(change.ops.empty());
  EXPECT_EQ(change.file_name, "ops.txt");
  EXPECT_EQ(change.lines.size(), 4u);
  EXPECT_TRUE(ParseOk("").ops.empty());
}

TEST(ParseChangeTest, CephPrefixCommentsAndPositions) {
  const ChangeList change =
      ParseOk("ceph osd out 3 osd.7   # maintenance\n\tosd in 3\r\nosd   down 4#x\n");
  ASSERT_EQ(change.ops.size(), 3u);
  const ChangeOp& out = change.ops[0];
  EXPECT_EQ(out.kind, ChangeOpKind::kMarkOut);
  EXPECT_EQ(out.command, (Word{"osd", 1, 6}));
  EXPECT_EQ(out.text, "osd out 3 osd.7");
  EXPECT_THAT(out.osd_ids, ElementsAre(3, 7));
  EXPECT_EQ(out.osd_words[1], (Word{"osd.7", 1, 16}));
  EXPECT_EQ(change.ops[1].kind, ChangeOpKind::kMarkIn);
  EXPECT_EQ(change.ops[1].command, (Word{"osd", 2, 2}));
  EXPECT_EQ(change.lines[1], "\tosd in 3");  // the '\r' is not part of the line
  EXPECT_EQ(change.ops[2].kind, ChangeOpKind::kMarkDown);
  EXPECT_THAT(change.ops[2].osd_ids, ElementsAre(4));
  EXPECT_EQ(DescribeChangeOp(change.ops[2]), "osd down 4");
}

TEST(ParseChangeTest, CrushCommands) {
  ChangeOp op = ParseOne("osd crush add-bucket node9 host rack=rack2 root=default");
  EXPECT_EQ(op.kind, ChangeOpKind::kCrushAddBucket);
  EXPECT_EQ(op.name.text, "node9");
  EXPECT_EQ(op.type.text, "host");
  ASSERT_EQ(op.location.size(), 2u);
  EXPECT_EQ(op.location[0].type, (Word{"rack", 1, 33}));
  EXPECT_EQ(op.location[0].name, (Word{"rack2", 1, 38}));
  EXPECT_EQ(op.location[1].name.text, "default");

  op = ParseOne("osd crush add osd.40 1.819 host=node9");
  EXPECT_EQ(op.kind, ChangeOpKind::kCrushAdd);
  EXPECT_THAT(op.osd_ids, ElementsAre(40));
  EXPECT_DOUBLE_EQ(op.weight, 1.819);
  EXPECT_EQ(op.weight_word, (Word{"1.819", 1, 22}));
  EXPECT_EQ(op.location[0].name.text, "node9");

  op = ParseOne("osd crush set 12 0 host=n1");
  EXPECT_EQ(op.kind, ChangeOpKind::kCrushSet);
  EXPECT_THAT(op.osd_ids, ElementsAre(12));
  EXPECT_EQ(op.weight, 0);

  EXPECT_EQ(ParseOne("osd crush remove rack1").kind, ChangeOpKind::kCrushRemove);
  EXPECT_EQ(ParseOne("osd crush rm osd.3").kind, ChangeOpKind::kCrushRemove);
  EXPECT_EQ(ParseOne("osd crush unlink node3").kind, ChangeOpKind::kCrushUnlink);
  op = ParseOne("osd crush reweight osd.3 .5");
  EXPECT_EQ(op.kind, ChangeOpKind::kCrushReweight);
  EXPECT_DOUBLE_EQ(op.weight, 0.5);
  op = ParseOne("osd crush reweight-subtree node3 2e0");
  EXPECT_EQ(op.kind, ChangeOpKind::kCrushReweightSubtree);
  EXPECT_DOUBLE_EQ(op.weight, 2.0);
  op = ParseOne("osd crush move node3 rack=rack1");
  EXPECT_EQ(op.kind, ChangeOpKind::kCrushMove);
  EXPECT_EQ(op.location[0].type.text, "rack");

  op = ParseOne("osd crush set-device-class ssd osd.1 2");
  EXPECT_EQ(op.kind, ChangeOpKind::kCrushSetDeviceClass);
  EXPECT_EQ(op.device_class.text, "ssd");
  EXPECT_THAT(op.osd_ids, ElementsAre(1, 2));

  op = ParseOne("osd crush rule create-replicated fast default host ssd");
  EXPECT_EQ(op.kind, ChangeOpKind::kCrushRuleCreateReplicated);
  EXPECT_EQ(op.name.text, "fast");
  EXPECT_EQ(op.root.text, "default");
  EXPECT_EQ(op.type.text, "host");
  EXPECT_EQ(op.device_class.text, "ssd");
  EXPECT_FALSE(ParseOne("osd crush rule create-replicated r default osd").device_class.present());

  op = ParseOne("osd crush tunables hammer");
  EXPECT_EQ(op.kind, ChangeOpKind::kCrushTunables);
  EXPECT_EQ(op.name.text, "hammer");
  op = ParseOne("osd crush set-tunable choose_total_tries 100");
  EXPECT_EQ(op.kind, ChangeOpKind::kCrushSetTunable);
  EXPECT_EQ(op.name.text, "choose_total_tries");
  EXPECT_EQ(op.value, 100u);
}

TEST(ParseChangeTest, OsdAndPoolCommands) {
  ChangeOp op = ParseOne("osd up 1");
  EXPECT_EQ(op.kind, ChangeOpKind::kMarkUp);
  op = ParseOne("osd reweight osd.2 0.85");
  EXPECT_EQ(op.kind, ChangeOpKind::kOsdReweight);
  EXPECT_DOUBLE_EQ(op.weight, 0.85);
  op = ParseOne("ceph osd purge 5 --yes-i-really-mean-it");
  EXPECT_EQ(op.kind, ChangeOpKind::kOsdPurge);
  EXPECT_THAT(op.osd_ids, ElementsAre(5));
  op = ParseOne("osd pool set rbd pg_num 256");
  EXPECT_EQ(op.kind, ChangeOpKind::kPoolSet);
  EXPECT_EQ(op.name.text, "rbd");
  EXPECT_EQ(op.type.text, "pg_num");
  EXPECT_EQ(op.value, 256u);
  op = ParseOne("osd pool set 3 crush_rule fast_rule");
  EXPECT_EQ(op.value_word.text, "fast_rule");
  EXPECT_EQ(ParseOne("osd pool set rbd size 1 --yes-i-really-mean-it").value, 1u);
}

TEST(ParseChangeTest, UpmapsAndPrimaryAffinity) {
  ChangeOp op = ParseOne("osd pg-upmap-items 1.7f 3 5 osd.4 6");
  EXPECT_EQ(op.kind, ChangeOpKind::kPgUpmapItems);
  EXPECT_EQ(op.pg, (PgId{1, 0x7f}));
  EXPECT_EQ(op.pg_word, (Word{"1.7f", 1, 20}));
  EXPECT_THAT(op.osd_ids, ElementsAre(3, 5, 4, 6));
  op = ParseOne("osd pg-upmap 2.0 1 2 3");
  EXPECT_EQ(op.kind, ChangeOpKind::kPgUpmap);
  EXPECT_THAT(op.osd_ids, ElementsAre(1, 2, 3));
  EXPECT_EQ(ParseOne("osd rm-pg-upmap 2.0").kind, ChangeOpKind::kRmPgUpmap);
  EXPECT_EQ(ParseOne("osd rm-pg-upmap-items 2.a").pg, (PgId{2, 10}));
  op = ParseOne("osd primary-affinity osd.3 0.25");
  EXPECT_EQ(op.kind, ChangeOpKind::kOsdPrimaryAffinity);
  EXPECT_DOUBLE_EQ(op.weight, 0.25);

  EXPECT_EQ(Errors("osd pg-upmap-items 1.7 3 5 4"),
            "ops.txt:1:29: error: missing TO; expected 'osd pg-upmap-items PGID FROM TO [FROM TO "
            "...]'\n"
            "osd pg-upmap-items 1.7 3 5 4\n"
            "                            ^\n");
  EXPECT_THAT(Errors("osd pg-upmap 1x7 3"),
              HasSubstr("ops.txt:1:14: error: bad PG id '1x7'; expected POOL.SEED (e.g. 1.7f)"));
  EXPECT_THAT(Errors("osd rm-pg-upmap 1.7 2"), HasSubstr("extra argument '2'"));
  EXPECT_THAT(Errors("osd primary-affinity 3 2"),
              HasSubstr("primary affinity '2' is out of range; expected 0..1"));
}

TEST(ParseChangeTest, Shortcuts) {
  ChangeOp op = ParseOne("add-host node10 osds=8 weight=3.638 class=hdd rack=r2 root=default");
  EXPECT_EQ(op.kind, ChangeOpKind::kAddHost);
  EXPECT_EQ(op.name.text, "node10");
  EXPECT_EQ(op.osd_count, 8);
  EXPECT_DOUBLE_EQ(op.weight, 3.638);
  EXPECT_EQ(op.weight_word, (Word{"3.638", 1, 31}));
  EXPECT_EQ(op.device_class, (Word{"hdd", 1, 43}));
  ASSERT_EQ(op.location.size(), 2u);
  EXPECT_EQ(op.location[0].name.text, "r2");
  op = ParseOne("add-host n weight=1 osds=0");
  EXPECT_EQ(op.osd_count, 0);
  EXPECT_FALSE(op.device_class.present());
  op = ParseOne("drain rack1");
  EXPECT_EQ(op.kind, ChangeOpKind::kDrain);
  EXPECT_EQ(op.name.text, "rack1");
}

TEST(ParseChangeTest, WeightLimits) {
  EXPECT_DOUBLE_EQ(ParseOne("osd crush reweight osd.1 32767.99").weight, 32767.99);
  EXPECT_EQ(Errors("osd crush reweight osd.1 32768"),
            "ops.txt:1:26: error: weight '32768' overflows CRUSH's 16.16 fixed point; the "
            "largest weight is 32767.99998\n"
            "osd crush reweight osd.1 32768\n"
            "                         ^~~~~\n");
  EXPECT_THAT(Errors("osd crush reweight osd.1 1e400"), HasSubstr("overflows"));
  EXPECT_EQ(Errors("osd crush add osd.1 -1"),
            "ops.txt:1:21: error: negative weight '-1'\n"
            "osd crush add osd.1 -1\n"
            "                    ^~\n");
  EXPECT_THAT(Errors("osd crush add osd.1 inf"), HasSubstr("bad weight 'inf'"));
  EXPECT_THAT(Errors("osd crush add osd.1 nan"), HasSubstr("bad weight 'nan'"));
  EXPECT_THAT(Errors("osd crush add osd.1 0x10"), HasSubstr("bad weight '0x10'"));
  EXPECT_THAT(Errors("osd crush add osd.1 1.5kg"), HasSubstr("bad weight '1.5kg'"));
  EXPECT_DOUBLE_EQ(ParseOne("osd crush add osd.1 -0").weight, 0);
}

TEST(ParseChangeDiagnosticsTest, UnknownCommands) {
  EXPECT_EQ(Errors("osd crush reweigth osd.3 1"),
            "ops.txt:1:11: error: unknown command 'osd crush reweigth'; expected add-bucket, "
            "add, set, remove, rm, unlink, reweight, reweight-subtree, move, swap-bucket, "
            "set-device-class, "
            "rule, tunables, set-tunable; did you mean 'reweight'?\n"
            "osd crush reweigth osd.3 1\n"
            "          ^~~~~~~~\n");
  EXPECT_EQ(Errors("  frobnicate"),
            "ops.txt:1:3: error: unknown command 'frobnicate'; expected osd, add-host, drain\n"
            "  frobnicate\n"
            "  ^~~~~~~~~~\n");
  EXPECT_EQ(Errors("osd crush rule"),
            "ops.txt:1:15: error: incomplete command 'osd crush rule'; expected "
            "create-replicated\n"
            "osd crush rule\n"
            "              ^\n");
  EXPECT_EQ(Errors("ceph"),
            "ops.txt:1:5: error: missing command after 'ceph'\n"
            "ceph\n"
            "    ^\n");
}

TEST(ParseChangeDiagnosticsTest, MissingAndExtraArguments) {
  EXPECT_EQ(Errors("osd crush reweight osd.3"),
            "ops.txt:1:25: error: missing WEIGHT; expected 'osd crush reweight NAME WEIGHT'\n"
            "osd crush reweight osd.3\n"
            "                        ^\n");
  EXPECT_EQ(Errors("drain host1 host2"),
            "ops.txt:1:13: error: extra argument 'host2'; expected 'drain NAME'\n"
            "drain host1 host2\n"
            "            ^~~~~\n");
  EXPECT_THAT(Errors("osd out"), HasSubstr("ops.txt:1:8: error: missing OSD id; expected "
                                           "'osd out ID ...'"));
  EXPECT_THAT(Errors("osd crush move node3"), HasSubstr("missing location TYPE=NAME"));
  EXPECT_THAT(Errors("add-host n1 weight=1 root=default"),
              HasSubstr("ops.txt:1:34: error: missing osds=COUNT"));
  EXPECT_THAT(Errors("add-host n1 osds=2"), HasSubstr("missing weight=WEIGHT"));
  EXPECT_THAT(Errors("add-host n1 osds=2 osds=3 weight=1"),
              HasSubstr("ops.txt:1:20: error: 'osds=' given twice"));
  EXPECT_THAT(Errors("osd crush rule create-replicated r default host ssd x"),
              HasSubstr("extra argument 'x'"));
}

TEST(ParseChangeDiagnosticsTest, BadWords) {
  EXPECT_EQ(Errors("osd out osd.x"),
            "ops.txt:1:9: error: bad OSD id 'osd.x'; expected N or osd.N\n"
            "osd out osd.x\n"
            "        ^~~~~\n");
  EXPECT_THAT(Errors("osd out 100000"),
              HasSubstr("OSD id '100000' is too large; crushkit accepts ids up to 99999"));
  EXPECT_THAT(Errors("osd out -1"), HasSubstr("bad OSD id '-1'"));
  EXPECT_EQ(Errors("osd crush add-bucket b host rack"),
            "ops.txt:1:29: error: bad location 'rack'; expected TYPE=NAME\n"
            "osd crush add-bucket b host rack\n"
            "                            ^~~~\n");
  EXPECT_EQ(Errors("osd crush move n rack=r1 rack=r2"),
            "ops.txt:1:26: error: location type 'rack' given twice\n"
            "osd crush move n rack=r1 rack=r2\n"
            "                         ^~~~\n");
  EXPECT_EQ(Errors("osd crush add-bucket b/1 host"),
            "ops.txt:1:22: error: invalid name 'b/1'; names use letters, digits, '-', '_' and "
            "'.'\n"
            "osd crush add-bucket b/1 host\n"
            "                     ^~~\n");
  EXPECT_THAT(Errors("osd crush move n rack=r~1"),
              HasSubstr("ops.txt:1:23: error: invalid bucket name 'r~1'"));
  EXPECT_THAT(Errors("osd reweight 1 1.5"),
              HasSubstr("reweight '1.5' is out of range; expected 0..1"));
  EXPECT_EQ(Errors("osd crush tunables hammr"),
            "ops.txt:1:20: error: unknown tunables profile 'hammr'; expected legacy, argonaut, "
            "bobtail, firefly, hammer, jewel, optimal, default; did you mean 'hammer'?\n"
            "osd crush tunables hammr\n"
            "                   ^~~~~\n");
  EXPECT_THAT(Errors("osd crush set-tunable choose_total_trys 5"),
              HasSubstr("unknown tunable 'choose_total_trys'; expected choose_local_tries"));
  EXPECT_THAT(Errors("osd crush set-tunable straw_calc_version 2"),
              HasSubstr("straw_calc_version '2' is out of range; expected 0..1"));
  EXPECT_THAT(Errors("osd crush set-tunable choose_total_tries 4294967296"),
              HasSubstr("out of range; expected 0..4294967295"));
  EXPECT_THAT(Errors("osd pool set rbd sise 3"),
              HasSubstr("unknown pool setting 'sise'; crushkit models size, min_size, pg_num, "
                        "pgp_num and crush_rule; did you mean 'size'?"));
  EXPECT_THAT(Errors("osd pool set rbd size 11"),
              HasSubstr("size '11' is out of range; expected 1..10"));
  EXPECT_THAT(Errors("osd pool set rbd pg_num 0"), HasSubstr("expected 1..65536"));
  EXPECT_THAT(Errors("osd pool set rbd pgp_num x"), HasSubstr("bad pgp_num 'x'; expected a whole"));
  EXPECT_THAT(Errors("add-host n1 osds=1001 weight=1"),
              HasSubstr("osds '1001' is out of range; expected 0..1000"));
  EXPECT_EQ(Errors("add-host n1 osds=2 weight=x"),
            "ops.txt:1:27: error: bad weight 'x'; expected a decimal number\n"
            "add-host n1 osds=2 weight=x\n"
            "                          ^\n");
}

TEST(ParseChangeDiagnosticsTest, ReportsEveryErrorWithTabsKept) {
  const std::string text = "osd out x\n\tosd crush reweight osd.1 -2\nosd in 1\nfoo\n";
  EXPECT_EQ(Errors(text),
            "ops.txt:1:9: error: bad OSD id 'x'; expected N or osd.N\n"
            "osd out x\n"
            "        ^\n"
            "ops.txt:2:27: error: negative weight '-2'\n"
            "\tosd crush reweight osd.1 -2\n"
            "\t                         ^~\n"
            "ops.txt:4:1: error: unknown command 'foo'; expected osd, add-host, drain\n"
            "foo\n"
            "^~~\n");
}

TEST(ParseChangeDiagnosticsTest, CapsErrorsAtTwenty) {
  std::string text;
  for (int i = 0; i < 25; ++i) text += "osd out x\n";
  const std::string errors = Errors(text);
  EXPECT_THAT(errors, HasSubstr("ops.txt:20:9: error"));
  EXPECT_THAT(errors, ::testing::Not(HasSubstr("ops.txt:21:9: error")));
  EXPECT_THAT(errors, HasSubstr("ops.txt: note: 5 more errors not shown\n"));
}

TEST(FormatChangeDiagnosticTest, LineOutsideTheFilePrintsNoSource) {
  EXPECT_EQ(FormatChangeDiagnostic("f", {"a"}, ChangeDiagnostic{3, 1, 1, "boom"}),
            "f:3:1: error: boom\n");
}

}  // namespace
}  // namespace crushkit::osdmap
