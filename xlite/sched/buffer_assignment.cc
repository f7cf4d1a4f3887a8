#include "xlite/sched/buffer_assignment.h"

namespace xlite {

BufferAssignment AssignBuffers(const Liveness& liveness) {
  const std::vector<HloBuffer>& buffers = liveness.aliases().buffers();
  std::vector<HeapInterval> intervals;
  std::vector<int32_t> placed;  // buffer id of each interval
  for (const HloBuffer& buffer : buffers) {
    if (buffer.kind == BufferKind::kEntryParameter || buffer.kind == BufferKind::kConstant)
      continue;
    const LiveRange& range = liveness.BufferRange(buffer.id);
    intervals.push_back({buffer.bytes, range.start, range.end});
    placed.push_back(buffer.id);
  }
  HeapResult heap = GlobalDecreasingSizeBestFit(intervals);
  BufferAssignment assignment;
  assignment.offsets.assign(buffers.size(), -1);
  for (size_t i = 0; i < placed.size(); ++i) assignment.offsets[placed[i]] = heap.offsets[i];
  assignment.arena_bytes = heap.heap_bytes;
  assignment.peak_live_bytes = heap.peak_live_bytes;
  return assignment;
}

}  // namespace xlite
