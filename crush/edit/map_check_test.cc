#include "crush/edit/map_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "crush/builder.h"
#include "crush/model.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::crush {
namespace {

using crush_testing::ClusterSpec;
using crush_testing::MakeClusterModel;

const Finding* Find(const std::vector<Finding>& fs, const std::string& code) {
  auto it = std::find_if(fs.begin(), fs.end(), [&](const Finding& f) { return f.code == code; });
  return it == fs.end() ? nullptr : &*it;
}

// A pointer into a temporary would dangle.
const Finding* Find(std::vector<Finding>&&, const std::string&) = delete;

TEST(MapCheckTest, HealthyClusterHasNoErrorsOrWarnings) {
  const MapModel m = MakeClusterModel(ClusterSpec{});
  for (const Finding& f : CheckMap(m, {})) {
    EXPECT_EQ(f.severity, FindingSeverity::kInfo) << f.code << ": " << f.message;
  }
}

TEST(MapCheckTest, TooFewHostsForThreeReplicasIsAnErrorWithAHint) {
  ClusterSpec spec;
  spec.hosts = 2;
  const std::vector<Finding> fs = CheckMap(MakeClusterModel(spec), {});
  const Finding* f = Find(fs, "rule-unsatisfiable");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kError);
  EXPECT_NE(f->message.find("only 2 have weight"), std::string::npos) << f->message;
  EXPECT_FALSE(f->hint.empty());
  EXPECT_EQ(fs.front().severity, FindingSeverity::kError);  // errors sort first
}

TEST(MapCheckTest, OneOversizedHostIsReportedAsUnusableWeight) {
  ClusterSpec spec;
  spec.hosts = 3;
  spec.osds_per_host = 2;
  spec.osd_weights = {kWeightOne, kWeightOne,     kWeightOne,
                      kWeightOne, 8 * kWeightOne, 8 * kWeightOne};
  const std::vector<Finding> fs = CheckMap(MakeClusterModel(spec), {});
  const Finding* f = Find(fs, "failure-domain-imbalance");
  ASSERT_NE(f, nullptr);
  // 16 of 20: the other two hosts (4) can pair with at most 4 of it.
  EXPECT_NE(f->message.find("80.0%"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("about 14.00"), std::string::npos) << f->message;
}

TEST(MapCheckTest, LegacyTunablesAndStrawBucketsAreWarnings) {
  ClusterSpec spec;
  spec.tunables = TunablesFor(TunablesProfile::kArgonaut);
  spec.host_alg = BucketAlg::kList;
  const std::vector<Finding> fs = CheckMap(MakeClusterModel(spec), {});
  ASSERT_NE(Find(fs, "tunables-legacy"), nullptr);
  const Finding* alg = Find(fs, "bucket-alg-legacy");
  ASSERT_NE(alg, nullptr);
  EXPECT_NE(alg->message.find("list"), std::string::npos);
}

TEST(MapCheckTest, DoubleLinkedDeviceAndMissingTakeAreFound) {
  MapModel m = MakeClusterModel(ClusterSpec{});
  Bucket* host = m.FindBucket(-2);
  ASSERT_NE(host, nullptr);
  ASSERT_TRUE(AddBucketItem(*m.FindBucket(-3), host->items.front(), kWeightOne, 1).ok());
  m.rules[0].steps.front().arg1 = -100;
  const std::vector<Finding> fs = CheckMap(m, {});
  EXPECT_NE(Find(fs, "item-multiply-linked"), nullptr);
  EXPECT_NE(Find(fs, "rule-take-missing"), nullptr);
}

TEST(MapCheckTest, CycleStopsTheCheckWithOneError) {
  MapModel m = MakeClusterModel(ClusterSpec{});
  ASSERT_TRUE(AddBucketItem(*m.FindBucket(-2), -1, kWeightOne, 1).ok());
  const std::vector<Finding> fs = CheckMap(m, {});
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "bucket-cycle");
}

}  // namespace
}  // namespace crushkit::crush
