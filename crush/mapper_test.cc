// DoRule tests: bit-exactness against Pacific crushtool (the shared
// classes-4host outputs, and crushtool run live on synthetic maps covering
// every supported bucket alg, tunable profile and rule shape), plus
// properties, safety limits and concurrency.
#include "crush/mapper.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "crush/codec.h"
#include "crush/map.h"
#include "crush/model.h"
#include "crush/types.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::crush {
namespace {

using ::crush_testing::ClusterSpec;
using ::crush_testing::FinishBucket;
using ::crush_testing::IsOk;
using ::crush_testing::MakeCluster;
using ::crush_testing::MakeClusterModel;

using Mappings = std::map<std::uint32_t, std::vector<ItemId>>;

constexpr Weight ToWeight(double w) { return static_cast<Weight>(w * 0x10000); }

// ---------------------------------------------------------------------------
// Helpers

CrushMap BuildOrDie(const MapModel& model) {
  auto map = CrushMap::Build(model);
  EXPECT_THAT(map.status(), IsOk());
  if (!map.ok()) std::abort();
  return *std::move(map);
}

std::vector<ItemId> Map(const CrushMap& map, int rule, std::uint32_t x, int num_rep,
                        const std::vector<Weight>& reweights, ChooseArgsRef args = {}) {
  Workspace ws(map, num_rep);
  std::vector<ItemId> out(static_cast<std::size_t>(num_rep));
  const int n = DoRule(map, rule, x, reweights, ws, out, args);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::vector<Weight> AllIn(const CrushMap& map) {
  return std::vector<Weight>(static_cast<std::size_t>(map.max_devices()), kWeightOne);
}

// Parses crushtool --show-mappings lines "CRUSH rule R x X [a,b,c]".
Mappings ParseMappings(const std::string& text, int rule) {
  Mappings result;
  std::stringstream lines(text);
  std::string line;
  const std::string prefix = "CRUSH rule " + std::to_string(rule) + " x ";
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::size_t pos = prefix.size();
    const auto x = static_cast<std::uint32_t>(std::stoul(line.substr(pos)));
    const std::size_t open = line.find('[', pos);
    const std::size_t close = line.find(']', open);
    std::vector<ItemId> items;
    std::stringstream list(line.substr(open + 1, close - open - 1));
    std::string item;
    while (std::getline(list, item, ',')) items.push_back(static_cast<ItemId>(std::stol(item)));
    result[x] = items;
  }
  return result;
}

Mappings OurMappings(const CrushMap& map, int rule, int num_rep, std::uint32_t max_x,
                     const std::vector<Weight>& reweights, ChooseArgsRef args = {}) {
  Mappings result;
  Workspace ws(map, num_rep);
  std::vector<ItemId> out(static_cast<std::size_t>(num_rep));
  for (std::uint32_t x = 0; x <= max_x; ++x) {
    const int n = DoRule(map, rule, x, reweights, ws, out, args);
    result[x] = std::vector<ItemId>(out.begin(), out.begin() + n);
  }
  return result;
}

// Compares two mapping sets and reports the first few differences.
::testing::AssertionResult SameMappings(const Mappings& expected, const Mappings& actual) {
  if (expected.empty()) return ::testing::AssertionFailure() << "no expected mappings";
  int diffs = 0;
  std::ostringstream msg;
  for (const auto& [x, items] : expected) {
    auto it = actual.find(x);
    if (it == actual.end() || it->second != items) {
      if (++diffs <= 5) {
        msg << "x " << x << ": expected " << ::testing::PrintToString(items) << " got "
            << (it == actual.end() ? std::string("nothing") : ::testing::PrintToString(it->second))
            << "\n";
      }
    }
  }
  if (diffs == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << diffs << " of " << expected.size() << " differ\n"
                                       << msg.str();
}

// ---------------------------------------------------------------------------
// classes-4host (shared oracle outputs): hand-built model of
// ../shared/compat/examples/classes-4host.decompiled.txt, shadow trees
// included (ids -6..-15).

MapModel Classes4HostModel() {
  MapModel m;
  m.max_devices = 8;
  m.tunables = TunablesFor(TunablesProfile::kJewel);
  m.buckets.resize(15);
  const auto add = [&m](ItemId id, std::uint16_t type, std::vector<ItemId> items,
                        std::vector<Weight> weights) {
    Bucket& b = m.buckets[static_cast<std::size_t>(BucketSlot(id))];
    b.id = id;
    b.type = type;
    b.alg = BucketAlg::kStraw2;
    b.items = std::move(items);
    b.item_weights = std::move(weights);
    FinishBucket(b);
  };
  add(-2, 1, {0, 1}, {ToWeight(1.0), ToWeight(0.5)});
  add(-3, 1, {2, 3}, {ToWeight(1.0), ToWeight(0.5)});
  add(-4, 1, {4, 5}, {ToWeight(2.0), ToWeight(0.5)});
  add(-5, 1, {6, 7}, {ToWeight(1.0), ToWeight(1.0)});
  add(-1, 11, {-2, -3, -4, -5}, {ToWeight(1.5), ToWeight(1.5), ToWeight(2.5), ToWeight(2.0)});
  // hdd shadow tree
  add(-6, 1, {0}, {ToWeight(1.0)});
  add(-7, 1, {2}, {ToWeight(1.0)});
  add(-8, 1, {4}, {ToWeight(2.0)});
  add(-9, 1, {6, 7}, {ToWeight(1.0), ToWeight(1.0)});
  add(-10, 11, {-6, -7, -8, -9}, {ToWeight(1.0), ToWeight(1.0), ToWeight(2.0), ToWeight(2.0)});
  // ssd shadow tree
  add(-11, 1, {1}, {ToWeight(0.5)});
  add(-12, 1, {3}, {ToWeight(0.5)});
  add(-13, 1, {5}, {ToWeight(0.5)});
  add(-14, 1, {}, {});
  add(-15, 11, {-11, -12, -13, -14}, {ToWeight(0.5), ToWeight(0.5), ToWeight(0.5), 0});

  Rule r0;
  r0.steps = {{RuleOp::kTake, -1, 0}, {RuleOp::kChooseleafFirstn, 0, 1}, {RuleOp::kEmit, 0, 0}};
  Rule r1 = r0;
  r1.ruleset = 1;
  r1.steps[0].arg1 = -10;
  Rule r2;
  r2.ruleset = 2;
  r2.type = RuleType::kErasure;
  r2.min_size = 3;
  r2.max_size = 20;
  r2.steps = {{RuleOp::kSetChooseleafTries, 5, 0},
              {RuleOp::kSetChooseTries, 100, 0},
              {RuleOp::kTake, -1, 0},
              {RuleOp::kChooseleafIndep, 0, 1},
              {RuleOp::kEmit, 0, 0}};
  m.rules = {r0, r1, r2};
  m.rule_exists = {true, true, true};
  return m;
}

std::string ExampleFile(const std::string& name) {
  return crush_testing::ReadFileOrEmpty(crush_testing::CompatDir() + "/examples/" + name);
}

TEST(MapperOracleTest, Classes4HostMatchesCrushtool) {
  const std::string text = ExampleFile("classes-4host.mappings.txt");
  ASSERT_FALSE(text.empty());
  const CrushMap map = BuildOrDie(Classes4HostModel());
  const auto reweights = AllIn(map);
  for (const auto& [rule, num_rep] : std::vector<std::pair<int, int>>{{0, 3}, {1, 3}, {2, 6}}) {
    const Mappings expected = ParseMappings(text, rule);
    EXPECT_EQ(expected.size(), 1024u);
    EXPECT_TRUE(SameMappings(expected, OurMappings(map, rule, num_rep, 1023, reweights)))
        << "rule " << rule;
  }
}

TEST(MapperOracleTest, Classes4HostReweightedMatchesCrushtool) {
  // crushtool --weight 4 0.5 --weight 7 0 --weight 1 0.25
  const CrushMap map = BuildOrDie(Classes4HostModel());
  auto reweights = AllIn(map);
  reweights[4] = ToWeight(0.5);
  reweights[7] = 0;
  reweights[1] = ToWeight(0.25);
  const Mappings expected = ParseMappings(ExampleFile("classes-4host.mappings-reweighted.txt"), 0);
  EXPECT_EQ(expected.size(), 1024u);
  EXPECT_TRUE(SameMappings(expected, OurMappings(map, 0, 3, 1023, reweights)));
}

TEST(MapperOracleTest, Classes4HostCompatWeightSetMatchesCrushtool) {
  MapModel model = Classes4HostModel();
  model.choose_args[kCompatChooseArgs][-1].weight_set = {
      {ToWeight(1.5), ToWeight(1.5), 0, ToWeight(2.0)}};
  const CrushMap map = BuildOrDie(model);
  // crushtool --test asks for choose_args index 0 and falls back to -1.
  const ChooseArgsRef args = map.ResolveChooseArgs(0);
  ASSERT_FALSE(args.none());
  const Mappings expected =
      ParseMappings(ExampleFile("classes-4host-compat-weightset.mappings.txt"), 0);
  EXPECT_EQ(expected.size(), 1024u);
  EXPECT_TRUE(SameMappings(expected, OurMappings(map, 0, 2, 1023, AllIn(map), args)));
  // Without the weight set, h2 (weight 0 in the set) would be chosen.
  EXPECT_FALSE(SameMappings(expected, OurMappings(map, 0, 2, 1023, AllIn(map))));
}

// ---------------------------------------------------------------------------
// Live differential tests against the installed crushtool.

std::string WeightText(Weight w) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.5f", static_cast<double>(w) / 0x10000);
  return buf;
}

std::string StepText(const MapModel& m, const RuleStep& s) {
  const auto name = [&m](ItemId id) { return m.item_names.at(id); };
  const auto type = [&m](int t) { return m.type_names.at(t); };
  switch (s.op) {
    case RuleOp::kTake:
      return "step take " + name(s.arg1);
    case RuleOp::kEmit:
      return "step emit";
    case RuleOp::kChooseFirstn:
      return "step choose firstn " + std::to_string(s.arg1) + " type " + type(s.arg2);
    case RuleOp::kChooseIndep:
      return "step choose indep " + std::to_string(s.arg1) + " type " + type(s.arg2);
    case RuleOp::kChooseleafFirstn:
      return "step chooseleaf firstn " + std::to_string(s.arg1) + " type " + type(s.arg2);
    case RuleOp::kChooseleafIndep:
      return "step chooseleaf indep " + std::to_string(s.arg1) + " type " + type(s.arg2);
    case RuleOp::kSetChooseTries:
      return "step set_choose_tries " + std::to_string(s.arg1);
    case RuleOp::kSetChooseleafTries:
      return "step set_chooseleaf_tries " + std::to_string(s.arg1);
    case RuleOp::kSetChooseLocalTries:
      return "step set_choose_local_tries " + std::to_string(s.arg1);
    case RuleOp::kSetChooseLocalFallbackTries:
      return "step set_choose_local_fallback_tries " + std::to_string(s.arg1);
    case RuleOp::kSetChooseleafVaryR:
      return "step set_chooseleaf_vary_r " + std::to_string(s.arg1);
    case RuleOp::kSetChooseleafStable:
      return "step set_chooseleaf_stable " + std::to_string(s.arg1);
    default:
      return "# unsupported step";
  }
}

// Writes `m` as Pacific crushtool source. Buckets are emitted children
// first. Weights must be multiples of 1/64 to survive the float round trip.
std::string ToCrushText(const MapModel& m) {
  std::ostringstream out;
  const Tunables& t = m.tunables;
  out << "tunable choose_local_tries " << t.choose_local_tries << "\n"
      << "tunable choose_local_fallback_tries " << t.choose_local_fallback_tries << "\n"
      << "tunable choose_total_tries " << t.choose_total_tries << "\n"
      << "tunable chooseleaf_descend_once " << t.chooseleaf_descend_once << "\n"
      << "tunable chooseleaf_vary_r " << int{t.chooseleaf_vary_r} << "\n"
      << "tunable chooseleaf_stable " << int{t.chooseleaf_stable} << "\n"
      << "tunable straw_calc_version 1\n"
      << "tunable allowed_bucket_algs 62\n";
  for (int d = 0; d < m.max_devices; ++d)
    out << "device " << d << " " << m.item_names.at(d) << "\n";
  for (const auto& [id, name] : m.type_names) out << "type " << id << " " << name << "\n";
  std::set<ItemId> done;
  std::function<void(ItemId)> emit = [&](ItemId id) {
    if (done.count(id) != 0) return;
    done.insert(id);
    const Bucket& b = *m.FindBucket(id);
    for (const ItemId item : b.items) {
      if (item < 0) emit(item);
    }
    out << m.type_names.at(b.type) << " " << m.item_names.at(id) << " {\n\tid " << id << "\n\talg "
        << BucketAlgName(b.alg) << "\n\thash 0\n";
    for (std::size_t i = 0; i < b.items.size(); ++i) {
      const Weight w = b.alg == BucketAlg::kUniform ? b.uniform_item_weight : b.item_weights[i];
      out << "\titem " << m.item_names.at(b.items[i]) << " weight " << WeightText(w) << "\n";
    }
    out << "}\n";
  };
  for (int slot = 0; slot < m.max_buckets(); ++slot) {
    if (m.buckets[static_cast<std::size_t>(slot)].alg != BucketAlg::kNone) {
      emit(BucketIdOfSlot(slot));
    }
  }
  for (std::size_t r = 0; r < m.rules.size(); ++r) {
    if (!m.rule_exists[r]) continue;
    const Rule& rule = m.rules[r];
    out << "rule rule" << r << " {\n\tid " << r << "\n\ttype "
        << (rule.type == RuleType::kErasure ? "erasure" : "replicated")
        << "\n\tmin_size 1\n\tmax_size 20\n";
    for (const RuleStep& s : rule.steps) out << "\t" << StepText(m, s) << "\n";
    out << "}\n";
  }
  return out.str();
}

class Oracle {
 public:
  // Compiles `model` as crushtool source text.
  explicit Oracle(const MapModel& model) {
    MakeDir();
    std::ofstream(dir_ / "map.txt") << ToCrushText(model);
    compiled_ = Run("crushtool -c " + (dir_ / "map.txt").string() + " -o " +
                    (dir_ / "map.bin").string()) == 0;
  }

  // Uses an already encoded binary map.
  Oracle(const std::string& encoded, bool /*binary*/) {
    MakeDir();
    std::ofstream(dir_ / "map.bin", std::ios::binary) << encoded;
    compiled_ = true;
  }

  ~Oracle() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  Oracle(const Oracle&) = delete;
  Oracle& operator=(const Oracle&) = delete;

  bool compiled() const { return compiled_; }

  // crushtool --test --show-mappings for x in [0, max_x]; `weights` are
  // --weight overrides (device, 16.16 weight; multiples of 1/64 only).
  Mappings Test(int rule, int num_rep, std::uint32_t max_x,
                const std::vector<std::pair<int, Weight>>& weights = {}) {
    std::string cmd = "crushtool -i " + (dir_ / "map.bin").string() +
                      " --test --show-mappings --rule " + std::to_string(rule) + " --num-rep " +
                      std::to_string(num_rep) + " --min-x 0 --max-x " + std::to_string(max_x);
    for (const auto& [dev, w] : weights)
      cmd += " --weight " + std::to_string(dev) + " " + WeightText(w);
    cmd += " > " + (dir_ / "out.txt").string();
    if (Run(cmd) != 0) {
      ADD_FAILURE() << "crushtool failed: " << cmd << "\n"
                    << crush_testing::ReadFileOrEmpty((dir_ / "err.txt").string()).substr(0, 2000);
      return {};
    }
    return ParseMappings(crush_testing::ReadFileOrEmpty((dir_ / "out.txt").string()), rule);
  }

 private:
  int Run(const std::string& cmd) {
    const std::string crash = (dir_ / "crash").string();
    const std::string full = "CEPH_ARGS=--crash_dir=" + crash + " timeout 60 " + cmd + " 2>" +
                             (dir_ / "err.txt").string();
    return std::system(full.c_str());
  }

  void MakeDir() {
    dir_ = std::filesystem::temp_directory_path() /
           ("crushkit_mapper_test_" + std::to_string(::getpid()) + "_" + std::to_string(count_++));
    std::filesystem::create_directories(dir_);
  }

  static inline int count_ = 0;
  std::filesystem::path dir_;
  bool compiled_ = false;
};

struct DiffCase {
  std::string name;
  ClusterSpec spec;
};

// Extra rules appended to the cluster's own (rules 3..): multi-step and
// multi-emit shapes, numrep <= 0, emitting buckets, per-rule overrides.
void AddShapeRules(MapModel& m, bool has_racks) {
  const auto add = [&m](std::vector<RuleStep> steps, RuleType type = RuleType::kReplicated) {
    while (m.rules.size() < 3) {
      m.rules.emplace_back();
      m.rule_exists.push_back(false);
    }
    Rule r;
    r.ruleset = static_cast<std::uint8_t>(m.rules.size());
    r.type = type;
    r.steps = std::move(steps);
    m.rules.push_back(std::move(r));
    m.rule_exists.push_back(true);
  };
  const int top = has_racks ? crush_testing::kRackType : crush_testing::kHostType;
  // 3: choose 2 top-level failure domains, then 2 leaves in each.
  add({{RuleOp::kTake, -1, 0},
       {RuleOp::kChooseFirstn, 2, top},
       {RuleOp::kChooseleafFirstn, 2, crush_testing::kHostType},
       {RuleOp::kEmit, 0, 0}});
  // 4: indep hosts then one osd each (choose, not chooseleaf), numrep -1.
  add({{RuleOp::kTake, -1, 0},
       {RuleOp::kChooseIndep, -1, crush_testing::kHostType},
       {RuleOp::kChooseIndep, 1, crush_testing::kOsdType},
       {RuleOp::kEmit, 0, 0}},
      RuleType::kErasure);
  // 5: two take/emit blocks (crushtool --test crashes on bucket results,
  // so those are covered by MapperRuleTest.EmitsBucketsWhenRuleStopsAtThem).
  add({{RuleOp::kTake, -1, 0},
       {RuleOp::kChooseFirstn, 2, crush_testing::kHostType},
       {RuleOp::kChooseFirstn, 1, crush_testing::kOsdType},
       {RuleOp::kEmit, 0, 0},
       {RuleOp::kTake, -1, 0},
       {RuleOp::kChooseleafFirstn, 1, crush_testing::kHostType},
       {RuleOp::kEmit, 0, 0}});
  // 6: per-rule tunable overrides on a legacy-style descent.
  add({{RuleOp::kSetChooseLocalTries, 3, 0},
       {RuleOp::kSetChooseLocalFallbackTries, 4, 0},
       {RuleOp::kSetChooseleafVaryR, 2, 0},
       {RuleOp::kSetChooseleafStable, 0, 0},
       {RuleOp::kSetChooseTries, 7, 0},
       {RuleOp::kSetChooseleafTries, 3, 0},
       {RuleOp::kTake, -1, 0},
       {RuleOp::kChooseleafFirstn, 0, crush_testing::kHostType},
       {RuleOp::kEmit, 0, 0}});
  // 7: choose osds directly (descending through hosts), firstn, numrep 0.
  add({{RuleOp::kTake, -1, 0},
       {RuleOp::kChooseFirstn, 0, crush_testing::kOsdType},
       {RuleOp::kEmit, 0, 0}});
}

std::vector<DiffCase> DiffCases() {
  std::vector<DiffCase> cases;
  const std::vector<std::pair<std::string, TunablesProfile>> profiles = {
      {"legacy", TunablesProfile::kLegacy},
      {"bobtail", TunablesProfile::kBobtail},
      {"firefly", TunablesProfile::kFirefly},
      {"jewel", TunablesProfile::kJewel}};

  struct Algs {
    std::string name;
    BucketAlg host, rack, root;
    bool uneven;
  };

  const std::vector<Algs> algs = {
      {"straw2", BucketAlg::kStraw2, BucketAlg::kStraw2, BucketAlg::kStraw2, true},
      {"list", BucketAlg::kList, BucketAlg::kList, BucketAlg::kList, true},
      {"tree", BucketAlg::kTree, BucketAlg::kTree, BucketAlg::kTree, true},
      {"uniform", BucketAlg::kUniform, BucketAlg::kStraw2, BucketAlg::kList, false},
      {"mixed", BucketAlg::kStraw2, BucketAlg::kTree, BucketAlg::kUniform, false},
  };
  for (const auto& [pname, profile] : profiles) {
    for (const Algs& a : algs) {
      DiffCase c;
      c.name = a.name + "_" + pname;
      c.spec.hosts = 7;
      c.spec.osds_per_host = 3;
      c.spec.racks = a.root == BucketAlg::kUniform ? 0 : 3;
      c.spec.host_alg = a.host;
      c.spec.rack_alg = a.rack;
      c.spec.root_alg = a.root;
      c.spec.tunables = TunablesFor(profile);
      if (a.uneven) {
        for (int i = 0; i < 21; ++i) c.spec.osd_weights.push_back(ToWeight(0.25 * (1 + i % 4)));
        c.spec.osd_weights[5] = 0;  // a zero-weight device
      }
      cases.push_back(c);
    }
  }
  return cases;
}

void PrintTo(const DiffCase& c, std::ostream* os) { *os << c.name; }

class MapperDiffTest : public ::testing::TestWithParam<DiffCase> {};

TEST_P(MapperDiffTest, MatchesCrushtool) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  const DiffCase& c = GetParam();
  MapModel model = MakeClusterModel(c.spec);
  const bool racks = c.spec.racks > 0;
  AddShapeRules(model, racks);
  const CrushMap map = BuildOrDie(model);
  Oracle oracle(model);
  ASSERT_TRUE(oracle.compiled()) << ToCrushText(model);
  constexpr std::uint32_t kMaxX = 511;
  // Reweights exercising is_out (partial) and fully-out devices.
  const std::vector<std::pair<int, Weight>> overrides = {
      {1, ToWeight(0.5)}, {8, 0}, {13, ToWeight(0.75)}};
  auto reweighted = AllIn(map);
  for (const auto& [d, w] : overrides) reweighted[static_cast<std::size_t>(d)] = w;
  int checked = 0;
  for (int rule = 0; rule < map.max_rules(); ++rule) {
    if (!map.RuleExists(rule)) continue;
    for (const int num_rep : {3}) {
      const Mappings expected = oracle.Test(rule, num_rep, kMaxX);
      ASSERT_EQ(expected.size(), kMaxX + 1) << "rule " << rule;
      EXPECT_TRUE(SameMappings(expected, OurMappings(map, rule, num_rep, kMaxX, AllIn(map))))
          << c.name << " rule " << rule << " num_rep " << num_rep;
      ++checked;
    }
    const Mappings expected = oracle.Test(rule, 5, kMaxX, overrides);
    ASSERT_EQ(expected.size(), kMaxX + 1);
    EXPECT_TRUE(SameMappings(expected, OurMappings(map, rule, 5, kMaxX, reweighted)))
        << c.name << " rule " << rule << " reweighted";
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

INSTANTIATE_TEST_SUITE_P(AllAlgsAndProfiles, MapperDiffTest, ::testing::ValuesIn(DiffCases()),
                         [](const ::testing::TestParamInfo<DiffCase>& p) { return p.param.name; });

// Ceph's own binary test maps (pacific cram corpus: straw v1, tree, list,
// uniform, legacy to jewel tunables), decoded with the codec, re-encoded
// under several tunable profiles, and mapped by crushtool and by us.
class MapperCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(MapperCorpusTest, MatchesCrushtoolUnderEveryProfile) {
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  const std::string path =
      crush_testing::CompatDir() + "/ceph-cli-tests/pacific/crushtool/" + GetParam();
  const std::string bytes = crush_testing::ReadFileOrEmpty(path);
  ASSERT_FALSE(bytes.empty()) << path;
  auto decoded = DecodeCrushMap(bytes);
  ASSERT_THAT(decoded.status(), IsOk()) << path;

  struct Variant {
    const char* name;
    bool keep;
    TunablesProfile profile;
  };

  const std::vector<Variant> variants = {{"as-is", true, TunablesProfile::kLegacy},
                                         {"legacy", false, TunablesProfile::kLegacy},
                                         {"bobtail", false, TunablesProfile::kBobtail},
                                         {"firefly", false, TunablesProfile::kFirefly},
                                         {"jewel", false, TunablesProfile::kJewel}};
  int compared = 0;
  for (const Variant& v : variants) {
    MapModel model = *decoded;
    if (!v.keep) model.tunables = TunablesFor(v.profile, model.tunables);
    const CrushMap map = BuildOrDie(model);
    Oracle oracle(EncodeCrushMap(model), /*binary=*/true);
    ASSERT_TRUE(oracle.compiled());
    // crushtool --test weighs devices present in some bucket 1.0, others 0.
    std::vector<Weight> reweights(static_cast<std::size_t>(map.max_devices()), 0);
    for (const Bucket& b : model.buckets) {
      for (const ItemId item : b.items) {
        if (item >= 0 && item < map.max_devices())
          reweights[static_cast<std::size_t>(item)] = kWeightOne;
      }
    }
    for (int rule = 0; rule < map.max_rules(); ++rule) {
      if (!map.RuleExists(rule)) continue;
      const Mappings expected = oracle.Test(rule, 3, 1023);
      ASSERT_EQ(expected.size(), 1024u) << v.name << " rule " << rule;
      EXPECT_TRUE(SameMappings(
          expected, OurMappings(map, rule, 3, 1023, reweights, map.ResolveChooseArgs(0))))
          << GetParam() << " " << v.name << " rule " << rule;
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

INSTANTIATE_TEST_SUITE_P(PacificCorpus, MapperCorpusTest,
                         ::testing::Values("test-map-a.crushmap", "test-map-big-1.crushmap",
                                           "test-map-hammer-tunables.crushmap",
                                           "test-map-indep.crushmap",
                                           "test-map-jewel-tunables.crushmap",
                                           "test-map-tries-vs-retries.crushmap",
                                           "test-map-vary-r.crushmap", "five-devices.crushmap",
                                           "check-overlapped-rules.crushmap"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

// The straw2 negative-int weight quirk (Ceph >= Mimic): an item weighing
// >= 32768.0 has a negative int weight and wins every draw. Verified on
// Pacific with weights 40000 and 20000 (notes §4.3); checked live here.
TEST(MapperOracleTest, Straw2HugeWeightAlwaysWins) {
  // crushtool limits device weights to 100, so the huge weights sit on
  // host items of the root (bucket weights may reach 65535.0).
  MapModel m;
  m.max_devices = 2;
  m.tunables = TunablesFor(TunablesProfile::kJewel);
  m.type_names = {{0, "osd"}, {1, "host"}, {11, "root"}};
  m.item_names = {{0, "osd.0"}, {1, "osd.1"}, {-1, "default"}, {-2, "h0"}, {-3, "h1"}};
  m.buckets.resize(3);
  for (int h = 0; h < 2; ++h) {
    Bucket& host = m.buckets[static_cast<std::size_t>(1 + h)];
    host.id = -2 - h;
    host.type = 1;
    host.alg = BucketAlg::kStraw2;
    host.items = {h};
    host.item_weights = {kWeightOne};
    FinishBucket(host);
  }
  Bucket& root = m.buckets[0];
  root.id = -1;
  root.type = 11;
  root.alg = BucketAlg::kStraw2;
  root.items = {-2, -3};
  root.item_weights = {ToWeight(40000), ToWeight(20000)};
  FinishBucket(root);
  Rule r;
  r.steps = {{RuleOp::kTake, -1, 0}, {RuleOp::kChooseleafFirstn, 1, 1}, {RuleOp::kEmit, 0, 0}};
  m.rules = {r};
  m.rule_exists = {true};
  const CrushMap map = BuildOrDie(m);
  const Mappings ours = OurMappings(map, 0, 1, 1023, AllIn(map));
  for (const auto& [x, items] : ours) ASSERT_EQ(items, std::vector<ItemId>{0}) << x;
  CRUSH_TEST_NEEDS_ORACLE("crushtool");
  Oracle oracle(m);
  ASSERT_TRUE(oracle.compiled());
  EXPECT_TRUE(SameMappings(oracle.Test(0, 1, 1023), ours));
}

// ---------------------------------------------------------------------------
// Properties on synthetic clusters.

TEST(MapperPropertyTest, FirstnResultsAreDistinctAndHostSeparated) {
  ClusterSpec spec;
  spec.hosts = 10;
  spec.osds_per_host = 4;
  const CrushMap map = MakeCluster(spec);
  const auto reweights = AllIn(map);
  Workspace ws(map, 3);
  std::array<ItemId, 3> out{};
  for (std::uint32_t x = 0; x < 20000; ++x) {
    ASSERT_EQ(DoRule(map, crush_testing::kReplicatedRule, x, reweights, ws, out), 3);
    std::set<int> hosts;
    for (const ItemId osd : out) {
      ASSERT_GE(osd, 0);
      ASSERT_LT(osd, 40);
      hosts.insert(osd / 4);
    }
    ASSERT_EQ(hosts.size(), 3u) << "x " << x;
  }
}

TEST(MapperPropertyTest, IndepKeepsPositionsAndFillsHolesWithNone) {
  ClusterSpec spec;
  spec.hosts = 4;
  spec.osds_per_host = 2;
  const CrushMap map = MakeCluster(spec);
  Workspace ws(map, 6);
  std::array<ItemId, 6> out{};
  for (std::uint32_t x = 0; x < 2000; ++x) {
    // Six slots over four hosts: exactly two holes, every host once.
    ASSERT_EQ(DoRule(map, crush_testing::kEcRule, x, AllIn(map), ws, out), 6);
    std::set<int> hosts;
    int holes = 0;
    for (const ItemId osd : out) {
      if (osd == kItemNone) {
        ++holes;
      } else {
        hosts.insert(osd / 2);
      }
    }
    EXPECT_EQ(holes, 2) << x;
    EXPECT_EQ(hosts.size(), 4u) << x;
  }
}

TEST(MapperPropertyTest, PlacementIsProportionalToWeight) {
  ClusterSpec spec;
  spec.hosts = 8;
  spec.osds_per_host = 4;
  for (int i = 0; i < 32; ++i) spec.osd_weights.push_back(ToWeight(1 + i % 4));  // 1,2,3,4 per host
  MapModel model = MakeClusterModel(spec);
  Rule one;
  one.steps = {{RuleOp::kTake, -1, 0}, {RuleOp::kChooseleafFirstn, 1, 1}, {RuleOp::kEmit, 0, 0}};
  model.rules.push_back(one);
  model.rule_exists.push_back(true);
  const CrushMap map = BuildOrDie(model);
  std::vector<int> count(32, 0);
  Workspace ws(map, 1);
  std::array<ItemId, 1> out{};
  constexpr int kSamples = 200000;
  for (std::uint32_t x = 0; x < kSamples; ++x) {
    ASSERT_EQ(DoRule(map, 2, x, AllIn(map), ws, out), 1);
    ++count[static_cast<std::size_t>(out[0])];
  }
  // Expected share of OSD i: (1 + i % 4) / 80. With ~2500..10000 samples
  // per OSD, sampling noise is ~2%; allow 8%.
  for (int i = 0; i < 32; ++i) {
    const double expected = kSamples * (1.0 + i % 4) / 80.0;
    EXPECT_NEAR(count[static_cast<std::size_t>(i)], expected, 0.08 * expected) << "osd " << i;
  }
}

TEST(MapperPropertyTest, ZeroWeightItemIsNeverChosen) {
  ClusterSpec spec;
  spec.hosts = 5;
  spec.osds_per_host = 3;
  spec.osd_weights.assign(15, kWeightOne);
  spec.osd_weights[4] = 0;
  const CrushMap map = MakeCluster(spec);
  Workspace ws(map, 3);
  std::array<ItemId, 3> out{};
  for (std::uint32_t x = 0; x < 20000; ++x) {
    const int n = DoRule(map, crush_testing::kReplicatedRule, x, AllIn(map), ws, out);
    for (int i = 0; i < n; ++i) ASSERT_NE(out[static_cast<std::size_t>(i)], 4);
  }
}

// Lowering one device's in/out reweight moves only inputs that used it:
// is_out() is evaluated only for the device just selected, so a mapping
// can change only where that device was (or now is) part of the result.
TEST(MapperPropertyTest, ReweightMovesOnlyMappingsTouchingTheDevice) {
  ClusterSpec spec;
  spec.hosts = 12;
  spec.osds_per_host = 5;
  spec.racks = 3;
  const CrushMap map = MakeCluster(spec);
  auto before = AllIn(map);
  auto after = before;
  after[17] = ToWeight(0.25);
  int moved = 0;
  for (const int rule : {crush_testing::kReplicatedRule, crush_testing::kEcRule}) {
    for (std::uint32_t x = 0; x < 20000; ++x) {
      const auto a = Map(map, rule, x, 4, before);
      const auto b = Map(map, rule, x, 4, after);
      if (a == b) continue;
      ++moved;
      const bool touched = std::find(a.begin(), a.end(), 17) != a.end() ||
                           std::find(b.begin(), b.end(), 17) != b.end();
      ASSERT_TRUE(touched) << "rule " << rule << " x " << x;
    }
  }
  EXPECT_GT(moved, 0);
}

// Changing one device's CRUSH weight in a flat straw2 bucket changes only
// that device's draws, so only mappings that contain it (before or after)
// move.
TEST(MapperPropertyTest, Straw2WeightChangeMovesOnlyMappingsTouchingTheDevice) {
  ClusterSpec spec;
  spec.hosts = 1;
  spec.osds_per_host = 30;
  MapModel model = MakeClusterModel(spec);
  Rule flat;
  flat.steps = {{RuleOp::kTake, -2, 0}, {RuleOp::kChooseFirstn, 0, 0}, {RuleOp::kEmit, 0, 0}};
  model.rules.push_back(flat);
  model.rule_exists.push_back(true);
  const CrushMap before = BuildOrDie(model);
  model.buckets[1].item_weights[11] = ToWeight(2.5);
  FinishBucket(model.buckets[1]);
  const CrushMap after = BuildOrDie(model);
  int moved = 0;
  for (std::uint32_t x = 0; x < 20000; ++x) {
    const auto a = Map(before, 2, x, 3, AllIn(before));
    const auto b = Map(after, 2, x, 3, AllIn(after));
    if (a == b) continue;
    ++moved;
    const bool touched = std::find(a.begin(), a.end(), 11) != a.end() ||
                         std::find(b.begin(), b.end(), 11) != b.end();
    ASSERT_TRUE(touched) << x;
  }
  EXPECT_GT(moved, 0);
}

// ---------------------------------------------------------------------------
// Rule-step semantics (hand-reasoned; the live oracle covers the rest).

MapModel WithRule(MapModel m, std::vector<RuleStep> steps) {
  Rule r;
  r.steps = std::move(steps);
  m.rules.push_back(std::move(r));
  m.rule_exists.push_back(true);
  return m;
}

TEST(MapperRuleTest, InvalidTakeIsIgnored) {
  // Ceph ignores a TAKE of a missing bucket or an out-of-range device and
  // keeps the previous working set, so this rule equals rule 0.
  ClusterSpec spec;
  const MapModel model = WithRule(MakeClusterModel(spec), {{RuleOp::kTake, -1, 0},
                                                           {RuleOp::kTake, -99, 0},
                                                           {RuleOp::kTake, 1000, 0},
                                                           {RuleOp::kChooseleafFirstn, 0, 1},
                                                           {RuleOp::kEmit, 0, 0}});
  const CrushMap map = BuildOrDie(model);
  for (std::uint32_t x = 0; x < 500; ++x) {
    EXPECT_EQ(Map(map, 2, x, 3, AllIn(map)), Map(map, 0, x, 3, AllIn(map)));
  }
}

TEST(MapperRuleTest, TakeOfDeviceEmitsIt) {
  ClusterSpec spec;
  const CrushMap map =
      BuildOrDie(WithRule(MakeClusterModel(spec), {{RuleOp::kTake, 5, 0}, {RuleOp::kEmit, 0, 0}}));
  EXPECT_EQ(Map(map, 2, 42, 3, AllIn(map)), std::vector<ItemId>{5});
}

TEST(MapperRuleTest, NumrepBelowZeroIsRelativeToResultMax) {
  ClusterSpec spec;
  spec.hosts = 8;
  const CrushMap map = BuildOrDie(WithRule(
      MakeClusterModel(spec),
      {{RuleOp::kTake, -1, 0}, {RuleOp::kChooseleafFirstn, -2, 1}, {RuleOp::kEmit, 0, 0}}));
  EXPECT_EQ(Map(map, 2, 7, 5, AllIn(map)).size(), 3u);
  EXPECT_EQ(Map(map, 2, 7, 2, AllIn(map)).size(), 0u);  // 2 - 2 <= 0: step skipped
}

TEST(MapperRuleTest, EmitsBucketsWhenRuleStopsAtThem) {
  ClusterSpec spec;
  spec.hosts = 6;
  const CrushMap map = BuildOrDie(
      WithRule(MakeClusterModel(spec),
               {{RuleOp::kTake, -1, 0}, {RuleOp::kChooseFirstn, 3, 1}, {RuleOp::kEmit, 0, 0}}));
  for (std::uint32_t x = 0; x < 300; ++x) {
    const auto hosts = Map(map, 2, x, 3, AllIn(map));
    ASSERT_EQ(hosts.size(), 3u);
    EXPECT_EQ(std::set<ItemId>(hosts.begin(), hosts.end()).size(), 3u);
    for (const ItemId h : hosts) {
      EXPECT_TRUE(map.BucketExists(h));
      EXPECT_NE(h, -1);  // hosts, never the root
    }
  }
}

TEST(MapperRuleTest, MissingRuleMapsToNothing) {
  const CrushMap map = MakeCluster(ClusterSpec{});
  EXPECT_TRUE(Map(map, 9, 1, 3, AllIn(map)).empty());
  EXPECT_TRUE(Map(map, -1, 1, 3, AllIn(map)).empty());
}

// An MSR rule type over a conventional rule shape (chooseleaf) is a
// malformed MSR rule: crush_msr_do_rule maps it to nothing (mapper_msr_test.cc
// covers real MSR rules).
TEST(MapperRuleTest, MsrRuleOfConventionalShapeMapsToNothing) {
  MapModel model = MakeClusterModel(ClusterSpec{});
  model.rules[0].type = RuleType::kMsrFirstn;
  const CrushMap map = BuildOrDie(model);
  EXPECT_TRUE(Map(map, 0, 1, 3, AllIn(map)).empty());
}

TEST(MapperRuleTest, EmptyReweightsMarkEveryDeviceOut) {
  const CrushMap map = MakeCluster(ClusterSpec{});
  EXPECT_TRUE(Map(map, crush_testing::kReplicatedRule, 3, 3, {}).empty());
  const auto indep = Map(map, crush_testing::kEcRule, 3, 3, {});
  EXPECT_EQ(indep, (std::vector<ItemId>{kItemNone, kItemNone, kItemNone}));
}

// ---------------------------------------------------------------------------
// Safety.

TEST(MapperSafetyTest, NeverWritesPastOut) {
  ClusterSpec spec;
  spec.hosts = 10;
  const MapModel model = WithRule(MakeClusterModel(spec), {{RuleOp::kTake, -1, 0},
                                                           {RuleOp::kChooseleafFirstn, 8, 1},
                                                           {RuleOp::kEmit, 0, 0},
                                                           {RuleOp::kTake, -1, 0},
                                                           {RuleOp::kChooseleafIndep, 8, 1},
                                                           {RuleOp::kEmit, 0, 0}});
  const CrushMap map = BuildOrDie(model);
  Workspace ws(map, 16);
  std::array<ItemId, 8> buffer{};
  for (const int limit : {0, 1, 2, 5}) {
    for (std::uint32_t x = 0; x < 200; ++x) {
      buffer.fill(-12345);
      const int n = DoRule(map, 2, x, AllIn(map), ws,
                           std::span<ItemId>(buffer.data(), static_cast<std::size_t>(limit)));
      EXPECT_EQ(n, limit);
      for (std::size_t i = static_cast<std::size_t>(limit); i < buffer.size(); ++i) {
        ASSERT_EQ(buffer[i], -12345);
      }
    }
  }
  // The workspace's max_result caps too.
  Workspace small(map, 2);
  EXPECT_EQ(DoRule(map, 2, 1, AllIn(map), small, buffer), 2);
}

// A foreign workspace is a caller's bug: debug builds assert, release
// builds map nothing (never out of bounds).
TEST(MapperSafetyTest, ForeignWorkspaceAssertsOrMapsToNothing) {
  const CrushMap a = MakeCluster(ClusterSpec{});
  const CrushMap b = MakeCluster(ClusterSpec{});
  Workspace ws(a, 3);
  std::array<ItemId, 3> out{};
#ifdef NDEBUG
  EXPECT_EQ(DoRule(b, 0, 1, AllIn(b), ws, out), 0);
#else
  EXPECT_DEATH(DoRule(b, 0, 1, AllIn(b), ws, out), "not built for");
#endif
  const CrushMap copy = a;  // copies share the layout
  EXPECT_EQ(DoRule(copy, 0, 1, AllIn(copy), ws, out), 3);
}

// Huge try counts on rules that cannot be satisfied: Ceph would retry for
// hours. crushkit proves after 64 tries that no try can succeed and stops
// with Ceph's result, without touching the budget.
TEST(MapperHopelessTest, AllOutDevicesEndWithCephsResult) {
  ClusterSpec spec;
  spec.hosts = 3;
  const MapModel model =
      WithRule(MakeClusterModel(spec), {{RuleOp::kSetChooseTries, 0x7fffffff, 0},
                                        {RuleOp::kSetChooseleafTries, 0x7fffffff, 0},
                                        {RuleOp::kTake, -1, 0},
                                        {RuleOp::kChooseleafFirstn, 3, 1},
                                        {RuleOp::kEmit, 0, 0},
                                        {RuleOp::kTake, -1, 0},
                                        {RuleOp::kChooseleafIndep, 3, 1},
                                        {RuleOp::kEmit, 0, 0}});
  const CrushMap map = BuildOrDie(model);
  Workspace ws(map, 6);
  ws.set_budget(std::uint64_t{1} << 20);
  std::array<ItemId, 6> out{};
  std::vector<Weight> all_out(12, 0);
  ASSERT_EQ(DoRule(map, 2, 1, all_out, ws, out), 3);  // firstn: nothing; indep: 3 holes
  EXPECT_THAT(std::vector<ItemId>(out.begin(), out.begin() + 3), ::testing::Each(kItemNone));
  EXPECT_FALSE(ws.budget_exhausted());
  // A normal call afterwards is unaffected.
  EXPECT_EQ(DoRule(map, 0, 1, AllIn(map), ws, out), 3);
  EXPECT_FALSE(ws.budget_exhausted());
}

TEST(MapperHopelessTest, TooFewFailureDomainsKeepWhatFits) {
  ClusterSpec spec;
  spec.hosts = 2;
  const MapModel model =
      WithRule(MakeClusterModel(spec), {{RuleOp::kSetChooseTries, 2000000000, 0},
                                        {RuleOp::kSetChooseleafTries, 2000000000, 0},
                                        {RuleOp::kTake, -1, 0},
                                        {RuleOp::kChooseleafFirstn, 3, 1},
                                        {RuleOp::kEmit, 0, 0}});
  const CrushMap map = BuildOrDie(model);
  Workspace ws(map, 3);
  ws.set_budget(std::uint64_t{1} << 20);
  for (std::uint32_t x = 0; x < 50; ++x) {
    const std::vector<ItemId> got = Map(map, 2, x, 3, AllIn(map));
    // Two hosts: two OSDs on distinct hosts, exactly as rule 0 (3 hosts'
    // worth of tries but only 2 hosts) would place them with Ceph's tries.
    ASSERT_EQ(got.size(), 2u) << "x=" << x;
    EXPECT_NE(got[0] / 4, got[1] / 4) << "x=" << x;
  }
  std::array<ItemId, 3> out{};
  DoRule(map, 2, 7, AllIn(map), ws, out);
  EXPECT_FALSE(ws.budget_exhausted());
}

// No proof goes through a tree bucket (its zero-weight descents diverge
// from Ceph), so the budget remains the last resort there.
TEST(MapperSafetyTest, HugeTriesWithoutProofHitTheBudget) {
  ClusterSpec spec;
  spec.hosts = 3;
  spec.root_alg = BucketAlg::kTree;
  const MapModel model =
      WithRule(MakeClusterModel(spec), {{RuleOp::kSetChooseTries, 0x7fffffff, 0},
                                        {RuleOp::kSetChooseleafTries, 0x7fffffff, 0},
                                        {RuleOp::kTake, -1, 0},
                                        {RuleOp::kChooseleafFirstn, 4, 1},
                                        {RuleOp::kEmit, 0, 0}});
  const CrushMap map = BuildOrDie(model);
  Workspace ws(map, 4);
  ws.set_budget(std::uint64_t{1} << 20);
  std::array<ItemId, 4> out{};
  EXPECT_EQ(DoRule(map, 2, 1, AllIn(map), ws, out), 3);  // the fourth host does not exist
  EXPECT_TRUE(ws.budget_exhausted());
  EXPECT_TRUE(ws.diverged_from_ceph());
  // A normal call afterwards is unaffected.
  EXPECT_EQ(DoRule(map, 0, 1, AllIn(map), ws, out), 3);
  EXPECT_FALSE(ws.budget_exhausted());
}

TEST(MapperSafetyTest, HugeTunablesAreBounded) {
  ClusterSpec spec;
  spec.hosts = 3;
  spec.root_alg = BucketAlg::kTree;  // no hopeless proof: the budget must end it
  spec.tunables.choose_total_tries = 0xfffffffe;
  spec.tunables.choose_local_tries = 0xffffffff;
  spec.tunables.choose_local_fallback_tries = 0xffffffff;
  spec.tunables.chooseleaf_descend_once = 0;
  spec.tunables.chooseleaf_vary_r = 200;
  const CrushMap map = MakeCluster(spec);
  Workspace ws(map, 5);
  ws.set_budget(std::uint64_t{1} << 20);
  std::array<ItemId, 5> out{};
  std::vector<Weight> all_out(12, 0);
  EXPECT_EQ(DoRule(map, 0, 1, all_out, ws, out), 0);
  EXPECT_TRUE(ws.budget_exhausted());
  // The same tunables over straw2 buckets: proved hopeless, no budget spent.
  spec.root_alg = BucketAlg::kStraw2;
  const CrushMap straw2 = MakeCluster(spec);
  Workspace ws2(straw2, 5);
  ws2.set_budget(std::uint64_t{1} << 20);
  EXPECT_EQ(DoRule(straw2, 0, 1, all_out, ws2, out), 0);
  EXPECT_FALSE(ws2.budget_exhausted());
}

TEST(MapperSafetyTest, AllZeroTreeYieldsNoItemInsteadOfReadingPastItems) {
  ClusterSpec spec;
  spec.hosts = 3;  // tree of 3 hosts has 8 nodes; node 7 is past the items
  spec.root_alg = BucketAlg::kTree;
  spec.osd_weights.assign(12, 0);
  const CrushMap map = MakeCluster(spec);
  EXPECT_TRUE(Map(map, 0, 1, 3, AllIn(map)).empty());
}

// ---------------------------------------------------------------------------
// Profiling (concurrency: mapper_concurrency_test.cc).

TEST(MapperProfileTest, CountsChooseTries) {
  const CrushMap map = MakeCluster(ClusterSpec{});
  Workspace ws(map, 3);
  ws.EnableChooseTriesProfile(map);
  ASSERT_EQ(ws.choose_tries_profile().size(), 51u);  // jewel: choose_total_tries 50
  std::array<ItemId, 3> out{};
  for (std::uint32_t x = 0; x < 100; ++x) DoRule(map, 0, x, AllIn(map), ws, out);
  std::uint64_t total = 0;
  for (const std::uint32_t c : ws.choose_tries_profile()) total += c;
  // Each of the 3 reps and each of its leaf descents succeeds once: 600.
  EXPECT_EQ(total, 600u);
  ws.ResetChooseTriesProfile();
  EXPECT_EQ(ws.choose_tries_profile()[0], 0u);
}

}  // namespace
}  // namespace crushkit::crush
