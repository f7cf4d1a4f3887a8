#include "xlite/passes/conditional_simplifier.h"

#include <optional>
#include <vector>

#include "xlite/passes/call_inliner.h"
#include "xlite/passes/instruction_maker.h"

namespace xlite {
namespace {

// The branch a conditional always takes, when that is known.
std::optional<int64_t> ChosenBranch(const HloInstruction& conditional) {
  int64_t branches = static_cast<int64_t>(conditional.called_computations().size());
  if (branches == 1) return 0;
  const HloInstruction* selector = conditional.operand(0);
  if (selector->opcode() != HloOpcode::kConstant || selector->attrs<ConstantAttrs>().elided) {
    return std::nullopt;
  }
  int64_t value = selector->literal().GetInt64(0);
  if (selector->shape().element_type() == PrimitiveType::PRED) return value != 0 ? 0 : 1;
  return value < 0 || value >= branches ? branches - 1 : value;
}

}  // namespace

absl::StatusOr<bool> ConditionalSimplifierPass::Run(HloModule& module) {
  InstructionMaker make(module);
  bool changed = false;
  for (const auto& computation : module.computations()) {
    std::vector<std::pair<HloInstruction*, int64_t>> chosen;
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() != HloOpcode::kConditional) continue;
      if (std::optional<int64_t> branch = ChosenBranch(*inst))
        chosen.emplace_back(inst.get(), *branch);
    }
    for (auto [conditional, branch] : chosen) {
      HloInstruction* call = make.Add(*computation, HloOpcode::kCall, conditional->shape(),
                                      {conditional->operand(branch + 1)});
      call->AppendCalledComputation(conditional->called_computations()[branch]);
      for (HloInstruction* pred : conditional->control_predecessors()) {
        pred->AddControlDependencyTo(call);
      }
      for (HloInstruction* succ : conditional->control_successors()) {
        call->AddControlDependencyTo(succ);
      }
      conditional->DropAllControlDeps();
      conditional->ReplaceAllUsesWith(call);
      computation->RemoveInstruction(conditional);
      InlineCall(call, make);
      changed = true;
    }
  }
  make.Finish();
  return changed;
}

}  // namespace xlite
