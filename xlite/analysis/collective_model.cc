#include "xlite/analysis/collective_model.h"

#include <algorithm>
#include <cmath>

#include "xlite/inference/collective_groups.h"
#include "xlite/ir/computation.h"

namespace xlite {

std::string_view CollectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all-reduce";
    case CollectiveKind::kAllGather:
      return "all-gather";
    case CollectiveKind::kReduceScatter:
      return "reduce-scatter";
    case CollectiveKind::kAllToAll:
      return "all-to-all";
    case CollectiveKind::kCollectivePermute:
      return "collective-permute";
    case CollectiveKind::kOther:
      return "other-collective";
    case CollectiveKind::kCopy:
      return "copy";
  }
  return "other-collective";
}

const HloInstruction& CommunicatingInstruction(const HloInstruction& inst) {
  if (inst.opcode() == HloOpcode::kAsyncStart && !inst.called_computations().empty() &&
      inst.called_computations()[0]->root_instruction() != nullptr) {
    return *inst.called_computations()[0]->root_instruction();
  }
  return inst;
}

std::optional<CollectiveKind> CollectiveKindOf(const HloInstruction& inst) {
  switch (CommunicatingInstruction(inst).opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      return CollectiveKind::kAllReduce;
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      return CollectiveKind::kAllGather;
    case HloOpcode::kReduceScatter:
      return CollectiveKind::kReduceScatter;
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
      return CollectiveKind::kAllToAll;
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      return CollectiveKind::kCollectivePermute;
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectiveReduce:
      return CollectiveKind::kOther;
    case HloOpcode::kCopyStart:
      return CollectiveKind::kCopy;
    default:
      return std::nullopt;
  }
}

CollectiveEstimate AlphaBeta(CollectiveKind kind, double bytes, int64_t n, double alpha,
                             double bytes_per_second) {
  CollectiveEstimate estimate;
  estimate.bytes = bytes;
  estimate.group_size = n;
  if (n <= 1 || bytes_per_second <= 0) return estimate;
  const double beta = 1.0 / bytes_per_second;
  const double steps = static_cast<double>(n - 1);
  const double fraction = steps / static_cast<double>(n);
  switch (kind) {
    case CollectiveKind::kAllReduce: {
      const double ring = 2 * steps * alpha + 2 * fraction * bytes * beta;
      const double tree =
          2 * std::ceil(std::log2(static_cast<double>(n))) * alpha + 2 * bytes * beta;
      estimate.seconds = std::min(ring, tree);
      estimate.algorithm = ring <= tree ? "ring" : "tree";
      break;
    }
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kOther:
      estimate.seconds = steps * alpha + fraction * bytes * beta;
      estimate.algorithm = "ring";
      break;
    case CollectiveKind::kCollectivePermute:
      estimate.seconds = alpha + bytes * beta;
      estimate.algorithm = "direct";
      break;
    case CollectiveKind::kCopy:  // not over the interconnect: LatencyModel::Collective
      break;
  }
  return estimate;
}

namespace {

double OperandBytes(const HloInstruction& inst) {
  double bytes = 0;
  for (const HloInstruction* operand : inst.operands()) bytes += ShapeBytes(operand->shape());
  return bytes;
}

// The result array(s) of a collective: the start's {1} for async forms.
double ResultBytes(const HloInstruction& inst) {
  const Shape& shape = inst.shape();
  if ((inst.opcode() == HloOpcode::kAllGatherStart ||
       inst.opcode() == HloOpcode::kCollectivePermuteStart) &&
      shape.IsTuple() && shape.tuple_size() > 1) {
    const Shape& result = shape.tuple_shapes(1);
    if (!result.IsTuple()) return static_cast<double>(ShapeBytes(result));
    double bytes = 0;
    for (const Shape& s : result.tuple_shapes()) bytes += ShapeBytes(s);
    return bytes;
  }
  if (!shape.IsTuple()) return static_cast<double>(ShapeBytes(shape));
  double bytes = 0;
  for (const Shape& s : shape.tuple_shapes()) bytes += ShapeBytes(s);
  return bytes;
}

}  // namespace

CollectiveEstimate CollectiveTime(const HloInstruction& inst, const DeviceSpec& device) {
  std::optional<CollectiveKind> kind = CollectiveKindOf(inst);
  if (!kind.has_value()) return {};
  const HloInstruction& op = CommunicatingInstruction(inst);
  if (*kind == CollectiveKind::kCopy) {
    // Read and written once at the device's memory bandwidth.
    CollectiveEstimate copy;
    copy.bytes = OperandBytes(op);
    copy.algorithm = "copy";
    const double bandwidth = device.memory_bandwidth_bytes_per_second;
    copy.seconds = bandwidth > 0 ? 2 * copy.bytes / bandwidth : 0;
    return copy;
  }
  int64_t n = 1;
  if (op.opcode() == HloOpcode::kCollectivePermute ||
      op.opcode() == HloOpcode::kCollectivePermuteStart) {
    // Every pair sends at once: a permute with any pair moves its data once.
    n = op.has_attrs() && !op.attrs<CollectiveAttrs>().source_target_pairs.empty() ? 2 : 1;
  } else if (op.has_attrs()) {
    n = GroupSizeOf(op).value_or(1);
  }
  // Ring algorithms are stated over the full array: the gathered result, the
  // scattered operand, the reduced array; the in-place permute sends from its
  // input buffer (operand 0) into the output buffer it is given.
  const double bytes = *kind == CollectiveKind::kAllGather ? ResultBytes(op)
                       : IsInPlaceCollectivePermute(op)    ? ShapeBytes(op.operand(0)->shape())
                                                           : OperandBytes(op);
  return AlphaBeta(*kind, bytes, n, device.interconnect_latency_seconds,
                   device.interconnect_bandwidth_bytes_per_second);
}

RooflineTime InstructionRoofline(const InstructionCost& entry, const DeviceSpec& device) {
  const HloInstruction& inst = *entry.instruction;
  const std::optional<CollectiveKind> kind = CollectiveKindOf(inst);
  if (!kind.has_value() || *kind == CollectiveKind::kCopy) return Roofline(entry.cost, device);
  // Compute and memory traffic from the cost analysis; the interconnect
  // from the alpha-beta model over the replica group.
  Cost local = entry.cost;
  local.collectives = 0;
  local.collective_bytes = 0;
  RooflineTime time = Roofline(local, device);
  time.interconnect_seconds = CollectiveTime(inst, device).seconds * entry.executions;
  if (time.interconnect_seconds > time.seconds) {
    time.seconds = time.interconnect_seconds;
    time.bound = Bound::kInterconnect;
  }
  return time;
}

}  // namespace xlite
