// RunOsdmaptoolActions against Ceph's osdmaptool on the shared example map
// (om8-pg128-pgp64.osdmap: pg_num 128, pgp_num 64, class-aware crush map).
// The oracle runs at test time; the test is skipped if it is not installed.
#include "osdmap/osdmaptool.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "osdmap/import.h"
#include "tests/testing/paths.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

std::string RunShell(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

class OsdmaptoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v osdmaptool >/dev/null 2>&1") != 0) {
      GTEST_SKIP() << "osdmaptool (ceph-base) not installed";
    }
    dir_ = std::filesystem::temp_directory_path() /
           ("crushkit_osdmaptool_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    map_ = (dir_ / "om").string();
    std::filesystem::copy_file(
        crush_testing::CompatDir() + "/examples/om8-pg128-pgp64.osdmap", map_,
        std::filesystem::copy_options::overwrite_existing);
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

TEST(FormatCephDoubleTest, LikeOstream) {
  EXPECT_EQ(FormatCephDouble(25.19921), "25.1992");
  EXPECT_EQ(FormatCephDouble(1), "1");
  EXPECT_EQ(FormatCephDouble(0.5), "0.5");
  EXPECT_EQ(FormatCephDouble(1234567.0), "1.23457e+06");
}

}  // namespace
}  // namespace crushkit::osdmap
