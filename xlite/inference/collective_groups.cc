#include "xlite/inference/collective_groups.h"

namespace xlite {

CollectiveGroupMode GroupModeOf(const HloInstruction& inst) {
  const auto& a = inst.attrs<CollectiveAttrs>();
  if (!a.channel_id.has_value()) return CollectiveGroupMode::kCrossReplica;
  switch (inst.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
      return a.use_global_device_ids ? CollectiveGroupMode::kFlattenedId
                                     : CollectiveGroupMode::kCrossReplicaAndPartition;
    default:
      return CollectiveGroupMode::kCrossPartition;
  }
}

int64_t GroupIdBound(CollectiveGroupMode mode, const ModuleConfig& config) {
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      return config.replica_count;
    case CollectiveGroupMode::kCrossPartition:
      return config.num_partitions;
    case CollectiveGroupMode::kFlattenedId:
      return config.DeviceCount();
  }
  return 0;
}

const ModuleConfig* ConfigOf(const HloInstruction& inst) {
  if (inst.parent() == nullptr || inst.parent()->parent() == nullptr) return nullptr;
  return &inst.parent()->parent()->config();
}

std::optional<int64_t> GroupSizeOf(const HloInstruction& inst) {
  const ReplicaGroups& groups = inst.attrs<CollectiveAttrs>().replica_groups;
  CollectiveGroupMode mode = GroupModeOf(inst);
  const ModuleConfig* config = ConfigOf(inst);
  // Cross-replica-and-partition groups list replicas and span every partition.
  bool spans_partitions = mode == CollectiveGroupMode::kCrossReplicaAndPartition;
  int64_t size = 0;
  if (groups.is_iota) {
    size = groups.group_size;
  } else if (groups.is_mesh()) {
    // Product of the selected axes, without materialising the groups.
    size = 1;
    for (const MeshAxisRef& ref : groups.mesh_group_axes) {
      if (ref.axis < 0 || ref.axis >= static_cast<int64_t>(groups.mesh.axes.size())) {
        return std::nullopt;
      }
      size *= ref.SizeIn(groups.mesh);
    }
  } else if (!groups.groups.empty()) {
    size = static_cast<int64_t>(groups.groups[0].size());
  } else {
    if (config == nullptr || mode == CollectiveGroupMode::kFlattenedId) return std::nullopt;
    size = GroupIdBound(mode, *config);
    // Dumps often leave replica_count/num_partitions unwritten: a count of 1
    // may mean "not said", so the size is left to the declared result.
    if (size <= 1) return std::nullopt;
  }
  if (spans_partitions) {
    if (config == nullptr) return std::nullopt;
    size *= config->num_partitions;
  }
  return size;
}

const Shape* WholeArrayReducerParameter(const HloComputation& reducer) {
  if (reducer.num_parameters() != 2 || reducer.parameter_instruction(0) == nullptr) {
    return nullptr;
  }
  const Shape& shape = reducer.parameter_instruction(0)->shape();
  return shape.IsArray() && shape.rank() > 0 ? &shape : nullptr;
}

bool IsInPlaceCollectivePermute(const HloInstruction& inst) {
  if ((inst.opcode() != HloOpcode::kCollectivePermute &&
       inst.opcode() != HloOpcode::kCollectivePermuteStart) ||
      inst.operand_count() != 4) {
    return false;
  }
  return !inst.attrs<CollectiveAttrs>().slice_sizes.empty() || inst.operand(2)->shape().IsTuple();
}

}  // namespace xlite
