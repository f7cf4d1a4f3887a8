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
  std::vector<int64_t> offsets;  // per buffer id
  int64_t arena_bytes = 0;       // the heap simulator's size
  int64_t peak_live_bytes = 0;   // the lower bound any placement needs
  int64_t fragmentation_bytes() const { return arena_bytes - peak_live_bytes; }
};

// Places every buffer (parameters, constants and outputs included) so that
// buffers live at the same step never overlap.
BufferAssignment AssignBuffers(const Liveness& liveness);

}  // namespace xlite

#endif  // XLITE_SCHED_BUFFER_ASSIGNMENT_H_
