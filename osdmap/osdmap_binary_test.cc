// The binary OSDMap codec: byte-identical round trips of maps Ceph's
// osdmaptool (16.2, Reef, Tentacle) writes, generated here when the oracle
// is installed and committed under tests/golden/osdmap_binary/ otherwise;
// the ClusterState it yields against `crushkit import` of the same map's
// JSON dump; and totality (truncations, byte flips, huge counts, crc).
#include "osdmap/osdmap_binary.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "osdmap/crc32c.h"
#include "osdmap/import.h"
#include "osdmap/osdmap_binary_state.h"
#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace crushkit::osdmap {
namespace {

using ::testing::HasSubstr;

std::string GoldenDir() { return crush_testing::SourceDir() + "/tests/golden/osdmap_binary"; }

const std::vector<std::string>& GoldenMaps() {
  static const std::vector<std::string> kMaps = {"pacific-nopool.osdmap", "pacific-upmap.osdmap",
                                                 "reef-simple.osdmap", "tentacle-simple.osdmap"};
  return kMaps;
}

std::string RunShell(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

void PutCrc(std::string* bytes) {
  const std::uint32_t crc = Crc32c(0xffffffffu, std::string_view(*bytes).substr(0, bytes->size() - 4));
  for (std::size_t k = 0; k < 4; ++k) (*bytes)[bytes->size() - 4 + k] = static_cast<char>((crc >> (8 * k)) & 0xff);
}

void ExpectRoundTrip(const std::string& bytes, const std::string& what) {
  auto map = DecodeOsdMap(bytes);
  ASSERT_THAT(map.status(), crush_testing::IsOk()) << what;
  EXPECT_TRUE(EncodeOsdMap(*map) == bytes) << what << ": re-encoding differs";
  auto state = ClusterStateFromOsdMap(*map);
  EXPECT_THAT(state.status(), crush_testing::IsOk()) << what;
}

TEST(OsdMapBinaryTest, CommittedMapsRoundTrip) {
  for (const std::string& name : GoldenMaps()) {
    const std::string bytes = crush_testing::ReadFileOrEmpty(GoldenDir() + "/" + name);
    ASSERT_FALSE(bytes.empty()) << name;
    ExpectRoundTrip(bytes, name);
  }
}

TEST(OsdMapBinaryTest, DecodesPacificUpmapMap) {
  auto map = DecodeOsdMap(crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-upmap.osdmap"));
  ASSERT_THAT(map.status(), crush_testing::IsOk());
  EXPECT_EQ(map->client.v, 9);
  EXPECT_EQ(map->osd.v, 9);
  EXPECT_EQ(map->epoch, 5u);
  EXPECT_EQ(map->max_osd, 6);
  ASSERT_EQ(map->pools.count(1), 1u);
  const binary::BinaryPool& pool = map->pools.at(1);
  EXPECT_EQ(pool.frame.v, 29);
  EXPECT_EQ(pool.size, 3);
  EXPECT_EQ(pool.min_size, 2);
  EXPECT_EQ(pool.pg_num, 48u);
  EXPECT_EQ(pool.pg_autoscale_mode, 2);
  EXPECT_EQ(map->pool_name.at(1), "rbd");
  EXPECT_EQ(map->erasure_code_profiles.at("default").at("plugin"), "jerasure");
  EXPECT_EQ(map->pg_upmap_items.size(), 3u);
  const auto it = map->pg_upmap_items.find(PgId{1, 0x12});
  ASSERT_NE(it, map->pg_upmap_items.end());
  EXPECT_EQ(it->second, (std::vector<std::pair<std::int32_t, std::int32_t>>{{1, 0}}));
  EXPECT_EQ(map->osd_weight[5], 0u);  // --mark-out 5
  EXPECT_EQ(map->osd_weight[0], 0x10000u);
  EXPECT_EQ(map->osd_state[0], 3u);  // exists, up
}

TEST(OsdMapBinaryTest, TentaclePoolAndClientVersions) {
  auto map = DecodeOsdMap(crush_testing::ReadFileOrEmpty(GoldenDir() + "/tentacle-simple.osdmap"));
  ASSERT_THAT(map.status(), crush_testing::IsOk());
  EXPECT_EQ(map->client.v, 10);
  EXPECT_GE(map->pools.at(1).frame.v, 29);
}

TEST(OsdMapBinaryTest, EveryTruncationFailsCleanly) {
  for (const std::string& name : GoldenMaps()) {
    const std::string bytes = crush_testing::ReadFileOrEmpty(GoldenDir() + "/" + name);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      auto map = DecodeOsdMap(std::string_view(bytes).substr(0, n));
      ASSERT_FALSE(map.ok()) << name << " cut at " << n;
    }
  }
}

TEST(OsdMapBinaryTest, TruncationNamesOffsetAndField) {
  const std::string bytes = crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-nopool.osdmap");
  // The wrapper's length then exceeds what remains.
  EXPECT_THAT(DecodeOsdMap(std::string_view(bytes).substr(0, 20)).status(),
              crush_testing::StatusIs(absl::StatusCode::kDataLoss, HasSubstr("osdmap wrapper length")));
}

TEST(OsdMapBinaryTest, ByteFlipsNeverCrashAndReencodeStably) {
  const std::string base = crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-upmap.osdmap");
  std::uint32_t x = 12345;
  int decoded = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string bytes = base;
    x = x * 1103515245u + 12345u;
    const std::size_t at = (x >> 8) % (bytes.size() - 4);
    bytes[at] = static_cast<char>(bytes[at] ^ static_cast<char>(1 + (x >> 24) % 255));
    if (i % 2 == 0) PutCrc(&bytes);  // half reach the decoder's body checks
    auto map = DecodeOsdMap(bytes);
    if (!map.ok()) continue;
    ++decoded;
    const std::string again = EncodeOsdMap(*map);
    auto map2 = DecodeOsdMap(again);
    ASSERT_THAT(map2.status(), crush_testing::IsOk()) << "flip at " << at;
    EXPECT_TRUE(EncodeOsdMap(*map2) == again) << "flip at " << at;
    (void)ClusterStateFromOsdMap(*map);
  }
  EXPECT_GT(decoded, 0);
}

TEST(OsdMapBinaryTest, BadCrcIsDataLoss) {
  std::string bytes = crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-nopool.osdmap");
  bytes[bytes.size() - 1] = static_cast<char>(bytes[bytes.size() - 1] ^ 1);
  EXPECT_THAT(DecodeOsdMap(bytes).status(),
              crush_testing::StatusIs(absl::StatusCode::kDataLoss, HasSubstr("bad crc")));
}

TEST(OsdMapBinaryTest, HugeCountRejectedBeforeAllocation) {
  std::string bytes = crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-nopool.osdmap");
  // The pools count sits at 0x30 (after fsid, epoch, created, modified).
  for (std::size_t k = 0; k < 4; ++k) bytes[0x30 + k] = '\xff';
  PutCrc(&bytes);
  EXPECT_THAT(DecodeOsdMap(bytes).status(),
              crush_testing::StatusIs(absl::StatusCode::kDataLoss, HasSubstr("count 4294967295 of pools at offset 48")));
}

TEST(OsdMapBinaryTest, GarbageAndTrailingBytes) {
  EXPECT_THAT(DecodeOsdMap("").status(), crush_testing::StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(DecodeOsdMap("\x05\x01").status(), crush_testing::StatusIs(absl::StatusCode::kUnimplemented));
  std::string bytes = crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-nopool.osdmap");
  EXPECT_THAT(DecodeOsdMap(bytes + "x").status(),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 bytes after the end")));
}

TEST(OsdMapBinaryTest, UnknownTrailingFieldsAreKept) {
  // A newer writer's extra field in the OSD section: Ceph skips it by
  // struct_len; so do we, and it re-encodes.
  auto map = DecodeOsdMap(crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-nopool.osdmap"));
  ASSERT_THAT(map.status(), crush_testing::IsOk());
  map->osd.tail = "new!";
  map->osd.v = 13;
  map->pools.clear();
  const std::string bytes = EncodeOsdMap(*map);
  auto back = DecodeOsdMap(bytes);
  ASSERT_THAT(back.status(), crush_testing::IsOk());
  EXPECT_EQ(back->osd.tail, "new!");
  EXPECT_TRUE(EncodeOsdMap(*back) == bytes);
}

TEST(OsdMapBinaryTest, ApplyClusterStateWritesUpmapsAndWeights) {
  auto map = DecodeOsdMap(crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-upmap.osdmap"));
  ASSERT_THAT(map.status(), crush_testing::IsOk());
  auto state = ClusterStateFromOsdMap(*map);
  ASSERT_THAT(state.status(), crush_testing::IsOk());
  state->pg_upmap_items.erase(PgId{1, 0x12});
  state->pg_upmap[PgId{1, 3}] = {0, 2, 4};
  state->osds[2].weight = 0x8000;
  state->osds[4].primary_affinity = 0x4000;
  ASSERT_THAT(ApplyClusterState(*state, &*map), crush_testing::IsOk());
  auto back = DecodeOsdMap(EncodeOsdMap(*map));
  ASSERT_THAT(back.status(), crush_testing::IsOk());
  auto state2 = ClusterStateFromOsdMap(*back);
  ASSERT_THAT(state2.status(), crush_testing::IsOk());
  EXPECT_EQ(*state2, *state);
}

// Maps each installed osdmaptool writes, in several shapes.
struct Oracle {
  const char* name;
  std::string path;
};

std::vector<Oracle> Oracles() {
  return {{"pacific", crush_testing::OraclePath("osdmaptool")},
          {"reef", "/opt/ceph-oracles/bin/osdmaptool-reef"},
          {"tentacle", "/opt/ceph-oracles/bin/osdmaptool-tentacle"}};
}

class OracleMapsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CRUSH_TEST_NEEDS_ORACLE("osdmaptool");
    CRUSH_TEST_NEEDS_ORACLE("crushtool");
    env_ = "CEPH_ARGS=--crash_dir=" + dir_.path() + " timeout 60 ";
    crush_ = dir_.path() + "/cm";
    RunShell(env_ + crush_testing::OraclePath("crushtool") + " --build --num_osds 12 host straw2 3 rack straw2 2 "
             "root straw2 0 -o " + crush_ + " >/dev/null 2>&1");
  }

  // Runs `tool` with `args` (the map path substituted for {}).
  void Run(const std::string& tool, const std::string& map, const std::string& args) {
    std::string a = args;
    for (std::size_t at = a.find("{}"); at != std::string::npos; at = a.find("{}")) a.replace(at, 2, map);
    RunShell(env_ + tool + " " + a + " >/dev/null 2>&1");
  }

  // The shapes: no pool; default pool; imported crush map with marks,
  // weights and balancer upmaps.
  std::vector<std::string> MakeMaps(const Oracle& o) {
    std::vector<std::string> maps;
    const std::string base = dir_.path() + "/" + o.name;
    Run(o.path, base + ".a", "--createsimple 5 {} --clobber");
    maps.push_back(base + ".a");
    Run(o.path, base + ".b", "--createsimple 12 --with-default-pool {} --clobber");
    maps.push_back(base + ".b");
    const std::string c = base + ".c";
    Run(o.path, c, "--createsimple 12 --with-default-pool --pg-bits 4 {} --clobber");
    Run(o.path, c, "{} --import-crush " + crush_);
    Run(o.path, c, "{} --mark-up-in --mark-out 3 --adjust-crush-weight 0:2.5,7:0.5 --save");
    Run(o.path, c, "{} --mark-up-in --upmap " + c + ".up --upmap-deviation 1 --save");
    maps.push_back(c);
    return maps;
  }

  crush_testing::TempDir dir_{"osdmap_binary_test"};
  std::string env_;
  std::string crush_;
};

TEST_F(OracleMapsTest, EveryReleaseRoundTripsByteIdentically) {
  for (const Oracle& o : Oracles()) {
    if (::access(o.path.c_str(), X_OK) != 0) {
      if (crush_testing::OracleRequired()) ADD_FAILURE() << o.path << " not installed";
      continue;
    }
    for (const std::string& path : MakeMaps(o)) {
      const std::string bytes = crush_testing::ReadFileOrEmpty(path);
      ASSERT_FALSE(bytes.empty()) << path;
      ExpectRoundTrip(bytes, path);
    }
  }
}

TEST_F(OracleMapsTest, StateEqualsImportOfTheJsonDump) {
  for (const Oracle& o : Oracles()) {
    if (::access(o.path.c_str(), X_OK) != 0) continue;
    for (const std::string& path : MakeMaps(o)) {
      const std::string json = RunShell(env_ + o.path + " " + path + " --dump json 2>/dev/null");
      RunShell(env_ + o.path + " " + path + " --export-crush " + path + ".crush >/dev/null 2>&1");
      auto want = ImportCephOsdDump(json, crush_testing::ReadFileOrEmpty(path + ".crush"));
      ASSERT_THAT(want.status(), crush_testing::IsOk()) << path;
      auto map = DecodeOsdMap(crush_testing::ReadFileOrEmpty(path));
      ASSERT_THAT(map.status(), crush_testing::IsOk()) << path;
      auto got = ClusterStateFromOsdMap(*map);
      ASSERT_THAT(got.status(), crush_testing::IsOk()) << path;
      EXPECT_EQ(*got, *want) << path;
    }
  }
}

}  // namespace
}  // namespace crushkit::osdmap
