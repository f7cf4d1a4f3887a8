// Expander passes: rewrite ops a backend may not lower directly (cbrt, erf,
// rsqrt, power with a constant integer exponent, total-order compare,
// reduce-precision, batch-norm, rng) into simpler HLO. One .cc file per pass.
#ifndef XLITE_PASSES_EXPANDERS_H_
#define XLITE_PASSES_EXPANDERS_H_

#include <cstdint>

#include "xlite/passes/pass.h"

namespace xlite {

// cbrt(x) -> sign(x) * power(|x|, 1/3). Exact at +-0 (sign kept), +-inf and
// NaN; elsewhere within a few ulp (the exponent 1/3 is rounded to the type:
// f16/bf16 compute in f32, f32 in f32: relative error <= |ln|x|| * 2^-26 plus
// two roundings: measured <= 16 ulp over the whole f32 range including
// denormals), f64 likewise in f64 (measured <= 128 ulp at |x| = 1e-300).
class CbrtExpanderPass : public HloPass {
 public:
  std::string_view name() const override { return "cbrt-expander"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
  int64_t max_ulp_error() const override { return 128; }
};

// rsqrt(x) -> 1 / sqrt(x), f16/bf16 in f32 (what the evaluator computes:
// bit-exact).
class RsqrtExpanderPass : public HloPass {
 public:
  std::string_view name() const override { return "rsqrt-expander"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

// erf(x) for f16, bf16 and f32 -> a rational approximation in f32 on x
// clamped to [-4, 4] (erf is 1 to f32 precision beyond), odd numerator and
// even denominator in x (see erf_expander.cc for the bound). f16/bf16 convert
// to f32 and back. f64 is left alone: the f32 approximation is not accurate
// enough for it.
class ErfExpanderPass : public HloPass {
 public:
  std::string_view name() const override { return "erf-expander"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
  int64_t max_ulp_error() const override { return 8; }
};

// power(x, c) with c a constant (or broadcast constant) whose elements are all
// the same integer n:
// - integer x, n >= 0: square-and-multiply with wrap-around, exact (negative n
//   is left alone);
// - float x, 0 <= n <= max_exponent: square-and-multiply. The relative
//   errors of the factors add up, so x^n is within n - 1 ulp of the correctly
//   rounded power (n <= 2 exact). Negative n is left alone: 1 / x^|n| loses
//   the denormal results (x^|n| overflows) that power keeps.
class PowExpanderPass : public HloPass {
 public:
  explicit PowExpanderPass(int64_t max_exponent) : max_exponent_(max_exponent) {}
  std::string_view name() const override { return "pow-expander"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
  // n - 1 roundings for x^n, n <= max_exponent, plus the rounding of the
  // power it replaces.
  int64_t max_ulp_error() const override { return max_exponent_; }

 private:
  int64_t max_exponent_;
};

// compare(a, b), type=TOTALORDER on floats of 8 to 64 bits -> a signed
// integer compare of the bit patterns with every bit but the sign flipped for
// negatives (-NaN < -inf < ... < -0 < +0 < ... < inf < NaN). Exact.
class ComparisonExpanderPass : public HloPass {
 public:
  std::string_view name() const override { return "comparison-expander"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

// reduce-precision on f16, bf16 (through f32, as the evaluator does), f32
// and f64 -> integer bit operations: mantissa rounded to nearest even,
// exponents out of the reduced range to inf / signed zero, NaN kept (+inf
// when no mantissa bit is left). Exact.
class ReducePrecisionExpanderPass : public HloPass {
 public:
  std::string_view name() const override { return "reduce-precision-expander"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

// batch-norm-training, -inference and -grad -> reduce / broadcast /
// elementwise ops in the operand type, per XLA's semantics (statistics over
// every dimension but feature_index, biased variance, epsilon). Each kind is
// chosen by its flag (XLA's rewrite_training_op, rewrite_inference_op,
// rewrite_grad_op). The variance is the two-pass mean of squared deviations
// (not E[x^2] - E[x]^2), so results differ from the f64 evaluator only by the
// operand type's rounding.
class BatchNormExpanderPass : public HloPass {
 public:
  BatchNormExpanderPass(bool training, bool inference, bool grad)
      : training_(training), inference_(inference), grad_(grad) {}
  std::string_view name() const override { return "batchnorm_expander"; }
  absl::StatusOr<bool> Run(HloModule& module) override;

 private:
  bool training_, inference_, grad_;
};

// rng with uniform or normal distribution on f16/bf16/f32/f64 ->
// rng-get-and-update-state, rng-bit-generator (default algorithm) and bit
// manipulation: uniform floats from random mantissa bits under the exponent
// of 1.0 (in f32 for f16/bf16), normal by Box-Muller. The random stream
// differs from the evaluator's `rng`: compare only shapes and ranges of
// expanded modules, never values. Integer rng is left alone.
class RngExpanderPass : public HloPass {
 public:
  std::string_view name() const override { return "rng-expander"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_EXPANDERS_H_
