// entity_addr.h: addresses as osdmaptool prints them, and blocklists in
// the order osdmaptool 16.2 prints them (pinned here from a run of Ceph's
// osdmaptool; the binary differential compares it on random maps).
#include "osdmap/formats/entity_addr.h"

#include <arpa/inet.h>

#include <cstdint>
#include <string>
#include <string_view>
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
  std::string bad = raw;
  bad[4] = 5;  // neither marker 1 nor the legacy marker 0
  EXPECT_EQ(DecodeBlocklist(bad, true).status().code(), absl::StatusCode::kInvalidArgument);
}

// The legacy (pre-msgr2) form: marker 0, u8, u16, u32 nonce, then a
// 128-byte sockaddr_storage with a big-endian family.
std::string LegacyAddr(std::uint16_t family, std::uint16_t port, std::string_view addr,
                       std::size_t addr_at, std::uint32_t nonce) {
  std::string b(4, '\0');
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<char>(nonce >> (8 * i)));
  std::string storage(128, '\0');
  storage[0] = static_cast<char>(family >> 8);
  storage[1] = static_cast<char>(family & 0xff);
  storage[2] = static_cast<char>(port >> 8);
  storage[3] = static_cast<char>(port & 0xff);
  storage.replace(addr_at, addr.size(), addr);
  return b + storage;
}

TEST(EntityAddrTest, LegacyAddressesDecodeAsCephDoes) {
  // IPv4 and IPv6 become v1 addresses; another family leaves a blank one of
  // type none (set_sockaddr refuses it), printed "-".
  auto v4 = DecodeAddrvec(LegacyAddr(2, 6789, std::string("\x0a\x01\x02\x03", 4), 4, 4242));
  ASSERT_TRUE(v4.ok()) << v4.status();
  ASSERT_EQ(v4->size(), 1u);
  EXPECT_EQ((*v4)[0].text, "v1:10.1.2.3:6789/4242");
  EXPECT_EQ(AddrvecLegacyString(*v4), "10.1.2.3:6789/4242");
  const std::string fd00 = std::string("\xfd\x00", 2) + std::string(13, '\0') + "\x07";
  auto v6 = DecodeAddrvec(LegacyAddr(10, 6802, fd00, 8, 1));
  ASSERT_TRUE(v6.ok()) << v6.status();
  EXPECT_EQ((*v6)[0].text, "v1:[fd00::7]:6802/1");
  auto odd = DecodeAddrvec(LegacyAddr(99, 1234, "abcdefgh", 4, 5));
  ASSERT_TRUE(odd.ok()) << odd.status();
  EXPECT_EQ((*odd)[0].type, 0u);
  EXPECT_EQ((*odd)[0].text, "-");
  EXPECT_EQ((*odd)[0].sockaddr, "(unrecognized address family 0)");
  const std::string whole = LegacyAddr(2, 1, "abcd", 4, 1);
  for (std::size_t cut = 0; cut < whole.size(); cut += 9) {
    EXPECT_EQ(DecodeAddrvec(whole.substr(0, cut)).status().code(), absl::StatusCode::kDataLoss)
        << cut;
  }
}

}  // namespace
}  // namespace crushkit::osdmap
