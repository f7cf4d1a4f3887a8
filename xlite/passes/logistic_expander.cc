#include "xlite/passes/logistic_expander.h"

#include <vector>

#include "xlite/passes/instruction_maker.h"

namespace xlite {

absl::StatusOr<bool> LogisticExpanderPass::Run(HloModule& module) {
  InstructionMaker make(module);
  bool changed = false;
  using O = HloOpcode;
  for (const auto& computation : module.computations()) {
    HloComputation& c = *computation;
    std::vector<HloInstruction*> logistics;
    for (const auto& inst : c.instructions()) {
      if (inst->opcode() == O::kLogistic) logistics.push_back(inst.get());
    }
    for (HloInstruction* logistic : logistics) {
      HloInstruction* x = logistic->operand(0);
      const Shape& shape = logistic->shape();
      HloInstruction* result;
      if (strategy_ == LogisticStrategy::kTanh) {
        HloInstruction* half = make.Splat(c, shape, 0.5);
        HloInstruction* t = make.Unary(c, O::kTanh, make.Binary(c, O::kMultiply, half, x));
        result = make.Binary(c, O::kAdd, half, make.Binary(c, O::kMultiply, half, t));
      } else {
        HloInstruction* one = make.Splat(c, shape, 1.0);
        HloInstruction* e = make.Unary(c, O::kExp, make.Unary(c, O::kNegate, x));
        result = make.Binary(c, O::kDivide, one, make.Binary(c, O::kAdd, one, e));
      }
      logistic->ReplaceAllUsesWith(result);
      changed = true;
    }
    c.RemoveInstructionsIf([](const HloInstruction* i) { return i->opcode() == O::kLogistic; });
  }
  make.Finish();
  return changed;
}

}  // namespace xlite
