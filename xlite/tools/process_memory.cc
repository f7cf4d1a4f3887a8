#include "xlite/tools/process_memory.h"

#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
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

}  // namespace

void PrepareHeap() {
  // Every allocation stays in the arena (huge pages) rather than in its own
  // mmap (4 KiB pages, unmapped again on free and faulted in afresh by the
  // next): a large result freed after one call is reused by the next.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, kTopPad);
  // A block larger than what static initialisation left free grows the
  // arena by itself plus the pad; from the block's first huge-page boundary
  // to the arena's end the kernel may then use huge pages. Freed, the block
  // stays in the arena for the allocations to come.
  void* block = std::malloc(kTopPad / 2);
  if (block == nullptr) return;
  uintptr_t begin = (reinterpret_cast<uintptr_t>(block) + kHugePage - 1) & ~(kHugePage - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0)) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  std::free(block);
}

int64_t ResidentBytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  long long size = 0, resident = 0;
  const int read = std::fscanf(statm, "%lld %lld", &size, &resident);
  std::fclose(statm);
  return read == 2 ? static_cast<int64_t>(resident) * sysconf(_SC_PAGESIZE) : 0;
}

int64_t PeakResidentBytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

void ExitWithoutTeardown(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace xlite::tools
