// call-inliner: replaces each `call` by a copy of its callee (callees first),
// as XLA's CallInliner. Kept: composite calls (a decomposition a backend may
// want whole), calls inside an async op's computation and calls into another
// execution thread. Callees nobody calls any more are left for dce.
#ifndef XLITE_PASSES_CALL_INLINER_H_
#define XLITE_PASSES_CALL_INLINER_H_

#include "xlite/passes/instruction_maker.h"
#include "xlite/passes/pass.h"

namespace xlite {

// Copies the body of `call`'s callee into `call`'s computation and makes the
// copy of its root replace `call` (which is removed). Shared by passes that
// turn other ops into a call first (conditional simplification).
void InlineCall(HloInstruction* call, InstructionMaker& make);

class CallInlinerPass : public HloPass {
 public:
  std::string_view name() const override { return "call-inliner"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

// The pass, then the computations nothing reaches any more removed: what
// XLA's pipelines do before partitioning and scheduling. True when a call
// was inlined.
absl::StatusOr<bool> InlineCallsAndDropCallees(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_CALL_INLINER_H_
