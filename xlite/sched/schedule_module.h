// The one scheduling flow of a module on a device, as `xlite sched`, the
// latency-hiding-scheduler pass, the corpus test and the benchmark all run it:
// prepare (inline calls, flatten the call graph, make collectives async), order for memory,
// rematerialize to fit a limit, hide latency, and estimate the step.
#ifndef XLITE_SCHED_SCHEDULE_MODULE_H_
#define XLITE_SCHED_SCHEDULE_MODULE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/ir/module.h"
#include "xlite/sched/latency_model.h"
#include "xlite/sched/step_estimate.h"

namespace xlite {

struct ScheduleModuleOptions {
  int max_in_flight_per_kind = 1;
  // The peak the schedule may hold; default: the memory schedule's peak.
  // When the memory schedule is over it, values are rematerialized first
  // (unless `rematerialize` is false, and then scheduling fails).
  std::optional<int64_t> memory_limit_bytes;
  bool rematerialize = true;
  // Turn collectives into start/done pairs first (async-collective-creator).
  bool create_async_collectives = true;
  // Start from the module's own order when it is scheduled (the pass), else
  // from the best memory schedule.
  bool keep_module_order = false;
  // Estimate the synchronous and the scheduled step (`xlite sched`).
  bool estimate_steps = true;
};

struct ScheduleModuleResult {
  std::string module;
  StepEstimate scheduled, sync;  // when estimate_steps
  int64_t peak_bytes = 0, base_peak_bytes = 0, memory_limit_bytes = 0;
  // When the memory schedule's peak was over the limit: its peak, and the
  // instructions rematerialization recomputed to fit.
  int64_t memory_schedule_peak_bytes = 0, rematerialized = 0;
  // Computations kept in their memory order, instructions held at their
  // memory-order position (LatencyHidingResult).
  std::vector<std::string> kept_base_order;
  int64_t memory_barriers = 0;
  double scheduling_seconds = 0;  // memory schedule to latency hiding, wall
  bool changed = false;           // the module's schedule is new
};

// What every scheduler here starts from: calls inlined (those CallInlinerPass
// keeps stay), the call graph flattened (every computation called from one
// site), and with `create_async_collectives` the
// collectives made start/done pairs.
absl::Status PrepareForScheduling(HloModule& module, bool create_async_collectives);

// Schedules `module` (prepared here) and sets its schedule.
absl::StatusOr<ScheduleModuleResult> ScheduleModule(HloModule& module, LatencyModel& model,
                                                    const ScheduleModuleOptions& options);

}  // namespace xlite

#endif  // XLITE_SCHED_SCHEDULE_MODULE_H_
