// erf-expander: erf(x) -> x * P(x^2) / Q(x^2) in f32 on x clamped to [-4, 4];
// see expanders.h. The coefficients come from scripts/fit_erf.py (a
// re-weighted least-squares rational fit); evaluated in f32 the result is
// within 8 ulp of the correctly rounded erf over all of f32 (the script
// measures it; most of that error is near |erf| = 1 where the absolute error
// of a few f32 roundings shows). Exact at +-0 (sign kept) and +-inf; NaN
// stays NaN.
#include "xlite/passes/expander_util.h"
#include "xlite/passes/expanders.h"

namespace xlite {
namespace {

using O = HloOpcode;

// Numerator and denominator coefficients, constant term first.
constexpr double kNumerator[] = {
    1.1283791065216064,    0.18941980600357056,     0.049140576273202896,  0.003260491183027625,
    0.0001319037692155689, -1.9341125607752474e-06, 2.0387663113297094e-08};
constexpr double kDenominator[] = {1.0, 0.5012015700340271, 0.11062118411064148,
                                   0.013442501425743103, 0.0008516105590388179};

// sum_i coefficients[i] * t^i by Horner's rule.
template <size_t N>
HloInstruction* Horner(InstructionMaker& make, HloComputation& c, HloInstruction* t,
                       const double (&coefficients)[N]) {
  HloInstruction* acc = make.Splat(c, t->shape(), coefficients[N - 1]);
  for (size_t i = N - 1; i-- > 0;) {
    acc = make.Binary(c, O::kAdd, make.Binary(c, O::kMultiply, acc, t),
                      make.Splat(c, t->shape(), coefficients[i]));
  }
  return acc;
}

}  // namespace

absl::StatusOr<bool> ErfExpanderPass::Run(HloModule& module) {
  return ExpandInstructions(
      module, [](HloOpcode op) { return op == O::kErf; },
      [](InstructionMaker& make, HloComputation& c,
         HloInstruction& erf) -> absl::StatusOr<HloInstruction*> {
        PrimitiveType type = erf.shape().element_type();
        bool narrow = IsF16OrBF16(type);
        if (!narrow && type != PrimitiveType::F32) return nullptr;
        HloInstruction* x = erf.operand(0);
        if (narrow) x = make.Convert(c, x, PrimitiveType::F32);
        // Beyond 4, erf is 1 to within f32's half ulp.
        HloInstruction* clamped =
            make.Add(c, O::kClamp, x->shape(),
                     {make.Splat(c, x->shape(), -4.0), x, make.Splat(c, x->shape(), 4.0)});
        HloInstruction* t = make.Binary(c, O::kMultiply, clamped, clamped);
        HloInstruction* result = make.Binary(
            c, O::kDivide, make.Binary(c, O::kMultiply, clamped, Horner(make, c, t, kNumerator)),
            Horner(make, c, t, kDenominator));
        return narrow ? make.Convert(c, result, type) : result;
      });
}

}  // namespace xlite
