// Buffer assignment: every buffer of the alias analysis at an offset in one
// arena, from its live range on a schedule and the heap simulator (the CPU
// backend allocates the arena once and runs every instruction in it).
#ifndef XLITE_SCHED_BUFFER_ASSIGNMENT_H_
#define XLITE_SCHED_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <vector>

#include "xlite/analysis/liveness.h"
#include "xlite/sched/heap_simulator.h"

namespace xlite {

struct BufferAssignment {
  // Per buffer id: its offset in the arena, or -1 for entry parameters and
  // constants, which keep allocations of their own (the caller's arguments
  // and the program's literals, as in XLA).
  std::vector<int64_t> offsets;
  int64_t arena_bytes = 0;      // the heap simulator's size
  int64_t peak_live_bytes = 0;  // of the arena's buffers: the lower bound
  int64_t fragmentation_bytes() const { return arena_bytes - peak_live_bytes; }
};

// Places every temporary and output buffer so that buffers live at the same
// step never overlap.
BufferAssignment AssignBuffers(const Liveness& liveness);

}  // namespace xlite

#endif  // XLITE_SCHED_BUFFER_ASSIGNMENT_H_
