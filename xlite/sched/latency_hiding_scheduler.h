// Latency hiding scheduler (as XLA's, on top of a memory schedule): a
// bottom-up list scheduler over each sequential computation that places
// async collective dones as late and starts as early as their users allow,
// with a resource model (by default one collective of each kind in flight)
// and a memory limit (the base schedule's peak by default) it tracks as it
// places instructions, as XLA's memory pressure tracker does. Priority,
// first match wins: a done whose kind has a free resource and that keeps
// memory under the limit; a start whose latency is covered and whose kind a
// waiting done needs; over the limit, whatever frees the most; compute that
// fits, the deepest in async depth first, unless a start whose latency is covered ranks first as
// in XLA's cascade (one below another collective, deeper, reading a done, or later in the base
// order); starts whose latency is covered; the start that stalls least; the least memory; a done
// over the resource limit (only to break a cycle of waits). Compute never runs while collectives
// of a kind its callees hold are in flight beyond the room left, and a start never runs before a
// use of the buffer its done writes (schedule_constraints.h). Where
// an order still ends over the limit, the instruction at the peak is held at its base position and
// the order made again; a computation that stays over gets its base order back.
#ifndef XLITE_SCHED_LATENCY_HIDING_SCHEDULER_H_
#define XLITE_SCHED_LATENCY_HIDING_SCHEDULER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "xlite/analysis/liveness.h"
#include "xlite/passes/pass.h"
#include "xlite/sched/latency_model.h"
#include "xlite/sched/local_memory.h"
#include "xlite/sched/schedule_constraints.h"

namespace xlite {

struct LatencyHidingOptions {
  int max_in_flight_per_kind = 1;
  std::optional<int64_t> memory_limit_bytes;  // default: the base schedule's peak
  // Place the compute with the most collective latency above it first
  // (XLA's async depth rule), or keep the base order among compute; unset:
  // schedule both ways and keep the shorter estimated step.
  std::optional<bool> async_depth_first;
};

struct LatencyHidingResult {
  HloSchedule schedule;
  int64_t base_peak_bytes = 0;
  int64_t peak_bytes = 0;
  int64_t memory_limit_bytes = 0;
  // Computations kept in their base order because overlapping them went
  // over the memory limit (names, in module order).
  std::vector<std::string> kept_base_order;
  // Instructions held at their base position because the order went over
  // the memory limit there.
  int64_t barriers = 0;
};

// Orders one computation from its base order (a valid schedule of it that
// respects `constraints`), keeping the bytes of `memory` (the computation's)
// within `budget` where it can.
HloSchedule::Sequence LatencyHidingOrder(const LocalMemory& memory,
                                         absl::Span<HloInstruction* const> base,
                                         LatencyModel& model, const LatencyHidingOptions& options,
                                         const MemoryBudget& budget,
                                         const ScheduleConstraints& constraints);

// Every sequential computation of the analysed module, from `base`. Fails
// when even the base order is over an explicit memory limit.
absl::StatusOr<LatencyHidingResult> ScheduleLatencyHiding(const AliasAnalysis& aliases,
                                                          const HloSchedule& base,
                                                          LatencyModel& model,
                                                          const LatencyHidingOptions& options);

// latency-hiding-scheduler{device=D,memory_limit=B}: the module's order
// when it is scheduled, else the best memory schedule, as the base.
class LatencyHidingSchedulerPass : public HloPass {
 public:
  LatencyHidingSchedulerPass(DeviceSpec device, LatencyHidingOptions options)
      : device_(std::move(device)), options_(options) {}
  std::string_view name() const override { return "latency-hiding-scheduler"; }
  absl::StatusOr<bool> Run(HloModule& module) override;

 private:
  DeviceSpec device_;
  LatencyHidingOptions options_;
};

}  // namespace xlite

#endif  // XLITE_SCHED_LATENCY_HIDING_SCHEDULER_H_
