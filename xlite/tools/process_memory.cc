#include "xlite/tools/process_memory.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace xlite::tools {
namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
// How far the arena grows at a time: a dump of a few MB needs a few tens of
// MB of IR, so one step usually serves the whole run.
constexpr int kTopPad = 64 << 20;
// Below this, allocations stay in the arena (huge pages) rather than in
// their own mmap (4 KiB pages, unmapped again on free).
constexpr int kMmapThreshold = 64 << 20;

}  // namespace

void PrepareHeap() {
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, kTopPad);
  // The first allocation grows the arena by the pad; the range it spans from
  // the next huge-page boundary on may then be backed by huge pages.
  void* first = std::malloc(1);
  uintptr_t begin = (reinterpret_cast<uintptr_t>(first) + kHugePage - 1) & ~(kHugePage - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0)) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  std::free(first);
}

void ExitWithoutTeardown(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace xlite::tools
