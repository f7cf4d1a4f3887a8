// reshape-mover: sinks reshapes and transposes ("rearranges") that feed an
// elementwise op below it, so that rearranges meet and cancel (algsimp folds
// them). Rules (after XLA's ReshapeMover):
//  - the op is elementwise, side-effect free, calls no computation (map),
//    has no sharding or control dependencies, and every operand has the
//    op's dimensions (so clamp with scalar bounds is skipped);
//  - at least one operand is a non-trivial rearrange (a reshape/transpose
//    whose own operand is not trivially rearrangeable, see below);
//  - every operand is either a rearrange equivalent to that one (same opcode,
//    same input dimensions, same transpose permutation) or trivially
//    rearrangeable: a constant with one element or a broadcast of a scalar,
//    which are rebuilt in the new shape for free;
//  - it must not add work: every rearrange operand has the op as its only
//    user and is not a root (so they all die and one rearrange of the
//    result replaces them).
// Sharded rearranges and dynamic shapes are left alone.
// The op is rebuilt on the rearranges' inputs and the rearrange is applied
// to its result. Ops are visited in post order, so chains of elementwise
// ops are crossed in one run.
#ifndef XLITE_PASSES_RESHAPE_MOVER_H_
#define XLITE_PASSES_RESHAPE_MOVER_H_

#include "xlite/passes/pass.h"

namespace xlite {

class ReshapeMoverPass : public HloPass {
 public:
  std::string_view name() const override { return "reshape-mover"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_RESHAPE_MOVER_H_
