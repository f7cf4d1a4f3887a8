// Inline f32 exp, log, tanh, logistic and erf as LLVM IR (Cody-Waite range
// reduction and fitted polynomials, no calls), so loops using them
// vectorise instead of calling libm once per element. Their error is at most
// kFastMathMaxUlp units in the last place of the correctly rounded result
// over all f32 inputs (fast_math_test.cc sweeps the range); NaN, infinities,
// zeros and subnormal results follow IEEE as libm does.
#ifndef XLITE_BACKENDS_CPU_FAST_MATH_H_
#define XLITE_BACKENDS_CPU_FAST_MATH_H_

#include "xlite/ir/opcode.h"

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace xlite::cpu {

inline constexpr int kFastMathMaxUlp = 3;

// Whether EmitFastF32 has an inline version of `op` (a unary f32 op).
bool HasFastF32(HloOpcode op);

// `op` applied to the f32 value `x` (a scalar or a vector of f32).
llvm::Value* EmitFastF32(llvm::IRBuilderBase& b, HloOpcode op, llvm::Value* x);

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_FAST_MATH_H_
