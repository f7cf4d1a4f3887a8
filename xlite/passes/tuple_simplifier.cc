#include "xlite/passes/tuple_simplifier.h"

namespace xlite {
namespace {

// The value a get-tuple-element reads when its tuple is built in sight.
HloInstruction* ForwardedElement(const HloInstruction& gte) {
  const HloInstruction* tuple = gte.operand(0);
  if (tuple->opcode() != HloOpcode::kTuple) return nullptr;
  HloInstruction* element = tuple->operand(gte.tuple_index());
  return element->shape() == gte.shape() ? element : nullptr;
}

// The tuple a tuple instruction merely rebuilds, element by element.
HloInstruction* RebuiltTuple(const HloInstruction& tuple) {
  if (tuple.operand_count() == 0) return nullptr;
  HloInstruction* source = nullptr;
  for (int64_t i = 0; i < tuple.operand_count(); ++i) {
    const HloInstruction* element = tuple.operand(i);
    if (element->opcode() != HloOpcode::kGetTupleElement || element->tuple_index() != i) {
      return nullptr;
    }
    if (source != nullptr && element->operand(0) != source) return nullptr;
    source = element->operand(0);
  }
  if (source->shape().tuple_size() != tuple.operand_count() ||
      !(source->shape() == tuple.shape())) {
    return nullptr;
  }
  return source;
}

}  // namespace

absl::StatusOr<bool> TupleSimplifierPass::Run(HloModule& module) {
  bool changed = false;
  for (const auto& computation : module.computations()) {
    for (HloInstruction* inst : computation->MakeInstructionPostOrder()) {
      HloInstruction* replacement = nullptr;
      if (inst->opcode() == HloOpcode::kGetTupleElement) replacement = ForwardedElement(*inst);
      if (inst->opcode() == HloOpcode::kTuple) replacement = RebuiltTuple(*inst);
      if (replacement == nullptr) continue;
      if (inst->user_count() == 0 && !inst->IsRoot()) continue;
      inst->ReplaceAllUsesWith(replacement);
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite
