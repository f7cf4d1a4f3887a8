// Buffer assignment: every buffer of the alias analysis at an offset in one
// arena, from its live range on a schedule and the heap simulator, with XLA's
// operand-buffer sharing (an elementwise op or loop fusion writes over an
// operand that dies there). `xlite mem` reports it and the CPU backend
// allocates and runs in it (backends/cpu/cpu_memory_plan.h).
#ifndef XLITE_SCHED_BUFFER_ASSIGNMENT_H_
#define XLITE_SCHED_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <vector>

#include "xlite/analysis/liveness.h"
#include "xlite/sched/heap_simulator.h"

namespace xlite {

struct BufferAssignmentOptions {
  // Every arena buffer's size is rounded up to this, so offsets stay aligned.
  int64_t alignment = 1;
  // XLA's CanShareOperandBufferWithUser (see CanShareOperandBuffer).
  bool share_operand_buffers = true;
  // Per buffer id: whether the arena holds it. Empty: all but entry
  // parameters and constants (they keep allocations of their own, as XLA's).
  std::vector<bool> in_arena;
  // Per buffer id: its size in the arena. Empty: HloBuffer::bytes.
  std::vector<int64_t> arena_bytes;
  // False: only the allocations and the live-bytes profile (no placement).
  bool place = true;
};

struct BufferAssignment {
  // Per buffer id: its offset in the arena, or -1 for buffers outside it.
  std::vector<int64_t> offsets;
  // Per buffer id: the buffer whose allocation it takes (itself, unless it
  // writes over an operand's buffer).
  std::vector<int32_t> allocation;
  int64_t shared_buffers = 0;   // buffers that took an operand's allocation
  int64_t arena_bytes = 0;      // the heap simulator's size
  int64_t peak_live_bytes = 0;  // of the arena's buffers: the lower bound
  int64_t fragmentation_bytes() const { return arena_bytes - peak_live_bytes; }
  // Bytes live over the schedule with shared allocations counted once (all
  // buffers, and temporaries alone: XLA's temp_size_in_bytes).
  std::vector<int64_t> bytes_at_step, temp_bytes_at_step;
  int64_t peak_bytes = 0, peak_step = 0, temp_peak_bytes = 0;
};

// Places every arena buffer so that buffers live at the same step never
// overlap, except a buffer that takes its operand's allocation.
BufferAssignment AssignBuffers(const Liveness& liveness,
                               const BufferAssignmentOptions& options = {});

// Whether `user` may write its (array) result over the buffer of operand
// `operand_number` once that operand is dead after it (XLA's
// CanShareOperandBufferWithUser): an elementwise op, or a loop fusion whose
// parameter reaches the root through elementwise ops only, with the same
// dimensions and element bit width. Each element is then read before it is
// written at the same index.
bool CanShareOperandBuffer(const HloInstruction& user, int64_t operand_number);

}  // namespace xlite

#endif  // XLITE_SCHED_BUFFER_ASSIGNMENT_H_
