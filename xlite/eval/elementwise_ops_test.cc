// Hand-worked cases of the elementwise family: XLA's integer edge cases,
// sub-byte wrap, complex math, select/clamp broadcasting, conversions to
// narrow types, bitcast-convert across widths, reduce-precision, iota, map,
// stochastic-convert and the random-number opcodes (ThreeFry and Philox
// known-answer vectors from Random123).
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/eval/eval_context.h"
#include "xlite/eval/eval_test_util.h"
#include "xlite/eval/op_handlers.h"
#include "xlite/ir/instruction.h"

namespace xlite::eval {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::EvaluateText;
using ::testing::HasSubstr;
using testing::MakeLiteral;
using testing::ToDoubles;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Evaluates an entry computation whose body is `body` (parameters first).
absl::StatusOr<Literal> RunBody(const std::string& body, const std::vector<Literal>& args,
                                EvalOptions options = {}) {
  return EvaluateText(absl::StrCat("HloModule m\nENTRY e {\n", body, "\n}\n"), args, options);
}

std::vector<double> RunDoubles(const std::string& body, const std::vector<Literal>& args) {
  absl::StatusOr<Literal> r = RunBody(body, args);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? ToDoubles(*r) : std::vector<double>{};
}

std::vector<std::complex<double>> ToComplex(const Literal& l) {
  std::vector<std::complex<double>> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetComplex(i));
  return out;
}

Literal Bits64(std::vector<uint64_t> words) {
  Literal l(Shape(PrimitiveType::U64, {static_cast<int64_t>(words.size())}));
  std::memcpy(l.mutable_raw_data().data(), words.data(), words.size() * 8);
  return l;
}

uint64_t U64At(const Literal& l, int64_t i) { return static_cast<uint64_t>(l.GetInt64(i)); }

// ---------------------------------------------------------------- integers

TEST(ElementwiseInt, DivideAndRemainderEdgeCases) {
  const double kMin = -2147483648.0;
  auto args = std::vector<Literal>{MakeLiteral("s32[5]", {7, -7, kMin, 5, kMin}),
                                   MakeLiteral("s32[5]", {2, 2, -1, 0, 0})};
  EXPECT_THAT(RunDoubles("a = s32[5] parameter(0)\nb = s32[5] parameter(1)\n"
                         "ROOT d = s32[5] divide(a, b)",
                         args),
              ElementsAre(3, -3, kMin, -1, -1));
  EXPECT_THAT(RunDoubles("a = s32[5] parameter(0)\nb = s32[5] parameter(1)\n"
                         "ROOT d = s32[5] remainder(a, b)",
                         args),
              ElementsAre(1, -1, 0, 5, kMin));
  // Unsigned x / 0 is all ones.
  EXPECT_THAT(RunDoubles("a = u8[2] parameter(0)\nb = u8[2] parameter(1)\n"
                         "ROOT d = u8[2] divide(a, b)",
                         {MakeLiteral("u8[2]", {9, 9}), MakeLiteral("u8[2]", {0, 4})}),
              ElementsAre(255, 2));
}

TEST(ElementwiseInt, ShiftsSaturateAtTheBitWidth) {
  auto args = std::vector<Literal>{MakeLiteral("s8[5]", {-128, -128, 64, 1, -3}),
                                   MakeLiteral("s8[5]", {1, 8, 7, -1, 100})};
  const std::string params = "a = s8[5] parameter(0)\nb = s8[5] parameter(1)\n";
  EXPECT_THAT(RunDoubles(params + "ROOT s = s8[5] shift-left(a, b)", args),
              ElementsAre(0, 0, 0, 0, 0));
  EXPECT_THAT(RunDoubles(params + "ROOT s = s8[5] shift-right-logical(a, b)", args),
              ElementsAre(64, 0, 0, 0, 0));
  EXPECT_THAT(RunDoubles(params + "ROOT s = s8[5] shift-right-arithmetic(a, b)", args),
              ElementsAre(-64, -1, 0, 0, -1));
}

TEST(ElementwiseInt, PowerFollowsXla) {
  // A negative exponent leaves only base 1 (XLA gives 0 for (-1)^-1 too).
  EXPECT_THAT(RunDoubles("a = s32[6] parameter(0)\nb = s32[6] parameter(1)\n"
                         "ROOT p = s32[6] power(a, b)",
                         {MakeLiteral("s32[6]", {2, 0, 1, -1, -1, 3}),
                          MakeLiteral("s32[6]", {10, 0, -5, -1, 3, 21})}),
              ElementsAre(1024, 1, 1, 0, -1, 10460353203.0 - 4294967296.0 * 2));
}

TEST(ElementwiseInt, AbsNegateOfMinWrap) {
  auto args = std::vector<Literal>{MakeLiteral("s64[2]", {-9223372036854775808.0, -5})};
  EXPECT_THAT(RunDoubles("a = s64[2] parameter(0)\nROOT r = s64[2] abs(a)", args),
              ElementsAre(-9223372036854775808.0, 5));
  EXPECT_THAT(RunDoubles("a = s64[2] parameter(0)\nROOT r = s64[2] negate(a)", args),
              ElementsAre(-9223372036854775808.0, 5));
}

TEST(ElementwiseInt, SubByteTypesWrapToTheirWidth) {
  EXPECT_THAT(RunDoubles("a = s4[3] parameter(0)\nb = s4[3] parameter(1)\n"
                         "ROOT r = s4[3] add(a, b)",
                         {MakeLiteral("s4[3]", {7, -8, 3}), MakeLiteral("s4[3]", {1, -1, 2})}),
              ElementsAre(-8, 7, 5));
  EXPECT_THAT(RunDoubles("a = u4[2] parameter(0)\nb = u4[2] parameter(1)\n"
                         "ROOT r = u4[2] multiply(a, b)",
                         {MakeLiteral("u4[2]", {15, 5}), MakeLiteral("u4[2]", {15, 3})}),
              ElementsAre(1, 15));
  EXPECT_THAT(RunDoubles("a = u4[3] parameter(0)\nROOT r = u4[3] count-leading-zeros(a)",
                         {MakeLiteral("u4[3]", {0, 1, 8})}),
              ElementsAre(4, 3, 0));
  EXPECT_THAT(RunDoubles("a = s4[2] parameter(0)\nROOT r = s4[2] popcnt(a)",
                         {MakeLiteral("s4[2]", {-1, -8})}),
              ElementsAre(4, 1));
}

TEST(ElementwiseInt, MulhiSignedAndUnsigned) {
  EXPECT_THAT(RunDoubles("a = s32[2] parameter(0)\nb = s32[2] parameter(1)\n"
                         "ROOT r = s32[2] mulhi(a, b)",
                         {MakeLiteral("s32[2]", {65536, -1}), MakeLiteral("s32[2]", {65536, 1})}),
              ElementsAre(1, -1));
  EXPECT_THAT(
      RunDoubles("a = u32[1] parameter(0)\nb = u32[1] parameter(1)\n"
                 "ROOT r = u32[1] mulhi(a, b)",
                 {MakeLiteral("u32[1]", {4294967295.0}), MakeLiteral("u32[1]", {4294967295.0})}),
      ElementsAre(4294967294.0));
}

TEST(ElementwiseInt, CompareWithExplicitComparisonType) {
  auto args = std::vector<Literal>{MakeLiteral("s32[2]", {-1, 2}), MakeLiteral("s32[2]", {1, 3})};
  const std::string params = "a = s32[2] parameter(0)\nb = s32[2] parameter(1)\n";
  EXPECT_THAT(RunDoubles(params + "ROOT r = pred[2] compare(a, b), direction=LT", args),
              ElementsAre(1, 1));
  // The written type must be the operands' own (XLA's verifier refuses
  // UNSIGNED for s32), so spelling it out changes nothing.
  EXPECT_THAT(
      RunDoubles(params + "ROOT r = pred[2] compare(a, b), direction=LT, type=SIGNED", args),
      ElementsAre(1, 1));
  // s4 values compare by their sign-extended value.
  EXPECT_THAT(RunDoubles("a = s4[2] parameter(0)\nb = s4[2] parameter(1)\n"
                         "ROOT r = pred[2] compare(a, b), direction=GT",
                         {MakeLiteral("s4[2]", {-8, 7}), MakeLiteral("s4[2]", {7, -8})}),
              ElementsAre(0, 1));
}

TEST(ElementwisePred, LogicAndMinimum) {
  auto args = std::vector<Literal>{MakeLiteral("pred[4]", {0, 0, 1, 1}),
                                   MakeLiteral("pred[4]", {0, 1, 0, 1})};
  const std::string params = "a = pred[4] parameter(0)\nb = pred[4] parameter(1)\n";
  EXPECT_THAT(RunDoubles(params + "ROOT r = pred[4] and(a, b)", args), ElementsAre(0, 0, 0, 1));
  EXPECT_THAT(RunDoubles(params + "ROOT r = pred[4] or(a, b)", args), ElementsAre(0, 1, 1, 1));
  EXPECT_THAT(RunDoubles(params + "ROOT r = pred[4] xor(a, b)", args), ElementsAre(0, 1, 1, 0));
  EXPECT_THAT(RunDoubles(params + "ROOT r = pred[4] minimum(a, b)", args), ElementsAre(0, 0, 0, 1));
  EXPECT_THAT(RunDoubles(params + "ROOT r = pred[4] not(a)", args), ElementsAre(1, 1, 0, 0));
}

// ---------------------------------------------------------------- floats

TEST(ElementwiseFloat, SignKeepsZerosAndNaN) {
  std::vector<double> r = RunDoubles("a = f32[5] parameter(0)\nROOT r = f32[5] sign(a)",
                                     {MakeLiteral("f32[5]", {-0.0, 0.0, kNaN, -3, 1e-40})});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_TRUE(r[0] == 0 && std::signbit(r[0]));
  EXPECT_TRUE(r[1] == 0 && !std::signbit(r[1]));
  EXPECT_TRUE(std::isnan(r[2]));
  EXPECT_EQ(r[3], -1);
  EXPECT_EQ(r[4], 1);
}

TEST(ElementwiseFloat, MaxMinPropagateNaN) {
  auto args = std::vector<Literal>{MakeLiteral("f32[3]", {kNaN, 1, -kInf}),
                                   MakeLiteral("f32[3]", {1, kNaN, 2})};
  std::vector<double> mx = RunDoubles(
      "a = f32[3] parameter(0)\nb = f32[3] parameter(1)\nROOT r = f32[3] maximum(a, b)", args);
  ASSERT_EQ(mx.size(), 3u);
  EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]));
  EXPECT_EQ(mx[2], 2);
}

TEST(ElementwiseFloat, NarrowFloatsRoundPerOp) {
  // f16 has 11 significant bits: 2048 + 1 ties to even 2048, 2048 + 3 to 2052.
  EXPECT_THAT(RunDoubles("a = f16[2] parameter(0)\nb = f16[2] parameter(1)\n"
                         "ROOT r = f16[2] add(a, b)",
                         {MakeLiteral("f16[2]", {2048, 2048}), MakeLiteral("f16[2]", {1, 3})}),
              ElementsAre(2048, 2052));
  // f8e5m2 keeps 2 mantissa bits: 1 + 0.125 ties to 1, 1 + 0.375 to 1.5.
  EXPECT_THAT(
      RunDoubles("a = f8e5m2[2] parameter(0)\nb = f8e5m2[2] parameter(1)\n"
                 "ROOT r = f8e5m2[2] add(a, b)",
                 {MakeLiteral("f8e5m2[2]", {1, 1}), MakeLiteral("f8e5m2[2]", {0.125, 0.375})}),
      ElementsAre(1, 1.5));
  // Two ops round twice: (1 + 2^-8) in bf16 is 1, so the product is 3.
  EXPECT_THAT(RunDoubles("a = bf16[1] parameter(0)\nb = bf16[1] parameter(1)\n"
                         "c = bf16[1] parameter(2)\ns = bf16[1] add(a, b)\n"
                         "ROOT r = bf16[1] multiply(s, c)",
                         {MakeLiteral("bf16[1]", {1}), MakeLiteral("bf16[1]", {1.0 / 256}),
                          MakeLiteral("bf16[1]", {3})}),
              ElementsAre(3));
}

TEST(ElementwiseFloat, ClampScalarAndArrayBounds) {
  EXPECT_THAT(RunDoubles("lo = f32[] parameter(0)\nx = f32[4] parameter(1)\n"
                         "hi = f32[] parameter(2)\nROOT r = f32[4] clamp(lo, x, hi)",
                         {MakeLiteral("f32[]", {-1}), MakeLiteral("f32[4]", {-5, 0.5, 7, -1}),
                          MakeLiteral("f32[]", {2})}),
              ElementsAre(-1, 0.5, 2, -1));
  std::vector<double> r = RunDoubles(
      "lo = s32[3] parameter(0)\nx = s32[3] parameter(1)\nhi = s32[3] parameter(2)\n"
      "ROOT r = s32[3] clamp(lo, x, hi)",
      {MakeLiteral("s32[3]", {0, 5, 10}), MakeLiteral("s32[3]", {-3, 6, 3}),
       MakeLiteral("s32[3]", {1, 9, 8})});
  // lo > hi gives hi.
  EXPECT_THAT(r, ElementsAre(0, 6, 8));
  std::vector<double> n = RunDoubles(
      "lo = f32[] parameter(0)\nx = f32[2] parameter(1)\nhi = f32[] parameter(2)\n"
      "ROOT r = f32[2] clamp(lo, x, hi)",
      {MakeLiteral("f32[]", {0}), MakeLiteral("f32[2]", {kNaN, 3}), MakeLiteral("f32[]", {1})});
  ASSERT_EQ(n.size(), 2u);
  EXPECT_TRUE(std::isnan(n[0]));
  EXPECT_EQ(n[1], 1);
}

TEST(ElementwiseFloat, SelectWithArrayAndScalarPredicate) {
  auto on_true = MakeLiteral("s16[3]", {1, 2, 3});
  auto on_false = MakeLiteral("s16[3]", {-1, -2, -3});
  EXPECT_THAT(RunDoubles("p = pred[3] parameter(0)\nt = s16[3] parameter(1)\n"
                         "f = s16[3] parameter(2)\nROOT r = s16[3] select(p, t, f)",
                         {MakeLiteral("pred[3]", {1, 0, 1}), on_true, on_false}),
              ElementsAre(1, -2, 3));
  EXPECT_THAT(RunDoubles("p = pred[] parameter(0)\nt = s16[3] parameter(1)\n"
                         "f = s16[3] parameter(2)\nROOT r = s16[3] select(p, t, f)",
                         {MakeLiteral("pred[]", {0}), on_true, on_false}),
              ElementsAre(-1, -2, -3));
}

// ---------------------------------------------------------------- complex

TEST(ElementwiseComplex, ArithmeticAndParts) {
  auto r = RunBody(R"(re = f32[2] parameter(0)
im = f32[2] parameter(1)
z = c64[2] complex(re, im)
w = c64[2] multiply(z, z)
q = c64[2] divide(w, z)
s = c64[2] subtract(q, z)
a = f32[2] abs(z)
rp = f32[2] real(w)
ip = f32[2] imag(w)
ROOT t = (c64[2], c64[2], f32[2], f32[2], f32[2]) tuple(w, s, a, rp, ip))",
                   {MakeLiteral("f32[2]", {3, 0}), MakeLiteral("f32[2]", {4, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  using C = std::complex<double>;
  // (3+4i)^2 = -7+24i, i^2 = -1.
  EXPECT_THAT(ToComplex(r->tuple_elements()[0]), ElementsAre(C(-7, 24), C(-1, 0)));
  EXPECT_THAT(ToComplex(r->tuple_elements()[1]), ElementsAre(C(0, 0), C(0, 0)));
  EXPECT_THAT(ToDoubles(r->tuple_elements()[2]), ElementsAre(5, 1));
  EXPECT_THAT(ToDoubles(r->tuple_elements()[3]), ElementsAre(-7, -1));
  EXPECT_THAT(ToDoubles(r->tuple_elements()[4]), ElementsAre(24, 0));
}

TEST(ElementwiseComplex, TranscendentalsAndCompare) {
  auto r = RunBody(R"(re = f64[1] parameter(0)
im = f64[1] parameter(1)
z = c128[1] complex(re, im)
e = c128[1] exponential(z)
l = c128[1] log(e)
sq = c128[1] sqrt(z)
sg = c128[1] sign(z)
n = c128[1] negate(z)
eq = pred[1] compare(l, z), direction=EQ
ne = pred[1] compare(n, z), direction=NE
ROOT t = (c128[1], c128[1], c128[1], c128[1], pred[1], pred[1]) tuple(e, l, sq, sg, eq, ne))",
                   {MakeLiteral("f64[1]", {0}), MakeLiteral("f64[1]", {std::numbers::pi / 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  std::complex<double> e = r->tuple_elements()[0].GetComplex(0);
  EXPECT_NEAR(e.real(), 0, 1e-15);  // e^(i pi/2) = i
  EXPECT_NEAR(e.imag(), 1, 1e-15);
  std::complex<double> l = r->tuple_elements()[1].GetComplex(0);
  EXPECT_NEAR(l.imag(), std::numbers::pi / 2, 1e-15);
  std::complex<double> sq = r->tuple_elements()[2].GetComplex(0);  // sqrt(i pi/2)
  EXPECT_NEAR(sq.real(), std::sqrt(std::numbers::pi / 4), 1e-15);
  EXPECT_NEAR(sq.imag(), std::sqrt(std::numbers::pi / 4), 1e-15);
  EXPECT_EQ(r->tuple_elements()[3].GetComplex(0), std::complex<double>(0, 1));
  EXPECT_EQ(r->tuple_elements()[5].GetInt64(0), 1);
}

TEST(ElementwiseComplex, PowerSpecialCases) {
  auto r = RunBody(R"(a = c64[3] parameter(0)
b = c64[3] parameter(1)
ROOT p = c64[3] power(a, b))",
                   {MakeLiteral("c64[3]", {1, 0, 2}), MakeLiteral("c64[3]", {kNaN, 2, 3})});
  ASSERT_TRUE(r.ok()) << r.status();
  using C = std::complex<double>;
  std::vector<C> got = ToComplex(*r);
  EXPECT_EQ(got[0], C(1, 0));  // 1^x = 1 even for NaN
  EXPECT_EQ(got[1], C(0, 0));  // 0^2
  EXPECT_NEAR(got[2].real(), 8, 1e-5);
}

TEST(ElementwiseComplex, MoreTranscendentalsMatchTheirDefinitions) {
  using C = std::complex<double>;
  const C z(0.3, -0.7);
  auto r = RunBody(R"(re = f64[1] parameter(0)
im = f64[1] parameter(1)
z = c128[1] complex(re, im)
a = c128[1] sine(z)
b = c128[1] cosine(z)
c = c128[1] tanh(z)
d = c128[1] rsqrt(z)
e = c128[1] exponential-minus-one(z)
f = c128[1] log-plus-one(z)
g = c128[1] logistic(z)
ROOT t = (c128[1], c128[1], c128[1], c128[1], c128[1], c128[1], c128[1]) tuple(a, b, c, d, e, f, g))",
                   {MakeLiteral("f64[1]", {z.real()}), MakeLiteral("f64[1]", {z.imag()})});
  ASSERT_TRUE(r.ok()) << r.status();
  const C i(0, 1);
  const C want[] = {(std::exp(i * z) - std::exp(-i * z)) / (2.0 * i),
                    (std::exp(i * z) + std::exp(-i * z)) / 2.0,
                    (std::exp(2.0 * z) - 1.0) / (std::exp(2.0 * z) + 1.0),
                    1.0 / std::sqrt(z),
                    std::exp(z) - 1.0,
                    std::log(1.0 + z),
                    1.0 / (1.0 + std::exp(-z))};
  for (int k = 0; k < 7; ++k) {
    C got = r->tuple_elements()[k].GetComplex(0);
    EXPECT_NEAR(got.real(), want[k].real(), 1e-12) << "output " << k;
    EXPECT_NEAR(got.imag(), want[k].imag(), 1e-12) << "output " << k;
  }
}

// ---------------------------------------------------------------- conversions

TEST(ElementwiseConvert, NarrowTargetsRoundToNearestEven) {
  // f8e4m3fn has 3 mantissa bits: 1.0625 ties to 1.0, 1.1875 to 1.25; 448 is
  // its largest finite value.
  EXPECT_THAT(RunDoubles("a = f32[4] parameter(0)\nROOT r = f8e4m3fn[4] convert(a)",
                         {MakeLiteral("f32[4]", {1.0625, 1.1875, 448, -0.5})}),
              ElementsAre(1.0, 1.25, 448, -0.5));
  EXPECT_THAT(RunDoubles("a = s32[3] parameter(0)\nROOT r = s4[3] convert(a)",
                         {MakeLiteral("s32[3]", {9, -9, 7})}),
              ElementsAre(-7, 7, 7));
}

// The verifier refuses complex -> real converts; the handler itself keeps the
// real part, as XLA's literal conversion does.
class NoCallContext : public EvalContext {
 public:
  const EvalOptions& options() const override { return options_; }
  absl::StatusOr<Literal> Call(const HloComputation&, absl::Span<const Literal* const>) override {
    return absl::InternalError("unexpected call");
  }
  std::mt19937_64& rng() override { return rng_; }

 private:
  EvalOptions options_;
  std::mt19937_64 rng_;
};

TEST(ElementwiseConvert, ComplexToRealKeepsTheRealPart) {
  HloInstruction convert(HloOpcode::kConvert, Shape(PrimitiveType::BF16, {2}));
  Literal z(Shape(PrimitiveType::C64, {2}));
  z.SetComplex(0, {1.00390625, 5});  // 1 + 2^-8 ties to 1 in bf16
  z.SetComplex(1, {-3, -4});
  const Literal* operands[] = {&z};
  NoCallContext ctx;
  auto r =
      DefaultOpHandlers().Get(HloOpcode::kConvert)(convert, absl::MakeConstSpan(operands), ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(1, -3));
}

TEST(ElementwiseConvert, BitcastConvertSameAndDifferentWidths) {
  auto r = RunBody("a = f32[2] parameter(0)\nROOT r = u8[2,4] bitcast-convert(a)",
                   {MakeLiteral("f32[2]", {1.0, -2.0})});
  ASSERT_TRUE(r.ok()) << r.status();
  // 1.0f = 0x3f800000, -2.0f = 0xc0000000, least significant byte first.
  EXPECT_THAT(ToDoubles(*r), ElementsAre(0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0));
  EXPECT_THAT(RunDoubles("a = u8[1,4] parameter(0)\nROOT r = u32[1] bitcast-convert(a)",
                         {MakeLiteral("u8[1,4]", {0x78, 0x56, 0x34, 0x12})}),
              ElementsAre(0x12345678));
  EXPECT_THAT(RunDoubles("a = f32[1] parameter(0)\nROOT r = s32[1] bitcast-convert(a)",
                         {MakeLiteral("f32[1]", {-0.0})}),
              ElementsAre(-2147483648.0));
  // Sub-byte: element 0 fills the low nibble.
  EXPECT_THAT(RunDoubles("a = u4[1,2] parameter(0)\nROOT r = u8[1] bitcast-convert(a)",
                         {MakeLiteral("u4[1,2]", {0x3, 0xA})}),
              ElementsAre(0xA3));
  EXPECT_THAT(RunDoubles("a = u8[1] parameter(0)\nROOT r = s4[1,2] bitcast-convert(a)",
                         {MakeLiteral("u8[1]", {0x9F})}),
              ElementsAre(-1, -7));
}

TEST(ElementwiseConvert, StochasticConvertRoundsByTheRandomBits) {
  // 2.25: fraction 0.25 scaled by 2^32 is 2^30; random values below it round up.
  EXPECT_THAT(RunDoubles("a = f32[7] parameter(0)\nb = u32[7] parameter(1)\n"
                         "ROOT r = s32[7] stochastic-convert(a, b)",
                         {MakeLiteral("f32[7]", {2.25, 2.25, -2.25, 5, kNaN, 1e10, -kInf}),
                          MakeLiteral("u32[7]", {0, 1073741824.0, 0, 0, 0, 0, 0})}),
              ElementsAre(3, 2, -3, 5, 0, 2147483647.0, -2147483648.0));
  auto r = RunBody(
      "a = f32[1] parameter(0)\nb = u32[1] parameter(1)\n"
      "ROOT r = f16[1] stochastic-convert(a, b)",
      {MakeLiteral("f32[1]", {1}), MakeLiteral("u32[1]", {0})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("not supported yet"));
}

TEST(ElementwiseConvert, ReducePrecisionFlushesAndKeepsNaN) {
  // e5m10: 1e-6 lies in f16's denormal range, which reduce-precision flushes.
  std::vector<double> r = RunDoubles(
      "a = f32[4] parameter(0)\nROOT r = f32[4] reduce-precision(a), exponent_bits=5, "
      "mantissa_bits=10",
      {MakeLiteral("f32[4]", {1e-6, -1e-6, kNaN, 1e5})});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(r[0] == 0 && !std::signbit(r[0]));
  EXPECT_TRUE(r[1] == 0 && std::signbit(r[1]));
  EXPECT_TRUE(std::isnan(r[2]));
  EXPECT_EQ(r[3], kInf);
  // Without mantissa bits a NaN cannot stay a NaN.
  std::vector<double> z = RunDoubles(
      "a = f32[3] parameter(0)\nROOT r = f32[3] reduce-precision(a), exponent_bits=8, "
      "mantissa_bits=0",
      {MakeLiteral("f32[3]", {kNaN, -kNaN, 1.5})});
  EXPECT_THAT(z, ElementsAre(kInf, kInf, 2));
}

// ---------------------------------------------------------------- iota, map

TEST(ElementwiseIota, AlongEachDimensionAndNarrowTypes) {
  EXPECT_THAT(RunDoubles("ROOT i = s32[2,3] iota(), iota_dimension=1", {}),
              ElementsAre(0, 1, 2, 0, 1, 2));
  EXPECT_THAT(RunDoubles("ROOT i = f32[2,3] iota(), iota_dimension=0", {}),
              ElementsAre(0, 0, 0, 1, 1, 1));
  std::vector<double> b = RunDoubles("ROOT i = bf16[260] iota(), iota_dimension=0", {});
  ASSERT_EQ(b.size(), 260u);
  EXPECT_EQ(b[255], 255);
  EXPECT_EQ(b[257], 256);  // 257 ties to the even neighbour in bf16
  EXPECT_EQ(b[259], 260);
}

TEST(ElementwiseMap, AppliesTheComputationPerElement) {
  auto r =
      EvaluateText(R"(HloModule m
fma {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  m = f32[] multiply(x, y)
  c = f32[] constant(1)
  ROOT s = f32[] add(m, c)
}
ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[2,2] parameter(1)
  ROOT r = f32[2,2] map(a, b), dimensions={0,1}, to_apply=fma
})",
                   {MakeLiteral("f32[2,2]", {1, 2, 3, 4}), MakeLiteral("f32[2,2]", {5, 6, 7, 8})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(6, 13, 22, 33));
}

// ---------------------------------------------------------------- random

TEST(ElementwiseRng, UniformIsDeterministicAndInRange) {
  const std::string body =
      "a = f32[] constant(2)\nb = f32[] constant(3)\n"
      "ROOT r = f32[1000] rng(a, b), distribution=rng_uniform";
  EvalOptions seed1, seed2;
  seed1.rng_seed = 1;
  seed2.rng_seed = 2;
  auto x = RunBody(body, {}, seed1), y = RunBody(body, {}, seed1), z = RunBody(body, {}, seed2);
  ASSERT_TRUE(x.ok() && y.ok() && z.ok()) << x.status();
  EXPECT_EQ(*x, *y);
  EXPECT_FALSE(*x == *z);
  for (double v : ToDoubles(*x)) {
    EXPECT_GE(v, 2);
    EXPECT_LT(v, 3);
  }
  auto ints = RunBody(
      "a = s32[] constant(3)\nb = s32[] constant(7)\n"
      "ROOT r = s32[500] rng(a, b), distribution=rng_uniform",
      {});
  ASSERT_TRUE(ints.ok()) << ints.status();
  std::vector<int> seen(4, 0);
  for (double v : ToDoubles(*ints)) {
    ASSERT_TRUE(v >= 3 && v < 7) << v;
    ++seen[static_cast<int>(v) - 3];
  }
  EXPECT_THAT(seen, ::testing::Each(::testing::Gt(50)));
}

TEST(ElementwiseRng, NormalHasTheRequestedMoments) {
  auto r = RunBody(
      "mu = f64[] constant(5)\nsigma = f64[] constant(2)\n"
      "ROOT r = f64[20000] rng(mu, sigma), distribution=rng_normal",
      {});
  ASSERT_TRUE(r.ok()) << r.status();
  double sum = 0, sum2 = 0;
  for (double v : ToDoubles(*r)) {
    sum += v;
    sum2 += v * v;
  }
  double mean = sum / 20000, var = sum2 / 20000 - mean * mean;
  EXPECT_NEAR(mean, 5, 0.06);
  EXPECT_NEAR(std::sqrt(var), 2, 0.06);
}

// Random123 known-answer vectors: threefry2x32_20 and philox4x32_10.
TEST(ElementwiseRngBitGenerator, ThreeFryKnownAnswers) {
  const std::string body =
      "s = u64[2] parameter(0)\n"
      "ROOT r = (u64[2], u64[]) rng-bit-generator(s), algorithm=rng_three_fry";
  // key words (0, 0), counter words (0, 0).
  auto zero = RunBody(body, {Bits64({0, 0})});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ(U64At(zero->tuple_elements()[1], 0), 0x99ba4efe6b200159ull);
  EXPECT_EQ(U64At(zero->tuple_elements()[0], 0), 0u);  // key kept
  EXPECT_EQ(U64At(zero->tuple_elements()[0], 1), 1u);  // counter + elements
  // key (0x13198a2e, 0x03707344), counter (0x243f6a88, 0x85a308d3).
  auto pi = RunBody(body, {Bits64({0x0370734413198a2eull, 0x85a308d3243f6a88ull})});
  ASSERT_TRUE(pi.ok()) << pi.status();
  EXPECT_EQ(U64At(pi->tuple_elements()[1], 0), 0x483df7a0c4923a9cull);
}

TEST(ElementwiseRngBitGenerator, ThreeFry32BitLayoutSplitsTheFirstEvenDimension) {
  // u32[2]: one counter gives both words (low word first); u32[4] continues
  // with the next counter; the state advances by the halved element count.
  auto r = RunBody(
      "s = u64[2] parameter(0)\n"
      "ROOT r = (u64[2], u32[4]) rng-bit-generator(s), algorithm=rng_three_fry",
      {Bits64({0, 0})});
  ASSERT_TRUE(r.ok()) << r.status();
  const Literal& bits = r->tuple_elements()[1];
  EXPECT_EQ(U64At(bits, 0), 0x6b200159u);
  EXPECT_EQ(U64At(bits, 1), 0x99ba4efeu);
  EXPECT_EQ(U64At(r->tuple_elements()[0], 1), 2u);
  auto next = RunBody(
      "s = u64[2] parameter(0)\n"
      "ROOT r = (u64[2], u64[]) rng-bit-generator(s), algorithm=rng_three_fry",
      {Bits64({0, 1})});
  ASSERT_TRUE(next.ok());
  uint64_t second = U64At(next->tuple_elements()[1], 0);
  EXPECT_EQ(U64At(bits, 2), second & 0xffffffffu);
  EXPECT_EQ(U64At(bits, 3), second >> 32);
}

TEST(ElementwiseRngBitGenerator, PhiloxKnownAnswers) {
  const std::string body =
      "s = u64[3] parameter(0)\n"
      "ROOT r = (u64[3], u32[4]) rng-bit-generator(s), algorithm=rng_philox";
  auto zero = RunBody(body, {Bits64({0, 0, 0})});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_THAT(ToDoubles(zero->tuple_elements()[1]),
              ElementsAre(0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u));
  EXPECT_EQ(U64At(zero->tuple_elements()[0], 1), 1u);  // one block of 128 bits used
  // key (0xa4093822, 0x299f31d0), counter words 243f6a88 85a308d3 13198a2e 03707344.
  auto pi = RunBody(
      body, {Bits64({0x299f31d0a4093822ull, 0x85a308d3243f6a88ull, 0x0370734413198a2eull})});
  ASSERT_TRUE(pi.ok()) << pi.status();
  EXPECT_THAT(ToDoubles(pi->tuple_elements()[1]),
              ElementsAre(0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u));
}

TEST(ElementwiseRngBitGenerator, PhiloxStateFormsAndDefault) {
  // A two-word state counts on (state[1], state[0]); DEFAULT is Philox.
  auto two = RunBody(
      "s = u64[2] parameter(0)\n"
      "ROOT r = (u64[2], u64[3]) rng-bit-generator(s), algorithm=rng_default",
      {Bits64({0, 0})});
  ASSERT_TRUE(two.ok()) << two.status();
  const Literal& bits = two->tuple_elements()[1];
  EXPECT_EQ(U64At(bits, 0), 0xe169c58d6627e8d5ull);   // words 0,1 of block 0
  EXPECT_EQ(U64At(bits, 1), 0x9b00dbd8bc57ac4cull);   // words 2,3 of block 0
  EXPECT_EQ(U64At(two->tuple_elements()[0], 1), 2u);  // two blocks for three u64
  auto three = RunBody(
      "s = u64[3] parameter(0)\n"
      "ROOT r = (u64[3], u64[3]) rng-bit-generator(s), algorithm=rng_philox",
      {Bits64({0, 0, 0})});
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->tuple_elements()[1], bits);
}

TEST(ElementwiseRng, GetAndUpdateStateAdvancesByDelta) {
  auto r = RunBody(
      "a = u64[2] rng-get-and-update-state(), delta=7\n"
      "b = u64[2] rng-get-and-update-state(), delta=7\n"
      "ROOT t = (u64[2], u64[2]) tuple(a, b)",
      {});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<double> got = {ToDoubles(r->tuple_elements()[0])[0],
                             ToDoubles(r->tuple_elements()[1])[0]};
  std::sort(got.begin(), got.end());
  EXPECT_THAT(got, ElementsAre(0, 7));
}

// ---------------------------------------------------------------- errors, speed

TEST(ElementwiseErrors, UnsupportedTypesAreErrorsNotCrashes) {
  auto r = RunBody(
      "a = c64[2] parameter(0)\nb = c64[2] parameter(1)\n"
      "ROOT r = pred[2] compare(a, b), direction=LT",
      {MakeLiteral("c64[2]", {1, 2}), MakeLiteral("c64[2]", {1, 2})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("EQ or NE"));
}

double UserCpuSeconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec) + 1e-6 * usage.ru_utime.tv_usec;
}

TEST(ElementwisePerformance, BinaryF32OverTenMillionElements) {
  const int64_t n = 10'000'000;
  std::vector<Literal> args;
  args.emplace_back(Shape(PrimitiveType::F32, {n}));
  args.emplace_back(Shape(PrimitiveType::F32, {n}));
  for (int64_t i = 0; i < n; i += 1000) args[0].Set<float>(i, 1.5f);
  auto module = ParseHloModule(
      absl::StrCat("HloModule m\nENTRY e {\n a = f32[", n, "] parameter(0)\n b = f32[", n,
                   "] parameter(1)\n ROOT r = f32[", n, "] add(a, b)\n}\n"));
  ASSERT_TRUE(module.ok()) << module.status();
  Evaluator evaluator;
  // User CPU time: the machine may be shared, and page faults on the fresh
  // result are kernel time, not the kernel loop's.
  const double start = UserCpuSeconds();
  auto r = evaluator.Run(**module, args);
  const double seconds = UserCpuSeconds() - start;
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->Get<float>(1000), 1.5f);
  RecordProperty("user_cpu_seconds", std::to_string(seconds));
  std::fprintf(stderr, "f32 add over 10M elements: %.3f s user CPU\n", seconds);
  EXPECT_LT(seconds, 1.0);
}

}  // namespace
}  // namespace xlite::eval
