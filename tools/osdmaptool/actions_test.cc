// RunOsdmaptoolActions against Ceph's osdmaptool on the shared example map
// (om8-pg128-pgp64.osdmap: pg_num 128, pgp_num 64, class-aware crush map).
// The oracle runs at test time; the test is skipped if it is not installed
// (failed under CRUSHKIT_REQUIRE_ORACLE).
#include "tools/osdmaptool/actions.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/map.h"
#include "osdmap/formats/import.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/oracle.h"
#include "tests/testing/osdmap_state.h"
#include "tests/testing/paths.h"
#include "tests/testing/run_shell.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::tools::osdmaptool {
namespace {

using ::crush_testing::RunShell;

using osdmap::ClusterState;
using osdmap::ImportCephOsdDump;
using osdmap::Pool;
using ::testing::ElementsAre;
using ::testing::Pair;

class OsdmaptoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CRUSH_TEST_NEEDS_ORACLE("osdmaptool");
    dir_ = std::filesystem::temp_directory_path() /
           ("crushkit_osdmaptool_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    map_ = (dir_ / "om").string();
    std::filesystem::copy_file(crush_testing::CompatDir() + "/examples/om8-pg128-pgp64.osdmap",
                               map_, std::filesystem::copy_options::overwrite_existing);
    const std::string env = "CEPH_ARGS=--crash_dir=" + dir_.string() + " timeout 60 ";
    const std::string json = RunShell(env + "osdmaptool " + map_ + " --dump json 2>/dev/null");
    RunShell(env + "osdmaptool " + map_ + " --export-crush " + map_ + ".crush >/dev/null 2>&1");
    auto st = ImportCephOsdDump(json, crush_testing::ReadFileOrEmpty(map_ + ".crush"));
    ASSERT_THAT(st.status(), crush_testing::IsOk());
    state_ = std::move(*st);
    env_ = env;
  }

  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  void ExpectSame(const std::string& flags, OsdmaptoolOptions opt) {
    const std::string want = RunShell(env_ + "osdmaptool " + map_ + " " + flags + " 2>/dev/null");
    ClusterState copy = state_;
    OsdmaptoolResult got = RunOsdmaptoolActions(copy, opt);
    EXPECT_EQ(got.exit_code, 0) << got.err;
    EXPECT_EQ(got.out, want) << flags;
  }

  std::filesystem::path dir_;
  std::string map_;
  std::string env_;
  ClusterState state_;
};

TEST_F(OsdmaptoolTest, TestMapPgsDumpMatchesOracle) {
  OsdmaptoolOptions opt;
  opt.mark_up_in = true;
  opt.test_map_pgs_dump = true;
  ExpectSame("--mark-up-in --test-map-pgs-dump", opt);
}

TEST_F(OsdmaptoolTest, MarkOutDumpAllMatchesOracle) {
  OsdmaptoolOptions opt;
  opt.mark_up_in = true;
  opt.mark_out = 3;
  opt.test_map_pgs_dump_all = true;
  ExpectSame("--mark-up-in --mark-out 3 --test-map-pgs-dump-all", opt);
}

TEST_F(OsdmaptoolTest, NothingUpMatchesOracle) {
  // No --mark-up-in: createsimple OSDs do not exist, every set is empty and
  // the statistics divide by zero ("-nan").
  OsdmaptoolOptions opt;
  opt.test_map_pgs = true;
  opt.pg_num = 40;
  ExpectSame("--test-map-pgs --pg_num 40", opt);
}

TEST_F(OsdmaptoolTest, MapObjectAndPgMatchOracle) {
  OsdmaptoolOptions opt;
  opt.mark_up_in = true;
  opt.test_map_object = "rbd_data.1234";
  opt.test_map_pg = "1.7f";
  ExpectSame("--mark-up-in --test-map-object rbd_data.1234 --test-map-pg 1.7f", opt);
  OsdmaptoolOptions opt2 = opt;
  opt2.test_map_pg = "1.1ff";  // beyond pg_num: raw only
  ExpectSame("--mark-up-in --test-map-object rbd_data.1234 --test-map-pg 1.1ff", opt2);
}

TEST_F(OsdmaptoolTest, AdjustCrushWeightMatchesOracle) {
  OsdmaptoolOptions opt;
  opt.mark_up_in = true;
  opt.adjust_crush_weight = "2:0.5,5:3";
  opt.test_map_pgs = true;
  ExpectSame("--mark-up-in --adjust-crush-weight 2:0.5,5:3 --test-map-pgs", opt);
}

TEST_F(OsdmaptoolTest, TreeMatchesOracle) {
  // Device classes (the shadow "~hdd"/"~ssd" trees are not printed), OSDs
  // that do not exist (DNE), then up/out after the marks.
  OsdmaptoolOptions opt;
  opt.tree = true;
  ExpectSame("--tree", opt);
  opt.tree_json = true;
  ExpectSame("--tree json", opt);
  opt.mark_up_in = true;
  opt.mark_out = 2;
  opt.adjust_crush_weight = "1:0.3";
  opt.tree_json = false;
  ExpectSame("--mark-up-in --mark-out 2 --adjust-crush-weight 1:0.3 --tree plain", opt);
  opt.tree_json = true;
  ExpectSame("--mark-up-in --mark-out 2 --adjust-crush-weight 1:0.3 --tree=json", opt);
  opt.tree_json = false;
  for (const char* format : {"xml", "xml-pretty", "html-pretty", "table", "table-kv"}) {
    opt.tree_format = format;
    ExpectSame(
        std::string("--mark-up-in --mark-out 2 --adjust-crush-weight 1:0.3 --tree ") + format, opt);
  }
}

TEST_F(OsdmaptoolTest, OutOfRangeCrushWeightsLikeOracle) {
  // validate_weightf() refuses 123456.789 (> INT_MAX in 16.16), -1 and NaN,
  // but +inf passes and lands as INT_MIN; -0.000001 truncates to 0. Each is
  // still reported as "Adjusted"; the tree shows what changed.
  OsdmaptoolOptions opt;
  opt.adjust_crush_weight = "2:123456.789,3:-1,4:inf,5:nan,6:-0.000001";
  opt.tree = true;
  ExpectSame("--adjust-crush-weight 2:123456.789,3:-1,4:inf,5:nan,6:-0.000001 --tree=plain", opt);
}

// ceph_crc32c(-1, data) without the final inversion, as OSDMap's crc uses.
std::uint32_t CephCrc32c(const std::string& data) {
  std::uint32_t crc = 0xffffffffu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
  }
  return crc;
}

// Maps osdmaptool itself cannot produce, made by patching the rbd pool of
// `osdmaptool --createsimple 4 --with-default-pool` (pg_pool_t encodes
// type u8, size u8, crush_rule u8, object_hash u8, pg_num u32, pgp_num u32)
// and refreshing the osdmap's trailing crc32c, which covers everything
// before it.
class PatchedMapTest : public ::testing::TestWithParam<std::pair<int, std::uint32_t>> {
 protected:
  void SetUp() override {
    CRUSH_TEST_NEEDS_ORACLE("osdmaptool");
    dir_ = std::filesystem::temp_directory_path() /
           ("crushkit_patched_map_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    map_ = (dir_ / "om").string();
    env_ = "CEPH_ARGS=--crash_dir=" + dir_.string() + " timeout 60 ";
    RunShell(env_ + "osdmaptool --createsimple 4 --with-default-pool --clobber " + map_ +
             " >/dev/null 2>&1");
    std::string bytes = crush_testing::ReadFileOrEmpty(map_);
    ASSERT_GT(bytes.size(), 4u);
    const std::string pattern("\x01\x03\x00\x02\x00\x01\x00\x00", 8);  // pg_num 256
    const std::size_t at = bytes.find(pattern);
    ASSERT_NE(at, std::string::npos);
    const auto [offset, value] = GetParam();
    if (offset == 1) {
      bytes[at + 1] = static_cast<char>(value);
    } else {
      for (int k = 0; k < 4; ++k) {
        bytes[at + static_cast<std::size_t>(offset + k)] =
            static_cast<char>((value >> (8 * k)) & 0xff);
      }
    }
    const std::uint32_t crc = CephCrc32c(bytes.substr(0, bytes.size() - 4));
    for (int k = 0; k < 4; ++k) {
      bytes[bytes.size() - 4 + static_cast<std::size_t>(k)] =
          static_cast<char>((crc >> (8 * k)) & 0xff);
    }
    {
      FILE* f = std::fopen(map_.c_str(), "wb");
      ASSERT_NE(f, nullptr);
      std::fwrite(bytes.data(), 1, bytes.size(), f);
      std::fclose(f);
    }
    const std::string json = RunShell(env_ + "osdmaptool " + map_ + " --dump json 2>/dev/null");
    RunShell(env_ + "osdmaptool " + map_ + " --export-crush " + map_ + ".crush >/dev/null 2>&1");
    auto st = ImportCephOsdDump(json, crush_testing::ReadFileOrEmpty(map_ + ".crush"));
    ASSERT_THAT(st.status(), crush_testing::IsOk());
    state_ = std::move(*st);
  }

  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
  std::string map_;
  std::string env_;
  ClusterState state_;
};

TEST_P(PatchedMapTest, MappingMatchesOracle) {
  EXPECT_THAT(ValidateState(state_), crush_testing::IsOk());
  ASSERT_EQ(state_.pools.size(), 1u);
  const Pool& pool = state_.pools.begin()->second;
  const auto [offset, value] = GetParam();
  EXPECT_EQ(offset == 1 ? pool.size : offset == 4 ? pool.pg_num : pool.pgp_num, value);
  OsdmaptoolOptions opt;
  opt.mark_up_in = true;
  opt.test_map_object = "foo";
  opt.test_map_pg = "1.0";
  opt.test_map_pgs_dump_all = true;
  const std::string want = RunShell(env_ + "osdmaptool " + map_ +
                                    " --mark-up-in --test-map-object foo --test-map-pg 1.0"
                                    " --test-map-pgs-dump-all 2>/dev/null");
  ASSERT_FALSE(want.empty());
  ClusterState copy = state_;
  OsdmaptoolResult got = RunOsdmaptoolActions(copy, opt);
  EXPECT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(got.out, want);
}

// Pool size 0 (every set empty), pg_num 0, pgp_num above pg_num: states
// Ceph's monitor never creates but osdmaptool maps without complaint, so
// ValidateState accepts them and crushkit prints what osdmaptool prints.
INSTANTIATE_TEST_SUITE_P(UnusualPools, PatchedMapTest,
                         ::testing::Values(std::make_pair(1, 0u), std::make_pair(4, 0u),
                                           std::make_pair(8, 512u)));

// A map with a compat weight set: CRUSH weight edits rewrite the weight sets
// the way CrushWrapper::adjust_item_weight does; the exported crush map must
// be byte-identical and the mappings and tree equal.
TEST(ChooseArgsAdjustTest, MatchesOracle) {
  CRUSH_TEST_NEEDS_ORACLE("osdmaptool");
  const auto dir = std::filesystem::temp_directory_path() /
                   ("crushkit_choose_args_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string map = (dir / "om").string();
  const std::string env = "CEPH_ARGS=--crash_dir=" + dir.string() + " timeout 60 ";
  RunShell(env + "osdmaptool --createsimple 8 --with-default-pool --clobber --import-crush " +
           crush_testing::CompatDir() + "/examples/classes-4host-compat-weightset.crushmap " + map +
           " >/dev/null 2>&1");
  const std::string json = RunShell(env + "osdmaptool " + map + " --dump json 2>/dev/null");
  RunShell(env + "osdmaptool " + map + " --export-crush " + map + ".crush >/dev/null 2>&1");
  auto st = ImportCephOsdDump(json, crush_testing::ReadFileOrEmpty(map + ".crush"));
  ASSERT_THAT(st.status(), crush_testing::IsOk());
  ASSERT_FALSE(st->crush.choose_args.empty());
  for (const std::string weights : {"1:2.5", "1:2.5,3:0", "6:0.1,0:4"}) {
    const std::string want =
        RunShell(env + "osdmaptool " + map + " --mark-up-in --adjust-crush-weight " + weights +
                 " --export-crush " + map +
                 ".want --test-map-pgs-dump-all --tree json"
                 " 2>/dev/null");
    ClusterState copy = *st;
    OsdmaptoolOptions opt;
    opt.mark_up_in = true;
    opt.adjust_crush_weight = weights;
    opt.export_crush_path = map + ".want";
    std::string exported;
    opt.write_file = [&exported](const std::string&, std::string_view bytes, std::string*) {
      exported = bytes;
      return 0;
    };
    opt.test_map_pgs_dump_all = true;
    opt.tree = true;
    opt.tree_json = true;
    OsdmaptoolResult got = RunOsdmaptoolActions(copy, opt);
    EXPECT_EQ(got.exit_code, 0) << got.err;
    EXPECT_EQ(got.out, want) << weights;
    EXPECT_EQ(exported, crush_testing::ReadFileOrEmpty(map + ".want")) << weights;
  }
  std::filesystem::remove_all(dir);
}

// --upmap-cleanup on a hand-built state: 4 hosts of 2 OSDs, pool 1 size 3.
class OsdmaptoolUpmapCleanupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    crush_testing::ClusterSpec spec;
    spec.hosts = 4;
    spec.osds_per_host = 2;
    state_ = crush_testing::MakeOnePoolState(8, osdmap::PoolType::kReplicated,
                                             crush_testing::MakeClusterModel(spec));
    auto map = crush::CrushMap::Build(state_.crush);
    ASSERT_TRUE(map.ok());
    osdmap::CrushPlacement placement(*map, state_.ceph_release);
    osdmap::PgMapper mapper(state_, placement);
    osdmap::OsdList raw;
    osdmap::OsdList up;
    mapper.PgToRawUpmap(kPg, &raw, &up);
    raw_ = raw.ToVector();
    ASSERT_EQ(raw_.size(), 3u);
    // An OSD on a host the PG does not use (OSD o is on host o / 2).
    for (std::int32_t o = 0; o < 8 && free_ < 0; ++o) {
      if (std::none_of(raw_.begin(), raw_.end(), [&](std::int32_t r) { return r / 2 == o / 2; })) {
        free_ = o;
      }
    }
    ASSERT_GE(free_, 0);
  }

  const osdmap::PgId kPg{1, 0};
  ClusterState state_;
  std::vector<std::int32_t> raw_;
  std::int32_t free_ = -1;
};

TEST_F(OsdmaptoolUpmapCleanupTest, PrintsAndAppliesInMemoryOnly) {
  // Pacific: the cleanup is applied (apply_incremental, epoch + 1) but does
  // not mark the map modified, so --save alone writes nothing.
  state_.pg_upmap_items[kPg] = {{raw_[0], raw_[1] ^ 1}};
  state_.epoch = 4;
  OsdmaptoolOptions opt;
  opt.upmap_cleanup_path = "-";
  opt.save = true;
  const OsdmaptoolResult r = RunOsdmaptoolActions(state_, opt);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "checking for upmap cleanups\nceph osd rm-pg-upmap-items 1.0\n");
  EXPECT_FALSE(r.modified);
  EXPECT_EQ(state_.epoch, 5u);
  EXPECT_TRUE(state_.pg_upmap_items.empty());
}

TEST_F(OsdmaptoolUpmapCleanupTest, UpmapBalancesAfterTheCleanup) {
  // 64 PGs on 8 equal OSDs: CRUSH's spread leaves OSDs more than one PG
  // off their target of 24, so the balancer has work at deviation 1.
  state_.pools[1].pg_num = state_.pools[1].pgp_num = 64;
  state_.pg_upmap_items[kPg] = {{raw_[0], raw_[1] ^ 1}};  // cleaned up first
  state_.epoch = 4;
  OsdmaptoolOptions opt;
  opt.upmap_cleanup_path = "-";
  opt.upmap = true;
  opt.upmap_max = 3;
  opt.upmap_deviation = 1;
  opt.save = true;
  const OsdmaptoolResult r = RunOsdmaptoolActions(state_, opt);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string head =
      "checking for upmap cleanups\nceph osd rm-pg-upmap-items 1.0\n"
      "upmap, max-count 3, max deviation 1\npools p \nprepared ";
  ASSERT_EQ(r.out.substr(0, head.size()), head);
  const std::size_t commands = r.out.find("\nceph osd pg-upmap-items ");
  if (commands == std::string::npos) {
    EXPECT_NE(r.out.find("Unable to find further optimization"), std::string::npos) << r.out;
    EXPECT_FALSE(r.modified);
  } else {
    EXPECT_TRUE(r.modified);
    EXPECT_FALSE(state_.pg_upmap_items.empty());
    // The cleanup's and the balancer's increments, then --save's inc_epoch.
    EXPECT_EQ(state_.epoch, 7u);
  }

  opt.upmap_pools = {"nope"};
  const OsdmaptoolResult bad = RunOsdmaptoolActions(state_, opt);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, " pool nope does not exist\n");
}

TEST_F(OsdmaptoolUpmapCleanupTest, UpmapActiveRepeatsRoundsUntilBalanced) {
  state_.pools[1].pg_num = state_.pools[1].pgp_num = 64;
  state_.epoch = 4;
  OsdmaptoolOptions opt;
  opt.upmap_cleanup_path = "-";
  opt.upmap = true;
  opt.upmap_active = true;
  opt.upmap_max = 1;
  opt.upmap_deviation = 1;
  const OsdmaptoolResult r = RunOsdmaptoolActions(state_, opt);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  int rounds_with_changes = 0, timings = 0, pgs = 0, min_pgs = 1 << 30, max_pgs = 0;
  int reported_rounds = -1;
  for (const std::string& line : lines) {
    if (line == "prepared 1/1 changes") ++rounds_with_changes;
    if (absl::StartsWith(line, "Time elapsed ")) ++timings;
    int osd = 0, count = 0;
    if (std::sscanf(line.c_str(), "osd.%d pgs %d", &osd, &count) == 2) {
      pgs += count;
      min_pgs = std::min(min_pgs, count);
      max_pgs = std::max(max_pgs, count);
    }
    float seconds = 0;
    if (std::sscanf(line.c_str(), "Total time elapsed %f secs, %d rounds", &seconds,
                    &reported_rounds) == 2) {
      EXPECT_EQ(&line, &lines.back());
    }
  }
  // Several one-change rounds, each applied, then the round that finds nothing.
  EXPECT_GE(rounds_with_changes, 2) << r.out;
  EXPECT_EQ(reported_rounds, rounds_with_changes) << r.out;
  EXPECT_EQ(timings, rounds_with_changes + 1) << r.out;
  EXPECT_NE(r.out.find("prepared 0/1 changes\nTime elapsed "), std::string::npos) << r.out;
  // Every PG has 3 distinct OSDs, all within the deviation of 24 PGs.
  EXPECT_EQ(pgs, 64 * 3) << r.out;
  EXPECT_GE(min_pgs, 23) << r.out;
  EXPECT_LE(max_pgs, 25) << r.out;
  // Applied in memory (one epoch per round) but not saved.
  EXPECT_FALSE(r.modified);
  EXPECT_EQ(state_.pg_upmap_items.size(), static_cast<std::size_t>(rounds_with_changes));
  EXPECT_EQ(state_.epoch, 4u + static_cast<unsigned>(rounds_with_changes));
}

TEST_F(OsdmaptoolUpmapCleanupTest, WritesTheFileEvenWhenEmpty) {
  std::vector<std::pair<std::string, std::string>> written;
  OsdmaptoolOptions opt;
  opt.upmap_cleanup_path = "c.txt";
  opt.check_output = [](const std::string&) { return 0; };
  opt.write_file = [&](const std::string& path, std::string_view bytes, std::string*) {
    written.emplace_back(path, bytes);
    return 0;
  };
  state_.pg_upmap_items[kPg] = {{raw_[0], free_}};
  OsdmaptoolResult r = RunOsdmaptoolActions(state_, opt);
  EXPECT_EQ(r.out, "writing upmap command output to: c.txt\nchecking for upmap cleanups\n");
  EXPECT_EQ(state_.epoch, 0u);
  state_.osds[static_cast<std::size_t>(free_)].weight = 0;  // the pair's target goes out
  r = RunOsdmaptoolActions(state_, opt);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(state_.epoch, 1u);
  EXPECT_THAT(written,
              ElementsAre(Pair("c.txt", ""), Pair("c.txt", "ceph osd rm-pg-upmap-items 1.0\n")));
}

TEST_F(OsdmaptoolUpmapCleanupTest, TestCrushStreamsUntilStdoutIsGone) {
  OsdmaptoolOptions opt;
  opt.test_crush = true;
  std::string streamed;
  int writes = 0;
  opt.stream_out = [&](const std::string& text) {
    streamed += text;
    return ++writes < 3;  // the reader goes away after the third chunk
  };
  const OsdmaptoolResult r = RunOsdmaptoolActions(state_, opt);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(writes, 3);
  EXPECT_EQ(streamed.rfind("pass 1\n1.0 attempt 0\n1.0 attempt 1\n", 0), 0u);
  // 8 PGs x 100 attempts per pass: the stream reached later passes.
  EXPECT_NE(streamed.find("pass 2\n1.0 attempt 0\n"), std::string::npos);
  EXPECT_EQ(streamed.find(" had "), std::string::npos);
}

// osdmaptool opens the upmap file before the clean-up: a file it cannot
// open ends the run there, with cpp_strerror's "(errno) text".
TEST_F(OsdmaptoolUpmapCleanupTest, UnopenableUpmapFileStopsBeforeTheCleanup) {
  state_.pg_upmap_items[kPg] = {{raw_[0], raw_[1] ^ 1}};
  OsdmaptoolOptions opt;
  opt.mark_out = 0;
  opt.upmap_cleanup_path = "d/c.txt";
  opt.upmap = true;
  opt.check_output = [](const std::string&) { return EACCES; };
  int writes = 0;
  opt.write_file = [&](const std::string&, std::string_view, std::string*) {
    ++writes;
    return 0;
  };
  const OsdmaptoolResult r = RunOsdmaptoolActions(state_, opt);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "marking OSD@0 as out\n");
  EXPECT_EQ(r.err, "error opening d/c.txt: (13) Permission denied\n");
  EXPECT_EQ(writes, 0);
  EXPECT_EQ(state_.pg_upmap_items.size(), 1u);
}

// osdmaptool writes each round's commands as it makes them and exits at the
// first failed write: crushkit, writing the file once at the end, cuts its
// output back to that point.
TEST_F(OsdmaptoolUpmapCleanupTest, FailedCommandWriteEndsWhereOsdmaptoolStops) {
  state_.pools[1].pg_num = state_.pools[1].pgp_num = 64;
  OsdmaptoolOptions opt;
  opt.upmap_cleanup_path = "/dev/full";
  opt.upmap = true;
  opt.upmap_active = true;
  opt.upmap_max = 1;
  opt.upmap_deviation = 1;
  opt.check_output = [](const std::string&) { return 0; };
  std::string written;
  opt.write_file = [&](const std::string&, std::string_view bytes, std::string*) {
    written = bytes;
    return ENOSPC;
  };
  const OsdmaptoolResult r = RunOsdmaptoolActions(state_, opt);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error writing output: (28) No space left on device\n");
  // Several rounds were balanced, but the output ends with the first one.
  EXPECT_GE(std::count(written.begin(), written.end(), '\n'), 2) << written;
  const std::string head =
      "writing upmap command output to: /dev/full\nchecking for upmap cleanups\n"
      "upmap, max-count 1, max deviation 1\npools p \nprepared 1/1 changes\nTime elapsed ";
  EXPECT_EQ(r.out.substr(0, head.size()), head);
  EXPECT_EQ(r.out.find('\n', head.size()), r.out.size() - 1) << r.out;
}

// --export-crush: bufferlist::write_file's lines, then osdmaptool 16.2's,
// which names the --import-crush file (empty without one).
TEST_F(OsdmaptoolUpmapCleanupTest, FailedCrushExportPrintsOsdmaptoolsLines) {
  OsdmaptoolOptions opt;
  opt.export_crush_path = "nodir/c";
  opt.write_file = [](const std::string& path, std::string_view, std::string* log) {
    *log = "bufferlist::write_file(" + path + "): failed to open file: (2) x\n";
    return ENOENT;
  };
  const OsdmaptoolResult r = RunOsdmaptoolActions(state_, opt);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "bufferlist::write_file(nodir/c): failed to open file: (2) x\n"
            "osdmaptool: error writing crush map to \n");
}

}  // namespace
}  // namespace crushkit::tools::osdmaptool
