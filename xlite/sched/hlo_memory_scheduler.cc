#include "xlite/sched/hlo_memory_scheduler.h"

#include <algorithm>

#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/passes/flatten_call_graph.h"

namespace xlite {

bool SetModuleSchedule(HloSchedule schedule, HloModule& module) {
  bool changed = !module.is_scheduled();
  for (const auto& c : module.computations()) {
    if (changed) break;
    absl::Span<HloInstruction* const> before = module.schedule().sequence(*c);
    absl::Span<HloInstruction* const> after = schedule.sequence(*c);
    changed = !std::equal(before.begin(), before.end(), after.begin(), after.end());
  }
  module.set_schedule(std::move(schedule));
  return changed;
}

absl::StatusOr<bool> HloMemorySchedulerPass::Run(HloModule& module) {
  if (module.entry_computation() == nullptr) return false;
  FlattenCallGraphPass flatten;
  XLITE_ASSIGN_OR_RETURN(bool changed, flatten.Run(module));
  // Flattening may have added computations the old schedule lacks.
  if (changed) module.UpdateSchedule();
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<AliasAnalysis> aliases, AliasAnalysis::Run(module));
  XLITE_ASSIGN_OR_RETURN(MemorySchedule memory, ScheduleForMemory(*aliases, scheduler_));
  changed |= SetModuleSchedule(std::move(memory.schedule), module);
  return changed;
}

}  // namespace xlite
