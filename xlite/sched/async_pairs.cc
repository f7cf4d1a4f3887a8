#include "xlite/sched/async_pairs.h"

#include "xlite/ir/computation.h"

namespace xlite {

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
