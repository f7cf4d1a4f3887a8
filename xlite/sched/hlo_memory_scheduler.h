// hlo-memory-scheduler: orders every sequential computation with a memory
// scheduler (best by default, as XLA's DefaultMemoryScheduler) and sets the
// module's HloSchedule (is_scheduled=true in the text, printed in its order).
#ifndef XLITE_SCHED_HLO_MEMORY_SCHEDULER_H_
#define XLITE_SCHED_HLO_MEMORY_SCHEDULER_H_

#include "xlite/passes/pass.h"
#include "xlite/sched/memory_scheduler.h"

namespace xlite {

// Sets `schedule` as the module's; returns whether it differs from the
// schedule the module had (an unscheduled module always changes).
bool SetModuleSchedule(HloSchedule schedule, HloModule& module);

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
