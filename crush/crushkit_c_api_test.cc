// The C API's contract (crush/crushkit.h): same results as DoRule, errors as
// NULL / -1 with messages, never a crash on bad arguments.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"

#include "crush/codec.h"
#include "crush/crushkit.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/version.h"
#include "tests/testing/cluster_builder.h"

namespace crushkit::crush {
namespace {

std::string ClusterBytes() {
  crush_testing::ClusterSpec spec;
  spec.hosts = 6;
  return EncodeCrushMap(crush_testing::MakeClusterModel(spec));
}

TEST(CrushkitCApiTest, MapsLikeDoRule) {
  const std::string bytes = ClusterBytes();
  char* error = nullptr;
  crushkit_map* map = crushkit_map_from_binary(bytes.data(), bytes.size(), &error);
  ASSERT_NE(map, nullptr) << error;
  EXPECT_EQ(error, nullptr);
  const CrushMap reference = *CrushMap::Build(*DecodeCrushMap(bytes));
  Workspace ws(reference, 3);
  crushkit_workspace* cws = crushkit_workspace_new(map, 3);
  ASSERT_NE(cws, nullptr);
  EXPECT_EQ(crushkit_map_max_devices(map), reference.max_devices());
  const std::vector<Weight> all_in(static_cast<std::size_t>(reference.max_devices()), kWeightOne);
  for (int rule = 0; rule < reference.max_rules(); ++rule) {
    ASSERT_EQ(crushkit_rule_exists(map, rule), 1);
    for (std::uint32_t x = 0; x < 300; ++x) {
      std::array<ItemId, 3> want{};
      std::array<std::int32_t, 3> got{};
      const int n = DoRule(reference, rule, x, all_in, ws, want, reference.ResolveChooseArgs(0));
      ASSERT_EQ(crushkit_do_rule(map, cws, rule, x, got.data(), 3, nullptr, 0, 0), n);
      EXPECT_EQ(std::vector<ItemId>(got.begin(), got.begin() + n),
                std::vector<ItemId>(want.begin(), want.begin() + n));
    }
  }
  // Reweights: device 0 out.
  std::vector<std::uint32_t> weights(all_in.begin(), all_in.end());
  weights[0] = 0;
  for (std::uint32_t x = 0; x < 300; ++x) {
    std::array<std::int32_t, 3> got{};
    const int n = crushkit_do_rule(map, cws, 0, x, got.data(), 3, weights.data(), weights.size(),
                                   CRUSHKIT_NO_CHOOSE_ARGS);
    for (int i = 0; i < n; ++i) EXPECT_NE(got[static_cast<std::size_t>(i)], 0);
  }
  crushkit_workspace_free(cws);
  crushkit_map_free(map);
}

TEST(CrushkitCApiTest, RuleByName) {
  const std::string bytes = ClusterBytes();
  crushkit_map* map = crushkit_map_from_binary(bytes.data(), bytes.size(), nullptr);
  ASSERT_NE(map, nullptr);
  const MapModel model = *DecodeCrushMap(bytes);
  ASSERT_FALSE(model.rule_names.empty());
  for (const auto& [id, name] : model.rule_names) {
    EXPECT_EQ(crushkit_rule_by_name(map, name.c_str()), id);
  }
  EXPECT_EQ(crushkit_rule_by_name(map, "no-such-rule"), -1);
  EXPECT_EQ(crushkit_rule_by_name(map, nullptr), -1);
  EXPECT_EQ(crushkit_rule_exists(map, 1000), 0);
  crushkit_map_free(map);
}

TEST(CrushkitCApiTest, ErrorsAreReportedNotCrashed) {
  const std::string bytes = ClusterBytes();
  char* error = nullptr;
  EXPECT_EQ(crushkit_map_from_binary(bytes.data(), 10, &error), nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_FALSE(std::string(error).empty());
  crushkit_free_string(error);
  EXPECT_EQ(crushkit_map_from_binary(nullptr, 5, &error), nullptr);
  crushkit_free_string(error);
  EXPECT_EQ(crushkit_map_from_binary(bytes.data(), 10, nullptr), nullptr);  // no message wanted

  crushkit_map* a = crushkit_map_from_binary(bytes.data(), bytes.size(), nullptr);
  crushkit_map* b = crushkit_map_from_binary(bytes.data(), bytes.size(), nullptr);
  crushkit_workspace* wa = crushkit_workspace_new(a, 3);
  std::array<std::int32_t, 3> out{};
  EXPECT_EQ(crushkit_do_rule(b, wa, 0, 1, out.data(), 3, nullptr, 0, 0), -1);  // foreign
  EXPECT_EQ(crushkit_do_rule(a, wa, 0, 1, nullptr, 3, nullptr, 0, 0), -1);
  EXPECT_EQ(crushkit_do_rule(a, wa, 0, 1, out.data(), -1, nullptr, 0, 0), -1);
  EXPECT_EQ(crushkit_do_rule(a, wa, 0, 1, out.data(), 3, nullptr, 4, 0), -1);
  EXPECT_EQ(crushkit_do_rule(a, nullptr, 0, 1, out.data(), 3, nullptr, 0, 0), -1);
  EXPECT_EQ(crushkit_do_rule(a, wa, 999, 1, out.data(), 3, nullptr, 0, 0), 0);  // no such rule
  EXPECT_EQ(crushkit_workspace_new(nullptr, 3), nullptr);
  crushkit_workspace_free(wa);
  crushkit_map_free(a);
  crushkit_map_free(b);
  crushkit_map_free(nullptr);
  crushkit_workspace_free(nullptr);
  crushkit_free_string(nullptr);
  EXPECT_STREQ(crushkit_version(), CRUSHKIT_VERSION_STRING);
}

}  // namespace
}  // namespace crushkit::crush
