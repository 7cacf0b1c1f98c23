// Pins the placement-stable primitives (rjenkins hashes and crush_ln)
// against the shared vectors and Ceph's verbatim ln tables.
#include "crush/hash.h"

#include <cstdint>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

#include "crush/ln.h"
#include "tests/testing/paths.h"

namespace crushkit::crush {
namespace {

std::uint64_t ParseNumber(const std::string& s) { return std::stoull(s, nullptr, 0); }

std::vector<std::uint32_t> ParseArgs(const std::string& list) {
  std::vector<std::uint32_t> args;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    args.push_back(static_cast<std::uint32_t>(ParseNumber(item)));
  }
  return args;
}

TEST(HashTest, MatchesSharedVectors) {
  const std::string text =
      crush_testing::ReadFileOrEmpty(crush_testing::CompatDir() + "/crush_hash_vectors.txt");
  ASSERT_FALSE(text.empty()) << "missing crush_hash_vectors.txt";
  const std::regex hash_re(R"(^crush_hash32_(\d)\(([^)]*)\)\s*=\s*(0x[0-9a-fA-F]+))");
  const std::regex ln_re(R"(^crush_ln\((0x[0-9a-fA-F]+)\)\s*=\s*(0x[0-9a-fA-F]+))");
  std::stringstream lines(text);
  std::string line;
  int hashes = 0;
  int lns = 0;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, hash_re)) {
      const int n = std::stoi(m[1]);
      const std::vector<std::uint32_t> a = ParseArgs(m[2]);
      const auto expected = static_cast<std::uint32_t>(ParseNumber(m[3]));
      ASSERT_EQ(a.size(), static_cast<std::size_t>(n)) << line;
      std::uint32_t got = 0;
      switch (n) {
        case 2:
          got = Hash32_2(a[0], a[1]);
          break;
        case 3:
          got = Hash32_3(a[0], a[1], a[2]);
          break;
        case 4:
          got = Hash32_4(a[0], a[1], a[2], a[3]);
          break;
        default:
          FAIL() << "unexpected arity in " << line;
      }
      EXPECT_EQ(got, expected) << line;
      ++hashes;
    } else if (std::regex_search(line, m, ln_re)) {
      EXPECT_EQ(CrushLn(static_cast<std::uint32_t>(ParseNumber(m[1]))), ParseNumber(m[2])) << line;
      ++lns;
    }
  }
  EXPECT_GE(hashes, 8);
  EXPECT_GE(lns, 6);
}

TEST(HashTest, IsConstexprAndTreatsNegativeIdsAsTwosComplement) {
  static_assert(Hash32_2(0, 0) == 0x19ad4ce9u);
  static_assert(Hash32_3(1, 2, 3) == 0x735ad42bu);
  // Vector "crush_hash32_3(100, 0xfffffffe, 5)" is bucket id -2 as u32.
  EXPECT_EQ(Hash32_3(100, static_cast<std::uint32_t>(-2), 5), 0x392f5acbu);
}

TEST(LnTest, TablesAreCephsVerbatim) {
  const std::string text =
      crush_testing::ReadFileOrEmpty(crush_testing::CompatDir() + "/crush_ln_tables.txt");
  ASSERT_FALSE(text.empty()) << "missing crush_ln_tables.txt";
  std::vector<std::uint64_t> rh_lh;
  std::vector<std::uint64_t> ll;
  std::vector<std::uint64_t>* current = nullptr;
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line == "[RH_LH_tbl]") {
      current = &rh_lh;
    } else if (line == "[LL_tbl]") {
      current = &ll;
    } else if (current != nullptr) {
      current->push_back(ParseNumber(line));
    }
  }
  ASSERT_EQ(rh_lh.size(), 258u);
  ASSERT_EQ(ll.size(), 256u);
  for (std::size_t i = 0; i < rh_lh.size(); ++i) {
    EXPECT_EQ(ln_internal::kRhLhTable[i], rh_lh[i]) << "RH_LH[" << i << "]";
  }
  for (std::size_t i = 0; i < ll.size(); ++i) {
    EXPECT_EQ(ln_internal::kLlTable[i], ll[i]) << "LL[" << i << "]";
  }
}

TEST(LnTest, IsMonotonicExceptForCephsLastEntry) {
  // log2 is increasing and the table approximation follows it on
  // [0, 0xfffe]. The very last input dips: LH(128) is 0xffff00000000, not
  // 2^48, so CrushLn(0xffff) = 0xfffff0000000 < CrushLn(0xfffe). That is
  // Ceph's data and must be kept.
  std::uint64_t prev = CrushLn(0);
  EXPECT_EQ(prev, 0u);
  for (std::uint32_t u = 1; u <= 0xfffe; ++u) {
    const std::uint64_t v = CrushLn(u);
    ASSERT_GE(v, prev) << u;
    prev = v;
  }
  EXPECT_EQ(prev, 0xfffffd61ad10u);
  EXPECT_EQ(CrushLn(0xffff), 0xfffff0000000u);
  EXPECT_LT(CrushLn(0xffff), prev);
}

}  // namespace
}  // namespace crushkit::crush
