// Straw2 bucket scans hash every item with the same x and r:
// u[j] = Hash32_3(x, ids[j], r) & 0xffff. These kernels compute a block of
// such hashes several lanes at a time. PLACEMENT-STABLE: every kernel must
// equal the scalar Hash32_3 bit for bit (straw2_hash_test.cc checks all of
// them against it).
//
// Dispatch is decided once (SelectStraw2HashBlock, called when a Workspace
// is built) and stored as a plain function pointer: AVX-512VL (8 lanes, 32
// registers) or AVX2 (8 lanes) when the CPU has it, else SSE2/generic
// 4-lane vectors (x86-64 baseline), with a scalar kernel kept as the
// reference. Every vector kernel hashes up to four blocks as interleaved
// dependency chains.
#ifndef CRUSHKIT_CRUSH_INTERNAL_STRAW2_HASH_H_
#define CRUSHKIT_CRUSH_INTERNAL_STRAW2_HASH_H_

#include <cstdint>

#include "crush/mapper.h"
#include "crush/types.h"

namespace crushkit::crush::internal {

// Straw2HashBlockFn, the type of the kernels below, is defined in
// crush/mapper.h, whose Workspace keeps the one chosen for the CPU.

std::uint32_t Straw2HashBlockScalar(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                    std::uint32_t n, std::uint32_t* u);
// 4 lanes of 32 bits (SSE2 on x86-64; generic vectors elsewhere).
std::uint32_t Straw2HashBlockVec4(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                  std::uint32_t n, std::uint32_t* u);
// 8 lanes (AVX2). Only call when Straw2HashAvx2Supported().
std::uint32_t Straw2HashBlockAvx2(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                  std::uint32_t n, std::uint32_t* u);
bool Straw2HashAvx2Supported();
// 8 lanes with AVX-512VL's 32 registers (see straw2_hash.cc). Only call when
// Straw2HashAvx512Supported().
std::uint32_t Straw2HashBlockAvx512(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                    std::uint32_t n, std::uint32_t* u);
bool Straw2HashAvx512Supported();

// The fastest kernel this CPU supports.
Straw2HashBlockFn SelectStraw2HashBlock();

// The largest bucket the key-winner kernels take.
inline constexpr std::uint32_t kStraw2KeyWinnerMaxSize = 256;

// Straw2KeyWinner (straw2_key_winner.h) of the n hashes u[j] =
// Hash32_3(x, ids[j], r) & 0xffff, without writing them anywhere: the index
// of the first item whose key reaches the top key's numerator class. The
// vector kernels keep up to eight blocks in registers (n <= 64 on 8 lanes,
// 32 on 4) and find the winner from a bit mask of compares; other sizes
// hash to the stack and call Straw2KeyWinner. REQUIRES: 1 <= n <=
// kStraw2KeyWinnerMaxSize; ties_lower is Straw2KeyOrderFacts().ties_lower.
using Straw2KeyWinnerBlockFn = std::uint32_t (*)(std::uint32_t x, std::uint32_t r,
                                                 const ItemId* ids, std::uint32_t n,
                                                 const std::uint64_t* ties_lower);

std::uint32_t Straw2KeyWinnerBlockScalar(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                         std::uint32_t n, const std::uint64_t* ties_lower);
std::uint32_t Straw2KeyWinnerBlockVec4(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                       std::uint32_t n, const std::uint64_t* ties_lower);
// Only call when Straw2HashAvx2Supported().
std::uint32_t Straw2KeyWinnerBlockAvx2(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                       std::uint32_t n, const std::uint64_t* ties_lower);
// Only call when Straw2HashAvx512Supported().
std::uint32_t Straw2KeyWinnerBlockAvx512(std::uint32_t x, std::uint32_t r, const ItemId* ids,
                                         std::uint32_t n, const std::uint64_t* ties_lower);

// The fastest key-winner kernel this CPU supports (decided once).
Straw2KeyWinnerBlockFn SelectStraw2KeyWinnerBlock();

}  // namespace crushkit::crush::internal

#endif  // CRUSHKIT_CRUSH_INTERNAL_STRAW2_HASH_H_
