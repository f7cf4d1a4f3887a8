// rsqrt-expander: rsqrt(x) -> 1 / sqrt(x); see expanders.h.
#include "xlite/passes/expander_util.h"
#include "xlite/passes/expanders.h"

namespace xlite {

absl::StatusOr<bool> RsqrtExpanderPass::Run(HloModule& module) {
  using O = HloOpcode;
  return ExpandInstructions(
      module, [](HloOpcode op) { return op == O::kRsqrt; },
      [](InstructionMaker& make, HloComputation& c,
         HloInstruction& rsqrt) -> absl::StatusOr<HloInstruction*> {
        HloInstruction* x = rsqrt.operand(0);
        PrimitiveType type = x->shape().element_type();
        // f16/bf16 in f32, as the evaluator does: rounding the sqrt to the
        // narrow type first would round twice.
        bool narrow = IsF16OrBF16(type);
        if (narrow) x = make.Convert(c, x, PrimitiveType::F32);
        HloInstruction* result =
            make.Binary(c, O::kDivide, make.Splat(c, x->shape(), 1.0), make.Unary(c, O::kSqrt, x));
        return narrow ? make.Convert(c, result, type) : result;
      });
}

}  // namespace xlite
