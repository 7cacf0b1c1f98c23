// MAX AVAIL by `ceph df`'s formula: hand-computed small clusters (replicated
// and EC, an OSD out, full_ratio headroom, float rounding) and a real Pacific
// capture whose `ceph df -f json` holds Ceph's own figures.
#include "osdmap/model/pool_max_avail.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>

#include "osdmap/formats/import.h"
#include "osdmap/formats/osdmap_binary_state.h"
#include "tests/testing/osdmap_state.h"
#include "tests/testing/paths.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

constexpr std::int64_t kRep = crush_testing::kRepPool;
constexpr std::int64_t kEc = crush_testing::kEcPool;

// 4 hosts of one OSD of CRUSH weight 1: every OSD's rule weight is 0.25
// (exact in float). 1,000,000 KiB each; osd.2 has the least available.
ClusterState FourOsds(float full_ratio) {
  ClusterState s = crush_testing::MakeTestState({.hosts = 4});
  s.full_ratio = full_ratio;
  s.osd_usage[0] = OsdUsage{1000000, 100000, 900000};
  s.osd_usage[1] = OsdUsage{1000000, 200000, 800000};
  s.osd_usage[2] = OsdUsage{1000000, 400000, 600000};
  s.osd_usage[3] = OsdUsage{1000000, 300000, 700000};
  return s;
}

const PoolMaxAvail& PoolOf(const std::vector<PoolMaxAvail>& v, std::int64_t id) {
  for (const PoolMaxAvail& p : v) {
    if (p.pool_id == id) return p;
  }
  ADD_FAILURE() << "no pool " << id;
  return v.front();
}

TEST(PoolMaxAvailTest, ReplicatedAndEcFromTheFullestOsdInFloat) {
  // full_ratio 0.5: osd.2 may fill (600000 - 500000) KiB more, and it gets a
  // quarter of the rule's data, so the rule holds 100000 x 1024 x 4 =
  // 409,600,000 raw bytes before osd.2 is full.
  absl::StatusOr<std::vector<PoolMaxAvail>> r = ComputePoolMaxAvail(FourOsds(0.5f));
  ASSERT_THAT(r.status(), crush_testing::IsOk());
  const PoolMaxAvail& rep = PoolOf(*r, kRep);
  EXPECT_EQ(rep.raw_avail_bytes, 409600000u);
  EXPECT_EQ(rep.limiting_osd, 2);
  EXPECT_FLOAT_EQ(rep.raw_used_rate, 3.0f);
  // 409600000 / 3 = 136533333.3, but Ceph divides in float, whose spacing
  // there is 16: 136533328.
  EXPECT_EQ(rep.max_avail_bytes, 136533328u);
  const PoolMaxAvail& ec = PoolOf(*r, kEc);
  EXPECT_FLOAT_EQ(ec.raw_used_rate, 1.5f);  // (k + m) / k for 2+1
  // 409600000 / 1.5 = 273066666.7; float spacing 32 there: 273066656.
  EXPECT_EQ(ec.max_avail_bytes, 273066656u);
}

TEST(PoolMaxAvailTest, OutOsdIsSkippedAsItsStatsAreZeroed) {
  ClusterState s = FourOsds(0.5f);
  s.osds[2].weight = 0;  // out; its CRUSH weight (and rule weight 0.25) stay
  absl::StatusOr<std::vector<PoolMaxAvail>> r = ComputePoolMaxAvail(s);
  ASSERT_THAT(r.status(), crush_testing::IsOk());
  // osd.3 bounds it now: 200000 x 1024 x 4 = 819,200,000.
  EXPECT_EQ(PoolOf(*r, kRep).raw_avail_bytes, 819200000u);
  EXPECT_EQ(PoolOf(*r, kRep).limiting_osd, 3);
  EXPECT_EQ(PoolOf(*r, kRep).max_avail_bytes, 273066656u);  // float(819200000 / 3)
}

TEST(PoolMaxAvailTest, FullRatioHeadroomInDoubleFromAFloatRatio) {
  // The default 0.95 is the float 0.949999988: unusable = 1e6 x
  // (1 - 0.949999988) = 50000.0119 KiB, so osd.2 offers 549999.988 KiB.
  absl::StatusOr<std::vector<PoolMaxAvail>> r = ComputePoolMaxAvail(FourOsds(0.95f));
  ASSERT_THAT(r.status(), crush_testing::IsOk());
  const double unusable = 1000000.0 * (1.0 - static_cast<double>(0.95f));
  const auto raw = static_cast<std::uint64_t>((600000.0 - unusable) * 1024.0 / 0.25);
  EXPECT_EQ(raw, 2252799951u);  // not 600000 x 0.95 x 4096 = 2334720000's headroom
  EXPECT_EQ(PoolOf(*r, kRep).raw_avail_bytes, raw);
  EXPECT_EQ(PoolOf(*r, kRep).max_avail_bytes,
            static_cast<std::uint64_t>(static_cast<float>(raw) / 3.0f));
}

TEST(PoolMaxAvailTest, AnOsdPastTheFullRatioLeavesNothing) {
  ClusterState s = FourOsds(0.5f);
  s.osd_usage[1] = OsdUsage{1000000, 600000, 400000};  // below the 500000 KiB kept back
  absl::StatusOr<std::vector<PoolMaxAvail>> r = ComputePoolMaxAvail(s);
  ASSERT_THAT(r.status(), crush_testing::IsOk());
  EXPECT_EQ(PoolOf(*r, kRep).raw_avail_bytes, 0u);
  EXPECT_EQ(PoolOf(*r, kRep).limiting_osd, 1);
  EXPECT_EQ(PoolOf(*r, kEc).max_avail_bytes, 0u);
}

TEST(PoolMaxAvailTest, WithoutKbAvailTheRestOfKbStandsIn) {
  ClusterState s = FourOsds(0.5f);
  for (auto& [osd, u] : s.osd_usage) u.kb_avail.reset();
  absl::StatusOr<std::vector<PoolMaxAvail>> r = ComputePoolMaxAvail(s);
  ASSERT_THAT(r.status(), crush_testing::IsOk());
  EXPECT_EQ(PoolOf(*r, kRep).raw_avail_bytes, 409600000u);
}

TEST(PoolMaxAvailTest, NoStatsAtAllGivesZero) {
  ClusterState s = FourOsds(0.5f);
  s.osd_usage.clear();
  absl::StatusOr<std::vector<PoolMaxAvail>> r = ComputePoolMaxAvail(s);
  ASSERT_THAT(r.status(), crush_testing::IsOk());
  EXPECT_EQ(PoolOf(*r, kRep).max_avail_bytes, 0u);
  EXPECT_EQ(PoolOf(*r, kRep).limiting_osd, crush::kItemNone);
}

TEST(PoolMaxAvailTest, ShiftUsageMovesUsedAndAvailable) {
  const std::map<std::int32_t, OsdUsage> u = FourOsds(0.5f).osd_usage;
  const std::map<std::int32_t, OsdUsage> shifted = ShiftUsage(u, {{2, 50000 * 1024}, {0, -1024}});
  EXPECT_EQ(shifted.at(2), (OsdUsage{1000000, 450000, 550000}));
  EXPECT_EQ(shifted.at(0), (OsdUsage{1000000, 99999, 900001}));
  EXPECT_EQ(shifted.at(1), u.at(1));
  const std::map<std::int32_t, OsdUsage> full = ShiftUsage(u, {{3, std::int64_t{1} << 40}});
  EXPECT_EQ(full.at(3), (OsdUsage{1000000, 1000000, 0}));
}

// The loopback Pacific capture (tests/data/loopback-pacific): Ceph 16.2.15's
// own `ceph df -f json` for a 3x pool, the mgr's 3x pool and an EC 2+1 pool,
// recomputed from its osdmap and `ceph osd df -f json`.
TEST(PoolMaxAvailTest, EqualsCephDfOnARealPacificCapture) {
  const std::string dir = crush_testing::SourceDir() + "/tests/data/loopback-pacific";
  absl::StatusOr<ClusterState> s =
      ImportCephBinaryOsdMap(crush_testing::ReadFileOrEmpty(dir + "/osdmap.bin"));
  ASSERT_THAT(s.status(), crush_testing::IsOk());
  ASSERT_THAT(ImportCephOsdDf(crush_testing::ReadFileOrEmpty(dir + "/osd-df.json"), &*s),
              crush_testing::IsOk());
  const std::string df = crush_testing::ReadFileOrEmpty(dir + "/df.json");
  const std::regex pool_re(R"re("id":(\d+),"stats":\{[^}]*"max_avail":(\d+))re");
  std::map<std::int64_t, std::uint64_t> ceph;
  for (auto it = std::sregex_iterator(df.begin(), df.end(), pool_re); it != std::sregex_iterator();
       ++it) {
    ceph[std::stoll((*it)[1])] = std::stoull((*it)[2]);
  }
  ASSERT_EQ(ceph.size(), 3u);
  absl::StatusOr<std::vector<PoolMaxAvail>> r = ComputePoolMaxAvail(*s);
  ASSERT_THAT(r.status(), crush_testing::IsOk());
  ASSERT_EQ(r->size(), ceph.size());
  for (const PoolMaxAvail& p : *r) {
    EXPECT_EQ(p.max_avail_bytes, ceph.at(p.pool_id)) << "pool " << p.pool_id << " " << p.pool_name;
  }
  // osd.2 holds the most (kb_avail 221368, one KiB less than kb - kb_used:
  // kb_avail, not kb_used, is what Ceph reads).
  EXPECT_EQ(PoolOf(*r, 2).limiting_osd, 2);
}

}  // namespace
}  // namespace crushkit::osdmap
