#include "xlite/passes/dce.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xlite/passes/side_effects.h"

namespace xlite {
namespace {

// Removes the dead instructions of one computation: users are visited before
// their operands, so a chain dies in one sweep.
bool RemoveDeadInstructions(HloComputation& computation, SideEffectOracle& effects) {
  std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  absl::flat_hash_set<const HloInstruction*> dead;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* inst = *it;
    if (inst->IsRoot() || inst->opcode() == HloOpcode::kParameter) continue;
    if (!inst->control_successors().empty() || effects.HasSideEffect(*inst)) continue;
    bool all_users_dead = true;
    for (const HloInstruction* user : inst->users()) {
      if (!dead.contains(user)) {
        all_users_dead = false;
        break;
      }
    }
    if (all_users_dead) dead.insert(inst);
  }
  computation.RemoveInstructionsIf([&](const HloInstruction* i) { return dead.contains(i); });
  return !dead.empty();
}

// Computations reachable from the entry through called computations.
absl::flat_hash_set<const HloComputation*> ReachableComputations(const HloModule& module) {
  absl::flat_hash_set<const HloComputation*> reached;
  std::vector<const HloComputation*> stack = {module.entry_computation()};
  reached.insert(module.entry_computation());
  while (!stack.empty()) {
    const HloComputation* c = stack.back();
    stack.pop_back();
    for (const auto& inst : c->instructions()) {
      for (const HloComputation* called : inst->called_computations()) {
        if (reached.insert(called).second) stack.push_back(called);
      }
    }
  }
  return reached;
}

}  // namespace

absl::StatusOr<bool> DcePass::Run(HloModule& module) {
  if (module.entry_computation() == nullptr) return false;
  SideEffectOracle effects;
  bool changed = false;
  for (const auto& computation : module.computations()) {
    changed |= RemoveDeadInstructions(*computation, effects);
  }
  absl::flat_hash_set<const HloComputation*> live = ReachableComputations(module);
  changed |= module.RemoveComputationsIf(
                 [&](const HloComputation* c) { return !live.contains(c); }) > 0;
  return changed;
}

}  // namespace xlite
