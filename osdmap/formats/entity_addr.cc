#include "osdmap/formats/entity_addr.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"

namespace crushkit::osdmap {
namespace {

using Image = std::array<unsigned char, 36>;

void PutLe32(unsigned char* at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<unsigned char>(v >> (8 * i));
}

// include/hash.h rjhash32: Robert Jenkins' 32-bit integer hash.
std::uint32_t RjHash32(std::uint32_t a) {
  a = (a + 0x7ed55d16) + (a << 12);
  a = (a ^ 0xc761c23c) ^ (a >> 19);
  a = (a + 0x165667b1) + (a << 5);
  a = (a + 0xd3a2646c) ^ (a << 9);
  a = (a + 0xfd7046c5) + (a << 3);
  a = (a ^ 0xb55a4f09) ^ (a >> 16);
  return a;
}

// std::hash<entity_addr_t>: blobhash (XOR of the struct's 32-bit words),
// then rjhash32.
struct CephAddrHash {
  std::size_t operator()(const Image& image) const {
    std::uint32_t acc = 0;
    for (std::size_t i = 0; i < image.size(); i += 4) {
      acc ^= static_cast<std::uint32_t>(image[i]) |
             (static_cast<std::uint32_t>(image[i + 1]) << 8) |
             (static_cast<std::uint32_t>(image[i + 2]) << 16) |
             (static_cast<std::uint32_t>(image[i + 3]) << 24);
    }
    return RjHash32(acc);
  }
};

// entity_addr_t::decode_legacy_addr_after_marker: u8 marker, u16 rest,
// u32 nonce, then a 128-byte sockaddr_storage whose family is big-endian.
// set_sockaddr keeps AF_INET/AF_INET6 (sockaddr_in's 16 or sockaddr_in6's
// 28 bytes) and leaves the address blank for any other family; a blank
// family makes the type NONE, else it is LEGACY (v1). `sa` gets the
// address in the msgr2 wire form (family little-endian, as in memory).
absl::Status ReadLegacyAddr(binary::Reader& r, std::uint32_t* type, std::uint32_t* nonce,
                            std::string* sa) {
  std::uint8_t marker2 = 0;
  std::uint16_t rest = 0;
  std::string storage;
  CRUSH_RETURN_IF_ERROR(r.U8("legacy addr marker", &marker2));
  CRUSH_RETURN_IF_ERROR(r.U16("legacy addr rest", &rest));
  CRUSH_RETURN_IF_ERROR(r.U32("legacy addr nonce", nonce));
  CRUSH_RETURN_IF_ERROR(r.Bytes("legacy addr sockaddr_storage", 128, &storage));
  const auto* b = reinterpret_cast<const unsigned char*>(storage.data());
  const unsigned family = (b[0] << 8) | b[1];
  const std::size_t size = family == AF_INET ? 16 : family == AF_INET6 ? 28 : 0;
  sa->clear();
  if (size != 0) {
    sa->push_back(static_cast<char>(family & 0xff));
    sa->push_back(static_cast<char>(family >> 8));
    sa->append(storage, 2, size - 2);
  }
  *type = size != 0 ? 1 : 0;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<EntityAddr> ReadEntityAddr(binary::Reader& r) {
  std::uint8_t marker = 0;
  std::uint8_t v = 0;
  std::uint8_t compat = 0;
  std::uint32_t len = 0;
  std::uint32_t type = 0;
  std::uint32_t nonce = 0;
  std::uint32_t elen = 0;
  std::string sa;
  CRUSH_RETURN_IF_ERROR(r.U8("addr marker", &marker));
  if (marker == 0) {
    CRUSH_RETURN_IF_ERROR(ReadLegacyAddr(r, &type, &nonce, &sa));
  } else if (marker == 1) {
    CRUSH_RETURN_IF_ERROR(r.U8("addr v", &v));
    CRUSH_RETURN_IF_ERROR(r.U8("addr compat", &compat));
    CRUSH_RETURN_IF_ERROR(r.U32("addr len", &len));
    const std::size_t end = r.offset() + len;
    CRUSH_RETURN_IF_ERROR(r.U32("addr type", &type));
    CRUSH_RETURN_IF_ERROR(r.U32("addr nonce", &nonce));
    CRUSH_RETURN_IF_ERROR(r.U32("addr elen", &elen));
    CRUSH_RETURN_IF_ERROR(r.Bytes("sockaddr", elen, &sa));
    if (r.offset() > end) return absl::DataLossError("entity_addr_t longer than its frame");
    CRUSH_RETURN_IF_ERROR(r.Skip("addr tail", end - r.offset()));
  } else {
    return absl::InvalidArgumentError(absl::StrCat("entity_addr_t marker ", marker));
  }

  EntityAddr out;
  out.type = type;
  out.nonce = nonce;
  PutLe32(out.image.data(), type);
  PutLe32(out.image.data() + 4, nonce);
  std::memcpy(out.image.data() + 8, sa.data(), std::min<std::size_t>(sa.size(), 28));
  const auto* b = reinterpret_cast<const unsigned char*>(sa.data());
  const unsigned family = sa.size() >= 2 ? b[0] | (b[1] << 8) : 0;
  const unsigned port = sa.size() >= 4 ? (b[2] << 8) | b[3] : 0;
  char ip[INET6_ADDRSTRLEN] = {};
  if (family == AF_INET && sa.size() >= 8) {
    ::inet_ntop(AF_INET, b + 4, ip, sizeof(ip));
    out.sockaddr = absl::StrCat(ip, ":", port);
  } else if (family == AF_INET6 && sa.size() >= 24) {
    ::inet_ntop(AF_INET6, b + 8, ip, sizeof(ip));
    out.sockaddr = absl::StrCat("[", ip, "]:", port);
  } else {
    out.sockaddr = absl::StrCat("(unrecognized address family ", family, ")");
  }
  if (type == 0) {
    out.text = "-";
  } else {
    const std::string prefix = type == 3 ? "" : absl::StrCat(AddrTypeName(type), ":");
    // A blank address of a typed entity (no family) prints as ":0".
    out.text = absl::StrCat(prefix, family == 0 ? std::string(":0") : out.sockaddr, "/", nonce);
  }
  return out;
}

const char* AddrTypeName(std::uint32_t type) {
  static constexpr const char* kTypes[] = {"none", "v1", "v2", "any", "cidr"};
  return type < 5 ? kTypes[type] : "???";
}

absl::StatusOr<std::vector<EntityAddr>> DecodeAddrvec(const std::string& raw) {
  binary::Reader r(raw);
  std::uint8_t marker = 0;
  std::uint32_t n = 0;
  if (!raw.empty() && static_cast<std::uint8_t>(raw[0]) < 2) {
    // entity_addrvec_t::decode: marker 0 (legacy) or 1 is one address; so
    // is an element of a pre-Nautilus vector<entity_addr_t>.
    CRUSH_ASSIGN_OR_RETURN(EntityAddr a, ReadEntityAddr(r));
    return std::vector<EntityAddr>{std::move(a)};
  }
  CRUSH_RETURN_IF_ERROR(r.U8("addrvec marker", &marker));
  if (marker != 2)
    return absl::InvalidArgumentError(absl::StrCat("entity_addrvec_t marker ", marker));
  CRUSH_RETURN_IF_ERROR(r.Count("addrvec count", 19, &n));
  std::vector<EntityAddr> addrs;
  for (std::uint32_t i = 0; i < n; ++i) {
    CRUSH_ASSIGN_OR_RETURN(EntityAddr a, ReadEntityAddr(r));
    addrs.push_back(std::move(a));
  }
  return addrs;
}

std::string AddrvecLegacyString(const std::vector<EntityAddr>& addrs) {
  const EntityAddr* pick = addrs.empty() ? nullptr : &addrs.front();
  for (const EntityAddr& a : addrs) {
    if (a.type == 1) {
      pick = &a;
      break;
    }
  }
  if (pick == nullptr) return "(unrecognized address family 0)/0";
  return absl::StrCat(pick->sockaddr, "/", pick->nonce);
}

absl::StatusOr<std::vector<BlocklistEntry>> DecodeBlocklist(const std::string& raw,
                                                            bool ceph_hash_order) {
  if (raw.empty()) return std::vector<BlocklistEntry>();  // not in this map's version
  binary::Reader r(raw);
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count("blocklist count", 17, &n));
  std::vector<std::pair<EntityAddr, binary::Utime>> wire;
  wire.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    CRUSH_ASSIGN_OR_RETURN(EntityAddr addr, ReadEntityAddr(r));
    binary::Utime t;
    CRUSH_RETURN_IF_ERROR(binary::ReadUtime(r, "blocklist expiry", &t));
    wire.emplace_back(std::move(addr), t);
  }
  std::vector<BlocklistEntry> out;
  if (!ceph_hash_order) {
    for (auto& [addr, t] : wire) out.push_back({std::move(addr.text), t});
    return out;
  }
#if defined(__GLIBCXX__)
  // The same container Ceph decodes into, filled the same way (no reserve;
  // operator[] per entry in wire order), so its buckets grow and its nodes
  // link exactly as in osdmaptool.
  std::unordered_map<Image, std::size_t, CephAddrHash> table;
  for (std::size_t i = 0; i < wire.size(); ++i) table[wire[i].first.image] = i;
  for (const auto& [image, i] : table) out.push_back({wire[i].first.text, wire[i].second});
  return out;
#else
  return absl::UnimplementedError("Ceph's blocklist order needs libstdc++'s unordered_map");
#endif
}

}  // namespace crushkit::osdmap
