#include "tools/common/heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace crushkit::tools {

void PrepareHeapForLargeMaps(std::size_t expected_bytes) {
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  // Below a few huge pages the faults saved do not pay for zeroing 2 MiB
  // pages; glibc's mmap threshold caps at 32 MiB on 64-bit.
  if (expected_bytes < 2 * kHugePage) return;
  const std::size_t pad = std::min<std::size_t>(expected_bytes + kHugePage, 30u << 20);
  // Large blocks (the input text, big vectors) come from the heap, so they
  // land in the advised region and are reused after free instead of being
  // unmapped and faulted in again; freed memory stays for reuse.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 64 << 20);
  ::mallopt(M_TOP_PAD, static_cast<int>(kHugePage));
  // Grow the heap once by `pad` (an untouched block: no pages are faulted),
  // then advise huge pages on the new part and return the block to malloc.
  // The advice must cover the whole run: later brk growth creates a new
  // mapping that does not inherit it.
  const auto before = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  void* block = std::malloc(pad);
  const auto after = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  const std::uintptr_t begin = (before + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t end = after & ~(kHugePage - 1);
  if (block != nullptr && end > begin)
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  std::free(block);
}

}  // namespace crushkit::tools
