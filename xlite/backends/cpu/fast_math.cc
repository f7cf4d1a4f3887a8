#include "xlite/backends/cpu/fast_math.h"

#include <initializer_list>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace xlite::cpu {
namespace {

// Small helpers over one builder; every constant takes the type of x (a
// float or a vector of floats) or of its i32 bit pattern.
class F32Math {
 public:
  F32Math(llvm::IRBuilderBase& b, llvm::Value* x)
      : b_(b), fty_(x->getType()), ity_(llvm::Type::getInt32Ty(b.getContext())) {
    if (auto* v = llvm::dyn_cast<llvm::VectorType>(fty_)) {
      ity_ = llvm::VectorType::get(ity_, v->getElementCount());
    }
  }

  llvm::Value* F(double c) { return llvm::ConstantFP::get(fty_, c); }
  llvm::Value* I(int32_t c) { return llvm::ConstantInt::getSigned(ity_, c); }
  llvm::Value* Bits(llvm::Value* x) { return b_.CreateBitCast(x, ity_); }
  llvm::Value* Float(llvm::Value* bits) { return b_.CreateBitCast(bits, fty_); }
  llvm::Value* MulAdd(llvm::Value* a, llvm::Value* m, llvm::Value* c) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {fty_}, {a, m, c});
  }
  // Horner's rule: ((c0 x + c1) x + c2) ... with c0 the highest power.
  llvm::Value* Poly(llvm::Value* x, std::initializer_list<double> coefficients) {
    auto it = coefficients.begin();
    llvm::Value* acc = F(*it++);
    for (; it != coefficients.end(); ++it) acc = MulAdd(acc, x, F(*it));
    return acc;
  }
  llvm::Value* IsNan(llvm::Value* x) { return b_.CreateFCmpUNO(x, x); }
  // 2^k for an integer k in [-126, 127], exactly.
  llvm::Value* Pow2(llvm::Value* k) { return Float(b_.CreateShl(b_.CreateAdd(k, I(127)), I(23))); }

  // exp: n = round(x / ln 2), r = x - n ln 2 in two parts, exp(r) by a
  // degree-7 polynomial, times 2^n applied as two factors so that results
  // that overflow become inf and tiny ones round gradually to subnormals.
  // Below -104 the result rounds to +0; those lanes compute exp(0) instead,
  // since a multiply that underflows costs a microcode assist per vector
  // (softmax's exp(x - max) meets such inputs all the time).
  llvm::Value* Exp(llvm::Value* x) {
    llvm::Value* underflows = b_.CreateFCmpOLT(x, F(-104.0));
    llvm::Value* clamped = b_.CreateSelect(b_.CreateFCmpOGT(x, F(88.8)), F(88.8), x);
    clamped = b_.CreateSelect(underflows, F(0.0), clamped);
    llvm::Value* n = b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven,
                                             b_.CreateFMul(clamped, F(1.44269504088896341)));
    llvm::Value* r = MulAdd(n, F(-0.693359375), clamped);
    r = MulAdd(n, F(2.12194440e-4), r);
    llvm::Value* p = Poly(r, {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                              1.6666665459e-1, 5.0000001201e-1});
    p = b_.CreateFAdd(MulAdd(p, b_.CreateFMul(r, r), r), F(1.0));
    llvm::Value* k = b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {ity_, fty_}, {n});
    llvm::Value* half = b_.CreateAShr(k, I(1));
    llvm::Value* result = b_.CreateFMul(b_.CreateFMul(p, Pow2(half)), Pow2(b_.CreateSub(k, half)));
    result = b_.CreateSelect(underflows, F(0.0), result);
    return b_.CreateSelect(IsNan(x), x, result);
  }

  // log: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) by a polynomial
  // in m - 1, plus e ln 2 in two parts; subnormals are scaled by 2^23 first.
  llvm::Value* Log(llvm::Value* x) {
    llvm::Value* subnormal = b_.CreateFCmpOLT(x, F(1.17549435e-38));
    llvm::Value* scaled = b_.CreateSelect(subnormal, b_.CreateFMul(x, F(8388608.0)), x);
    llvm::Value* bits = Bits(scaled);
    llvm::Value* e = b_.CreateSub(b_.CreateLShr(bits, I(23)), I(126));
    e = b_.CreateSelect(subnormal, b_.CreateSub(e, I(23)), e);
    llvm::Value* m = Float(b_.CreateOr(b_.CreateAnd(bits, I(0x007fffff)), I(0x3f000000)));
    llvm::Value* low = b_.CreateFCmpOLT(m, F(0.707106781186547524));
    e = b_.CreateSelect(low, b_.CreateSub(e, I(1)), e);
    m = b_.CreateFSub(b_.CreateSelect(low, b_.CreateFAdd(m, m), m), F(1.0));
    llvm::Value* ef = b_.CreateSIToFP(e, fty_);
    llvm::Value* z = b_.CreateFMul(m, m);
    llvm::Value* p = Poly(
        m, {7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
            -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1});
    llvm::Value* y = b_.CreateFMul(b_.CreateFMul(m, z), p);
    y = MulAdd(ef, F(-2.12194440e-4), y);
    y = MulAdd(z, F(-0.5), y);
    llvm::Value* result = MulAdd(ef, F(0.693359375), b_.CreateFAdd(m, y));
    // log(+inf) = inf, log(0) = -inf, log(x < 0) = NaN, log(NaN) = NaN.
    llvm::Value* inf = llvm::ConstantFP::getInfinity(fty_);
    result = b_.CreateSelect(b_.CreateFCmpOEQ(x, inf), inf, result);
    result = b_.CreateSelect(b_.CreateFCmpOEQ(x, F(0.0)), llvm::ConstantFP::getInfinity(fty_, true),
                             result);
    return b_.CreateSelect(b_.CreateFCmpULT(x, F(0.0)), llvm::ConstantFP::getNaN(fty_), result);
  }

  // tanh: an odd polynomial below |x| = 0.625, 1 - 2 / (exp(2|x|) + 1)
  // with the sign of x above. |x| is capped at 10, where tanh already rounds
  // to 1, so the quotient never becomes subnormal (a microcode assist).
  llvm::Value* Tanh(llvm::Value* x) {
    llvm::Value* ax = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    llvm::Value* z = b_.CreateFMul(x, x);
    llvm::Value* p = Poly(z, {-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2,
                              1.33314422036e-1, -3.33332819422e-1});
    llvm::Value* small = MulAdd(b_.CreateFMul(p, z), x, x);
    llvm::Value* capped = b_.CreateSelect(b_.CreateFCmpOGT(ax, F(10.0)), F(10.0), ax);
    llvm::Value* e = Exp(b_.CreateFAdd(capped, capped));
    llvm::Value* large = b_.CreateFSub(F(1.0), b_.CreateFDiv(F(2.0), b_.CreateFAdd(e, F(1.0))));
    large = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, large, x);
    return b_.CreateSelect(b_.CreateFCmpOGE(ax, F(0.625)), large, small);
  }

  // erf: x P(x^2) below |x| = 1; above, 1 - exp(-x^2) Q(1 / (1 + |x|))
  // with the sign of x, where Q fits erfc(z) exp(z^2) on [1, 4] (relative
  // error 3e-10, P 1.4e-9; both least-squares fits of our own); from
  // |x| = 4 on erf rounds to 1.
  llvm::Value* Erf(llvm::Value* x) {
    llvm::Value* ax = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    llvm::Value* small = b_.CreateFMul(
        x, Poly(b_.CreateFMul(x, x),
                {7.8980979953e-05, -8.0243205508e-04, 5.1900497479e-03, -2.6854806465e-02,
                 1.1283612375e-01, -3.7612628838e-01, 1.1283791665e+00}));
    llvm::Value* z = b_.CreateBinaryIntrinsic(
        llvm::Intrinsic::minnum, b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, ax, F(1.0)),
        F(4.0));
    llvm::Value* t = b_.CreateFDiv(F(1.0), b_.CreateFAdd(F(1.0), z));
    llvm::Value* q = Poly(t, {1.0340755078e+00, -3.4970949631e+00, 4.7988489966e+00,
                              -2.9971106370e+00, 3.6722732999e-01, 1.6374819579e-01,
                              5.7781787991e-01, 5.6328334896e-01, 2.6587987759e-05});
    llvm::Value* large = MulAdd(b_.CreateFNeg(Exp(b_.CreateFNeg(b_.CreateFMul(z, z)))), q, F(1.0));
    large = b_.CreateSelect(b_.CreateFCmpOGE(ax, F(4.0)), F(1.0), large);
    large = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, large, x);
    llvm::Value* result = b_.CreateSelect(b_.CreateFCmpOLT(ax, F(1.0)), small, large);
    return b_.CreateSelect(IsNan(x), x, result);
  }

  // logistic: with e = exp(-|x|), 1 / (1 + e) for x >= 0 and e / (1 + e)
  // below, so that it never overflows and tiny results stay accurate.
  llvm::Value* Logistic(llvm::Value* x) {
    llvm::Value* e = Exp(b_.CreateFNeg(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x)));
    llvm::Value* numerator = b_.CreateSelect(b_.CreateFCmpOLT(x, F(0.0)), e, F(1.0));
    return b_.CreateFDiv(numerator, b_.CreateFAdd(F(1.0), e));
  }

 private:
  llvm::IRBuilderBase& b_;
  llvm::Type* fty_;
  llvm::Type* ity_;
};

}  // namespace

bool HasFastF32(HloOpcode op) {
  return op == HloOpcode::kExp || op == HloOpcode::kLog || op == HloOpcode::kTanh ||
         op == HloOpcode::kLogistic || op == HloOpcode::kErf;
}

llvm::Value* EmitFastF32(llvm::IRBuilderBase& b, HloOpcode op, llvm::Value* x) {
  F32Math math(b, x);
  switch (op) {
    case HloOpcode::kExp:
      return math.Exp(x);
    case HloOpcode::kLog:
      return math.Log(x);
    case HloOpcode::kTanh:
      return math.Tanh(x);
    case HloOpcode::kLogistic:
      return math.Logistic(x);
    case HloOpcode::kErf:
      return math.Erf(x);
    default:
      return nullptr;
  }
}

}  // namespace xlite::cpu
