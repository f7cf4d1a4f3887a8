#include "xlite/sched/sched_passes.h"

#include <limits>

#include "xlite/analysis/device_spec.h"
#include "xlite/base/status.h"
#include "xlite/passes/pass_registry.h"
#include "xlite/sched/async_collectives.h"
#include "xlite/sched/hlo_memory_scheduler.h"
#include "xlite/sched/latency_hiding_scheduler.h"
#include "xlite/sched/rematerialization.h"

namespace xlite {
namespace {

absl::StatusOr<std::unique_ptr<HloPass>> MakeMemoryScheduler(PassArgs& args) {
  const std::string name = args.Take("scheduler", "best");
  std::optional<MemoryScheduler> scheduler = MemorySchedulerFromName(name);
  if (!scheduler.has_value()) {
    return InvalidArgument(
        "hlo-memory-scheduler scheduler must be best, list, dfs or postorder, "
        "got '",
        name, "'");
  }
  return std::unique_ptr<HloPass>(std::make_unique<HloMemorySchedulerPass>(*scheduler));
}

template <typename T>
absl::StatusOr<std::unique_ptr<HloPass>> Make(PassArgs&) {
  return std::unique_ptr<HloPass>(std::make_unique<T>());
}

absl::StatusOr<std::unique_ptr<HloPass>> MakeLatencyHidingScheduler(PassArgs& args) {
  XLITE_ASSIGN_OR_RETURN(DeviceSpec device, LoadDeviceSpec(args.Take("device", "h100")));
  LatencyHidingOptions options;
  XLITE_ASSIGN_OR_RETURN(int64_t limit, args.TakeInt("memory_limit", 0, 0));
  if (limit > 0) options.memory_limit_bytes = limit;
  XLITE_ASSIGN_OR_RETURN(int64_t in_flight, args.TakeInt("max_in_flight", 1, 1));
  options.max_in_flight_per_kind = static_cast<int>(in_flight);
  return std::unique_ptr<HloPass>(
      std::make_unique<LatencyHidingSchedulerPass>(std::move(device), options));
}

absl::StatusOr<std::unique_ptr<HloPass>> MakeRematerialization(PassArgs& args) {
  // Without a limit every peak fits and the pass changes nothing.
  XLITE_ASSIGN_OR_RETURN(int64_t limit,
                         args.TakeInt("memory_limit", std::numeric_limits<int64_t>::max(), 0));
  return std::unique_ptr<HloPass>(std::make_unique<RematerializationPass>(limit));
}

}  // namespace

void RegisterSchedulingPasses() {
  const PassInfo passes[] = {
      {"hlo-memory-scheduler",
       "orders every sequential computation to keep the peak of live bytes low and sets "
       "is_scheduled (scheduler=best|list|dfs|postorder; best keeps the lowest peak)",
       MakeMemoryScheduler},
      {"async-collective-creator",
       "turns all-reduce, all-gather, collective-permute, reduce-scatter and all-to-all into "
       "start/done pairs (reduce-scatter and all-to-all as async-start/async-done)",
       Make<AsyncCollectiveCreatorPass>},
      {"convert-async-collectives-to-sync",
       "turns a collective start/done pair with nothing scheduled between them back into the "
       "synchronous collective",
       Make<ConvertAsyncCollectivesToSyncPass>},
      {"latency-hiding-scheduler",
       "reorders to overlap async collectives with compute (device=h100, memory_limit=bytes "
       "(default: the base schedule's peak), max_in_flight=1 per collective kind); sets "
       "is_scheduled",
       MakeLatencyHidingScheduler},
      {"rematerialization",
       "recomputes values live across the peak just before their later uses until the peak of "
       "live bytes fits memory_limit=BYTES (default: no limit; schedules for memory first when "
       "unscheduled)",
       MakeRematerialization},
  };
  for (const PassInfo& info : passes) RegisterPass(info);
}

}  // namespace xlite
