// Object-name hashes Ceph uses to place objects into PGs
// (common/ceph_hash.cc): Bob Jenkins' lookup2 ("rjenkins") and the Linux
// dcache hash. Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_MODEL_OBJECT_HASH_H_
#define CRUSHKIT_OSDMAP_MODEL_OBJECT_HASH_H_

#include <cstdint>
#include <string_view>

namespace crushkit::osdmap {

// pg_pool_t::object_hash values (CEPH_STR_HASH_*).
inline constexpr std::uint32_t kStrHashLinux = 1;
inline constexpr std::uint32_t kStrHashRjenkins = 2;

// PLACEMENT-STABLE: ceph_str_hash_rjenkins().
std::uint32_t StrHashRjenkins(std::string_view s);

// PLACEMENT-STABLE: ceph_str_hash_linux().
std::uint32_t StrHashLinux(std::string_view s);

// ceph_str_hash(): dispatches on `type`; unknown types hash to 0xffffffff,
// as Ceph does.
std::uint32_t StrHash(std::uint32_t type, std::string_view s);

// pg_pool_t::hash_key(): the hash of `key`, or of nspace + '\x1f' + key when
// a namespace is given.
std::uint32_t HashObjectKey(std::uint32_t type, std::string_view key, std::string_view nspace);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_OBJECT_HASH_H_
