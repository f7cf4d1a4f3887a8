// comparison-expander: compare type=TOTALORDER on floats -> signed integer
// compare of flipped bit patterns; see expanders.h.
#include "xlite/passes/expander_util.h"
#include "xlite/passes/expanders.h"

namespace xlite {

absl::StatusOr<bool> ComparisonExpanderPass::Run(HloModule& module) {
  using O = HloOpcode;
  return ExpandInstructions(
      module, [](HloOpcode op) { return op == O::kCompare; },
      [](InstructionMaker& make, HloComputation& c,
         HloInstruction& compare) -> absl::StatusOr<HloInstruction*> {
        const auto& attrs = compare.attrs<CompareAttrs>();
        PrimitiveType type = compare.operand(0)->shape().element_type();
        if (attrs.type != ComparisonType::kTotalOrder || !IsFloat(type)) return nullptr;
        int bits = BitWidth(type);
        if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return nullptr;
        PrimitiveType signed_type = SignedOfWidth(bits);
        // Sign-magnitude to two's complement order: negatives (sign bit set)
        // get their magnitude bits flipped, so a larger magnitude sorts lower.
        auto key = [&](HloInstruction* x) {
          HloInstruction* b = BitcastTo(make, c, x, signed_type);
          const Shape& shape = b->shape();
          HloInstruction* sign_fill =
              make.Binary(c, O::kShiftRightArithmetic, b, IntSplat(make, c, shape, bits - 1));
          int64_t magnitude_mask =
              bits == 64 ? INT64_MAX : static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1);
          HloInstruction* flip =
              make.Binary(c, O::kAnd, sign_fill, IntSplat(make, c, shape, magnitude_mask));
          return make.Binary(c, O::kXor, b, flip);
        };
        return make.Compare(c, key(compare.operand(0)), key(compare.operand(1)), attrs.direction);
      });
}

}  // namespace xlite
