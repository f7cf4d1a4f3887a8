#include "xlite/sched/latency_model.h"

#include "xlite/base/status.h"

namespace xlite {

absl::StatusOr<double> LatencyModel::ComputeSeconds(const HloInstruction& inst) {
  if (IsAsyncCollectiveStart(inst) || IsAsyncCollectiveDone(inst) ||
      CollectiveKindOf(inst).has_value()) {
    return 0.0;
  }
  XLITE_ASSIGN_OR_RETURN(Cost cost, costs_.InstructionCostOf(inst));
  return Roofline(cost, device_).seconds;
}

CollectiveEstimate LatencyModel::Collective(const HloInstruction& inst) {
  return CollectiveTime(inst, device_);
}

}  // namespace xlite
