// Unit tests of the display stage pieces: the Ceph-style formatters
// (ceph_formatter.h), the --tree table and the map views of crush/edit/display.h.
// Expected texts are what Ceph 16.2's crushtool prints for the same map.
#include "crush/edit/display.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

#include "compiler/compile.h"
#include "compiler/source_file.h"
#include "tests/testing/crush_text.h"
#include "tools/crushtool/ceph_formatter.h"
#include "tools/crushtool/crush_dump.h"

namespace crushkit::tools::crushtool {
namespace {

std::string Emit(std::string_view type) {
  auto f = CephFormatter::Create(type);
  f->OpenObject("top");
  f->OpenArray("list");
  f->DumpInt("n", -3);
  f->DumpFloat("w", static_cast<float>(6553) / static_cast<float>(0x10000));
  f->Close();
  f->OpenObject("empty");
  f->Close();
  f->DumpString("s", "a\"b<c");
  f->Close();
  return f->Flush();
}

TEST(CephFormatterTest, JsonPretty) {
  EXPECT_EQ(Emit("json-pretty"),
            "{\n"
            "    \"list\": [\n"
            "        -3,\n"
            "        0.0999908447265625\n"
            "    ],\n"
            "    \"empty\": {},\n"
            "    \"s\": \"a\\\"b<c\"\n"
            "}\n");
}

TEST(CephFormatterTest, UnknownAndEmptyFormatsAreJsonPretty) {
  EXPECT_EQ(Emit(""), Emit("json-pretty"));
  EXPECT_EQ(Emit("JSON"), Emit("json-pretty"));
}

TEST(CephFormatterTest, JsonCompact) {
  EXPECT_EQ(Emit("json"), "{\"list\":[-3,0.0999908447265625],\"empty\":{},\"s\":\"a\\\"b<c\"}");
}

TEST(CephFormatterTest, XmlPretty) {
  EXPECT_EQ(Emit("xml-pretty"),
            "<top>\n"
            " <list>\n"
            "  <n>-3</n>\n"
            "  <w>0.0999908447265625</w>\n"
            " </list>\n"
            " <empty>\n"
            " </empty>\n"
            " <s>a&quot;b&lt;c</s>\n"
            "</top>\n"
            "\n");
}

TEST(CephFormatterTest, HtmlPrintsSixDigitFloats) {
  EXPECT_EQ(Emit("html"),
            "<top><list><li>n: -3</li><li>w: 0.0999908</li></list><empty></empty>"
            "<li>s: a&quot;b&lt;c</li></top>");
}

TEST(CephFormatterTest, TableIsOneRowOfSectionPaths) {
  auto f = CephFormatter::Create("table");
  f->OpenObject("m");
  f->DumpInt("id", 7);
  f->DumpString("name", "a");
  f->Close();
  EXPECT_EQ(f->Flush(),
            "+----------+------------+\n"
            "| m:id[0]  | m:name[0]  |\n"
            "+----------+------------+\n"
            "| 7        | a          |\n"
            "+----------+------------+\n");
  auto kv = CephFormatter::Create("table-kv");
  kv->OpenObject("m");
  kv->DumpInt("id", 7);
  kv->Close();
  EXPECT_EQ(kv->Flush(), "key::m:id[0]=\"7\" \n");
}

TEST(CephFormatterTest, Escaping) { EXPECT_EQ(XmlEscape("'&>\x7f\t"), "&apos;&amp;&gt;&#x7f;\t"); }

crush::MapModel Compile(const std::string& text) {
  const compiler::SourceFile src("t.crush", text);
  auto m = compiler::Compile(src, nullptr,
                             compiler::CompileOptions{.release = crush::CephRelease::kPacific});
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : crush::MapModel{};
}

TEST(CrushTreeTest, SortsChildrenAndPrintsTextTable) {
  crush::MapModel m = Compile(crush_testing::HostsAndRootText({{1.0, 0.5}, {0.0}}));
  auto tree = FormatCrushTree(m);
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(*tree,
            "ID  CLASS  WEIGHT   TYPE NAME    \n"
            "-1         1.50000  root default \n"
            "-2         1.50000      host h0  \n"
            " 0         1.00000          osd.0\n"
            " 1         0.50000          osd.1\n"
            "-3               0      host h1  \n"
            " 2               0          osd.2\n");
}

TEST(CrushDisplayTest, FullLocationAndLeaves) {
  crush::MapModel m = Compile(crush_testing::HostsAndRootText({{1.0, 0.5}, {1.0}}));
  auto loc = crush::FullLocation(m, 2);
  ASSERT_TRUE(loc.ok());
  EXPECT_EQ(*loc, (std::map<std::string, std::string>{{"host", "h1"}, {"root", "default"}}));
  auto none = crush::FullLocation(m, 99);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto leaves = crush::Leaves(m, "default");
  ASSERT_TRUE(leaves.ok());
  EXPECT_EQ(*leaves, (std::set<crush::ItemId>{0, 1, 2}));
}

TEST(CrushDisplayTest, CheckNameMapsReportsTooLargeIds) {
  crush::MapModel m = Compile(crush_testing::HostsAndRootText({{1.0, 0.5}, {1.0}}));
  EXPECT_EQ(*crush::CheckNameMaps(m, 0), "");
  EXPECT_EQ(*crush::CheckNameMaps(m, 3), "");
  EXPECT_EQ(*crush::CheckNameMaps(m, 2), "item id too large: item#2");
  m.type_names.erase(0);
  EXPECT_EQ(*crush::CheckNameMaps(m, 0), "unknown type name: item#0");
}

TEST(CrushDisplayTest, OverlappedRulesJoinEqualNeighbours) {
  crush::MapModel m = Compile(crush_testing::HostsAndRootText({{1.0}}));
  auto add = [&m](const std::string& name, int min, int max) {
    crush::Rule r;
    r.min_size = static_cast<std::uint8_t>(min);
    r.max_size = static_cast<std::uint8_t>(max);
    m.rule_names[m.max_rules()] = name;
    m.rules.push_back(r);
    m.rule_exists.push_back(true);
  };
  add("a", 1, 3);
  add("b", 1, 1);
  add("c", 2, 5);
  EXPECT_EQ(crush::OverlappedRules(m),
            (std::vector<std::string>{"overlapped rules in ruleset 0: a, b",
                                      "overlapped rules in ruleset 0: a, c"}));
}

TEST(CrushDisplayTest, RefusesWhereCephCrashes) {
  crush::MapModel m = Compile(crush_testing::HostsAndRootText({{1.0}}));
  m.item_names.erase(-2);  // host h0: Ceph builds a std::string from nullptr
  EXPECT_EQ(crush::WalkTree(m, true).status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(FormatCrushTree(m).status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(crush::FullLocation(m, 0).status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(crush::CheckNameMaps(m, 0).status().code(), absl::StatusCode::kInternal);
}

TEST(CrushDumpTest, NegativeTypeIdIsLeftOutWithAWarning) {
  crush::MapModel m = Compile(crush_testing::HostsAndRootText({{1.0}}));
  m.type_names[-4] = "weird";
  auto f = CephFormatter::Create("json");
  std::vector<std::string> warnings;
  DumpCrushMap(m, crush::CephRelease::kPacific, *f, &warnings);
  const std::string text = f->Flush();
  EXPECT_EQ(text.find("weird"), std::string::npos);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("type -4"), std::string::npos);
}

TEST(CrushDumpTest, WeightfText) {
  EXPECT_EQ(WeightfText(0.0F), "0");
  EXPECT_EQ(WeightfText(0.0000001F), "0");
  EXPECT_EQ(WeightfText(0.099990845F), "0.09999");
  EXPECT_EQ(WeightfText(72.0F), "72.00000");
  EXPECT_EQ(WeightfText(-1.0F), "-");
}

}  // namespace
}  // namespace crushkit::tools::crushtool
