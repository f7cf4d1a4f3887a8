#include "xlite/analysis/partition_state.h"

#include "absl/strings/match.h"
#include "xlite/ir/computation.h"

namespace xlite {
namespace {

bool Splits(const HloSharding& sharding) {
  if (sharding.IsTuple()) {
    for (const HloSharding& element : sharding.tuple_elements()) {
      if (Splits(element)) return true;
    }
    return false;
  }
  return sharding.IsTiled() && !sharding.IsReplicated();
}

bool IsShardingAnnotation(const HloInstruction& inst) {
  if (inst.opcode() != HloOpcode::kCustomCall || !inst.has_attrs()) return false;
  const std::string& target = inst.attrs<CustomCallAttrs>().target;
  return target == "Sharding" || target == "SPMDFullToShardShape" ||
         target == "SPMDShardToFullShape";
}

bool InManualRegion(const HloInstruction& inst) {
  if (inst.has_sharding() && inst.sharding().IsManual()) return true;
  // Shardy writes a shard_map body as a computation of its own, called
  // between GlobalToLocalShape and LocalToGlobalShape.
  return absl::StartsWith(inst.parent()->name(), "xla.sdy.manual_computation_body");
}

}  // namespace

bool FiguresArePerDevice(const HloModule& module) {
  if (module.config().num_partitions <= 1) return true;
  bool split_parameters = false, partitioned_ops = false;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (IsShardingAnnotation(*inst)) return false;
      const bool split = inst->has_sharding() && Splits(inst->sharding());
      if (inst->opcode() == HloOpcode::kParameter) {
        split_parameters |= split;
      } else if (split) {
        return false;
      }
      partitioned_ops |=
          IsCollectiveOpcode(inst->opcode()) || inst->opcode() == HloOpcode::kPartitionId;
    }
  }
  return !split_parameters || partitioned_ops;
}

const HloInstruction* PartitionedCollective(const HloModule& module) {
  if (module.config().num_partitions <= 1 || !FiguresArePerDevice(module)) return nullptr;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (AttrsKindOf(inst->opcode()) != AttrsKind::kCollective || !inst->has_attrs()) continue;
      if (inst->attrs<CollectiveAttrs>().channel_id.has_value() && !InManualRegion(*inst)) {
        return inst.get();
      }
    }
  }
  return nullptr;
}

}  // namespace xlite
