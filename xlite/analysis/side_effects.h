// Whether an instruction has a side effect, looking into the computations it
// calls (a while loop whose body sends, a call that does outfeed), memoised
// per computation for a whole pass. The per-instruction fact is
// HloInstruction::HasSideEffectNoRecurse (opcodes.def plus attributes).
#ifndef XLITE_ANALYSIS_SIDE_EFFECTS_H_
#define XLITE_ANALYSIS_SIDE_EFFECTS_H_

#include "absl/container/flat_hash_map.h"
#include "xlite/ir/computation.h"

namespace xlite {

// Answers stay valid while a pass only removes side-effect-free code or adds
// code without side effects; make a new one after anything else.
class SideEffectAnalysis {
 public:
  bool HasSideEffect(const HloInstruction& inst);
  // Some instruction of `computation` (or of what it calls) has one.
  bool ComputationHasSideEffect(const HloComputation& computation);

 private:
  // Looked up only, never iterated.
  absl::flat_hash_map<const HloComputation*, bool> memo_;
};

}  // namespace xlite

#endif  // XLITE_ANALYSIS_SIDE_EFFECTS_H_
