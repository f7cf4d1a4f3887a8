// The cpu backend's memory plan, shared with `xlite mem --backend cpu`: its
// copy of the module prepared (loop fusion, flat call graph, the copies a
// host run needs), scheduled, and its buffers placed by the shared buffer
// assignment (sched/buffer_assignment.h) in one 64-byte aligned arena. What
// the report prints is what the executable allocates.
#ifndef XLITE_BACKENDS_CPU_CPU_MEMORY_PLAN_H_
#define XLITE_BACKENDS_CPU_CPU_MEMORY_PLAN_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/analysis/liveness.h"
#include "xlite/ir/module.h"
#include "xlite/sched/buffer_assignment.h"

namespace xlite::cpu {

inline constexpr int64_t kArenaAlignment = 64;

// Rewrites the backend's own copy of a module for the host: loop fusion,
// a flat call graph, and a copy wherever a thunk would otherwise write over
// a value that something else still reads (a while's init, a conditional's
// or call's result that forwards a parameter, a bitcast's operand: bitcasts
// follow layouts, so they move data here). Then the module is scheduled in
// the order its thunks run: its own schedule when nothing changed, else
// post-order (linear, and the order the thunks always ran in).
absl::Status PrepareCpuModule(HloModule& module);

// Where the backend keeps each buffer: entry array parameters that no thunk
// writes stay in the caller's arguments, buffers the program writes that the
// root returns go straight into the result literal, everything else
// (temporaries, constants, tuple parameters and parameters a loop writes,
// copied in per call) is in the arena; sizes as the host stores arrays,
// 64-byte aligned.
BufferAssignmentOptions CpuArenaOptions(const AliasAnalysis& aliases);

struct CpuMemoryPlan {
  std::unique_ptr<AliasAnalysis> aliases;
  std::unique_ptr<Liveness> liveness;  // over the module's schedule
  BufferAssignmentOptions options;
  BufferAssignment assignment;
};

// Assigns the buffers of a prepared (so scheduled) module.
absl::StatusOr<CpuMemoryPlan> PlanCpuMemory(const HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_CPU_MEMORY_PLAN_H_
