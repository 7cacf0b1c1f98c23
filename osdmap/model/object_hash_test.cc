#include "osdmap/model/object_hash.h"

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

#include "osdmap/model/pg_id.h"
#include "tests/testing/paths.h"

namespace crushkit::osdmap {
namespace {

// Lines like: rjenkins("foo")           = 0x7fc1f406   linux("foo")           = 0x0024db2a
TEST(ObjectHashTest, SharedVectors) {
  const std::string text =
      crush_testing::ReadFileOrEmpty(crush_testing::CompatDir() + "/crush_hash_vectors.txt");
  ASSERT_FALSE(text.empty()) << "missing crush_hash_vectors.txt";
  const std::regex re(
      R"re(rjenkins\("([^"]*)"\)\s*=\s*0x([0-9a-f]+)\s+linux\("([^"]*)"\)\s*=\s*0x([0-9a-f]+))re");
  int checked = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, re)) continue;
    EXPECT_EQ(StrHashRjenkins(m[1].str()), std::stoul(m[2].str(), nullptr, 16)) << line;
    EXPECT_EQ(StrHashLinux(m[3].str()), std::stoul(m[4].str(), nullptr, 16)) << line;
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

// "foo -> 1.6 ; bar -> 1.4b ; ..." : osdmaptool --test-map-object with
// pg_num 768 (mask 1023).
TEST(ObjectHashTest, ObjectToPgVectors) {
  const std::string text =
      crush_testing::ReadFileOrEmpty(crush_testing::CompatDir() + "/crush_hash_vectors.txt");
  const std::regex re(R"re(([A-Za-z0-9_.]+) -> 1\.([0-9a-f]+))re");
  int checked = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find("->") == std::string::npos || line[0] == '#') continue;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), re); it != std::sregex_iterator();
         ++it) {
      const std::uint32_t ps = StableMod(StrHashRjenkins((*it)[1].str()), 768, PgMask(768));
      EXPECT_EQ(ps, std::stoul((*it)[2].str(), nullptr, 16)) << (*it)[0];
      ++checked;
    }
  }
  EXPECT_GE(checked, 6);
}

TEST(ObjectHashTest, LengthsAcrossBlockBoundaries) {
  // Every tail length 0..11 and a multi-block string must be consistent
  // under the namespace rule: hash(ns, key) == hash(ns + "\x1f" + key).
  std::string s;
  for (int len = 0; len < 40; ++len) {
    EXPECT_EQ(HashObjectKey(kStrHashRjenkins, s, "ns"), StrHashRjenkins("ns\x1f" + s));
    EXPECT_EQ(HashObjectKey(kStrHashRjenkins, s, ""), StrHashRjenkins(s));
    EXPECT_EQ(HashObjectKey(kStrHashLinux, s, ""), StrHashLinux(s));
    s.push_back(static_cast<char>('a' + len % 26));
  }
  EXPECT_EQ(StrHash(7, "foo"), 0xffffffffu);
  // High-bit bytes are unsigned in both hashes.
  EXPECT_NE(StrHashRjenkins("\xff"), StrHashRjenkins("\x7f"));
  EXPECT_EQ(StrHashLinux("\xff"), ((0xffu << 4) + (0xffu >> 4)) * 11u);
}

}  // namespace
}  // namespace crushkit::osdmap
