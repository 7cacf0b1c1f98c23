// The binary OSDMap codec: byte-identical round trips of maps Ceph's
// osdmaptool (16.2, Reef, Tentacle) writes, generated here when the oracle
// is installed and committed under tests/golden/osdmap_binary/ otherwise;
// the ClusterState it yields against `crushkit import` of the same map's
// JSON dump; and totality (truncations, byte flips, huge counts, crc).
#include "osdmap/formats/osdmap_binary.h"

#include <unistd.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/codec.h"
#include "osdmap/formats/crc32c.h"
#include "osdmap/formats/import.h"
#include "osdmap/formats/osdmap_binary_save.h"
#include "osdmap/formats/osdmap_binary_state.h"
#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/run_shell.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

// The largest single allocation since the counter was reset: this binary's
// operator new records it, so tests can bound what decoding allocates.
namespace {
std::size_t g_largest_allocation = 0;
}  // namespace

void* operator new(std::size_t n) {
  if (n > g_largest_allocation) g_largest_allocation = n;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}

// GCC pairs the inlined `new` expressions with these and warns about free().
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void operator delete(void* p) noexcept { std::free(p); }

void operator delete(void* p, std::size_t) noexcept { std::free(p); }

// The nothrow forms too (std::stable_sort's buffer): left to the runtime they
// would pair its allocation with the free() above (ASan: alloc-dealloc
// mismatch).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (n > g_largest_allocation) g_largest_allocation = n;
  return std::malloc(n == 0 ? 1 : n);
}

void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

#pragma GCC diagnostic pop

namespace crushkit::osdmap {
namespace {

using ::crush_testing::RunShell;
using ::testing::HasSubstr;

std::string GoldenDir() { return crush_testing::SourceDir() + "/tests/golden/osdmap_binary"; }

const std::vector<std::string>& GoldenMaps() {
  // pacific-every-field.osdmap: FullMap() below as osdmaptool 16.2 rewrote
  // it (--import-crush of its own crush map).
  static const std::vector<std::string> kMaps = {"pacific-nopool.osdmap", "pacific-upmap.osdmap",
                                                 "pacific-every-field.osdmap", "reef-simple.osdmap",
                                                 "tentacle-simple.osdmap"};
  return kMaps;
}

void PutCrc(std::string* bytes) {
  const std::uint32_t crc =
      Crc32c(0xffffffffu, std::string_view(*bytes).substr(0, bytes->size() - 4));
  for (std::size_t k = 0; k < 4; ++k)
    (*bytes)[bytes->size() - 4 + k] = static_cast<char>((crc >> (8 * k)) & 0xff);
}

void ExpectRoundTrip(const std::string& bytes, const std::string& what) {
  auto map = DecodeOsdMap(bytes);
  ASSERT_THAT(map.status(), crush_testing::IsOk()) << what;
  EXPECT_TRUE(EncodeOsdMap(*map) == bytes) << what << ": re-encoding differs";
  auto state = ClusterStateFromOsdMap(*map);
  EXPECT_THAT(state.status(), crush_testing::IsOk()) << what;
}

TEST(Crc32cTest, CheckValueAndSameAsPortableAtEveryLengthAndAlignment) {
  // RFC 3720's check value: CRC-32C("123456789") = 0xe3069283.
  EXPECT_EQ(Crc32c(0xffffffffu, "123456789") ^ 0xffffffffu, 0xe3069283u);
  EXPECT_EQ(Crc32cPortable(0xffffffffu, "123456789") ^ 0xffffffffu, 0xe3069283u);
  std::string buf(300, '\0');
  std::uint32_t x = 12345;
  for (char& c : buf) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  for (std::uint32_t seed : {0u, 0xffffffffu, 0x12345678u}) {
    for (std::size_t offset = 0; offset < 8; ++offset) {
      for (std::size_t len = 0; len + offset <= 80; ++len) {
        const std::string_view s = std::string_view(buf).substr(offset, len);
        ASSERT_EQ(Crc32c(seed, s), Crc32cPortable(seed, s)) << seed << " " << offset << " " << len;
      }
    }
    EXPECT_EQ(Crc32c(seed, buf), Crc32cPortable(seed, buf));
    // Chained over a split, as the osdmap trailer is checked.
    EXPECT_EQ(Crc32c(Crc32c(seed, std::string_view(buf).substr(0, 123)),
                     std::string_view(buf).substr(123)),
              Crc32cPortable(seed, buf));
  }
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

// Pacific and Reef read v30's four peering u32 where Tentacle wrote an
// optional: short pools are unreadable to them, stretch pools misread.
TEST(OsdMapBinaryTest, TentaclePoolsAsPacificAndReefReadThem) {
  auto map = DecodeOsdMap(crush_testing::ReadFileOrEmpty(GoldenDir() + "/tentacle-simple.osdmap"));
  ASSERT_THAT(map.status(), crush_testing::IsOk());
  ASSERT_GE(map->pools.at(1).frame.v, 31);
  OsdMapBinary as_tentacle = *map;
  EXPECT_THAT(ReadAsRelease(crush::CephRelease::kTentacle, &as_tentacle), crush_testing::IsOk());
  EXPECT_EQ(as_tentacle, *map);
  for (crush::CephRelease r : {crush::CephRelease::kPacific, crush::CephRelease::kReef}) {
    OsdMapBinary m = *map;
    const absl::Status st = ReadAsRelease(r, &m);
    EXPECT_THAT(st, crush_testing::StatusIs(absl::StatusCode::kDataLoss));
    EXPECT_THAT(std::string(st.message()), ::testing::HasSubstr("pool 1: pg_pool_t v"));
  }
  OsdMapBinary stretch = *map;
  stretch.pools.at(1).peering = binary::PeeringCrush{1, 2, 3, 4};
  ASSERT_THAT(ReadAsRelease(crush::CephRelease::kReef, &stretch), crush_testing::IsOk());
  // The flag byte 01, then 01 00 00 00 | 02 00 00 00 | ...: shifted by one.
  EXPECT_EQ(stretch.pools.at(1).peering, (binary::PeeringCrush{0x101, 0x200, 0x300, 0x400}));
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
  EXPECT_THAT(
      DecodeOsdMap(std::string_view(bytes).substr(0, 20)).status(),
      crush_testing::StatusIs(absl::StatusCode::kDataLoss,
                              HasSubstr("truncated: osdmap wrapper at offset 0 has length")));
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

TEST(OsdMapBinaryTest, ErrorsNameThePoolAndField) {
  std::string bytes = crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-upmap.osdmap");
  // Pool 1's pg_pool_t length (after the count and the s64 key at 0x30):
  // one byte more than the client section holds.
  for (std::size_t k = 0; k < 4; ++k) bytes[0x30 + 4 + 8 + 2 + k] = k == 3 ? '\x01' : '\0';
  PutCrc(&bytes);
  EXPECT_THAT(DecodeOsdMap(bytes).status(),
              crush_testing::StatusIs(
                  absl::StatusCode::kDataLoss,
                  HasSubstr("pool 1: truncated: pg_pool_t at offset 60 has length 16777216")));
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
              crush_testing::StatusIs(absl::StatusCode::kDataLoss,
                                      HasSubstr("count 4294967295 of pools at offset 48")));
}

TEST(OsdMapBinaryTest, NoCountAllocatesBeyondTheInput) {
  // Every u32 of the map set to 0xffffffff (crc refreshed): whether it was
  // a count, a length or a value, no single allocation during decoding may
  // exceed a small multiple of the input.
  const std::string base = crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-upmap.osdmap");
  ASSERT_FALSE(base.empty());
  for (std::size_t at = 0; at + 8 <= base.size(); ++at) {
    std::string bytes = base;
    for (std::size_t k = 0; k < 4; ++k) bytes[at + k] = '\xff';
    PutCrc(&bytes);
    g_largest_allocation = 0;
    auto map = DecodeOsdMap(bytes);
    EXPECT_LE(g_largest_allocation, 16 * bytes.size()) << "0xffffffff at offset " << at;
  }
}

TEST(OsdMapBinaryTest, GarbageAndTrailingBytes) {
  EXPECT_THAT(DecodeOsdMap("").status(),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(DecodeOsdMap("\x05\x01").status(),
              crush_testing::StatusIs(absl::StatusCode::kUnimplemented));
  std::string bytes = crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-nopool.osdmap");
  EXPECT_THAT(DecodeOsdMap(bytes + "x").status(),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("1 bytes after the end")));
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

TEST(OsdMapBinaryTest, NewerCrushTailGroupsAreKept) {
  auto map = DecodeOsdMap(crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-nopool.osdmap"));
  ASSERT_THAT(map.status(), crush_testing::IsOk());
  map->crush_bytes += std::string("\x07\x00\x00\x00\x01", 5);  // a future tail group
  const std::string bytes = EncodeOsdMap(*map);
  auto back = DecodeOsdMap(bytes);
  ASSERT_THAT(back.status(), crush_testing::IsOk());
  EXPECT_EQ(back->crush_bytes, map->crush_bytes);
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

// osdmaptool --test-map-pgs --pg_num N --save writes pg_num N (and
// pg_num_pending, as pg_pool_t::set_pg_num) into the saved map.
TEST(OsdMapBinaryTest, ApplyClusterStateWritesPgNumLikeSetPgNum) {
  auto map = DecodeOsdMap(crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-upmap.osdmap"));
  ASSERT_THAT(map.status(), crush_testing::IsOk());
  auto state = ClusterStateFromOsdMap(*map);
  ASSERT_THAT(state.status(), crush_testing::IsOk());
  ASSERT_FALSE(state->pools.empty());
  auto& [id, pool] = *state->pools.begin();
  pool.pg_num = 7;
  ASSERT_THAT(ApplyClusterState(*state, &*map), crush_testing::IsOk());
  EXPECT_EQ(map->pools.at(id).pg_num, 7u);
  EXPECT_EQ(map->pools.at(id).pg_num_pending, 7u);
}

// The state holds the crush map as Ceph re-encodes it after decoding, not
// the embedded bytes (here: a tail group newer than the codec is dropped).
TEST(OsdMapBinaryTest, StateCrushBytesAreTheReencodedModel) {
  auto map = DecodeOsdMap(crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-nopool.osdmap"));
  ASSERT_THAT(map.status(), crush_testing::IsOk());
  const std::string embedded = map->crush_bytes;
  map->crush_bytes += std::string("\x07\x00\x00\x00\x01", 5);
  auto state = ClusterStateFromOsdMap(*map);
  ASSERT_THAT(state.status(), crush_testing::IsOk());
  EXPECT_EQ(EncodeCrush(*state), crush::EncodeCrushMap(map->crush));
  EXPECT_EQ(EncodeCrush(*state), embedded);
}

// Every section and pool field populated, on top of a Pacific map: an
// erasure pool with snaps, tiers, options, a bloom hit set and metadata; a
// stretch pool (v30); temps, affinities, blocklists, stretch mode and a
// range blocklist (OSD section v11).
std::string LeBytes(std::uint64_t v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

// `v2:10.0.0.<last>:6800/<nonce>` in the msgr2 form.
std::string V2Addr(int last, std::uint32_t nonce, std::uint32_t type = 2) {
  return std::string("\x01\x01\x01", 3) + LeBytes(28, 4) + LeBytes(type, 4) + LeBytes(nonce, 4) +
         LeBytes(16, 4) + LeBytes(2, 2) + std::string("\x1a\x90\x0a\x00\x00", 5) +
         static_cast<char>(last) + std::string(8, '\0');
}

OsdMapBinary FullMap() {
  auto decoded =
      DecodeOsdMap(crush_testing::ReadFileOrEmpty(GoldenDir() + "/pacific-upmap.osdmap"));
  EXPECT_THAT(decoded.status(), crush_testing::IsOk());
  OsdMapBinary m = *decoded;
  m.fsid = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8};
  // sortbitwise, require_luminous_osds: Ceph's decode swaps the latter for
  // recovery_deletes and pglog_hardlimit (require_osd_release pacific).
  m.flags = (1u << 15) | (1u << 18);
  binary::BinaryPool ec = m.pools.at(1);
  ec.type = 3;
  ec.size = 4;
  ec.min_size = 3;
  ec.pg_num = ec.pgp_num = ec.pg_num_target = ec.pgp_num_target = ec.pg_num_pending = 16;
  ec.erasure_code_profile = "default";
  ec.stripe_width = 8192;
  ec.snap_seq = 3;
  ec.snap_epoch = 4;
  ec.flags |= 1u << 14;  // pool_snaps
  ec.snaps[2] = binary::PoolSnap{{2, 2, {}}, 2, {100, 5}, "before-upgrade"};
  ec.removed_snaps = {{1, 1}};
  ec.tiers = {7};
  ec.properties = {{"k", "v"}};
  ec.hit_set_params.type = 3;
  ec.hit_set_params.impl = std::string("\x01\x01", 2) + LeBytes(20, 4) + LeBytes(50000, 4) +
                           LeBytes(1000, 8) + LeBytes(9, 8);
  ec.hit_set_period = 3600;
  ec.hit_set_count = 4;
  ec.fast_read = 1;
  ec.opts.opts = {binary::PoolOpt{1, 1, "", 86400, 0}, binary::PoolOpt{6, 0, "aggressive", 0, 0},
                  binary::PoolOpt{8, 2, "", 0, 0x3fe8000000000000ull}};
  ec.application_metadata = {{"rgw", {{"x", "y"}}}};
  ec.create_time = {1700000000, 123456789};
  m.pools[2] = ec;
  m.pool_name[2] = "ecpool";
  binary::BinaryPool stretch = m.pools.at(1);
  stretch.frame.v = 30;
  stretch.peering = binary::PeeringCrush{2, 2, 1, 0x7fffffff};
  stretch.snap_seq = 5;  // no snap mode flag: Ceph's decode adds pool_snaps
  m.pools[3] = stretch;
  m.pool_name[3] = "stretched";
  m.pool_max = 3;
  m.erasure_code_profiles["default"]["k"] = "2";
  m.osd_primary_affinity.assign(static_cast<std::size_t>(m.max_osd), 0x10000);
  m.osd_primary_affinity[1] = 0x8000;
  m.pg_temp[PgId{1, 4}] = {0, 2, 4};
  m.primary_temp[PgId{1, 4}] = 2;
  m.pg_upmap[PgId{1, 6}] = {3, 4, 0};
  m.new_removed_snaps[2] = {{5, 2}};
  m.client_addrs[0] = std::string("\x02", 1) + LeBytes(1, 4) + V2Addr(1, 1000);
  m.cluster_addrs[0] =
      std::string("\x02", 1) + LeBytes(2, 4) + V2Addr(1, 1001) + V2Addr(1, 1001, 1);
  m.blocklist = LeBytes(2, 4) + V2Addr(9, 1) + LeBytes(1700000100, 4) + LeBytes(0, 4) +
                V2Addr(9, 256) + LeBytes(1700000200, 4) + LeBytes(0, 4);
  m.osd_info[0] = BinaryOsdInfo{1, 2, 3, 4, 5, 0, 0};
  m.osd_xinfo[0].laggy_probability = 123456789;  // Ceph's float round trip: 123456792
  m.osd_xinfo[0].features = 0x3f01cfbffffdffffull;
  m.osd_uuid[0] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  m.cluster_snapshot = "snap";
  m.cluster_snapshot_epoch = 9;
  m.nearfull_ratio_bits = std::bit_cast<std::uint32_t>(0.85f);
  m.full_ratio_bits = std::bit_cast<std::uint32_t>(0.95f);
  m.backfillfull_ratio_bits = std::bit_cast<std::uint32_t>(0.9f);
  m.require_min_compat_client = 12;
  m.require_osd_release = 16;
  m.removed_snaps_queue[2] = {{1, 1}};
  m.crush_node_flags[-2] = 1;
  m.device_class_flags[0] = 2;
  m.osd.v = 11;
  m.stretch_mode_enabled = 1;
  m.stretch_bucket_count = 2;
  m.stretch_mode_bucket = 3;
  m.range_blocklist = LeBytes(1, 4) + V2Addr(0, 24, 4) + LeBytes(1700000300, 4) + LeBytes(0, 4);
  return m;
}

TEST(OsdMapBinaryTest, EveryFieldRoundTrips) {
  const OsdMapBinary m = FullMap();
  const std::string bytes = EncodeOsdMap(m);
  auto back = DecodeOsdMap(bytes);
  ASSERT_THAT(back.status(), crush_testing::IsOk());
  EXPECT_TRUE(*back == m);
  EXPECT_TRUE(EncodeOsdMap(*back) == bytes);
  auto state = ClusterStateFromOsdMap(*back);
  ASSERT_THAT(state.status(), crush_testing::IsOk());
  EXPECT_EQ(state->fsid, "12345678-9abc-def0-0102-030405060708");
  EXPECT_EQ(state->ceph_release, crush::CephRelease::kPacific);
  EXPECT_EQ(state->pools.at(2).ec_k, 2u);
  EXPECT_EQ(state->pools.at(2).ec_m, 2u);
  EXPECT_EQ(state->osds[1].primary_affinity, 0x8000u);
}

TEST(OsdMapBinaryTest, PacificAcceptsEveryFieldAndDumpsTheSameState) {
  CRUSH_TEST_NEEDS_ORACLE("osdmaptool");
  crush_testing::TempDir dir("osdmap_binary_full");
  const std::string path = dir.path() + "/full.om";
  {
    const std::string bytes = EncodeOsdMap(FullMap());
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  const std::string env = "CEPH_ARGS=--crash_dir=" + dir.path() + " timeout 60 " +
                          crush_testing::OraclePath("osdmaptool");
  const std::string print = RunShell(env + " " + path + " --print 2>&1; echo rc=$?");
  EXPECT_THAT(print, HasSubstr("pool 2 'ecpool' erasure profile default size 4 min_size 3"));
  EXPECT_THAT(print, HasSubstr("stretch_mode_enabled true"));
  EXPECT_THAT(print, HasSubstr("range blocklist"));
  EXPECT_THAT(print, HasSubstr("rc=0"));
  const std::string json = RunShell(env + " " + path + " --dump json 2>/dev/null");
  RunShell(env + " " + path + " --export-crush " + path + ".crush >/dev/null 2>&1");
  auto want = ImportCephOsdDump(json, crush_testing::ReadFileOrEmpty(path + ".crush"));
  ASSERT_THAT(want.status(), crush_testing::IsOk());
  auto got = ImportCephBinaryOsdMap(crush_testing::ReadFileOrEmpty(path));
  ASSERT_THAT(got.status(), crush_testing::IsOk());
  EXPECT_EQ(*got, *want);
  // Pacific's own re-encoding (import-crush: one incremental, then the
  // write) equals ours, decode-time mutations included.
  const std::string before = crush_testing::ReadFileOrEmpty(path);
  RunShell(env + " " + path + " --import-crush " + path + ".crush >/dev/null 2>&1");
  OsdmaptoolSave save;
  save.epoch = got->epoch + 2;
  save.incrementals_applied = true;
  save.crush_imported = true;
  auto ours = SaveLikeOsdmaptool(before, *got, save);
  ASSERT_THAT(ours.status(), crush_testing::IsOk());
  EXPECT_TRUE(*ours == crush_testing::ReadFileOrEmpty(path)) << "Pacific's rewrite differs";
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
    RunShell(env_ + crush_testing::OraclePath("crushtool") +
             " --build --num_osds 12 host straw2 3 rack straw2 2 "
             "root straw2 0 -o " +
             crush_ + " >/dev/null 2>&1");
  }

  // Runs `tool` with `args` (the map path substituted for {}).
  void Run(const std::string& tool, const std::string& map, const std::string& args) {
    std::string a = args;
    for (std::size_t at = a.find("{}"); at != std::string::npos; at = a.find("{}"))
      a.replace(at, 2, map);
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
