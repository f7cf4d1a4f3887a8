#include "xlite/sched/schedule_module.h"

#include <chrono>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xlite/analysis/alias_analysis.h"
#include "xlite/analysis/liveness.h"
#include "xlite/base/status.h"
#include "xlite/passes/call_inliner.h"
#include "xlite/passes/flatten_call_graph.h"
#include "xlite/sched/async_collectives.h"
#include "xlite/sched/hlo_memory_scheduler.h"
#include "xlite/sched/latency_hiding_scheduler.h"
#include "xlite/sched/memory_scheduler.h"
#include "xlite/sched/rematerialization.h"

namespace xlite {

absl::Status PrepareForScheduling(HloModule& module, bool create_async_collectives) {
  // As XLA's pipelines before scheduling: calls are inlined, so what they do
  // (collectives of scan and remat bodies) joins the caller's schedule.
  XLITE_RETURN_IF_ERROR(InlineCallsAndDropCallees(module).status());
  FlattenCallGraphPass flatten;
  XLITE_RETURN_IF_ERROR(flatten.Run(module).status());
  module.UpdateSchedule();  // flattening may have added computations
  if (create_async_collectives) {
    AsyncCollectiveCreatorPass creator;
    XLITE_RETURN_IF_ERROR(creator.Run(module).status());
  }
  return absl::OkStatus();
}

absl::StatusOr<ScheduleModuleResult> ScheduleModule(HloModule& module, LatencyModel& model,
                                                    const ScheduleModuleOptions& options) {
  ScheduleModuleResult report;
  report.module = module.name();
  if (module.entry_computation() == nullptr) return InvalidArgument("module has no entry");
  XLITE_RETURN_IF_ERROR(PrepareForScheduling(module, /*create_async_collectives=*/false));
  if (options.estimate_steps) {
    XLITE_ASSIGN_OR_RETURN(report.sync, EstimateStep(module, CurrentSchedule(module), model, true));
  }
  const auto began = std::chrono::steady_clock::now();
  if (options.create_async_collectives) {
    AsyncCollectiveCreatorPass creator;
    XLITE_RETURN_IF_ERROR(creator.Run(module).status());
  }
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<AliasAnalysis> aliases, AliasAnalysis::Run(module));
  HloSchedule base_schedule = CurrentSchedule(module);
  if (!options.keep_module_order || !module.is_scheduled()) {
    XLITE_ASSIGN_OR_RETURN(MemorySchedule memory,
                           ScheduleForMemory(*aliases, MemoryScheduler::kBest));
    if (options.rematerialize && options.memory_limit_bytes.has_value() &&
        memory.peak_bytes > *options.memory_limit_bytes) {
      // Recompute values live across the peak until the memory order fits;
      // the latency hiding scheduler then starts from that order.
      report.memory_schedule_peak_bytes = memory.peak_bytes;
      aliases.reset();
      SetModuleSchedule(std::move(memory.schedule), module);
      absl::StatusOr<RematerializationResult> fitted =
          RematerializeToFit(module, *options.memory_limit_bytes);
      if (!fitted.ok()) {
        return absl::Status(fitted.status().code(),
                            absl::StrCat(fitted.status().message(),
                                         "; `xlite mem` lists the buffers live at the peak"));
      }
      report.rematerialized = fitted->rematerialized;
      XLITE_ASSIGN_OR_RETURN(aliases, AliasAnalysis::Run(module));
      memory.schedule = module.schedule();
    }
    base_schedule = std::move(memory.schedule);
  }
  LatencyHidingOptions lhs;
  lhs.max_in_flight_per_kind = options.max_in_flight_per_kind;
  lhs.memory_limit_bytes = options.memory_limit_bytes;
  XLITE_ASSIGN_OR_RETURN(LatencyHidingResult result,
                         ScheduleLatencyHiding(*aliases, base_schedule, model, lhs));
  report.scheduling_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  report.peak_bytes = result.peak_bytes;
  report.base_peak_bytes = result.base_peak_bytes;
  report.memory_limit_bytes = result.memory_limit_bytes;
  report.kept_base_order = std::move(result.kept_base_order);
  report.memory_barriers = result.barriers;
  if (options.estimate_steps) {
    XLITE_ASSIGN_OR_RETURN(report.scheduled, EstimateStep(module, result.schedule, model));
  }
  aliases.reset();
  report.changed = SetModuleSchedule(std::move(result.schedule), module);
  return report;
}

}  // namespace xlite
