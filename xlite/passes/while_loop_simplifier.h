// while-loop-simplifier: as XLA's WhileLoopSimplifier, replaces side-effect-free
// while loops that run 0 times by their init and loops that run once by the
// body inlined on the init, and removes the state elements of a loop that
// nothing live depends on (read by no user of the loop, not by the condition,
// and feeding no other live element in the body), giving the loop new,
// smaller condition and body computations.
#ifndef XLITE_PASSES_WHILE_LOOP_SIMPLIFIER_H_
#define XLITE_PASSES_WHILE_LOOP_SIMPLIFIER_H_

#include "xlite/passes/pass.h"

namespace xlite {

class WhileLoopSimplifierPass : public HloPass {
 public:
  std::string_view name() const override { return "while-loop-simplifier"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_WHILE_LOOP_SIMPLIFIER_H_
