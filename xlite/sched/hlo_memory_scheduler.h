// hlo-memory-scheduler: orders every sequential computation with a memory
// scheduler (best by default, as XLA's DefaultMemoryScheduler) and marks the
// module scheduled; the order is the text order printed with is_scheduled=true.
#ifndef XLITE_SCHED_HLO_MEMORY_SCHEDULER_H_
#define XLITE_SCHED_HLO_MEMORY_SCHEDULER_H_

#include "xlite/passes/pass.h"
#include "xlite/sched/memory_scheduler.h"

namespace xlite {

// Puts `sequence` into the module: the one place that writes a schedule (to
// become the module's explicit schedule once it has one).
void ApplyModuleSequence(const ModuleSequence& sequence, HloModule& module);

class HloMemorySchedulerPass : public HloPass {
 public:
  explicit HloMemorySchedulerPass(MemoryScheduler scheduler = MemoryScheduler::kBest)
      : scheduler_(scheduler) {}
  std::string_view name() const override { return "hlo-memory-scheduler"; }
  // Flattens the call graph first (each sequential computation needs one
  // call site to have one order).
  absl::StatusOr<bool> Run(HloModule& module) override;

 private:
  MemoryScheduler scheduler_;
};

}  // namespace xlite

#endif  // XLITE_SCHED_HLO_MEMORY_SCHEDULER_H_
