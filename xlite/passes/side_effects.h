// Whether an instruction has a side effect, looking into the computations it
// calls (a while loop whose body sends, a call that does outfeed), memoised
// per computation for a whole pass.
#ifndef XLITE_PASSES_SIDE_EFFECTS_H_
#define XLITE_PASSES_SIDE_EFFECTS_H_

#include "absl/container/flat_hash_map.h"
#include "xlite/ir/computation.h"

namespace xlite {

class SideEffectOracle {
 public:
  bool HasSideEffect(const HloInstruction& inst);

 private:
  bool ComputationHasSideEffect(const HloComputation& computation);
  // Looked up only, never iterated.
  absl::flat_hash_map<const HloComputation*, bool> memo_;
};

}  // namespace xlite

#endif  // XLITE_PASSES_SIDE_EFFECTS_H_
