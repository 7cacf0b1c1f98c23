// Planning warnings (change_warnings.h) on a small 3-rack cluster, and how
// `crushkit plan`'s report carries them: terminal summary, JSON, HTML and
// the commands script.
#include "osdmap/planning/change_warnings.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/codec.h"
#include "osdmap/changes/apply_change.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/planning/movement_html.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/planner.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/osdmap_state.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {
namespace {

using ::crush_testing::IsOk;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

// default > rack0 > host0 (osd.0, osd.1), host1 (osd.2, osd.3)
//         > rack1 > host2, host3 > rack2 > host4, host5; every OSD weight 1.
// Pool 1 "rbd": replicated size 3 on rack_rule (chooseleaf firstn type rack).
ClusterState ThreeRacks() {
  ClusterState st = crush_testing::MakeRackState({});
  st.epoch = 7;
  return st;
}

struct Warned {
  std::vector<PlanWarning> new_buckets;
  std::vector<PlanWarning> detached;
};

Warned Warnings(const std::string& ops, const ClusterState& before = ThreeRacks()) {
  absl::StatusOr<ChangeList> change = ParseChange(ops, "--do");
  EXPECT_THAT(change, IsOk());
  if (!change.ok()) return {};
  absl::StatusOr<ClusterState> after = ApplyChange(before, *change);
  EXPECT_THAT(after, IsOk()) << ops;
  if (!after.ok()) return {};
  return {NewBucketWarnings(before, *change), DetachedWarnings(before, *after)};
}

TEST(ChangeWarningsTest, MoveToATypoRackSuggestsTheRackAndSaysTheHostIsDetached) {
  const Warned w = Warnings("osd crush move host1 rack=rack9\n");
  ASSERT_THAT(w.new_buckets, SizeIs(1));
  const PlanWarning& nb = w.new_buckets[0];
  EXPECT_EQ(nb.kind, PlanWarning::Kind::kNewBucket);
  EXPECT_EQ(nb.where, "--do:1:27");
  EXPECT_EQ(nb.bucket, "rack9");
  EXPECT_EQ(nb.suggestion, "rack0");  // every rackN is one edit away; the first wins
  EXPECT_EQ(FormatPlanWarning(nb),
            "--do:1:27: rack 'rack9' does not exist: Ceph creates it, attached to no root; did "
            "you mean 'rack0'?");
  ASSERT_THAT(w.detached, SizeIs(1));
  const PlanWarning& d = w.detached[0];
  EXPECT_EQ(d.kind, PlanWarning::Kind::kDetached);
  EXPECT_EQ(d.bucket, "rack9");
  EXPECT_THAT(d.buckets, ElementsAre("host1"));
  EXPECT_THAT(d.osds, ElementsAre(2, 3));
  EXPECT_DOUBLE_EQ(d.crush_weight, 2.0);
  EXPECT_FALSE(d.capacity_from_osd_df);
  EXPECT_EQ(d.message,
            "host 'host1' (2 OSDs, crush weight 2.000) is outside every tree a pool's rule takes: "
            "it now hangs under rack 'rack9', the top of a tree that no pool's rule takes; no data "
            "will be placed on those OSDs");
}

TEST(ChangeWarningsTest, MoveToAnExistingRackWarnsNothing) {
  const Warned w = Warnings("osd crush move host1 rack=rack2\n");
  EXPECT_THAT(w.new_buckets, IsEmpty());
  EXPECT_THAT(w.detached, IsEmpty());
}

TEST(ChangeWarningsTest, AddHostIntoAnUnknownRackListsTheRacksAndNamesTheNewCapacity) {
  const Warned w = Warnings("add-host n1 osds=3 weight=7 class=hdd rack=nosuchrack\n");
  ASSERT_THAT(w.new_buckets, SizeIs(1));
  EXPECT_EQ(w.new_buckets[0].suggestion, "");
  EXPECT_THAT(w.new_buckets[0].message,
              HasSubstr("rack 'nosuchrack' does not exist: Ceph creates it, attached to no root; "
                        "existing rack buckets: rack0, rack1, rack2"));
  ASSERT_THAT(w.detached, SizeIs(1));
  EXPECT_THAT(w.detached[0].osds, ElementsAre(12, 13, 14));
  EXPECT_THAT(w.detached[0].buckets, ElementsAre("n1"));
  EXPECT_DOUBLE_EQ(w.detached[0].crush_weight, 21.0);
  EXPECT_THAT(w.detached[0].message,
              HasSubstr("host 'n1' (3 OSDs, crush weight 21.000) is outside every tree"));
}

TEST(ChangeWarningsTest, ANewBucketMadeEarlierInTheChangeIsNotATypo) {
  const Warned w = Warnings(
      "osd crush add-bucket rack3 rack root=default\n"
      "add-host n1 osds=2 weight=1 rack=rack3\n"
      "add-host n2 osds=2 weight=1 rack=rack4 root=default\n");
  // rack4 is new but hangs under default: said, not detached.
  ASSERT_THAT(w.new_buckets, SizeIs(1));
  EXPECT_EQ(w.new_buckets[0].where, "--do:3:34");
  EXPECT_THAT(w.new_buckets[0].message,
              HasSubstr("rack 'rack4' does not exist: Ceph creates it under root 'default'"));
  EXPECT_THAT(w.detached, IsEmpty());
}

TEST(ChangeWarningsTest, AnUnlinkedRackIsDetachedWithItsOsdDfCapacity) {
  ClusterState before = ThreeRacks();
  for (int o = 4; o < 8; ++o)
    before.osd_usage[o] = OsdUsage{1 << 30, 1 << 29, std::nullopt};  // 1 TiB, half used
  const Warned w = Warnings("osd crush unlink rack1\n", before);
  EXPECT_THAT(w.new_buckets, IsEmpty());
  ASSERT_THAT(w.detached, SizeIs(1));
  const PlanWarning& d = w.detached[0];
  EXPECT_EQ(d.bucket, "rack1");
  EXPECT_THAT(d.buckets, ElementsAre("rack1"));
  EXPECT_THAT(d.osds, ElementsAre(4, 5, 6, 7));
  EXPECT_TRUE(d.capacity_from_osd_df);
  EXPECT_EQ(d.capacity_bytes, 4ull << 40);
  EXPECT_EQ(d.used_bytes, 2ull << 40);
  EXPECT_EQ(d.message,
            "rack 'rack1' (4 OSDs, crush weight 4.000, 4.00 TiB capacity holding 2.00 TiB per ceph "
            "osd df) is outside every tree a pool's rule takes: it hangs from no bucket; no data "
            "will be placed on those OSDs and what they hold moves off");
}

TEST(ChangeWarningsTest, OsdsOutsideBeforeAsWellAreNotReported) {
  // A spare root no rule takes is deliberate: nothing to say.
  ClusterState before = ThreeRacks();
  absl::StatusOr<ChangeList> spare =
      ParseChange("osd crush add-bucket spare root\nosd crush move host5 root=spare\n", "setup");
  ASSERT_THAT(spare, IsOk());
  absl::StatusOr<ClusterState> with_spare = ApplyChange(before, *spare);
  ASSERT_THAT(with_spare, IsOk());
  const Warned w = Warnings("osd crush reweight osd.10 0.5\n", *with_spare);
  EXPECT_THAT(w.detached, IsEmpty());
}

TEST(ChangeWarningsTest, ThePlanReportCarriesTheWarningsEverywhere) {
  absl::StatusOr<ChangeList> change = ParseChange("osd crush move host1 rack=rack9\n", "--do");
  ASSERT_THAT(change, IsOk());
  PlanOptions options;
  options.movement.threads = 2;
  options.schedule = false;
  options.max_misplaced = 0.5;
  absl::StatusOr<PlanReport> r = PlanChange(ThreeRacks(), *change, options);
  ASSERT_THAT(r, IsOk());
  ASSERT_THAT(r->warnings, SizeIs(2));
  EXPECT_EQ(r->warnings[0].kind, PlanWarning::Kind::kNewBucket);  // the change file's first
  EXPECT_EQ(r->warnings[1].kind, PlanWarning::Kind::kDetached);
  const std::string summary = ReportSummary(*r);
  EXPECT_THAT(summary, HasSubstr("warning: --do:1:27: rack 'rack9' does not exist"));
  EXPECT_THAT(summary, HasSubstr("warning: host 'host1' (2 OSDs, crush weight 2.000) is outside"));
  absl::StatusOr<std::string> json = ReportToJson(*r);
  ASSERT_THAT(json, IsOk());
  EXPECT_THAT(*json, HasSubstr("\"kind\": \"new_bucket\""));
  EXPECT_THAT(*json, HasSubstr("\"suggestion\": \"rack0\""));
  EXPECT_THAT(*json, HasSubstr("\"kind\": \"detached\""));
  EXPECT_THAT(*json, HasSubstr("\"crush_weight\": 2"));
  EXPECT_THAT(ReportHtml(*r), HasSubstr("did you mean &#39;rack0&#39;?"));
  ASSERT_TRUE(r->staged.has_value());
  EXPECT_THAT(r->staged->notes, testing::Contains(HasSubstr("warning: --do:1:27: rack 'rack9'")));
  EXPECT_THAT(PlanCommandsScript(*r),
              HasSubstr("#   warning: host 'host1' (2 OSDs, crush weight 2.000) is outside"));
}

TEST(ChangeWarningsTest, DiffOfTwoStatesSaysWhatIsDetached) {
  ClusterState before = ThreeRacks();
  absl::StatusOr<ChangeList> change = ParseChange("osd crush unlink host4\n", "ops");
  ASSERT_THAT(change, IsOk());
  absl::StatusOr<ClusterState> after = ApplyChange(before, *change);
  ASSERT_THAT(after, IsOk());
  PlanOptions options;
  options.movement.threads = 2;
  options.schedule = false;
  absl::StatusOr<PlanReport> r = DiffTwoStates(before, *after, options);
  ASSERT_THAT(r, IsOk());
  ASSERT_THAT(r->warnings, SizeIs(1));
  EXPECT_THAT(ReportSummary(*r), HasSubstr("warning: host 'host4' (2 OSDs"));
  EXPECT_THAT(ReportSummary(*r), Not(HasSubstr("did you mean")));
}

}  // namespace
}  // namespace crushkit::osdmap
