#include "xlite/sched/buffer_assignment.h"

namespace xlite {

BufferAssignment AssignBuffers(const Liveness& liveness) {
  const std::vector<HloBuffer>& buffers = liveness.aliases().buffers();
  std::vector<HeapInterval> intervals;
  intervals.reserve(buffers.size());
  for (const HloBuffer& buffer : buffers) {
    const LiveRange& range = liveness.BufferRange(buffer.id);
    intervals.push_back({buffer.bytes, range.start, range.end});
  }
  HeapResult heap = GlobalDecreasingSizeBestFit(intervals);
  BufferAssignment assignment;
  assignment.offsets = std::move(heap.offsets);
  assignment.arena_bytes = heap.heap_bytes;
  assignment.peak_live_bytes = heap.peak_live_bytes;
  return assignment;
}

}  // namespace xlite
