// The OSD tree on states osdmaptool cannot produce (destroyed OSDs, reweights
// and primary affinities from a real cluster's dump). Expected rows follow
// from OSDMap.cc's OSDTreePlainDumper; the oracle comparisons are in
// osdmaptool_test.cc and tests/osdmap_differential.
#include "osdmap/formats/osd_tree.h"

#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/codec.h"
#include "tests/testing/paths.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Tokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// classes-4host: root default (-1) over hosts h0..h3 (-2..-5), osd.0..7 with
// classes hdd/ssd; shadow buckets "h0~hdd" etc. are roots but not printed.
ClusterState FourHosts() {
  auto model = crush::DecodeCrushMap(crush_testing::ReadFileOrEmpty(
      crush_testing::CompatDir() + "/examples/classes-4host.crushmap"));
  EXPECT_THAT(model.status(), crush_testing::IsOk());
  ClusterState st;
  if (model.ok()) st.crush = std::move(*model);
  st.osds.resize(10);
  st.osds[0] = {kOsdExists | kOsdUp, 0x10000, 0x10000};
  st.osds[1] = {kOsdExists | kOsdDestroyed, 0x8000, 0x4000};
  st.osds[3] = {kOsdExists, 0, 0x10000};
  st.osds[8] = {kOsdExists | kOsdUp, 0x10000, 0x10000};  // in no bucket: a stray
  return st;
}

TEST(OsdTreeTest, RowsStatusAndStrays) {
  auto tree = FormatOsdTreePlain(FourHosts());
  ASSERT_THAT(tree.status(), crush_testing::IsOk());
  const std::vector<std::string> lines = Lines(*tree);
  ASSERT_EQ(lines.size(), 15u) << *tree;
  // TextTable pads every cell of every row: all lines are equally long.
  for (const auto& l : lines) EXPECT_EQ(l.size(), lines[0].size()) << l;
  // STATUS is 9 wide ("destroyed"), TYPE NAME 13 ("        osd.0").
  EXPECT_EQ(lines[0], "ID  CLASS  WEIGHT   TYPE NAME      STATUS     REWEIGHT  PRI-AFF");
  EXPECT_THAT(Tokens(lines[1]), ElementsAre("-1", "7.50000", "root", "default"));
  EXPECT_THAT(Tokens(lines[2]), ElementsAre("-2", "1.50000", "host", "h0"));
  // Children sorted by (class, id): hdd before ssd, then by id.
  EXPECT_THAT(Tokens(lines[3]),
              ElementsAre("0", "hdd", "1.00000", "osd.0", "up", "1.00000", "1.00000"));
  EXPECT_THAT(Tokens(lines[4]),
              ElementsAre("1", "ssd", "0.50000", "osd.1", "destroyed", "0.50000", "0.25000"));
  // osd.2 does not exist: DNE and reweight 0, no primary affinity.
  EXPECT_THAT(Tokens(lines[6]), ElementsAre("2", "hdd", "1.00000", "osd.2", "DNE", "0"));
  // osd.3 exists, is down and out: reweight prints as "0".
  EXPECT_THAT(Tokens(lines[7]),
              ElementsAre("3", "ssd", "0.50000", "osd.3", "down", "0", "1.00000"));
  // TYPE NAME starts at column 20 (2+2+5+2+7+2); depth 2 indents by 8.
  EXPECT_EQ(lines[3].find("osd.0"), 28u);
  // The stray OSD comes last at depth 0 with weight 0; osd.9 (absent) not at all.
  EXPECT_THAT(Tokens(lines[14]), ElementsAre("8", "0", "osd.8", "up", "1.00000", "1.00000"));
}

TEST(OsdTreeTest, JsonStrayAndDestroyed) {
  auto tree = FormatOsdTreeJson(FourHosts());
  ASSERT_THAT(tree.status(), crush_testing::IsOk());
  EXPECT_THAT(*tree, ::testing::HasSubstr(
                         "{\"id\":1,\"device_class\":\"ssd\",\"name\":\"osd.1\",\"type\":\"osd\","
                         "\"type_id\":0,\"crush_weight\":0.5,\"depth\":2,\"pool_weights\":{},"
                         "\"exists\":1,\"status\":\"destroyed\",\"reweight\":0.5,"
                         "\"primary_affinity\":0.25}"));
  EXPECT_THAT(*tree, ::testing::EndsWith(
                         "\"stray\":[{\"id\":8,\"name\":\"osd.8\",\"type\":\"osd\",\"type_id\":0,"
                         "\"crush_weight\":0,\"depth\":0,\"exists\":1,\"status\":\"up\","
                         "\"reweight\":1,\"primary_affinity\":1}]}\n"));
}

// Names go through JSONFormatter's json_stream_escaper: Pacific's
// osdmaptool --tree=json prints a host "h/0\r" as "h/0\u000d" ('/' and
// '\r' have no short escape there).
TEST(OsdTreeTest, JsonEscapesNamesAsJsonFormatter) {
  ClusterState st = FourHosts();
  st.crush.item_names[-2] = "h/0\r";
  auto tree = FormatOsdTreeJson(st);
  ASSERT_THAT(tree.status(), crush_testing::IsOk());
  EXPECT_THAT(*tree, ::testing::HasSubstr("\"name\":\"h/0\\u000d\""));
}

TEST(OsdTreeTest, WeightFormat) {
  EXPECT_EQ(FormatWeightF(1.0F), "1.00000");
  EXPECT_EQ(FormatWeightF(0.29998779296875F), "0.29999");
  EXPECT_EQ(FormatWeightF(0.0F), "0");
  EXPECT_EQ(FormatWeightF(-0.005F), "0");  // between -0.01 and 0.000001
  EXPECT_EQ(FormatWeightF(-1.0F), "-");
}

}  // namespace
}  // namespace crushkit::osdmap
