// Golden placements: for a fixed set of crush maps, the binary encoding, the
// decompiled text and every rule's mappings of x = 0..1023 at several
// num_reps, each as a SHA-256, compared with tests/golden/placements/
// NAME.digest. Any change of placement or of bytes fails here, so a release
// can promise "same map, same placements". Intentional changes:
// UPDATE_GOLDENS=1 rewrites the digests (tests/golden/placements/README.md).
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

#include "compiler/compile.h"
#include "compiler/source_file.h"
#include "crush/codec.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/model.h"
#include "crush/types.h"
#include "tests/testing/golden.h"
#include "tests/testing/paths.h"
#include "tests/testing/sha256.h"

namespace crushkit {
namespace {

constexpr std::uint32_t kMaxX = 1023;
// 10 exceeds every failure domain count of the set: the retry paths.
constexpr std::array<int, 6> kNumReps = {1, 2, 3, 4, 6, 10};
// Mapping lines kept verbatim per rule and num_rep, so a failure shows how.
constexpr std::uint32_t kSampleLines = 2;

std::string GoldenDir() { return crush_testing::SourceDir() + "/tests/golden/placements"; }

struct GoldenMap {
  std::string name;  // the digest file's stem
  std::string path;  // relative to the source dir
};

// The maps under test: the bundled text samples, the bundled binary map, and
// every binary map checked in under tests/golden/placements/maps/.
std::vector<GoldenMap> GoldenMaps() {
  std::vector<GoldenMap> maps = {
      {"3rack-weighted", "samples/3rack-weighted.crush"},
      {"6host-classes-ec", "samples/6host-classes-ec.crush"},
      {"legacy-rooms", "samples/legacy-rooms.crush"},
      {"cluster", "samples/cluster/crush.txt"},
      {"embed-6host-classes-ec", "samples/embed/6host-classes-ec.crushmap"},
  };
  std::vector<GoldenMap> generated;
  for (const auto& e : std::filesystem::directory_iterator(GoldenDir() + "/maps")) {
    if (e.path().extension() == ".crushmap") {
      generated.push_back({e.path().stem().string(),
                           "tests/golden/placements/maps/" + e.path().filename().string()});
    }
  }
  std::sort(generated.begin(), generated.end(),
            [](const GoldenMap& a, const GoldenMap& b) { return a.name < b.name; });
  maps.insert(maps.end(), generated.begin(), generated.end());
  return maps;
}

// What `crushtool --test --show-mappings --rule R --num-rep N --min-x 0
// --max-x 1023` prints, one line per x (every device of the map fully in,
// the compat weight set if there is one).
std::string ShowMappings(const crush::CrushMap& map, int rule, int num_rep) {
  const std::vector<crush::Weight> weights(static_cast<std::size_t>(map.max_devices()),
                                           crush::kWeightOne);
  // crushtool --test maps as pool 0: its weight set, else the compat one.
  const crush::ChooseArgsRef choose_args = map.ResolveChooseArgs(0);
  crush::Workspace ws(map, num_rep);
  std::vector<crush::ItemId> out(static_cast<std::size_t>(num_rep));
  std::string text;
  for (std::uint32_t x = 0; x <= kMaxX; ++x) {
    const int n = crush::DoRule(map, rule, x, weights, ws, out, choose_args);
    absl::StrAppend(&text, "CRUSH rule ", rule, " x ", x, " [",
                    absl::StrJoin(out.begin(), out.begin() + n, ","), "]\n");
  }
  return text;
}

// The digest file of a map given as its model and Ceph binary encoding.
std::string Digest(const GoldenMap& g, const crush::MapModel& model, const std::string& binary) {
  std::string d = absl::StrCat(
      "# ", g.path, ": placement digest (tests/golden/placements/README.md)\n", "binary bytes ",
      binary.size(), " sha256 ", crush_testing::Sha256Hex(binary), "\n");
  auto text = compiler::Decompile(model);
  absl::StrAppend(&d, "decompiled sha256 ",
                  text.ok() ? crush_testing::Sha256Hex(*text)
                            : "error: " + std::string(text.status().message()),
                  "\n");
  auto map = crush::CrushMap::Build(model);
  if (!map.ok()) return absl::StrCat(d, "build error: ", map.status().message(), "\n");
  for (int rule = 0; rule < map->max_rules(); ++rule) {
    if (!map->RuleExists(rule)) continue;
    const auto name = model.rule_names.find(rule);
    for (const int num_rep : kNumReps) {
      const std::string lines = ShowMappings(*map, rule, num_rep);
      absl::StrAppend(&d, "rule ", rule, " ", name == model.rule_names.end() ? "-" : name->second,
                      " num_rep ", num_rep, " x 0..", kMaxX, " sha256 ",
                      crush_testing::Sha256Hex(lines), "\n");
      std::size_t pos = 0;
      for (std::uint32_t i = 0; i < kSampleLines; ++i) {
        const std::size_t end = lines.find('\n', pos);
        absl::StrAppend(&d, "  ", lines.substr(pos, end - pos), "\n");
        pos = end + 1;
      }
    }
  }
  return d;
}

// The model and binary encoding of a golden map: text compiled as `crushtool
// -c` (default release), binary decoded (and required to re-encode to itself).
::testing::AssertionResult Load(const GoldenMap& g, crush::MapModel* model, std::string* binary) {
  const std::string path = crush_testing::SourceDir() + "/" + g.path;
  const std::string bytes = crush_testing::ReadFileOrEmpty(path);
  if (bytes.empty()) return ::testing::AssertionFailure() << "cannot read " << path;
  if (crush::HasCrushMagic(bytes)) {
    auto decoded = crush::DecodeCrushMap(bytes);
    if (!decoded.ok()) return ::testing::AssertionFailure() << path << ": " << decoded.status();
    *model = *std::move(decoded);
    *binary = crush::EncodeCrushMap(*model);
    if (*binary != bytes)
      return ::testing::AssertionFailure() << path << " does not re-encode to itself";
  } else {
    auto compiled = compiler::Compile(compiler::SourceFile(g.path, bytes));
    if (!compiled.ok()) return ::testing::AssertionFailure() << path << ": " << compiled.status();
    *model = *std::move(compiled);
    *binary = crush::EncodeCrushMap(*model);
  }
  return ::testing::AssertionSuccess();
}

TEST(PlacementGoldenTest, Sha256MatchesFipsVectors) {
  EXPECT_EQ(crush_testing::Sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(crush_testing::Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(crush_testing::Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(crush_testing::Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(PlacementGoldenTest, EveryMapMatchesItsDigest) {
  const std::vector<GoldenMap> maps = GoldenMaps();
  ASSERT_GE(maps.size(), 7u) << "the generated maps are missing from " << GoldenDir() << "/maps";
  for (const GoldenMap& g : maps) {
    SCOPED_TRACE(g.path);
    crush::MapModel model;
    std::string binary;
    ASSERT_TRUE(Load(g, &model, &binary));
    EXPECT_TRUE(crush_testing::MatchesGolden(GoldenDir() + "/" + g.name + ".digest",
                                             Digest(g, model, binary)));
  }
}

// The digest is sensitive: halving one device's weight in one host changes
// some mapping lines, and so the digest of those rules.
TEST(PlacementGoldenTest, DigestSeesOneWeightChange) {
  const GoldenMap g{"3rack-weighted", "samples/3rack-weighted.crush"};
  crush::MapModel model;
  std::string binary;
  ASSERT_TRUE(Load(g, &model, &binary));
  const std::string before = Digest(g, model, binary);
  auto host = std::find_if(model.buckets.begin(), model.buckets.end(), [](const crush::Bucket& b) {
    return b.alg == crush::BucketAlg::kStraw2 && !b.items.empty() && b.items[0] >= 0;
  });
  ASSERT_NE(host, model.buckets.end());
  host->item_weights[0] /= 2;
  EXPECT_NE(Digest(g, model, crush::EncodeCrushMap(model)), before);
}

}  // namespace
}  // namespace crushkit
