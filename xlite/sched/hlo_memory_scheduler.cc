#include "xlite/sched/hlo_memory_scheduler.h"

#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/passes/flatten_call_graph.h"

namespace xlite {

void ApplyModuleSequence(const ModuleSequence& sequence, HloModule& module) {
  for (const auto& c : module.computations()) {
    const std::vector<const HloInstruction*>* order = sequence.Find(*c);
    if (order != nullptr) c->SetInstructionOrder(*order);
  }
  module.set_is_scheduled(true);
}

absl::StatusOr<bool> HloMemorySchedulerPass::Run(HloModule& module) {
  if (module.entry_computation() == nullptr) return false;
  FlattenCallGraphPass flatten;
  XLITE_ASSIGN_OR_RETURN(bool changed, flatten.Run(module));
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<AliasAnalysis> aliases, AliasAnalysis::Run(module));
  XLITE_ASSIGN_OR_RETURN(MemorySchedule schedule, ScheduleForMemory(*aliases, scheduler_));
  // Changed when any order or the scheduled mark differs.
  for (const auto& c : module.computations()) {
    const std::vector<const HloInstruction*>* order = schedule.sequence.Find(*c);
    if (order == nullptr) continue;
    for (size_t i = 0; i < order->size(); ++i) {
      if (c->instructions()[i].get() != (*order)[i]) {
        changed = true;
        break;
      }
    }
  }
  changed |= !module.is_scheduled();
  ApplyModuleSequence(schedule.sequence, module);
  return changed;
}

}  // namespace xlite
