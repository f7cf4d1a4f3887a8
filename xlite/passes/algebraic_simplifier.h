// algsimp: local algebraic rewrites that matter on real models — identities
// of add/mul/sub/div and the bitwise ops, negate/not pairs, merging or
// removing chains of broadcast/reshape/transpose/slice/concatenate/reverse,
// no-op pads and slices, lossless convert chains, selects with a constant
// predicate, integer self-compares, outer-product dots to multiplies,
// reduce of a broadcast, constant-index dynamic slices. A subset of XLA's
// AlgebraicSimplifier; what each rule does is listed in algsimp_*.cc.
#ifndef XLITE_PASSES_ALGEBRAIC_SIMPLIFIER_H_
#define XLITE_PASSES_ALGEBRAIC_SIMPLIFIER_H_

#include "xlite/passes/pass.h"

namespace xlite {

class AlgebraicSimplifierPass : public HloPass {
 public:
  std::string_view name() const override { return "algsimp"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_ALGEBRAIC_SIMPLIFIER_H_
