// osdmaptool's option loop: Ceph's spellings, the shared value of string
// options, the error buffer only some integer options print, and what is
// left over.
#include "tools/osdmaptool/options.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crushkit::tools::osdmaptool {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

ParseResult Parse(std::vector<std::string> argv) { return ParseCommandLine(argv); }

TEST(OsdmaptoolOptionsTest, DashesAndUnderscoresAndEqualsAreOneSpelling) {
  const ParseResult r = Parse({"om", "--test_map_pgs", "--pool=2", "--mark-out", "3",
                               "--export-crush", "c.bin", "--range-first", "1"});
  ASSERT_FALSE(r.stop) << r.err;
  const OsdmaptoolOptions& o = r.command.actions;
  EXPECT_TRUE(o.test_map_pgs);
  EXPECT_EQ(o.pool, 2);
  EXPECT_EQ(o.mark_out, 3);
  EXPECT_EQ(o.export_crush_path, "c.bin");
  EXPECT_EQ(r.command.range_first, 1);
  EXPECT_THAT(r.command.positional, ElementsAre("om"));
}

TEST(OsdmaptoolOptionsTest, TrailingTreeReusesTheLastStringValue) {
  // osdmaptool keeps one `val`: a last "--tree" with nothing after it keeps
  // "json" from the previous string option.
  ParseResult r = Parse({"om", "--adjust-crush-weight", "json", "--tree"});
  ASSERT_FALSE(r.stop) << r.err;
  EXPECT_TRUE(r.command.actions.tree);
  EXPECT_TRUE(r.command.actions.tree_json);
  r = Parse({"om", "--tree", "plain"});
  EXPECT_TRUE(r.command.actions.tree);
  EXPECT_FALSE(r.command.actions.tree_json);
  r = Parse({"om", "--tree", "json", "--tree=plain"});
  EXPECT_TRUE(r.command.actions.tree_json);  // a formatter, once made, stays
}

TEST(OsdmaptoolOptionsTest, ALaterTreeFormatReplacesTheFormatter) {
  ParseResult r = Parse({"om", "--tree", "json-pretty", "--tree", "xml"});
  ASSERT_FALSE(r.stop) << r.err;
  EXPECT_FALSE(r.command.actions.tree_json);
  EXPECT_EQ(r.command.actions.tree_format, "xml");
  r = Parse({"om", "--tree=table-kv", "--tree", "json"});
  EXPECT_TRUE(r.command.actions.tree_json);
  EXPECT_FALSE(r.command.actions.tree_json_pretty);
  EXPECT_EQ(r.command.actions.tree_format, "");
  r = Parse({"om", "--tree", "json-pretty", "--tree", "json"});
  EXPECT_FALSE(r.command.actions.tree_json_pretty);  // compact json replaces pretty
  r = Parse({"om", "--tree", "html", "--tree=plain"});
  EXPECT_EQ(r.command.actions.tree_format, "html");
}

TEST(OsdmaptoolOptionsTest, PoolErrorsArePrintedAndStop) {
  ParseResult r = Parse({"om", "--pool", "abc"});
  EXPECT_TRUE(r.stop);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "The option value 'abc' is invalid\n");
  // --range-first's error stays in the buffer until --pool prints it.
  r = Parse({"om", "--range-first", "x", "--pool", "1"});
  EXPECT_TRUE(r.stop);
  EXPECT_EQ(r.err, "The option value 'x' is invalid\n");
  r = Parse({"om", "--range-first", "x"});
  EXPECT_FALSE(r.stop) << r.err;
}

TEST(OsdmaptoolOptionsTest, PgNumIsStrict) {
  const ParseResult r = Parse({"om", "--pg_num", "12x"});
  EXPECT_TRUE(r.stop);
  EXPECT_EQ(r.err, "error parsing integer value strict_strtoll: expected integer, got: '12x'\n");
}

TEST(OsdmaptoolOptionsTest, FileCountIsChecked) {
  ParseResult r = Parse({"--test-map-pgs"});
  EXPECT_TRUE(r.stop);
  EXPECT_TRUE(r.print_usage);
  EXPECT_EQ(r.err, "osdmaptool: must specify osdmap filename\n");
  r = Parse({"a", "b"});
  EXPECT_TRUE(r.stop);
  EXPECT_EQ(r.err, "osdmaptool: too many arguments\n");
  r = Parse({"om", "--upmap-deviation", "0"});
  EXPECT_EQ(r.err, "osdmaptool: upmap-deviation must be >= 1\n");
  r = Parse({"om", "--", "-weird-name"});
  EXPECT_EQ(r.err, "osdmaptool: too many arguments\n");
  r = Parse({"--", "-weird-name"});
  EXPECT_FALSE(r.stop) << r.err;
  EXPECT_THAT(r.command.positional, ElementsAre("-weird-name"));
}

TEST(OsdmaptoolOptionsTest, MissingValuesAndUnknownOptionsAreReported) {
  // Without an error stream Ceph exits 1 right there (osdmaptool 16.2).
  ParseResult r = Parse({"om", "--import-crush"});
  EXPECT_TRUE(r.stop);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Option --import-crush requires an argument.\n");
  r = Parse({"om", "--upmap-cleanup"});
  EXPECT_TRUE(r.stop);
  EXPECT_EQ(r.err, "Option --upmap-cleanup requires an argument.\n");
  r = Parse({"om", "--frobnicate"});
  EXPECT_TRUE(r.stop);
  EXPECT_THAT(r.err, HasSubstr("unrecognized option '--frobnicate'"));
  r = Parse({"om", "--mark-out", "x"});
  EXPECT_TRUE(r.stop);
  EXPECT_THAT(r.err, HasSubstr("invalid osd id 'x'"));
}

TEST(OsdmaptoolOptionsTest, UpmapFlagsAndTestCrushAreParsed) {
  const ParseResult r = Parse({"om", "--health", "--upmap", "out.txt", "--upmap-max", "3",
                               "--upmap-active", "--test-crush"});
  ASSERT_FALSE(r.stop) << r.err;
  EXPECT_TRUE(r.command.actions.upmap_active);
  EXPECT_TRUE(r.command.map.health);
  EXPECT_TRUE(r.command.actions.test_crush);
  EXPECT_TRUE(r.command.actions.upmap);
  EXPECT_EQ(r.command.actions.upmap_cleanup_path, "out.txt");
  EXPECT_EQ(r.command.actions.upmap_max, 3);
  const ParseResult u = Parse({"om", "--upmap-cleanup", "a.txt", "--upmap", "-", "--upmap-pool",
                               "rbd", "--upmap-pool", "data", "--upmap-deviation", "2"});
  ASSERT_FALSE(u.stop) << u.err;
  EXPECT_EQ(u.command.actions.upmap_cleanup_path, "-");
  EXPECT_EQ(u.command.actions.upmap_deviation, 2);
  EXPECT_THAT(u.command.actions.upmap_pools, ElementsAre("data", "rbd"));
  const ParseResult bad = Parse({"om", "--createsimple", "x"});
  EXPECT_TRUE(bad.stop);
  EXPECT_EQ(bad.err, "The option value 'x' is invalid\n");
}

TEST(OsdmaptoolOptionsTest, CreateAndPrintOptions) {
  const ParseResult r =
      Parse({"--osd_pool_default_size", "2", "--createsimple", "4", "om", "--pg_bits", "3",
             "--pgp-bits", "2", "--with-default-pool", "--clobber", "--dump", "plain",
             "--osd_calc_pg_upmaps_aggressively=false", "-c", "x.conf"});
  ASSERT_FALSE(r.stop) << r.err;
  EXPECT_THAT(r.command.positional, ElementsAre("om"));
  const MapOptions& m = r.command.map;
  EXPECT_TRUE(m.create_simple);
  EXPECT_EQ(m.num_osd, 4);
  EXPECT_EQ(m.pool_default_size, 2);
  EXPECT_EQ(m.pg_bits, 3);
  EXPECT_EQ(m.pgp_bits, 2);
  EXPECT_TRUE(m.with_default_pool);
  EXPECT_TRUE(m.clobber);
  EXPECT_TRUE(m.print);
  EXPECT_EQ(m.dump_format, "");
  EXPECT_EQ(m.conf_path, "x.conf");
  const ParseResult j = Parse({"om", "--dump", "json-pretty", "--create-from-conf"});
  ASSERT_FALSE(j.stop) << j.err;
  EXPECT_EQ(j.command.map.dump_format, "json-pretty");
  EXPECT_TRUE(j.command.map.create_from_conf);
}

TEST(OsdmaptoolOptionsTest, HelpStopsWithUsage) {
  const ParseResult r = Parse({"om", "--help"});
  EXPECT_TRUE(r.stop);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.print_usage);
  EXPECT_TRUE(r.err.empty());
}

}  // namespace
}  // namespace crushkit::tools::osdmaptool
