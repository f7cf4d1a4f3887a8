// Heap simulator: placements worked out by hand, the no-overlap invariant on
// random intervals, and the peak as the lower bound of the arena.
#include "xlite/sched/heap_simulator.h"

#include <random>

#include "gtest/gtest.h"

namespace xlite {
namespace {

TEST(HeapSimulatorTest, ReusesFreedSpaceBestFit) {
  // a [0,1] 100 B and b [2,3] 100 B never meet: one slot. c [0,3] 50 B is
  // live with both and goes above the larger ones (placed first).
  HeapResult r = GlobalDecreasingSizeBestFit({{100, 0, 1}, {100, 2, 3}, {50, 0, 3}});
  EXPECT_EQ(r.offsets[0], 0);
  EXPECT_EQ(r.offsets[1], 0);
  EXPECT_EQ(r.offsets[2], 100);
  EXPECT_EQ(r.heap_bytes, 150);
  EXPECT_EQ(r.peak_live_bytes, 150);
  EXPECT_EQ(r.fragmentation_bytes(), 0);
}

TEST(HeapSimulatorTest, PicksTheSmallestGapThatFits) {
  // Largest first: a@0, x@100, s@140, y@175, t@208 (each above the ones it
  // meets). x and y die at step 1, leaving gaps of 40 and 33 bytes beside
  // the long-lived s and t; w (25 bytes, from step 2) takes the 33-byte one.
  std::vector<HeapInterval> intervals = {
      {100, 0, 9},  // a
      {40, 0, 1},   // x
      {35, 0, 9},   // s
      {33, 0, 1},   // y
      {32, 0, 9},   // t
      {25, 2, 9},   // w
  };
  HeapResult r = GlobalDecreasingSizeBestFit(intervals);
  EXPECT_EQ(r.offsets, (std::vector<int64_t>{0, 100, 140, 175, 208, 175}));
  EXPECT_EQ(r.heap_bytes, 240);
  EXPECT_EQ(r.peak_live_bytes, 240);
}

TEST(HeapSimulatorTest, RandomIntervalsNeverOverlap) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> size(1, 1000), step(0, 200), length(0, 30);
  std::vector<HeapInterval> intervals;
  for (int i = 0; i < 2000; ++i) {
    const int64_t start = step(rng);
    intervals.push_back({size(rng), start, start + length(rng)});
  }
  HeapResult r = GlobalDecreasingSizeBestFit(intervals);
  EXPECT_GE(r.heap_bytes, r.peak_live_bytes);
  for (size_t i = 0; i < intervals.size(); ++i) {
    for (size_t j = i + 1; j < intervals.size(); ++j) {
      const HeapInterval& a = intervals[i];
      const HeapInterval& b = intervals[j];
      const bool in_time = a.start <= b.end && b.start <= a.end;
      const bool in_space =
          r.offsets[i] < r.offsets[j] + b.bytes && r.offsets[j] < r.offsets[i] + a.bytes;
      ASSERT_FALSE(in_time && in_space) << i << " and " << j;
    }
    EXPECT_LE(r.offsets[i] + intervals[i].bytes, r.heap_bytes);
  }
}

}  // namespace
}  // namespace xlite
