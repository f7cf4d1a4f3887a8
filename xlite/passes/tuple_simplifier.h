// tuple-simplifier: get-tuple-element(tuple(a0, a1, ...), i) becomes ai, and
// tuple(gte(t, 0), ..., gte(t, n-1)) of an n-element t becomes t — as XLA's
// TupleSimplifier. The bypassed instructions are left for dce.
#ifndef XLITE_PASSES_TUPLE_SIMPLIFIER_H_
#define XLITE_PASSES_TUPLE_SIMPLIFIER_H_

#include "xlite/passes/pass.h"

namespace xlite {

class TupleSimplifierPass : public HloPass {
 public:
  std::string_view name() const override { return "tuple-simplifier"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_TUPLE_SIMPLIFIER_H_
