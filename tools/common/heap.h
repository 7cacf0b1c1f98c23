// Process-level heap tuning for the short-lived crushkit commands that build
// large maps in memory (compile, decompile, crushtool -c/-d/--test).
//
// Why: a 10,000-OSD map touches ~10 MB of fresh heap in a run of a few tens
// of milliseconds. Each first touch of a 4 KiB page is a page fault, and on
// virtual machines (paravirtualised MMUs in particular) a fault costs tens
// of microseconds: measured here, faults were a third of `crushkit compile`'s
// CPU time. Backing the heap with transparent huge pages (2 MiB, one fault
// each) removes most of them. This is what glibc does itself under
// GLIBC_TUNABLES=glibc.malloc.hugetlb=1; doing it here spares users the
// environment variable. It matters where THP is "madvise" (the kernel
// default); under "always" the kernel already does it, under "never" the
// advice is ignored. Nothing here changes results, only where memory lives.
//
// Thread-safety: call once, early in main-thread command code, before other
// threads allocate.
#ifndef CRUSHKIT_TOOLS_COMMON_HEAP_H_
#define CRUSHKIT_TOOLS_COMMON_HEAP_H_

#include <cstddef>

namespace crushkit::tools {

// For a command about to allocate about `expected_bytes` (peak): keeps large
// blocks in the malloc heap (instead of separate mmaps that are unmapped and
// faulted in again on every free/alloc cycle), reserves that much heap up
// front (address space only; pages are still faulted on first touch) and
// asks for huge pages on it. Does nothing below 4 MiB. Best effort: failures
// are ignored. Cost: a few system calls.
void PrepareHeapForLargeMaps(std::size_t expected_bytes);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_COMMON_HEAP_H_
