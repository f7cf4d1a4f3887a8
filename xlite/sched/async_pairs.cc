#include "xlite/sched/async_pairs.h"

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

bool IsAsyncCollectiveStart(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCopyStart:
      return true;
    case HloOpcode::kAsyncStart:
      return CollectiveKindOf(inst).has_value();
    default:
      return false;
  }
}

const HloInstruction* StartOfDone(const HloInstruction& done) {
  switch (done.opcode()) {
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kCopyDone:
    case HloOpcode::kAsyncDone:
      break;
    default:
      return nullptr;
  }
  if (done.operand_count() != 1) return nullptr;
  const HloInstruction* start = done.operand(0);
  // async-update links may sit between start and done.
  while (start->opcode() == HloOpcode::kAsyncUpdate && start->operand_count() == 1) {
    start = start->operand(0);
  }
  return IsAsyncCollectiveStart(*start) ? start : nullptr;
}

bool IsAsyncCollectiveDone(const HloInstruction& inst) { return StartOfDone(inst) != nullptr; }

}  // namespace xlite
