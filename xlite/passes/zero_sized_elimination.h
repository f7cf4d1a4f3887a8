// zero_sized_hlo_elimination: an instruction whose array result has no
// elements (a dimension of size 0) becomes an empty constant of that shape,
// unless it has a side effect or is a parameter or constant — as XLA's
// ZeroSizedHloElimination. Its operands are then left for dce.
#ifndef XLITE_PASSES_ZERO_SIZED_ELIMINATION_H_
#define XLITE_PASSES_ZERO_SIZED_ELIMINATION_H_

#include "xlite/passes/pass.h"

namespace xlite {

class ZeroSizedEliminationPass : public HloPass {
 public:
  std::string_view name() const override { return "zero_sized_hlo_elimination"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_ZERO_SIZED_ELIMINATION_H_
