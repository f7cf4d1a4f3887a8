// Unary elementwise opcodes: math functions (real and complex), rounding,
// integer bit counts, sign/abs/negate/not, is-finite, real/imag, and
// reduce-precision. Each kernel's overloads define the types it accepts.
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <limits>

#include "xlite/eval/elementwise_internal.h"

namespace xlite::eval {
namespace {

using O = HloOpcode;

// Defines a kernel applying the same std:: function to real and complex
// arguments (the complex overloads of <complex>).
#define XLITE_REAL_AND_COMPLEX_KERNEL(Name, fn) \
  struct Name {                                 \
    template <RealOrCplx T>                     \
    T operator()(T x) const {                   \
      return std::fn(x);                        \
    }                                           \
  };
XLITE_REAL_AND_COMPLEX_KERNEL(Acos, acos)
XLITE_REAL_AND_COMPLEX_KERNEL(Acosh, acosh)
XLITE_REAL_AND_COMPLEX_KERNEL(Asin, asin)
XLITE_REAL_AND_COMPLEX_KERNEL(Asinh, asinh)
XLITE_REAL_AND_COMPLEX_KERNEL(Atan, atan)
XLITE_REAL_AND_COMPLEX_KERNEL(Atanh, atanh)
XLITE_REAL_AND_COMPLEX_KERNEL(Cos, cos)
XLITE_REAL_AND_COMPLEX_KERNEL(Cosh, cosh)
XLITE_REAL_AND_COMPLEX_KERNEL(Sin, sin)
XLITE_REAL_AND_COMPLEX_KERNEL(Sinh, sinh)
XLITE_REAL_AND_COMPLEX_KERNEL(Tan, tan)
XLITE_REAL_AND_COMPLEX_KERNEL(Tanh, tanh)
XLITE_REAL_AND_COMPLEX_KERNEL(Exp, exp)
XLITE_REAL_AND_COMPLEX_KERNEL(Log, log)
XLITE_REAL_AND_COMPLEX_KERNEL(Sqrt, sqrt)
#undef XLITE_REAL_AND_COMPLEX_KERNEL

// Real-only functions.
#define XLITE_REAL_KERNEL(Name, fn) \
  struct Name {                     \
    template <Real T>               \
    T operator()(T x) const {       \
      return std::fn(x);            \
    }                               \
  };
XLITE_REAL_KERNEL(Cbrt, cbrt)
XLITE_REAL_KERNEL(Erf, erf)
XLITE_REAL_KERNEL(Ceil, ceil)
XLITE_REAL_KERNEL(Floor, floor)
XLITE_REAL_KERNEL(RoundAfz, round)
// nearbyint honours the rounding mode, which is round-to-nearest-even unless
// a caller changed it.
XLITE_REAL_KERNEL(RoundEven, nearbyint)
#undef XLITE_REAL_KERNEL

struct Expm1 {
  template <Real T>
  T operator()(T x) const {
    return std::expm1(x);
  }
  // exp(a+ib) - 1 = (expm1(a) cos b - 2 sin^2(b/2)) + i exp(a) sin b, which
  // keeps precision for small arguments.
  template <Cplx T>
  T operator()(T z) const {
    auto a = z.real(), b = z.imag();
    auto half_sin = std::sin(b / 2);
    return {std::expm1(a) * std::cos(b) - 2 * half_sin * half_sin, std::exp(a) * std::sin(b)};
  }
};

struct Log1p {
  template <Real T>
  T operator()(T x) const {
    return std::log1p(x);
  }
  // log(1+z): |1+z|^2 = 1 + (2a + a^2 + b^2), so the real part is
  // log1p of that sum over two.
  template <Cplx T>
  T operator()(T z) const {
    auto a = z.real(), b = z.imag();
    return {std::log1p(a * (2 + a) + b * b) / 2, std::atan2(b, 1 + a)};
  }
};

struct Logistic {
  template <RealOrCplx T>
  T operator()(T x) const {
    return T(1) / (T(1) + std::exp(-x));
  }
};

struct Rsqrt {
  template <RealOrCplx T>
  T operator()(T x) const {
    return T(1) / std::sqrt(x);
  }
};

struct Abs {
  template <SInt T>
  T operator()(T x) const {  // abs(MIN) wraps to MIN
    return x < 0 ? static_cast<T>(WideUnsigned<T>(0) - static_cast<WideUnsigned<T>>(x)) : x;
  }
  template <UInt T>
  T operator()(T x) const {
    return x;
  }
  template <Real T>
  T operator()(T x) const {
    return std::fabs(x);
  }
  template <Cplx T>
  auto operator()(T x) const {
    return std::abs(x);
  }
};

struct Negate {
  template <Int T>
  T operator()(T x) const {
    return static_cast<T>(WideUnsigned<T>(0) - static_cast<WideUnsigned<T>>(x));
  }
  template <RealOrCplx T>
  T operator()(T x) const {
    return -x;
  }
};

struct Sign {
  template <SInt T>
  T operator()(T x) const {
    return static_cast<T>((x > 0) - (x < 0));
  }
  template <UInt T>
  T operator()(T x) const {
    return x != 0 ? 1 : 0;
  }
  template <Real T>
  T operator()(T x) const {  // keeps -0, +0 and NaN
    if (std::isnan(x) || x == 0) return x;
    return std::copysign(T(1), x);
  }
  template <Cplx T>
  T operator()(T z) const {
    auto r = std::abs(z);
    return r == 0 ? T(0) : z / r;
  }
};

struct Not {
  template <Pred T>
  bool operator()(T x) const {
    return !x;
  }
  template <Int T>
  T operator()(T x) const {
    return static_cast<T>(~x);
  }
};

// The operand's bits within its true width (sub-byte types live sign- or
// zero-extended in 8 bits).
template <Int T>
uint64_t LowBits(T x, int bits) {
  uint64_t u = static_cast<std::make_unsigned_t<T>>(x);
  return bits >= 64 ? u : u & ((uint64_t{1} << bits) - 1);
}

struct Clz {
  int bits = 0;
  template <Int T>
  T operator()(T x) const {
    return static_cast<T>(std::countl_zero(LowBits(x, bits)) - (64 - bits));
  }
};

struct Popcnt {
  int bits = 0;
  template <Int T>
  T operator()(T x) const {
    return static_cast<T>(std::popcount(LowBits(x, bits)));
  }
};

struct IsFinite {
  template <Real T>
  bool operator()(T x) const {
    return std::isfinite(x);
  }
};

struct RealPart {
  template <Real T>
  T operator()(T x) const {
    return x;
  }
  template <Cplx T>
  auto operator()(T z) const {
    return z.real();
  }
};

struct ImagPart {
  template <Real T>
  T operator()(T) const {
    return 0;
  }
  template <Cplx T>
  auto operator()(T z) const {
    return z.imag();
  }
};

// Rounds the bit pattern of an IEEE value with `kMantissa` stored mantissa
// bits and `kExponent` exponent bits (U its unsigned storage) to `exponent_bits`
// and `mantissa_bits`: mantissa rounded to nearest even, exponents above the
// reduced range become inf, at or below its minimum (reduced denormals) zero,
// NaN kept (+inf when no mantissa bit is left to carry it).
template <typename U, int kExponent, int kMantissa>
U ReducePrecisionBits(U x, int64_t exponent_bits, int64_t mantissa_bits, bool is_nan) {
  const U input = x;
  if (mantissa_bits < kMantissa) {
    const int drop = static_cast<int>(kMantissa - mantissa_bits);
    const U last_kept = U{1} << drop;
    const U half_minus_one = (last_kept >> 1) - 1;
    const U kept_lsb = (x >> drop) & 1;
    x = (x + half_minus_one + kept_lsb) & ~(last_kept - 1);
  }
  if (exponent_bits < kExponent) {
    const U sign = U{1} << (kExponent + kMantissa);
    const U exponent_mask = ((U{1} << kExponent) - 1) << kMantissa;
    const U bias = (U{1} << (kExponent - 1)) - 1;
    const U reduced_bias = (U{1} << (exponent_bits - 1)) - 1;
    const U exponent = x & exponent_mask;
    if (exponent > ((bias + reduced_bias) << kMantissa)) {
      x = (x & sign) | exponent_mask;
    } else if (exponent <= ((bias - reduced_bias) << kMantissa)) {
      x = x & sign;
    }
  }
  if (is_nan) {  // XLA turns it into +inf whatever its sign
    return mantissa_bits > 0 ? input : static_cast<U>(((U{1} << kExponent) - 1) << kMantissa);
  }
  return x;
}

struct ReducePrecision {
  int64_t exponent_bits = 0, mantissa_bits = 0;
  float operator()(float v) const {
    uint32_t bits = std::bit_cast<uint32_t>(v);
    return std::bit_cast<float>(
        ReducePrecisionBits<uint32_t, 8, 23>(bits, exponent_bits, mantissa_bits, std::isnan(v)));
  }
  double operator()(double v) const {
    uint64_t bits = std::bit_cast<uint64_t>(v);
    return std::bit_cast<double>(
        ReducePrecisionBits<uint64_t, 11, 52>(bits, exponent_bits, mantissa_bits, std::isnan(v)));
  }
};

absl::StatusOr<Literal> ReducePrecisionHandler(const HloInstruction& inst, Operands ops,
                                               EvalContext&) {
  const auto& attrs = inst.attrs<ReducePrecisionAttrs>();
  if (attrs.exponent_bits < 1 || attrs.mantissa_bits < 0) {
    return InvalidArgument("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0");
  }
  ReducePrecision f;
  // Reducing to at least the compute type's own precision changes nothing.
  f.exponent_bits = std::min<int64_t>(attrs.exponent_bits, 11);
  f.mantissa_bits = std::min<int64_t>(attrs.mantissa_bits, 52);
  if (ComputeType(ops[0]->shape().element_type()) == PrimitiveType::F32) {
    f.exponent_bits = std::min<int64_t>(f.exponent_bits, 8);
    f.mantissa_bits = std::min<int64_t>(f.mantissa_bits, 23);
  }
  return RunSameType<ReducePrecision, 1>(inst, ops, f);
}

template <typename F>
constexpr OpHandler kUnary = SameTypeHandler<F, 1>;

}  // namespace

void RegisterUnaryOps(OpHandlerTable& table) {
  table.Register(O::kAbs, kUnary<Abs>);
  table.Register(O::kAcos, kUnary<Acos>);
  table.Register(O::kAcosh, kUnary<Acosh>);
  table.Register(O::kAsin, kUnary<Asin>);
  table.Register(O::kAsinh, kUnary<Asinh>);
  table.Register(O::kAtan, kUnary<Atan>);
  table.Register(O::kAtanh, kUnary<Atanh>);
  table.Register(O::kCbrt, kUnary<Cbrt>);
  table.Register(O::kCeil, kUnary<Ceil>);
  table.Register(O::kClz, kUnary<Clz>);
  table.Register(O::kCos, kUnary<Cos>);
  table.Register(O::kCosh, kUnary<Cosh>);
  table.Register(O::kErf, kUnary<Erf>);
  table.Register(O::kExp, kUnary<Exp>);
  table.Register(O::kExpm1, kUnary<Expm1>);
  table.Register(O::kFloor, kUnary<Floor>);
  table.Register(O::kImag, kUnary<ImagPart>);
  table.Register(O::kIsFinite, kUnary<IsFinite>);
  table.Register(O::kLog, kUnary<Log>);
  table.Register(O::kLog1p, kUnary<Log1p>);
  table.Register(O::kLogistic, kUnary<Logistic>);
  table.Register(O::kNegate, kUnary<Negate>);
  table.Register(O::kNot, kUnary<Not>);
  table.Register(O::kPopulationCount, kUnary<Popcnt>);
  table.Register(O::kReal, kUnary<RealPart>);
  table.Register(O::kReducePrecision, ReducePrecisionHandler);
  table.Register(O::kRoundNearestAfz, kUnary<RoundAfz>);
  table.Register(O::kRoundNearestEven, kUnary<RoundEven>);
  table.Register(O::kRsqrt, kUnary<Rsqrt>);
  table.Register(O::kSign, kUnary<Sign>);
  table.Register(O::kSin, kUnary<Sin>);
  table.Register(O::kSinh, kUnary<Sinh>);
  table.Register(O::kSqrt, kUnary<Sqrt>);
  table.Register(O::kTan, kUnary<Tan>);
  table.Register(O::kTanh, kUnary<Tanh>);
}

}  // namespace xlite::eval
