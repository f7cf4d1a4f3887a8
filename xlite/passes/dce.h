// dce: removes instructions whose value nobody uses and that have no side
// effect (looking into the computations they call), then the computations
// no live instruction calls any more — as XLA's HloDCE.
#ifndef XLITE_PASSES_DCE_H_
#define XLITE_PASSES_DCE_H_

#include "xlite/passes/pass.h"

namespace xlite {

class DcePass : public HloPass {
 public:
  std::string_view name() const override { return "dce"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_DCE_H_
