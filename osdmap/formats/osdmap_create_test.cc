// osdmap_create.h, ceph_conf.h and osdmap_print.h without an oracle: the
// structure osdmaptool 16.2 builds (checked byte for byte against it in
// tools/osdmaptool/create_test.cc), the empty map of --clobber against the
// bytes osdmaptool wrote (tests/golden/osdmaptool_clobber) and the text
// --print gives for them.
#include "osdmap/formats/osdmap_create.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

#include "osdmap/formats/ceph_conf.h"
#include "osdmap/formats/osdmap_binary.h"
#include "osdmap/formats/osdmap_print.h"
#include "tests/testing/paths.h"

namespace crushkit::osdmap {
namespace {

TEST(CreateOsdMapTest, CreateSimpleWithPoolIsOsdmaptoolsLayout) {
  CreateOsdMapOptions o;
  o.num_osd = 3;
  o.with_default_pool = true;
  auto m = CreateOsdMap(o);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->epoch, 0u);
  EXPECT_EQ(m->max_osd, 3);
  EXPECT_EQ(m->pool_max, 1);
  ASSERT_EQ(m->pools.count(1), 1u);
  const binary::BinaryPool& p = m->pools.at(1);
  EXPECT_EQ(p.pg_num, 3u << 6);
  EXPECT_EQ(p.pgp_num, 3u << 6);
  EXPECT_EQ(p.size, 3);
  EXPECT_EQ(p.min_size, 2);
  // root default (-1) first, then host localhost (-2), rack localrack (-3);
  // crush_add_bucket's slot array starts at 8.
  EXPECT_EQ(m->crush.buckets.size(), 8u);
  EXPECT_EQ(m->crush.item_names.at(-1), "default");
  EXPECT_EQ(m->crush.item_names.at(-2), "localhost");
  EXPECT_EQ(m->crush.item_names.at(-3), "localrack");
  EXPECT_EQ(m->crush.buckets[1].items, (std::vector<crush::ItemId>{0, 1, 2}));
  EXPECT_EQ(m->crush.buckets[0].weight, 3 * 0x10000u);
  // The encoding decodes back to the same map.
  auto back = DecodeOsdMap(EncodeOsdMap(*m));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->crush_bytes, m->crush_bytes);
  EXPECT_TRUE(back->pools == m->pools);
}

TEST(CreateOsdMapTest, PgpBitsAreCappedByPgBits) {
  CreateOsdMapOptions o;
  o.num_osd = 5;
  o.pg_bits = 3;
  o.pgp_bits = 9;
  o.with_default_pool = true;
  auto m = CreateOsdMap(o);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->pools.at(1).pg_num, 40u);
  EXPECT_EQ(m->pools.at(1).pgp_num, 40u);
}

TEST(CreateOsdMapTest, RejectsNoOsds) {
  CreateOsdMapOptions o;
  EXPECT_EQ(CreateOsdMap(o).status().code(), absl::StatusCode::kInvalidArgument);
}

// What osdmaptool 16.2 wrote from its default-constructed map
// (tests/golden/osdmaptool_clobber/expected).
std::string ClobberGolden(const std::string& name) {
  return crush_testing::ReadFileOrEmpty(crush_testing::SourceDir() +
                                        "/tests/golden/osdmaptool_clobber/expected/" + name);
}

TEST(EmptyOsdMapTest, CrushMapIsADefaultCrushWrapper) {
  // `osdmaptool x --clobber --export-crush out.crush`: no devices, types,
  // buckets or rules; jewel tunables, straw_calc_version 1.
  const std::string exported = ClobberGolden("export-crush.out.crush");
  ASSERT_EQ(exported.size(), 67u);
  EXPECT_TRUE(EmptyOsdMap().crush_bytes == exported);
}

TEST(EmptyOsdMapTest, EncodesAsOsdmaptoolWritesIt) {
  // `osdmaptool x --clobber --adjust-crush-weight 0:1 --save`: the adjust
  // finds no osd.0 and the incremental changes nothing, so the map written
  // is the default map at epoch 2 (the incremental, then inc_epoch).
  const std::string written = ClobberGolden("adjust-crush-weight-save.x.om");
  ASSERT_EQ(written.size(), 275u);
  OsdMapBinary m = EmptyOsdMap();
  m.epoch = 2;
  EXPECT_TRUE(EncodeOsdMap(m) == written);
  auto back = DecodeOsdMap(written);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->pool_max, 0);
  EXPECT_EQ(back->crush_version, 1u);
  EXPECT_TRUE(back->crush_bytes == EmptyOsdMap().crush_bytes);
}

TEST(EmptyOsdMapTest, PrintsAsOsdmaptool) {
  const OsdMapBinary m = EmptyOsdMap();
  EXPECT_EQ(m.epoch, 0u);
  EXPECT_EQ(m.max_osd, 0);
  EXPECT_EQ(m.pool_max, 0);
  EXPECT_EQ(m.crush_version, 1u);
  auto text = FormatOsdMapPlain(m);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "epoch 0\nfsid 00000000-0000-0000-0000-000000000000\ncreated 0.000000\n"
            "modified 0.000000\nflags \ncrush_version 1\nfull_ratio 0\nbackfillfull_ratio 0\n"
            "nearfull_ratio 0\nmin_compat_client jewel\nstretch_mode_enabled false\n\n\n"
            "max_osd 0\n\n");
}

TEST(CephConfTest, SectionsInLexicographicOrderWithOsdSectionFirst) {
  auto l = OsdLocationsFromConf(
      "[global]\n fsid = x\n[osd.10]\n host = h2 ; comment\n rack = r1\n"
      "[osd.2]\n host = \"h0\"\n[osd.x]\n host = no\n[osd.0]\n host = h0\n rack = r0\n row = "
      "rowA\n");
  ASSERT_TRUE(l.ok()) << l.status();
  ASSERT_EQ(l->size(), 3u);
  EXPECT_EQ((*l)[0].id, 0);
  EXPECT_EQ((*l)[0].row, "rowA");
  EXPECT_EQ((*l)[1].id, 10);
  EXPECT_EQ((*l)[1].host, "h2");
  EXPECT_EQ((*l)[2].id, 2);
  EXPECT_EQ((*l)[2].host, "h0");
  EXPECT_EQ((*l)[2].rack, "");
}

TEST(CreateOsdMapTest, FromConfReusesExistingBuckets) {
  CreateOsdMapOptions o;
  o.from_conf = true;
  o.locations = {
      {0, "h0", "r0", "", "", ""}, {1, "h1", "r0", "", "", ""}, {2, "h2", "", "", "", ""}};
  auto m = CreateOsdMap(o);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->crush.item_names.at(-2), "h0");
  EXPECT_EQ(m->crush.item_names.at(-3), "r0");
  EXPECT_EQ(m->crush.item_names.at(-4), "h1");
  EXPECT_EQ(m->crush.item_names.at(-5), "h2");
  EXPECT_EQ(m->crush.item_names.at(-6), "unknownrack");
  EXPECT_EQ(m->crush.buckets[2].items, (std::vector<crush::ItemId>{-2, -4}));
}

TEST(OsdMapPrintTest, CreatedMapPrintsAsOsdmaptool) {
  ::setenv("TZ", "UTC", 1);
  CreateOsdMapOptions o;
  o.num_osd = 3;
  o.with_default_pool = true;
  o.now = {1764988800, 123456789};  // 2025-12-06T02:40:00Z
  auto m = CreateOsdMap(o);
  ASSERT_TRUE(m.ok());
  m->epoch = 1;
  auto text = FormatOsdMapPlain(*m);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(
      *text,
      "epoch 1\nfsid 00000000-0000-0000-0000-000000000000\n"
      "created 2025-12-06T02:40:00.123456+0000\nmodified 2025-12-06T02:40:00.123456+0000\n"
      "flags \ncrush_version 1\nfull_ratio 0\nbackfillfull_ratio 0\nnearfull_ratio 0\n"
      "min_compat_client jewel\nstretch_mode_enabled false\n\n"
      "pool 1 'rbd' replicated size 3 min_size 2 crush_rule 0 object_hash rjenkins pg_num 192 "
      "pgp_num 192 autoscale_mode on last_change 0 flags hashpspool stripe_width 0 "
      "application rbd\n\nmax_osd 3\n\n");
}

TEST(OsdMapPrintTest, SmallStampsPrintAsSeconds) {
  EXPECT_EQ(FormatUtime({0, 0}), "0.000000");
  EXPECT_EQ(FormatUtime({12, 5000}), "12.000005");
}

// OSDMap::get_min_compat_client: choose_args are incompatible before
// luminous unless they are one compat (-1) set whose buckets have one
// weight-set position and no substitute ids (CrushWrapper::
// has_incompat_choose_args).
TEST(OsdMapPrintTest, MinCompatClientCountsChooseArgIdsAsIncompatible) {
  OsdMapBinary m;
  m.crush.tunables = crush::TunablesFor(crush::TunablesProfile::kJewel);
  EXPECT_EQ(MinCompatClient(m), "jewel");
  crush::ChooseArg arg;
  arg.weight_set = {{0x10000, 0x20000}};
  m.crush.choose_args[crush::kCompatChooseArgs][-1] = arg;
  EXPECT_EQ(MinCompatClient(m), "jewel");  // one compat position: still compatible
  m.crush.choose_args[crush::kCompatChooseArgs][-2] = crush::ChooseArg{};
  EXPECT_EQ(MinCompatClient(m), "jewel");  // an empty override is skipped
  arg.ids = {5, -7};
  m.crush.choose_args[crush::kCompatChooseArgs][-1] = arg;
  EXPECT_EQ(MinCompatClient(m), "luminous");
  arg.ids.clear();
  arg.weight_set.push_back({0x10000, 0x10000});
  m.crush.choose_args[crush::kCompatChooseArgs][-1] = arg;
  EXPECT_EQ(MinCompatClient(m), "luminous");  // two positions
  m.crush.choose_args.clear();
  m.crush.choose_args[3][-1] = crush::ChooseArg{{{0x10000, 0x10000}}, {}};
  EXPECT_EQ(MinCompatClient(m), "luminous");  // a per-pool set
}

}  // namespace
}  // namespace crushkit::osdmap
