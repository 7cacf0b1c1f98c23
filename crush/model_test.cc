#include "crush/model.h"

#include "gtest/gtest.h"

namespace crushkit::crush {
namespace {

TEST(TunablesTest, ProfilesMatchCephTable) {
  const Tunables legacy = TunablesFor(TunablesProfile::kLegacy);
  EXPECT_EQ(legacy, Tunables{});
  const Tunables bobtail = TunablesFor(TunablesProfile::kBobtail);
  EXPECT_EQ(bobtail.choose_total_tries, 50u);
  EXPECT_EQ(bobtail.chooseleaf_vary_r, 0);
  EXPECT_EQ(bobtail.allowed_bucket_algs, 22u);
  const Tunables firefly = TunablesFor(TunablesProfile::kFirefly);
  EXPECT_EQ(firefly.chooseleaf_vary_r, 1);
  EXPECT_EQ(firefly.chooseleaf_stable, 0);
  const Tunables hammer = TunablesFor(TunablesProfile::kHammer);
  EXPECT_EQ(hammer.allowed_bucket_algs, 54u);
  EXPECT_EQ(hammer.straw_calc_version, 0);  // kept from the base
  const Tunables jewel = TunablesFor(TunablesProfile::kJewel);
  EXPECT_EQ(jewel.chooseleaf_stable, 1);
  EXPECT_EQ(jewel.straw_calc_version, 1);
  EXPECT_EQ(TunablesFor(TunablesProfile::kOptimal), jewel);
  EXPECT_EQ(TunablesFor(TunablesProfile::kDefault), jewel);
}

TEST(MapModelTest, FindBucketRejectsEmptyAndOutOfRangeSlots) {
  MapModel m;
  m.buckets.resize(2);
  m.buckets[1].id = -2;
  m.buckets[1].alg = BucketAlg::kStraw2;
  EXPECT_EQ(m.FindBucket(-1), nullptr);
  EXPECT_EQ(m.FindBucket(-2), &m.buckets[1]);
  EXPECT_EQ(m.FindBucket(-3), nullptr);
  EXPECT_EQ(m.FindBucket(0), nullptr);
}

// crush_bucket_alg_name(): the text format's and the JSON dump's names.
TEST(BucketAlgNameTest, NamesAsCeph) {
  EXPECT_STREQ(BucketAlgName(BucketAlg::kUniform), "uniform");
  EXPECT_STREQ(BucketAlgName(BucketAlg::kList), "list");
  EXPECT_STREQ(BucketAlgName(BucketAlg::kTree), "tree");
  EXPECT_STREQ(BucketAlgName(BucketAlg::kStraw), "straw");
  EXPECT_STREQ(BucketAlgName(BucketAlg::kStraw2), "straw2");
  EXPECT_STREQ(BucketAlgName(BucketAlg::kNone), "unknown");
  EXPECT_STREQ(BucketAlgName(static_cast<BucketAlg>(9)), "unknown");
}

}  // namespace
}  // namespace crushkit::crush
