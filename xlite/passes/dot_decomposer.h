// dot_decomposer: rewrites every dot that is not canonical into transposes and
// reshapes around a canonical dot — lhs [B..., M, K], rhs [B..., K, N],
// result [B..., M, N] — followed by a reshape to the original result shape,
// so that later passes and backends only need to handle one dot form.
#ifndef XLITE_PASSES_DOT_DECOMPOSER_H_
#define XLITE_PASSES_DOT_DECOMPOSER_H_

#include "xlite/passes/pass.h"

namespace xlite {

class DotDecomposerPass : public HloPass {
 public:
  std::string_view name() const override { return "dot_decomposer"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_DOT_DECOMPOSER_H_
