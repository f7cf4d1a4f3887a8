// while-loop-invariant-code-motion: as XLA's WhileLoopInvariantCodeMotion,
// computes before a while loop the side-effect-free body instructions whose
// operands are all loop-invariant (constants and state elements the body
// passes through unchanged) and passes their values into the loop as new
// state elements the body passes through.
//
// Policy (XLA's defaults): only instructions that do work are hoisted on their
// own; constants, get-tuple-element, tuple, and the ops that merely move or
// replicate data (reshape, bitcast, broadcast, iota, reverse, slice,
// transpose) are hoisted only as operands of such an instruction, because
// alone they would just make the loop state bigger. Nested while loops stay
// (one might not terminate when the outer loop runs 0 times), as do
// instructions with control dependencies and tuple-shaped values.
#ifndef XLITE_PASSES_WHILE_LOOP_INVARIANT_CODE_MOTION_H_
#define XLITE_PASSES_WHILE_LOOP_INVARIANT_CODE_MOTION_H_

#include "xlite/passes/pass.h"

namespace xlite {

class WhileLoopInvariantCodeMotionPass : public HloPass {
 public:
  std::string_view name() const override { return "while-loop-invariant-code-motion"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_WHILE_LOOP_INVARIANT_CODE_MOTION_H_
