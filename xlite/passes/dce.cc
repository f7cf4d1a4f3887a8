#include "xlite/passes/dce.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xlite/analysis/call_graph.h"
#include "xlite/analysis/side_effects.h"

namespace xlite {
namespace {

// Removes the dead instructions of one computation: users are visited before
// their operands, so a chain dies in one sweep.
bool RemoveDeadInstructions(HloComputation& computation, SideEffectAnalysis& effects) {
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

}  // namespace

absl::StatusOr<bool> DcePass::Run(HloModule& module) {
  if (module.entry_computation() == nullptr) return false;
  SideEffectAnalysis effects;
  bool changed = false;
  for (const auto& computation : module.computations()) {
    changed |= RemoveDeadInstructions(*computation, effects);
  }
  CallGraph graph(module);
  changed |= module.RemoveComputationsIf(
                 [&](const HloComputation* c) { return !graph.IsReachable(*c); }) > 0;
  return changed;
}

}  // namespace xlite
