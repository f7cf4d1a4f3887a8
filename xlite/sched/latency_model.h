// Latency model of the schedulers: compute time of an instruction from the
// cost analysis and the device's roofline, and collective time from the
// alpha-beta model of analysis/collective_model.h — both as `xlite cost`
// prices them.
#ifndef XLITE_SCHED_LATENCY_MODEL_H_
#define XLITE_SCHED_LATENCY_MODEL_H_

#include <cstdint>
#include <string_view>

#include "xlite/analysis/collective_model.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/sched/async_pairs.h"

namespace xlite {

class LatencyModel {
 public:
  explicit LatencyModel(DeviceSpec device) : device_(std::move(device)) {}
  const DeviceSpec& device() const { return device_; }

  // Roofline seconds of one execution of `inst` (0 for async starts and
  // dones, whose work is the communication; while loops and calls include
  // their callees). Fails on instructions the cost analysis refuses.
  absl::StatusOr<double> ComputeSeconds(const HloInstruction& inst);
  // The cost analysis' figures behind ComputeSeconds (zero where it is 0).
  absl::StatusOr<Cost> ComputeCost(const HloInstruction& inst);
  // The communication of a collective or of an async collective start
  // (CollectiveTime).
  CollectiveEstimate Collective(const HloInstruction& inst);

 private:
  DeviceSpec device_;
  CostAnalysis costs_;
};

}  // namespace xlite

#endif  // XLITE_SCHED_LATENCY_MODEL_H_
