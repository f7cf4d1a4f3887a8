// simplify-conditional: a conditional whose predicate or branch index is a
// constant, or that has one branch, becomes the chosen branch inlined — as
// XLA's ConditionalSimplifier does for these cases.
#ifndef XLITE_PASSES_CONDITIONAL_SIMPLIFIER_H_
#define XLITE_PASSES_CONDITIONAL_SIMPLIFIER_H_

#include "xlite/passes/pass.h"

namespace xlite {

class ConditionalSimplifierPass : public HloPass {
 public:
  std::string_view name() const override { return "simplify-conditional"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_CONDITIONAL_SIMPLIFIER_H_
