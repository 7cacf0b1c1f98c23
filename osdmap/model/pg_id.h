// Placement-group ids and the arithmetic Ceph uses to fold object hashes
// into a pool's PG range: ceph_stable_mod() and the pg_num masks.
//
// Everything here is a pure function or a plain value type; safe to use from
// any thread.
#ifndef CRUSHKIT_OSDMAP_MODEL_PG_ID_H_
#define CRUSHKIT_OSDMAP_MODEL_PG_ID_H_

#include <bit>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace crushkit::osdmap {

// A PG: pool id and placement seed (Ceph's pg_t). Printed "<pool>.<ps hex>".
struct PgId {
  std::int64_t pool = 0;
  std::uint32_t ps = 0;

  auto operator<=>(const PgId&) const = default;
};

// PLACEMENT-STABLE: ceph_stable_mod() from include/rados.h. Folds `x` into
// [0, b) such that growing b only splits buckets. REQUIRES: bmask is the
// mask of b (see PgMask).
constexpr std::uint32_t StableMod(std::uint32_t x, std::uint32_t b, std::uint32_t bmask) {
  return (x & bmask) < b ? (x & bmask) : (x & (bmask >> 1));
}

// pg_pool_t::calc_pg_masks(): (1 << cbits(n - 1)) - 1; 0 for n <= 1.
constexpr std::uint32_t PgMask(std::uint32_t n) {
  if (n <= 1) return 0;
  const int bits = std::bit_width(n - 1);
  return bits >= 32 ? 0xffffffffu : ((1u << bits) - 1);
}

// "1.7f" -> {1, 0x7f}. Accepts what Ceph's pg_t::parse() accepts (decimal
// pool, '.', hex seed); trailing text after the seed is rejected. Returns
// nullopt on malformed input.
std::optional<PgId> ParsePgId(std::string_view text);

// {1, 0x7f} -> "1.7f".
std::string FormatPgId(const PgId& pg);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_PG_ID_H_
