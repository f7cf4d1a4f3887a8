#include "xlite/sched/latency_model.h"

#include "xlite/base/status.h"

namespace xlite {

namespace {

// Collectives and their async halves: their time is the communication's.
bool IsCommunication(const HloInstruction& inst) {
  return IsAsyncCollectiveStart(inst) || IsAsyncCollectiveDone(inst) ||
         CollectiveKindOf(inst).has_value();
}

}  // namespace

absl::StatusOr<double> LatencyModel::ComputeSeconds(const HloInstruction& inst) {
  if (IsCommunication(inst)) return 0.0;
  XLITE_ASSIGN_OR_RETURN(Cost cost, ComputeCost(inst));
  return Roofline(cost, device_).seconds;
}

absl::StatusOr<Cost> LatencyModel::ComputeCost(const HloInstruction& inst) {
  if (IsCommunication(inst)) return Cost();
  return costs_.InstructionCostOf(inst);
}

CollectiveEstimate LatencyModel::Collective(const HloInstruction& inst) {
  return CollectiveTime(inst, device_);
}

}  // namespace xlite
