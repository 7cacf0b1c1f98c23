// Two crush_do_rule edge cases pinned against Pacific crushtool:
//   - result_max 0 (crushtool --test --num-rep 0): Ceph still runs every
//     step, and each indep choose with a positive count makes one slot-less
//     crush_choose_indep() call that --show-choose-tries counts in bucket 0;
//   - rule ids >= 256: rule ids are slot indexes with no limit in Ceph 16.2;
//     only the u8 ruleset byte of the binary rule mask wraps (id & 0xff).
// The oracle tests skip when /usr/bin/crushtool is absent (fail under
// CRUSHKIT_REQUIRE_ORACLE).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/codec.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/model.h"
#include "crush/types.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::crush {
namespace {

using ::crush_testing::IsOk;
using ::testing::HasSubstr;

// A scratch directory with crushtool run inside it (under timeout, with its
// crash dumps kept out of the system crash dir).
class Scratch {
 public:
  Scratch() {
    dir_ = std::filesystem::temp_directory_path() /
           ("crushkit_rule_edge_" + std::to_string(::getpid()) + "_" + std::to_string(count_++));
    std::filesystem::create_directories(dir_);
  }

  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  void Write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }

  std::string Read(const std::string& name) const {
    return crush_testing::ReadFileOrEmpty(Path(name));
  }

  // Runs `crushtool ARGS > out.txt`; returns the exit status.
  int Crushtool(const std::string& args) const {
    const std::string cmd = "CEPH_ARGS=--crash_dir=" + Path("crash") + " timeout 120 crushtool " +
                            args + " > " + Path("out.txt") + " 2> " + Path("err.txt");
    return std::system(cmd.c_str());
  }

 private:
  static inline int count_ = 0;
  std::filesystem::path dir_;
};

std::vector<Weight> AllDevicesIn(const CrushMap& map) {
  return std::vector<Weight>(static_cast<std::size_t>(map.max_devices()), kWeightOne);
}

// ---------------------------------------------------------------------------
// result_max 0

// Parses --show-choose-tries lines " i:   count" into {i: count}.
std::map<int, std::uint64_t> ParseChooseTries(const std::string& text) {
  std::map<int, std::uint64_t> out;
  static const std::regex kLine(R"(^\s*(\d+):\s+(\d+)$)");
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, kLine)) out[std::stoi(m[1])] = std::stoull(m[2]);
  }
  return out;
}

// Racks over hosts over OSDs, plus rule shapes that matter for result_max 0.
MapModel NumRepZeroModel() {
  crush_testing::ClusterSpec spec;
  spec.hosts = 6;
  spec.osds_per_host = 2;
  spec.racks = 3;
  MapModel m = crush_testing::MakeClusterModel(spec);
  const auto add = [&m](std::vector<RuleStep> steps) {
    Rule r;
    r.ruleset = static_cast<std::uint8_t>(m.rules.size());
    r.type = RuleType::kErasure;
    r.min_size = 1;
    r.max_size = 10;
    r.steps = std::move(steps);
    // crushtool --test aborts on a rule without a name.
    m.rule_names[static_cast<std::int32_t>(m.rules.size())] = "r" + std::to_string(m.rules.size());
    m.rules.push_back(std::move(r));
    m.rule_exists.push_back(true);
  };
  using crush_testing::kHostType;
  using crush_testing::kOsdType;
  using crush_testing::kRackType;
  // 3: one indep call per working-set bucket: one.
  add({{RuleOp::kTake, -1, 0}, {RuleOp::kChooseleafIndep, 3, kHostType}, {RuleOp::kEmit, 0, 0}});
  // 4: two take/emit blocks, both indep with positive counts: two calls; the
  // second choose of each block sees an empty working set.
  add({{RuleOp::kTake, -1, 0},
       {RuleOp::kChooseIndep, 2, kRackType},
       {RuleOp::kChooseIndep, 1, kOsdType},
       {RuleOp::kEmit, 0, 0},
       {RuleOp::kTake, -2, 0},
       {RuleOp::kChooseleafIndep, 1, kHostType},
       {RuleOp::kEmit, 0, 0}});
  // 5: firstn with a positive count: no call records anything.
  add({{RuleOp::kTake, -1, 0}, {RuleOp::kChooseleafFirstn, 2, kHostType}, {RuleOp::kEmit, 0, 0}});
  // 6: indep with a count relative to result_max (0 + -1 <= 0): skipped.
  add({{RuleOp::kTake, -1, 0}, {RuleOp::kChooseIndep, -1, kHostType}, {RuleOp::kEmit, 0, 0}});
  // 7: take of a device: not a bucket, so no call.
  add({{RuleOp::kTake, 3, 0}, {RuleOp::kChooseIndep, 2, kOsdType}, {RuleOp::kEmit, 0, 0}});
  return m;
}

TEST(ResultMaxZeroTest, RunsTheStepsAndReturnsZero) {
  const MapModel model = NumRepZeroModel();
  auto map = CrushMap::Build(model);
  ASSERT_THAT(map.status(), IsOk());
  const auto reweights = AllDevicesIn(*map);
  // A zero-capacity workspace, and a non-zero one given an empty `out`.
  Workspace ws0(*map, 0);
  Workspace ws3(*map, 3);
  ws0.EnableChooseTriesProfile(*map);
  ws3.EnableChooseTriesProfile(*map);
  for (int rule = 0; rule < map->max_rules(); ++rule) {
    for (std::uint32_t x = 0; x < 10; ++x) {
      EXPECT_EQ(DoRule(*map, rule, x, reweights, ws0, {}), 0);
      EXPECT_EQ(DoRule(*map, rule, x, reweights, ws3, {}), 0);
    }
  }
  // Slot-less indep calls: rule 1 (ec_rule, chooseleaf indep 0) none,
  // rule 3 one, rule 4 two; 10 inputs each.
  EXPECT_EQ(ws0.choose_tries_profile()[0], 30u);
  EXPECT_EQ(ws3.choose_tries_profile()[0], 30u);
  for (std::size_t i = 1; i < ws0.choose_tries_profile().size(); ++i) {
    EXPECT_EQ(ws0.choose_tries_profile()[i], 0u) << i;
  }
}

TEST(ResultMaxZeroTest, ChooseTriesMatchCrushtoolNumRepZero) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  const MapModel model = NumRepZeroModel();
  auto map = CrushMap::Build(model);
  ASSERT_THAT(map.status(), IsOk());
  Scratch dir;
  dir.Write("map.bin", EncodeCrushMap(model));
  constexpr std::uint32_t kMaxX = 199;
  int nonzero_rules = 0;
  for (int rule = 0; rule < map->max_rules(); ++rule) {
    ASSERT_EQ(dir.Crushtool("-i " + dir.Path("map.bin") + " --test --num-rep 0 --rule " +
                            std::to_string(rule) + " --min-x 0 --max-x " + std::to_string(kMaxX) +
                            " --show-choose-tries"),
              0)
        << dir.Read("err.txt");
    const auto expected = ParseChooseTries(dir.Read("out.txt"));
    ASSERT_FALSE(expected.empty()) << "rule " << rule << ": " << dir.Read("out.txt");

    Workspace ws(*map, 0);
    ws.EnableChooseTriesProfile(*map);
    const auto reweights = AllDevicesIn(*map);
    for (std::uint32_t x = 0; x <= kMaxX; ++x) {
      EXPECT_EQ(DoRule(*map, rule, x, reweights, ws, {}), 0);
    }
    const auto ours = ws.choose_tries_profile();
    for (const auto& [i, count] : expected) {
      ASSERT_LT(static_cast<std::size_t>(i), ours.size());
      EXPECT_EQ(ours[static_cast<std::size_t>(i)], count) << "rule " << rule << " tries " << i;
    }
    if (expected.at(0) != 0) ++nonzero_rules;
  }
  EXPECT_EQ(nonzero_rules, 2);  // rules 3 and 4: the comparison is not vacuous
}

// ---------------------------------------------------------------------------
// Rule ids >= 256

// A one-rule map in Pacific crushtool syntax with rule id `id`.
std::string OneRuleText(int id) {
  std::string t =
      "tunable choose_local_tries 0\n"
      "tunable choose_local_fallback_tries 0\n"
      "tunable choose_total_tries 50\n"
      "tunable chooseleaf_descend_once 1\n"
      "tunable chooseleaf_vary_r 1\n"
      "tunable chooseleaf_stable 1\n"
      "tunable straw_calc_version 1\n"
      "tunable allowed_bucket_algs 54\n";
  for (int d = 0; d < 8; ++d) {
    t += "device " + std::to_string(d) + " osd." + std::to_string(d) + "\n";
  }
  t += "type 0 osd\ntype 1 host\ntype 2 root\n";
  for (int h = 0; h < 4; ++h) {
    t += "host host" + std::to_string(h) + " {\n\tid -" + std::to_string(h + 2) +
         "\n\talg straw2\n\thash 0\n";
    for (int d = 2 * h; d < 2 * h + 2; ++d) {
      t += "\titem osd." + std::to_string(d) + " weight " + (d % 3 == 0 ? "2.000" : "1.000") + "\n";
    }
    t += "}\n";
  }
  t += "root default {\n\tid -1\n\talg straw2\n\thash 0\n";
  for (int h = 0; h < 4; ++h) t += "\titem host" + std::to_string(h) + "\n";
  t += "}\n";
  t += "rule big {\n\tid " + std::to_string(id) +
       "\n\ttype replicated\n\tmin_size 1\n\tmax_size 10\n"
       "\tstep take default\n\tstep chooseleaf firstn 0 type host\n\tstep emit\n}\n";
  return t;
}

class BigRuleIdTest : public ::testing::TestWithParam<int> {};

// crushtool compiles the id as a slot index (max_rules = id + 1, empty slots
// before it) with ruleset byte id & 0xff; we decode it, re-encode it to the
// same bytes, build it and map exactly as crushtool --test --rule id.
TEST_P(BigRuleIdTest, DecodesBuildsAndMapsLikeCrushtool) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  const int id = GetParam();
  Scratch dir;
  dir.Write("map.txt", OneRuleText(id));
  ASSERT_EQ(dir.Crushtool("-c " + dir.Path("map.txt") + " -o " + dir.Path("map.bin")), 0)
      << dir.Read("err.txt");
  const std::string bytes = dir.Read("map.bin");
  auto model = DecodeCrushMap(bytes);
  ASSERT_THAT(model.status(), IsOk());
  ASSERT_EQ(model->rules.size(), static_cast<std::size_t>(id) + 1);
  for (int i = 0; i < id; ++i) ASSERT_FALSE(model->rule_exists[static_cast<std::size_t>(i)]) << i;
  ASSERT_TRUE(model->rule_exists.back());
  EXPECT_EQ(model->rules.back().ruleset, static_cast<std::uint8_t>(id & 0xff));
  EXPECT_EQ(EncodeCrushMap(*model), bytes);

  auto map = CrushMap::Build(*model);
  ASSERT_THAT(map.status(), IsOk());
  EXPECT_EQ(map->max_rules(), id + 1);
  EXPECT_TRUE(map->RuleExists(id));
  if (id > 0xff) {
    EXPECT_FALSE(map->RuleExists(id & 0xff));
  }

  constexpr std::uint32_t kMaxX = 511;
  ASSERT_EQ(
      dir.Crushtool("-i " + dir.Path("map.bin") + " --test --show-mappings --num-rep 3 --rule " +
                    std::to_string(id) + " --min-x 0 --max-x " + std::to_string(kMaxX)),
      0)
      << dir.Read("err.txt");
  std::string ours;
  Workspace ws(*map, 3);
  const auto reweights = AllDevicesIn(*map);
  std::vector<ItemId> out(3);
  for (std::uint32_t x = 0; x <= kMaxX; ++x) {
    const int n = DoRule(*map, id, x, reweights, ws, out);
    ours += "CRUSH rule " + std::to_string(id) + " x " + std::to_string(x) + " [";
    for (int i = 0; i < n; ++i) {
      if (i > 0) ours += ",";
      ours += std::to_string(out[static_cast<std::size_t>(i)]);
    }
    ours += "]\n";
  }
  EXPECT_EQ(ours, dir.Read("out.txt"));
}

INSTANTIATE_TEST_SUITE_P(Ids, BigRuleIdTest, ::testing::Values(255, 256, 300, 70000));

// Our own encoding of a rule at slot 300 is what crushtool expects: it
// decompiles it as id 300 with the wrapped ruleset 44.
TEST(BigRuleIdTest, CrushtoolReadsOurEncodingOfRule300) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  MapModel m = crush_testing::MakeClusterModel(crush_testing::ClusterSpec{});
  Rule rule = m.rules[0];
  rule.ruleset = static_cast<std::uint8_t>(300 & 0xff);
  m.rules.resize(301);
  m.rule_exists.assign(301, false);
  m.rules[300] = rule;
  m.rule_exists[300] = true;
  m.rule_names.clear();
  m.rule_names[300] = "r300";
  ASSERT_THAT(CrushMap::Build(m).status(), IsOk());
  Scratch dir;
  dir.Write("map.bin", EncodeCrushMap(m));
  ASSERT_EQ(dir.Crushtool("-d " + dir.Path("map.bin")), 0) << dir.Read("err.txt");
  const std::string text = dir.Read("out.txt");
  EXPECT_THAT(text, HasSubstr("rule r300 {\n\tid 300\n"));
  EXPECT_THAT(text, HasSubstr("ruleset 44 != id 300"));
}

TEST(BigRuleIdTest, BuildRefusesMismatchedRuleArrays) {
  MapModel m = crush_testing::MakeClusterModel(crush_testing::ClusterSpec{});
  m.rules.resize(1000);
  EXPECT_THAT(
      CrushMap::Build(m).status(),
      crush_testing::StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rule_exists has")));
  m.rule_exists.resize(1000, false);
  EXPECT_THAT(CrushMap::Build(m).status(), IsOk());
}

}  // namespace
}  // namespace crushkit::crush
