#include "crush/ceph_release.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/codec.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::crush {
namespace {

using crush_testing::IsOk;
using crush_testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Two rules as Pacific's compiler leaves them: rule 1 with sizes 3..5, and a
// rule at id 300 whose ruleset byte is 300 & 0xff.
MapModel TwoRules() {
  MapModel m;
  m.rules.resize(301);
  m.rule_exists.assign(301, false);
  m.rules[1] =
      Rule{.ruleset = 1, .type = RuleType::kReplicated, .min_size = 3, .max_size = 5, .steps = {}};
  m.rule_exists[1] = true;
  m.rules[300] =
      Rule{.ruleset = 44, .type = RuleType::kErasure, .min_size = 2, .max_size = 9, .steps = {}};
  m.rule_exists[300] = true;
  m.tunables.msr_descents = 7;
  return m;
}

TEST(CephReleaseTest, NamesRoundTripAndUnknownNamesListTheSupportedOnes) {
  for (CephRelease r : {CephRelease::kPacific, CephRelease::kReef, CephRelease::kTentacle}) {
    absl::StatusOr<CephRelease> parsed = ParseCephRelease(CephReleaseName(r));
    ASSERT_THAT(parsed, IsOk());
    EXPECT_EQ(*parsed, r);
  }
  EXPECT_THAT(ParseCephRelease("squid"), StatusIs(absl::StatusCode::kInvalidArgument,
                                                  AllOf(HasSubstr("'squid'"), HasSubstr("pacific"),
                                                        HasSubstr("reef"), HasSubstr("tentacle"))));
  EXPECT_THAT(ParseCephRelease("Pacific"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(CephReleaseTest, PacificKeepsRuleBytesAndDropsTheMsrTail) {
  MapModel m = TwoRules();
  m.tail = EncodedTail::kMsr;
  PrepareForEncode(m, CephRelease::kPacific);
  EXPECT_EQ(m.tail, EncodedTail::kChooseArgs);
  EXPECT_EQ(m.tunables.msr_descents, 100u);
  EXPECT_EQ(m.rules[1].min_size, 3);
  EXPECT_EQ(m.rules[300].ruleset, 44);
  EXPECT_EQ(m.rules[300].max_size, 9);
}

TEST(CephReleaseTest, ReefWritesRuleIdAndOneToHundredAndNoMsrTail) {
  MapModel m = TwoRules();
  PrepareForEncode(m, CephRelease::kReef);
  EXPECT_EQ(m.tail, EncodedTail::kChooseArgs);
  EXPECT_EQ(m.tunables.msr_descents, 100u);
  for (int id : {1, 300}) {
    EXPECT_EQ(m.rules[static_cast<std::size_t>(id)].ruleset, id & 0xff);
    EXPECT_EQ(m.rules[static_cast<std::size_t>(id)].min_size, 1);
    EXPECT_EQ(m.rules[static_cast<std::size_t>(id)].max_size, 100);
  }
}

TEST(CephReleaseTest, TentacleAlwaysWritesTheMsrTunables) {
  MapModel m = TwoRules();
  m.tail = EncodedTail::kNone;
  PrepareForEncode(m, CephRelease::kTentacle);
  EXPECT_EQ(m.tail, EncodedTail::kMsr);
  EXPECT_EQ(m.tunables.msr_descents, 7u);
  MapModel reef = TwoRules();
  PrepareForEncode(reef, CephRelease::kReef);
  // The same bytes plus two u32 (Ceph 20.2 `crushtool -c` output is 8 bytes longer than 18.2's).
  EXPECT_EQ(EncodeCrushMap(m).size(), EncodeCrushMap(reef).size() + 8);
}

TEST(CephReleaseTest, QuincyAndLaterRefuseRulesetsOtherThanTheRuleId) {
  const MapModel m = TwoRules();
  EXPECT_THAT(CheckDecodable(m, CephRelease::kPacific), IsOk());
  for (CephRelease r : {CephRelease::kReef, CephRelease::kTentacle}) {
    EXPECT_THAT(CheckDecodable(m, r),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rule 300 has ruleset 44")));
  }
  MapModel ok = TwoRules();
  ok.rule_exists[300] = false;
  EXPECT_THAT(CheckDecodable(ok, CephRelease::kReef), IsOk());
}

}  // namespace
}  // namespace crushkit::crush
