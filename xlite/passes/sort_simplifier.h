// simplify-sorting: drops the operands of a variadic sort whose sorted
// output nobody reads and whose comparator parameters are unused, making a
// comparator without them — as XLA's SortSimplifier.
#ifndef XLITE_PASSES_SORT_SIMPLIFIER_H_
#define XLITE_PASSES_SORT_SIMPLIFIER_H_

#include "xlite/passes/pass.h"

namespace xlite {

class SortSimplifierPass : public HloPass {
 public:
  std::string_view name() const override { return "simplify-sorting"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_SORT_SIMPLIFIER_H_
