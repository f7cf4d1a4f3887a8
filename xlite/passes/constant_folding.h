// constant_folding: evaluates side-effect-free instructions whose operands are
// all constants with the reference evaluator and replaces them by constants,
// as XLA's HloConstantFolding, with size caps so large constants are never
// materialised (see constant_folding.cc for the exact rules).
#ifndef XLITE_PASSES_CONSTANT_FOLDING_H_
#define XLITE_PASSES_CONSTANT_FOLDING_H_

#include <cstdint>

#include "xlite/passes/pass.h"

namespace xlite {

class ConstantFoldingPass : public HloPass {
 public:
  // XLA's kMaximumConstantSizeElements: neither the result nor the operands
  // together may exceed this many elements.
  static constexpr int64_t kMaxElements = 45'000'000;
  // A result may be larger than its operands together only up to this many
  // elements (pad, concatenate of a small constant with itself, gather...):
  // folding must not turn a compact expression into a big literal.
  static constexpr int64_t kMaxGrowthElements = 1024;

  std::string_view name() const override { return "constant_folding"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_CONSTANT_FOLDING_H_
