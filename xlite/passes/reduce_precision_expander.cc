// reduce-precision-expander: reduce-precision -> integer bit operations on
// the value's unsigned bit pattern; see expanders.h.
#include <algorithm>

#include "xlite/passes/expander_util.h"
#include "xlite/passes/expanders.h"

namespace xlite {
namespace {

using O = HloOpcode;

// The rewrite of reduce-precision(x) for x of type f32 (exponent 8,
// mantissa 23) or f64 (11, 52); the target widths are clamped to those.
HloInstruction* ExpandBits(InstructionMaker& make, HloComputation& c, HloInstruction* x,
                           int64_t exponent_bits, int64_t mantissa_bits) {
  const bool f64 = x->shape().element_type() == PrimitiveType::F64;
  const int kExponent = f64 ? 11 : 8;
  const int kMantissa = f64 ? 52 : 23;
  exponent_bits = std::min<int64_t>(exponent_bits, kExponent);
  mantissa_bits = std::min<int64_t>(mantissa_bits, kMantissa);
  HloInstruction* input = BitcastTo(make, c, x, f64 ? PrimitiveType::U64 : PrimitiveType::U32);
  const Shape& shape = input->shape();
  auto k = [&](uint64_t v) { return IntSplat(make, c, shape, static_cast<int64_t>(v)); };
  auto bin = [&](HloOpcode op, HloInstruction* a, HloInstruction* b) {
    return make.Binary(c, op, a, b);
  };
  HloInstruction* bits = input;
  if (mantissa_bits < kMantissa) {
    // Round to nearest even: add half an ulp of the kept mantissa less one,
    // plus the kept lowest bit (so ties go to even), then drop the bits.
    const int drop = static_cast<int>(kMantissa - mantissa_bits);
    const uint64_t last_kept = uint64_t{1} << drop;
    HloInstruction* kept_lsb = bin(O::kAnd, bin(O::kShiftRightLogical, bits, k(drop)), k(1));
    HloInstruction* rounded = bin(O::kAdd, bin(O::kAdd, bits, k((last_kept >> 1) - 1)), kept_lsb);
    bits = bin(O::kAnd, rounded, k(~(last_kept - 1)));
  }
  const uint64_t sign = uint64_t{1} << (kExponent + kMantissa);
  const uint64_t exponent_mask = ((uint64_t{1} << kExponent) - 1) << kMantissa;
  if (exponent_bits < kExponent) {
    const uint64_t bias = (uint64_t{1} << (kExponent - 1)) - 1;
    const uint64_t reduced_bias = (uint64_t{1} << (exponent_bits - 1)) - 1;
    HloInstruction* exponent = bin(O::kAnd, bits, k(exponent_mask));
    HloInstruction* signed_zero = bin(O::kAnd, bits, k(sign));
    HloInstruction* signed_inf = bin(O::kOr, signed_zero, k(exponent_mask));
    HloInstruction* overflow =
        make.Compare(c, exponent, k((bias + reduced_bias) << kMantissa), ComparisonDirection::kGt);
    HloInstruction* underflow =
        make.Compare(c, exponent, k((bias - reduced_bias) << kMantissa), ComparisonDirection::kLe);
    bits = make.Select(c, overflow, signed_inf, make.Select(c, underflow, signed_zero, bits));
  }
  // NaN stays NaN (its payload kept); with no mantissa bit left, XLA makes it +inf.
  HloInstruction* is_nan = make.Compare(c, x, x, ComparisonDirection::kNe);
  bits = make.Select(c, is_nan, mantissa_bits > 0 ? input : k(exponent_mask), bits);
  return BitcastTo(make, c, bits, x->shape().element_type());
}

}  // namespace

absl::StatusOr<bool> ReducePrecisionExpanderPass::Run(HloModule& module) {
  return ExpandInstructions(
      module, [](HloOpcode op) { return op == O::kReducePrecision; },
      [](InstructionMaker& make, HloComputation& c,
         HloInstruction& rp) -> absl::StatusOr<HloInstruction*> {
        const auto& attrs = rp.attrs<ReducePrecisionAttrs>();
        PrimitiveType type = rp.shape().element_type();
        bool narrow = IsF16OrBF16(type);
        if (!narrow && type != PrimitiveType::F32 && type != PrimitiveType::F64) return nullptr;
        // Invalid widths stay for the verifier / evaluator to reject.
        if (attrs.exponent_bits < 1 || attrs.mantissa_bits < 0) return nullptr;
        HloInstruction* x = rp.operand(0);
        if (narrow) x = make.Convert(c, x, PrimitiveType::F32);
        HloInstruction* result = ExpandBits(make, c, x, attrs.exponent_bits, attrs.mantissa_bits);
        return narrow ? make.Convert(c, result, type) : result;
      });
}

}  // namespace xlite
