#include "xlite/passes/zero_sized_elimination.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xlite/analysis/side_effects.h"
#include "xlite/passes/instruction_maker.h"

namespace xlite {

absl::StatusOr<bool> ZeroSizedEliminationPass::Run(HloModule& module) {
  InstructionMaker make(module);
  SideEffectAnalysis effects;
  bool changed = false;
  for (const auto& computation : module.computations()) {
    absl::flat_hash_set<HloInstruction*> empty;
    std::vector<HloInstruction*> in_order;
    for (const auto& inst : computation->instructions()) {
      const Shape& shape = inst->shape();
      if (!shape.IsArray() || !shape.is_static() || shape.ElementCount() != 0) continue;
      HloOpcode op = inst->opcode();
      if (op == HloOpcode::kParameter || op == HloOpcode::kConstant) continue;
      if (!inst->control_predecessors().empty() || !inst->control_successors().empty()) continue;
      if (effects.HasSideEffect(*inst)) continue;
      empty.insert(inst.get());
      in_order.push_back(inst.get());
    }
    // Replaced after the scan: new constants grow the instruction list.
    for (HloInstruction* inst : in_order) {
      inst->ReplaceAllUsesWith(make.Constant(*computation, Literal(inst->shape())));
    }
    changed |= !empty.empty();
    computation->RemoveInstructionsIf([&](HloInstruction* i) { return empty.contains(i); });
  }
  make.Finish();
  return changed;
}

}  // namespace xlite
