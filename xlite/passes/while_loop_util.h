// Helpers shared by the while-loop passes (while-loop-simplifier and
// while-loop-invariant-code-motion): recognising loops whose state is a flat
// tuple read only through get-tuple-element, and reading init elements.
#ifndef XLITE_PASSES_WHILE_LOOP_UTIL_H_
#define XLITE_PASSES_WHILE_LOOP_UTIL_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "xlite/passes/instruction_maker.h"

namespace xlite {

// True when `while_op` carries a tuple state that both its computations read
// only through get-tuple-element of their parameter, the body root is a
// tuple instruction, no called computation is shared with another caller
// (`call_sites` says how many call sites name a computation now: a
// CallGraph's CallSitesOf, less those a pass has rewritten away), and the
// loop has no sharding (a tuple sharding would have to be rewritten too).
bool HasRewritableLoopState(const HloInstruction& while_op,
                            absl::FunctionRef<int64_t(const HloComputation&)> call_sites);

// True when `hlo` is get-tuple-element(`param`), any index.
bool IsStateElement(const HloInstruction* hlo, const HloInstruction* param);

// Element `i` of the tuple `init` in `c`: the tuple's operand when `init` is a
// tuple instruction, else a new get-tuple-element.
HloInstruction* InitElement(InstructionMaker& make, HloComputation& c, HloInstruction* init,
                            int64_t i);

}  // namespace xlite

#endif  // XLITE_PASSES_WHILE_LOOP_UTIL_H_
