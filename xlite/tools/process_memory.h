// Whole-process speed of the command line: the heap is set up once so that
// the kernel can back the module's memory with transparent huge pages (one
// fault per 2 MiB instead of per 4 KiB), and the process exits without tearing
// the module down (compilers' -disable-free): the kernel reclaims it at once.
// Also what `xlite bench --report` measures of the process: its resident set.
#ifndef XLITE_TOOLS_PROCESS_MEMORY_H_
#define XLITE_TOOLS_PROCESS_MEMORY_H_

#include <cstdint>

namespace xlite::tools {

// The process's resident set now, and its highest so far, in bytes (0 where
// the system does not say).
int64_t ResidentBytes();
int64_t PeakResidentBytes();

// Grows the main malloc arena in large steps, never trims it, keeps every
// allocation in it (no mmap of its own), and marks it MADV_HUGEPAGE. Call first in
// main, before anything allocates much.
void PrepareHeap();

// Flushes stdout and stderr and ends the process with `code`, skipping every
// destructor (modules are released, not freed: see LoadedModule).
[[noreturn]] void ExitWithoutTeardown(int code);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_PROCESS_MEMORY_H_
