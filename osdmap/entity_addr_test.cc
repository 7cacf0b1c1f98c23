// entity_addr.h: addresses as osdmaptool prints them, and blocklists in
// the order osdmaptool 16.2 prints them (pinned here from a run of Ceph's
// osdmaptool; the binary differential compares it on random maps).
#include "osdmap/entity_addr.h"

#include <arpa/inet.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crushkit::osdmap {
namespace {

using ::testing::ElementsAreArray;

struct Addr {
  std::uint32_t type;
  std::uint32_t nonce;
  const char* ip;
  std::uint16_t port;
};

std::string Le32(std::uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}

// map<entity_addr_t, utime_t> as encoded, entries in the order given.
std::string EncodeBlocklist(const std::vector<Addr>& addrs) {
  std::string raw = Le32(static_cast<std::uint32_t>(addrs.size()));
  for (const Addr& a : addrs) {
    std::string sa(16, '\0');
    sa[0] = 2;  // AF_INET, little-endian
    sa[2] = static_cast<char>(a.port >> 8);
    sa[3] = static_cast<char>(a.port);
    in_addr ip{};
    ::inet_pton(AF_INET, a.ip, &ip);
    sa.replace(4, 4, reinterpret_cast<const char*>(&ip), 4);
    const std::string body = Le32(a.type) + Le32(a.nonce) + Le32(16) + sa;
    raw += std::string("\x01\x01\x01", 3) + Le32(static_cast<std::uint32_t>(body.size())) + body;
    raw += Le32(1700000000) + Le32(0);
  }
  return raw;
}

// Twenty addresses in unsorted wire order: more than the 13 buckets the
// table starts with, so it rehashes once.
const std::vector<Addr> kTwenty = {
    {3, 2276503845u, "10.1.0.1", 6800}, {2, 0u, "10.1.0.1", 6803},
    {2, 0u, "10.1.3.1", 6801},          {1, 1u, "10.1.1.2", 6802},
    {1, 1u, "10.3.2.0", 6802},          {2, 0u, "10.2.2.0", 6802},
    {1, 2u, "10.3.2.1", 6803},          {2, 0u, "10.2.0.2", 6803},
    {1, 1798849289u, "10.0.3.0", 6801}, {3, 1u, "10.3.2.2", 6802},
    {2, 2u, "10.0.3.0", 6801},          {2, 2u, "10.0.2.2", 6802},
    {1, 1u, "10.2.3.1", 6800},          {1, 1u, "10.2.2.3", 6803},
    {1, 1u, "10.1.1.3", 6800},          {1, 1u, "10.0.3.2", 6801},
    {2, 2242807664u, "10.2.3.2", 6802}, {2, 629240057u, "10.1.3.2", 6801},
    {1, 2u, "10.0.2.0", 6802},          {2, 2870359046u, "10.2.2.2", 6801}};

TEST(EntityAddrTest, BlocklistInOsdmaptoolsOrder) {
  auto entries = DecodeBlocklist(EncodeBlocklist(kTwenty), /*ceph_hash_order=*/true);
  ASSERT_TRUE(entries.ok()) << entries.status();
  std::vector<std::string> addrs;
  for (const BlocklistEntry& e : *entries) addrs.push_back(e.addr);
  EXPECT_THAT(addrs, ElementsAreArray<std::string>({"v1:10.0.2.0:6802/2",
                                                    "v2:10.1.3.2:6801/629240057",
                                                    "v2:10.2.3.2:6802/2242807664",
                                                    "v1:10.0.3.2:6801/1",
                                                    "v2:10.2.2.2:6801/2870359046",
                                                    "v1:10.1.1.3:6800/1",
                                                    "10.1.0.1:6800/2276503845",
                                                    "v2:10.1.0.1:6803/0",
                                                    "v2:10.2.0.2:6803/0",
                                                    "v1:10.2.2.3:6803/1",
                                                    "v2:10.0.2.2:6802/2",
                                                    "v1:10.1.1.2:6802/1",
                                                    "v2:10.2.2.0:6802/0",
                                                    "v1:10.3.2.1:6803/2",
                                                    "v2:10.1.3.1:6801/0",
                                                    "v1:10.3.2.0:6802/1",
                                                    "10.3.2.2:6802/1",
                                                    "v2:10.0.3.0:6801/2",
                                                    "v1:10.0.3.0:6801/1798849289",
                                                    "v1:10.2.3.1:6800/1"}));
}

TEST(EntityAddrTest, WireOrderAndTexts) {
  auto entries = DecodeBlocklist(EncodeBlocklist({{2, 7, "10.0.0.1", 6800}, {3, 1, "10.0.0.2", 0}}),
                                 /*ceph_hash_order=*/false);
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].addr, "v2:10.0.0.1:6800/7");
  EXPECT_EQ((*entries)[1].addr, "10.0.0.2:0/1");  // type any: no prefix
  EXPECT_EQ((*entries)[0].expires.sec, 1700000000u);
}

TEST(EntityAddrTest, EmptyAndBadBlocklists) {
  auto none = DecodeBlocklist("", true);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  const std::string raw = EncodeBlocklist(kTwenty);
  for (std::size_t cut = 1; cut < raw.size(); cut += 7) {
    EXPECT_FALSE(DecodeBlocklist(raw.substr(0, cut), true).ok()) << cut;
  }
  std::string legacy = raw;
  legacy[4] = 0;  // marker 0: the pre-msgr2 encoding
  EXPECT_EQ(DecodeBlocklist(legacy, true).status().code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace crushkit::osdmap
