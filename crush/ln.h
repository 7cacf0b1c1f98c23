// crush_ln: the fixed-point logarithm behind straw2 draws.
//
// CrushLn(u) ~= 2^44 * log2(u + 1) for u in [0, 0xffff], computed exactly as
// Ceph's mapper.c crush_ln() from two lookup tables that are Ceph's data
// verbatim (they deviate from their documented formulas and can never be
// regenerated; see crush/internal/gen_ln_tables.py). PLACEMENT-STABLE.
//
// Pure, constexpr, allocation-free, thread-safe; two table loads and one
// 64-bit multiply. Only the low 16 bits of the input are used (straw2 only
// ever passes 16-bit values; larger inputs would index past Ceph's tables).
#ifndef CRUSHKIT_CRUSH_LN_H_
#define CRUSHKIT_CRUSH_LN_H_

#include <bit>
#include <cstdint>

namespace crushkit::crush {

namespace ln_internal {
#include "crush/internal/ln_tables.inc"
}  // namespace ln_internal

// Returns ~2^44 * log2(xin + 1) (crush_ln). CrushLn(0) == 0,
// CrushLn(0xffff) == 0xfffff0000000. REQUIRES: xin <= 0xffff.
constexpr std::uint64_t CrushLn(std::uint32_t xin) {
  std::uint32_t x = (xin & 0xffffu) + 1u;
  int iexpon = 15;
  // PLACEMENT-STABLE: normalise so bit 15 or 16 is set (crush_ln's clz step).
  if ((x & 0x18000u) == 0) {
    const int bits = std::countl_zero(x & 0x1ffffu) - 16;
    x <<= bits;
    iexpon = 15 - bits;
  }
  const std::uint32_t index1 = (x >> 8) << 1;
  const std::uint64_t rh = ln_internal::kRhLhTable[index1 - 256];
  const std::uint64_t lh = ln_internal::kRhLhTable[index1 + 1 - 256];
  const std::uint64_t xl64 = (static_cast<std::uint64_t>(x) * rh) >> 48;
  const std::uint64_t ll = ln_internal::kLlTable[xl64 & 0xff];
  const std::uint64_t result = static_cast<std::uint64_t>(iexpon) << 44;
  return result + ((lh + ll) >> 4);
}

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_LN_H_
