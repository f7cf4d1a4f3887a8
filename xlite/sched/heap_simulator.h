// Heap simulator: places buffers with known live ranges at offsets in one
// arena by global decreasing-size best fit (XLA's
// GlobalDecreasingSizeBestFitHeap, spatial order), and reports the arena size
// beside the peak of live bytes (the difference is fragmentation).
#ifndef XLITE_SCHED_HEAP_SIMULATOR_H_
#define XLITE_SCHED_HEAP_SIMULATOR_H_

#include <cstdint>
#include <vector>

namespace xlite {

// One allocation: `bytes` live from step `start` to `end` inclusive.
struct HeapInterval {
  int64_t bytes = 0;
  int64_t start = 0;
  int64_t end = 0;
};

struct HeapResult {
  std::vector<int64_t> offsets;  // per interval, in input order
  int64_t heap_bytes = 0;        // arena size: the highest offset + bytes
  int64_t peak_live_bytes = 0;   // the most bytes live at one step
  // heap - peak: space the placement wastes.
  int64_t fragmentation_bytes() const { return heap_bytes - peak_live_bytes; }
};

// Largest first (longer live range, then input order break ties), each at
// the smallest free gap among the placed intervals it overlaps in time that
// fits it, else above them all. O(n log n + n k) for k overlapping neighbours
// (an interval tree finds them).
HeapResult GlobalDecreasingSizeBestFit(const std::vector<HeapInterval>& intervals);

}  // namespace xlite

#endif  // XLITE_SCHED_HEAP_SIMULATOR_H_
