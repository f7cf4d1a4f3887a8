// cbrt-expander: cbrt(x) -> sign(x) * power(|x|, 1/3); see expanders.h.
#include "xlite/passes/expander_util.h"
#include "xlite/passes/expanders.h"

namespace xlite {

absl::StatusOr<bool> CbrtExpanderPass::Run(HloModule& module) {
  using O = HloOpcode;
  return ExpandInstructions(
      module, [](HloOpcode op) { return op == O::kCbrt; },
      [](InstructionMaker& make, HloComputation& c,
         HloInstruction& cbrt) -> absl::StatusOr<HloInstruction*> {
        PrimitiveType type = cbrt.shape().element_type();
        if (!IsFloat(type)) return nullptr;
        HloInstruction* x = cbrt.operand(0);
        // Narrow types would round the exponent 1/3 badly: compute in f32.
        bool widen = BitWidth(type) < 32;
        if (widen) x = make.Convert(c, x, PrimitiveType::F32);
        HloInstruction* magnitude =
            make.Add(c, O::kPower, x->shape(),
                     {make.Unary(c, O::kAbs, x), make.Splat(c, x->shape(), 1.0 / 3.0)});
        HloInstruction* result =
            make.Binary(c, O::kMultiply, make.Unary(c, O::kSign, x), magnitude);
        return widen ? make.Convert(c, result, type) : result;
      });
}

}  // namespace xlite
