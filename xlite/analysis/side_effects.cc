#include "xlite/analysis/side_effects.h"

namespace xlite {

bool SideEffectAnalysis::HasSideEffect(const HloInstruction& inst) {
  if (inst.HasSideEffectNoRecurse()) return true;
  for (const HloComputation* called : inst.called_computations()) {
    if (ComputationHasSideEffect(*called)) return true;
  }
  return false;
}

bool SideEffectAnalysis::ComputationHasSideEffect(const HloComputation& computation) {
  auto it = memo_.find(&computation);
  if (it != memo_.end()) return it->second;
  memo_[&computation] = false;  // recursion guard (call graphs are acyclic)
  bool result = false;
  for (const auto& inst : computation.instructions()) {
    if (HasSideEffect(*inst)) {
      result = true;
      break;
    }
  }
  memo_[&computation] = result;
  return result;
}

}  // namespace xlite
