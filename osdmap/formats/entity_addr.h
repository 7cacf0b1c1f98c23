// Ceph's entity_addr_t as the binary OSDMap carries it (MSG_ADDR2 encoding)
// and as osdmaptool prints it, and the order in which osdmaptool 16.2 prints
// a blocklist: the iteration order of the std::unordered_map it decodes the
// blocklist into (OSDMap::blocklist), which depends on Ceph's hash of the
// in-memory entity_addr_t and on libstdc++'s hashtable. crushkit rebuilds
// that order with libstdc++'s own std::unordered_map and Ceph's hash
// (include/blobhash.h over the 36-byte struct, then rjhash32), inserting
// in wire order as Ceph's decode does. Facts and the verification:
// /work/shared/reference/ceph-osdmap-encoding.md section 11.
// Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_ENTITY_ADDR_H_
#define CRUSHKIT_OSDMAP_FORMATS_ENTITY_ADDR_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/formats/binary_io.h"
#include "osdmap/formats/binary_types.h"

namespace crushkit::osdmap {

struct EntityAddr {
  std::uint32_t type = 0;  // 0 none, 1 v1 (legacy), 2 v2, 3 any, 4 cidr
  std::uint32_t nonce = 0;
  std::string sockaddr;  // sockaddr operator<<: "10.0.0.1:6800", "[fd00::1]:6800"
  std::string text;      // operator<<: "v2:10.0.0.1:6800/1234", "-" for type none
  // The in-memory struct Ceph hashes: u32 type, u32 nonce (little-endian),
  // then the 28-byte sockaddr union (family little-endian, port and address
  // as on the wire, zero padding).
  std::array<unsigned char, 36> image{};
};

// Reads one entity_addr_t: marker 1 (the MSG_ADDR2 form) or 0 (the legacy
// 136-byte form, which Ceph decodes as a v1 address, or as a blank one of
// type none when the family is neither IPv4 nor IPv6). kInvalidArgument for
// another marker; kDataLoss for a truncated or inconsistent address.
absl::StatusOr<EntityAddr> ReadEntityAddr(binary::Reader& r);

// get_type_name(): "none", "v1", "v2", "any", "cidr", "???".
const char* AddrTypeName(std::uint32_t type);

// An encoded entity_addrvec_t (marker 2), or the one address of its marker
// 0 and 1 forms (and of a pre-Nautilus map's entity_addr_t); errors as
// ReadEntityAddr.
absl::StatusOr<std::vector<EntityAddr>> DecodeAddrvec(const std::string& raw);

// entity_addrvec_t::get_legacy_str(): "ip:port/nonce" of the first v1
// address, else of the first address, else of a blank one.
std::string AddrvecLegacyString(const std::vector<EntityAddr>& addrs);

struct BlocklistEntry {
  std::string addr;  // EntityAddr::text
  binary::Utime expires;
};

// The entries of a raw encoded map<entity_addr_t, utime_t> (count included, or empty;
// OsdMapBinary::blocklist / range_blocklist). `ceph_hash_order`: in the
// order osdmaptool prints OSDMap::blocklist (see above; needs libstdc++,
// kUnimplemented otherwise); false: wire order (range_blocklist is an
// ordered map). Errors as ReadEntityAddr.
absl::StatusOr<std::vector<BlocklistEntry>> DecodeBlocklist(const std::string& raw,
                                                            bool ceph_hash_order);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_ENTITY_ADDR_H_
