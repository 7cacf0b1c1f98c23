#include "osdmap/model/object_hash.h"

#include <string>

#include "crush/hash.h"

namespace crushkit::osdmap {
namespace {

// Ceph's object-name hash uses the same lookup2 mix as CRUSH's hashes.
using crush::hash_internal::Mix;

inline std::uint32_t Byte(std::string_view s, std::size_t i) {
  return static_cast<std::uint8_t>(s[i]);
}

}  // namespace

std::uint32_t StrHashRjenkins(std::string_view s) {
  // PLACEMENT-STABLE: matches ceph_str_hash_rjenkins(): 12-byte little-endian
  // blocks, then the length is added to c and the tail bytes 8..10 go into
  // c shifted by one byte (its low byte is reserved for the length).
  std::uint32_t a = 0x9e3779b9;
  std::uint32_t b = a;
  std::uint32_t c = 0;
  std::size_t i = 0;
  std::size_t len = s.size();
  while (len >= 12) {
    a += Byte(s, i) + (Byte(s, i + 1) << 8) + (Byte(s, i + 2) << 16) + (Byte(s, i + 3) << 24);
    b += Byte(s, i + 4) + (Byte(s, i + 5) << 8) + (Byte(s, i + 6) << 16) + (Byte(s, i + 7) << 24);
    c += Byte(s, i + 8) + (Byte(s, i + 9) << 8) + (Byte(s, i + 10) << 16) + (Byte(s, i + 11) << 24);
    Mix(a, b, c);
    i += 12;
    len -= 12;
  }
  c += static_cast<std::uint32_t>(s.size());
  switch (len) {
    case 11:
      c += Byte(s, i + 10) << 24;
      [[fallthrough]];
    case 10:
      c += Byte(s, i + 9) << 16;
      [[fallthrough]];
    case 9:
      c += Byte(s, i + 8) << 8;
      [[fallthrough]];
    case 8:
      b += Byte(s, i + 7) << 24;
      [[fallthrough]];
    case 7:
      b += Byte(s, i + 6) << 16;
      [[fallthrough]];
    case 6:
      b += Byte(s, i + 5) << 8;
      [[fallthrough]];
    case 5:
      b += Byte(s, i + 4);
      [[fallthrough]];
    case 4:
      a += Byte(s, i + 3) << 24;
      [[fallthrough]];
    case 3:
      a += Byte(s, i + 2) << 16;
      [[fallthrough]];
    case 2:
      a += Byte(s, i + 1) << 8;
      [[fallthrough]];
    case 1:
      a += Byte(s, i);
      break;
    default:
      break;
  }
  Mix(a, b, c);
  return c;
}

std::uint32_t StrHashLinux(std::string_view s) {
  // PLACEMENT-STABLE: ceph_str_hash_linux() (the old dcache hash);
  // characters are unsigned.
  std::uint32_t hash = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::uint32_t c = Byte(s, i);
    hash = (hash + (c << 4) + (c >> 4)) * 11;
  }
  return hash;
}

std::uint32_t StrHash(std::uint32_t type, std::string_view s) {
  switch (type) {
    case kStrHashLinux:
      return StrHashLinux(s);
    case kStrHashRjenkins:
      return StrHashRjenkins(s);
    default:
      return 0xffffffffu;
  }
}

std::uint32_t HashObjectKey(std::uint32_t type, std::string_view key, std::string_view nspace) {
  if (nspace.empty()) return StrHash(type, key);
  std::string buf;
  buf.reserve(nspace.size() + 1 + key.size());
  buf.append(nspace);
  buf.push_back('\x1f');
  buf.append(key);
  return StrHash(type, buf);
}

}  // namespace crushkit::osdmap
