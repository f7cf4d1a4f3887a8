#include "xlite/passes/while_loop_util.h"

#include <memory>

namespace xlite {
namespace {

bool ParameterReadOnlyByElements(const HloComputation& computation) {
  const HloInstruction* param = computation.parameter_instruction(0);
  if (computation.num_parameters() != 1 || param == nullptr || param->IsRoot()) return false;
  for (const HloInstruction* user : param->users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) return false;
  }
  return true;
}

}  // namespace

bool HasRewritableLoopState(const HloInstruction& while_op,
                            absl::FunctionRef<int64_t(const HloComputation&)> call_sites) {
  if (while_op.opcode() != HloOpcode::kWhile || !while_op.shape().IsTuple() ||
      while_op.has_sharding() || while_op.called_computations().size() != 2) {
    return false;
  }
  const HloComputation& condition = *while_op.called_computations()[0];
  const HloComputation& body = *while_op.called_computations()[1];
  if (&condition == &body) return false;
  for (const HloComputation* c : {&condition, &body}) {
    if (call_sites(*c) != 1 || !ParameterReadOnlyByElements(*c)) return false;
  }
  const HloInstruction* root = body.root_instruction();
  return root->opcode() == HloOpcode::kTuple &&
         root->operand_count() == static_cast<int64_t>(while_op.shape().tuple_shapes().size());
}

bool IsStateElement(const HloInstruction* hlo, const HloInstruction* param) {
  return hlo->opcode() == HloOpcode::kGetTupleElement && hlo->operand(0) == param;
}

HloInstruction* InitElement(InstructionMaker& make, HloComputation& c, HloInstruction* init,
                            int64_t i) {
  if (init->opcode() == HloOpcode::kTuple) return init->operand(i);
  return make.GetTupleElement(c, init, i);
}

}  // namespace xlite
