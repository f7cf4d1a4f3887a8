#include "xlite/sched/heap_simulator.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include "xlite/base/saturating.h"

namespace xlite {
namespace {

// The placed intervals, ordered by start, with the latest end below each
// node: finds every placed interval overlapping [start, end] in
// O(log n + k log n) without scanning the rest.
class PlacedIntervals {
 public:
  // `by_start`: interval ids sorted by start.
  PlacedIntervals(const std::vector<HeapInterval>& intervals, std::vector<int32_t> by_start)
      : intervals_(intervals), by_start_(std::move(by_start)) {
    size_ = 1;
    while (size_ < by_start_.size()) size_ *= 2;
    max_end_.assign(2 * size_, kEmpty);
    rank_.assign(intervals.size(), 0);
    for (size_t r = 0; r < by_start_.size(); ++r) rank_[by_start_[r]] = r;
  }

  void Place(int32_t id) {
    size_t node = size_ + rank_[id];
    max_end_[node] = intervals_[id].end;
    for (node /= 2; node >= 1; node /= 2) {
      max_end_[node] = std::max(max_end_[2 * node], max_end_[2 * node + 1]);
    }
  }

  // Placed intervals with start <= end and their end >= start.
  void Overlapping(int64_t start, int64_t end, std::vector<int32_t>* out) const {
    // Ranks [0, limit) start no later than `end`.
    const size_t limit = static_cast<size_t>(
        std::upper_bound(by_start_.begin(), by_start_.end(), end,
                         [&](int64_t e, int32_t id) { return e < intervals_[id].start; }) -
        by_start_.begin());
    Collect(1, 0, size_, limit, start, out);
  }

 private:
  static constexpr int64_t kEmpty = std::numeric_limits<int64_t>::min();

  void Collect(size_t node, size_t lo, size_t hi, size_t limit, int64_t start,
               std::vector<int32_t>* out) const {
    if (lo >= limit || max_end_[node] < start) return;
    if (hi - lo == 1) {
      out->push_back(by_start_[lo]);
      return;
    }
    const size_t mid = (lo + hi) / 2;
    Collect(2 * node, lo, mid, limit, start, out);
    Collect(2 * node + 1, mid, hi, limit, start, out);
  }

  const std::vector<HeapInterval>& intervals_;
  std::vector<int32_t> by_start_;
  std::vector<size_t> rank_;
  size_t size_ = 1;
  std::vector<int64_t> max_end_;
};

int64_t PeakLiveBytes(const std::vector<HeapInterval>& intervals) {
  // Sweep of +bytes at start and -bytes after end.
  std::map<int64_t, WideSum> delta;
  for (const HeapInterval& interval : intervals) {
    if (interval.bytes <= 0 || interval.end < interval.start) continue;
    delta[interval.start] += interval.bytes;
    delta[interval.end + 1] -= interval.bytes;
  }
  WideSum live = 0, peak = 0;
  for (const auto& [step, change] : delta) {
    live += change;
    peak = std::max(peak, live);
  }
  return ClampToInt64(peak);
}

}  // namespace

HeapResult GlobalDecreasingSizeBestFit(const std::vector<HeapInterval>& intervals) {
  HeapResult result;
  result.offsets.assign(intervals.size(), 0);
  result.peak_live_bytes = PeakLiveBytes(intervals);
  std::vector<int32_t> order(intervals.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<int32_t> by_start = order;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](int32_t a, int32_t b) { return intervals[a].start < intervals[b].start; });
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const HeapInterval& x = intervals[a];
    const HeapInterval& y = intervals[b];
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    return x.end - x.start > y.end - y.start;
  });
  PlacedIntervals placed(intervals, std::move(by_start));
  std::vector<int32_t> neighbours;
  std::vector<std::pair<int64_t, int64_t>> chunks;  // offset, bytes
  for (int32_t id : order) {
    const HeapInterval& interval = intervals[id];
    if (interval.bytes <= 0 || interval.end < interval.start) continue;
    neighbours.clear();
    placed.Overlapping(interval.start, interval.end, &neighbours);
    chunks.clear();
    for (int32_t n : neighbours) chunks.push_back({result.offsets[n], intervals[n].bytes});
    std::sort(chunks.begin(), chunks.end());
    // Best fit: the smallest gap that holds the buffer, lowest offset first.
    int64_t best_offset = -1, best_gap = std::numeric_limits<int64_t>::max();
    int64_t cursor = 0;
    for (const auto& [offset, bytes] : chunks) {
      const int64_t gap = offset - cursor;
      if (gap >= interval.bytes && gap < best_gap) {
        best_gap = gap;
        best_offset = cursor;
      }
      cursor = std::max(cursor, SaturatingAdd(offset, bytes));
    }
    if (best_offset < 0) best_offset = cursor;  // above everything it overlaps
    result.offsets[id] = best_offset;
    result.heap_bytes = std::max(result.heap_bytes, SaturatingAdd(best_offset, interval.bytes));
    placed.Place(id);
  }
  return result;
}

}  // namespace xlite
