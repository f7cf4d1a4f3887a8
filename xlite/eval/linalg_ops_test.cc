#include <cmath>
#include <complex>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/base/strings.h"
#include "xlite/eval/eval_test_util.h"
#include "xlite/eval/linalg_internal.h"
#include "xlite/runtime/random_inputs.h"
#include "xlite/text/parser.h"

namespace xlite::eval {
namespace {

using ::testing::ElementsAre;
using testing::EvaluateText;
using ::testing::HasSubstr;
using testing::MakeLiteral;
using testing::ToDoubles;

// ------------------------------------------------------------ goldens

// scripts/linalg_goldens.py's cases: name -> {"hlo", "arg0", ..., "out"}.
const std::map<std::string, std::map<std::string, std::string>>& Goldens() {
  static const auto* goldens = [] {
    auto* m = new std::map<std::string, std::map<std::string, std::string>>;
    std::ifstream in(XLITE_SOURCE_DIR "/xlite/eval/testdata/linalg_goldens.txt");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      size_t space = line.find(' '), dot = line.rfind('.', space);
      (*m)[line.substr(0, dot)][line.substr(dot + 1, space - dot - 1)] = line.substr(space + 1);
    }
    return m;
  }();
  return *goldens;
}

std::vector<double> ParseValues(std::istringstream& in) {
  std::vector<double> values;
  double v;
  while (in >> v) values.push_back(v);
  return values;
}

// "<shape> v v v ..." (complex element types: re im pairs).
Literal ParseArg(const std::string& text) {
  std::istringstream in(text);
  std::string shape_text;
  in >> shape_text;
  absl::StatusOr<Shape> shape = ParseShape(shape_text);
  XLITE_CHECK(shape.ok());
  Literal literal(*shape);
  std::vector<double> values = ParseValues(in);
  const bool complex = IsComplex(shape->element_type());
  XLITE_CHECK(static_cast<int64_t>(values.size()) == literal.element_count() * (complex ? 2 : 1));
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    if (complex) {
      literal.SetComplex(i, {values[2 * i], values[2 * i + 1]});
    } else {
      literal.SetDouble(i, values[i]);
    }
  }
  return literal;
}

// Relative tolerance of the result type (the goldens are computed in f64).
double Tolerance(PrimitiveType t) {
  return t == PrimitiveType::F64 || t == PrimitiveType::C128 ? 1e-12 : IsInteger(t) ? 0 : 2e-6;
}

void ExpectNear(const Literal& got, const std::vector<double>& want) {
  const PrimitiveType t = got.shape().element_type();
  const bool complex = IsComplex(t);
  ASSERT_EQ(static_cast<int64_t>(want.size()), got.element_count() * (complex ? 2 : 1));
  double scale = 1;
  for (double w : want) scale = std::max(scale, std::abs(w));
  const double tol = Tolerance(t) * scale;
  for (int64_t i = 0; i < got.element_count(); ++i) {
    if (complex) {
      std::complex<double> g = got.GetComplex(i);
      EXPECT_NEAR(g.real(), want[2 * i], tol) << "element " << i << " (real)";
      EXPECT_NEAR(g.imag(), want[2 * i + 1], tol) << "element " << i << " (imag)";
    } else {
      EXPECT_NEAR(got.GetDouble(i), want[i], tol) << "element " << i;
    }
  }
}

void RunGolden(const std::string& name) {
  auto it = Goldens().find(name);
  ASSERT_NE(it, Goldens().end()) << name << " missing from testdata/linalg_goldens.txt";
  const auto& fields = it->second;
  std::vector<Literal> args;
  for (int i = 0; fields.count("arg" + std::to_string(i)); ++i) {
    args.push_back(ParseArg(fields.at("arg" + std::to_string(i))));
  }
  auto r = EvaluateText(fields.at("hlo"), args);
  ASSERT_TRUE(r.ok()) << r.status();
  std::istringstream out(fields.at("out"));
  ExpectNear(*r, ParseValues(out));
}

#define GOLDEN_TEST(suite, name) \
  TEST(suite, name) { RunGolden(#name); }

// Convolution: layouts, windows, groups (goldens by explicit zero insertion
// and padding in numpy).
GOLDEN_TEST(Convolution, conv_1d)
GOLDEN_TEST(Convolution, conv_nhwc_hwio)
GOLDEN_TEST(Convolution, conv_nchw_oihw)
GOLDEN_TEST(Convolution, conv_stride)
GOLDEN_TEST(Convolution, conv_negative_padding)
GOLDEN_TEST(Convolution, conv_lhs_dilation)
GOLDEN_TEST(Convolution, conv_rhs_dilation)
GOLDEN_TEST(Convolution, conv_depthwise)
GOLDEN_TEST(Convolution, conv_feature_groups)
GOLDEN_TEST(Convolution, conv_batch_groups)
GOLDEN_TEST(Convolution, conv_batch_groups_per_example)
GOLDEN_TEST(Convolution, conv_window_reversal)
GOLDEN_TEST(Convolution, conv_3d)
GOLDEN_TEST(Convolution, conv_no_spatial)
GOLDEN_TEST(Convolution, conv_mixed_layout)
GOLDEN_TEST(Convolution, conv_f64_everything)
GOLDEN_TEST(Convolution, conv_s32)

// FFT (goldens from numpy.fft).
GOLDEN_TEST(Fft, fft_1d)
GOLDEN_TEST(Fft, fft_1d_non_power_of_two)
GOLDEN_TEST(Fft, fft_prime_length)
GOLDEN_TEST(Fft, ifft_1d)
GOLDEN_TEST(Fft, fft_2d)
GOLDEN_TEST(Fft, ifft_3d)
GOLDEN_TEST(Fft, rfft_1d)
GOLDEN_TEST(Fft, rfft_odd)
GOLDEN_TEST(Fft, rfft_2d)
GOLDEN_TEST(Fft, irfft_1d)
GOLDEN_TEST(Fft, irfft_odd)
GOLDEN_TEST(Fft, irfft_2d)

// Cholesky (numpy.linalg.cholesky; junk in the triangle not read).
GOLDEN_TEST(Cholesky, cholesky_lower_batched)
GOLDEN_TEST(Cholesky, cholesky_upper_batched)
GOLDEN_TEST(Cholesky, cholesky_lower_complex)
GOLDEN_TEST(Cholesky, cholesky_upper_complex)

// Triangular solve: every side / triangle / transpose_a, unit diagonal
// (numpy.linalg.solve on the explicit op(a)).
GOLDEN_TEST(TriangularSolve, solve_left_lower_no_transpose)
GOLDEN_TEST(TriangularSolve, solve_left_lower_transpose)
GOLDEN_TEST(TriangularSolve, solve_left_lower_adjoint)
GOLDEN_TEST(TriangularSolve, solve_left_upper_no_transpose)
GOLDEN_TEST(TriangularSolve, solve_left_upper_transpose)
GOLDEN_TEST(TriangularSolve, solve_left_upper_adjoint)
GOLDEN_TEST(TriangularSolve, solve_right_lower_no_transpose)
GOLDEN_TEST(TriangularSolve, solve_right_lower_transpose)
GOLDEN_TEST(TriangularSolve, solve_right_lower_adjoint)
GOLDEN_TEST(TriangularSolve, solve_right_upper_no_transpose)
GOLDEN_TEST(TriangularSolve, solve_right_upper_transpose)
GOLDEN_TEST(TriangularSolve, solve_right_upper_adjoint)
GOLDEN_TEST(TriangularSolve, solve_left_lower_unit)
GOLDEN_TEST(TriangularSolve, solve_right_upper_unit_transpose)
GOLDEN_TEST(TriangularSolve, solve_complex_left_upper_adjoint)
GOLDEN_TEST(TriangularSolve, solve_complex_right_lower_adjoint)

// Dot with several batch / contracting dimensions (numpy.einsum).
GOLDEN_TEST(Dot, dot_batch_dims)
GOLDEN_TEST(Dot, dot_multiple_contracting)
GOLDEN_TEST(Dot, dot_f64_transposed_operands)

// ------------------------------------------------------- by-hand cases

// ROOT d = <result> <op>(x, y[, g]), <attrs> with x: <lhs>, y: <rhs> and,
// for ragged-dot, g: s32[2] group sizes.
absl::StatusOr<Literal> RunDotOp(std::string_view op, std::string_view result, std::string_view lhs,
                                 std::string_view rhs, std::string_view attrs,
                                 std::vector<Literal> args) {
  const bool ragged = op == "ragged-dot";
  std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  x = ", AsAbsl(lhs), " parameter(0)\n  y = ", AsAbsl(rhs),
      " parameter(1)\n", ragged ? "  g = s32[2] parameter(2)\n" : "", "  ROOT d = ", AsAbsl(result),
      " ", AsAbsl(op), "(x, y", ragged ? ", g" : "", "), ", AsAbsl(attrs), "\n}");
  return EvaluateText(text, args);
}

absl::StatusOr<Literal> RunDot(std::string_view result, std::string_view lhs, std::string_view rhs,
                               std::string_view dims, std::vector<Literal> args) {
  return RunDotOp("dot", result, lhs, rhs, dims, std::move(args));
}

TEST(Dot, VectorVector) {
  auto r = RunDot("f32[]", "f32[3]", "f32[3]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                  {MakeLiteral("f32[3]", {1, 2, 3}), MakeLiteral("f32[3]", {4, -5, 6})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(12));  // 4 - 10 + 18
}

TEST(Dot, MatrixVector) {
  auto r =
      RunDot("f32[2]", "f32[2,3]", "f32[3]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
             {MakeLiteral("f32[2,3]", {1, 2, 3, 4, 5, 6}), MakeLiteral("f32[3]", {1, 0, -1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(-2, -2));
}

TEST(Dot, OuterProductHasNoContraction) {
  auto r =
      RunDot("s32[2,3]", "s32[2]", "s32[3]", "lhs_contracting_dims={}, rhs_contracting_dims={}",
             {MakeLiteral("s32[2]", {2, -1}), MakeLiteral("s32[3]", {1, 2, 3})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(2, 4, 6, -1, -2, -3));
}

TEST(Dot, IntegerS8ToS32) {
  // s8 operands widen to the s32 result before multiplying: 100*100*2 does
  // not wrap at 8 bits.
  auto r =
      RunDot("s32[1,1]", "s8[1,2]", "s8[2,1]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
             {MakeLiteral("s8[1,2]", {100, 100}), MakeLiteral("s8[2,1]", {100, 100})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(20000));
}

TEST(Dot, IntegerWrapsInResultType) {
  // 200*200 + 100*100 = 50000 wraps in s16 to 50000 - 65536.
  auto r = RunDot("s16[]", "s16[2]", "s16[2]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                  {MakeLiteral("s16[2]", {200, 100}), MakeLiteral("s16[2]", {200, 100})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(50000 - 65536));
}

TEST(Dot, Bf16InputsF32Result) {
  // 1 + 2^-7 is exact in bf16; its square 1 + 2^-6 + 2^-14 needs the f32
  // result's precision.
  const double a = 1 + std::ldexp(1.0, -7);
  auto r =
      RunDot("f32[]", "bf16[1]", "bf16[1]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
             {MakeLiteral("bf16[1]", {a}), MakeLiteral("bf16[1]", {a})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(a * a));
}

TEST(Dot, Bf16ResultAccumulatesInF32AndRoundsOnce) {
  // 256 + 1 + 1 in f32 is 258 (exact in bf16); rounding after every add in
  // bf16 would give 256 + 1 -> 256 twice.
  auto r =
      RunDot("bf16[]", "bf16[3]", "bf16[3]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
             {MakeLiteral("bf16[3]", {256, 1, 1}), MakeLiteral("bf16[3]", {1, 1, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(258));
}

TEST(Dot, Complex) {
  Literal x(Shape(PrimitiveType::C64, {2})), y(Shape(PrimitiveType::C64, {2}));
  x.SetComplex(0, {1, 2});
  x.SetComplex(1, {0, -1});
  y.SetComplex(0, {3, -1});
  y.SetComplex(1, {2, 2});
  // (1+2i)(3-i) + (-i)(2+2i) = (5+5i) + (2-2i) = 7+3i.
  auto r = RunDot("c64[]", "c64[2]", "c64[2]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                  {std::move(x), std::move(y)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->GetComplex(0), std::complex<double>(7, 3));
}

TEST(Dot, PredIsOrOfAnd) {
  auto r = RunDot("pred[2]", "pred[2,2]", "pred[2]",
                  "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                  {MakeLiteral("pred[2,2]", {1, 0, 0, 1}), MakeLiteral("pred[2]", {1, 0})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(1, 0));
}

TEST(Dot, RejectsWrongResultShape) {
  auto r =
      RunDot("f32[3]", "f32[2,3]", "f32[3]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
             {MakeLiteral("f32[2,3]", {1, 2, 3, 4, 5, 6}), MakeLiteral("f32[3]", {1, 0, -1})});
  EXPECT_FALSE(r.ok());
}

TEST(RaggedDot, NonContractingAndContractingRaggedDimension) {
  struct Case {
    const char *result, *lhs, *rhs, *attrs;
    std::vector<double> x, y, groups, want;
  };
  const Case cases[] = {
      // Rows 0 | 1,2 | (3 past the groups) use rhs groups 0 | 1 | zeros:
      // [1,2]·g0 = [1,2,0]; [3,4]·g1 = 3+8; [5,6]·g1 = 5+12.
      {"f32[4,3]",
       "f32[4,2]",
       "f32[2,2,3]",
       "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, "
       "rhs_group_dims={0}",
       {1, 2, 3, 4, 5, 6, 7, 8},
       {1, 0, 0, 0, 1, 0, 1, 1, 1, 2, 2, 2},
       {1, 2},
       {1, 2, 0, 11, 11, 11, 17, 17, 17, 0, 0, 0}},
      // Group 0 contracts k = 0..2, group 1 k = 3.
      {"s32[2,2,3]",
       "s32[2,4]",
       "s32[4,3]",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}",
       {1, 2, 3, 4, 5, 6, 7, 8},
       {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1},
       {3, 1},
       {1, 2, 3, 5, 6, 7, 4, 4, 4, 8, 8, 8}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.attrs);
    std::vector<Literal> args;
    args.push_back(MakeLiteral(c.lhs, c.x));
    args.push_back(MakeLiteral(c.rhs, c.y));
    args.push_back(MakeLiteral("s32[2]", c.groups));
    auto r = RunDotOp("ragged-dot", c.result, c.lhs, c.rhs, c.attrs, std::move(args));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(ToDoubles(*r), c.want);
  }
}

TEST(RaggedDot, RaggedBatchAndScaledDotAreUnimplemented) {
  auto r = RunDotOp("ragged-dot", "f32[2,1,1]", "f32[2,1,2]", "f32[2,2,1]",
                    "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
                    "rhs_contracting_dims={1}, lhs_ragged_dims={0}",
                    {MakeLiteral("f32[2,1,2]", {1, 2, 3, 4}),
                     MakeLiteral("f32[2,2,1]", {1, 2, 3, 4}), MakeLiteral("s32[2]", {1, 1})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("not supported yet: ragged-dot with a ragged batch"));
  auto s = EvaluateText(R"(
HloModule m
ENTRY e {
  x = f32[2,2] parameter(0)
  xs = f32[] parameter(1)
  y = f32[2,2] parameter(2)
  ys = f32[] parameter(3)
  ROOT d = f32[2,2] scaled-dot(x, y, xs, ys), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                        {MakeLiteral("f32[2,2]", {1, 2, 3, 4}), MakeLiteral("f32[]", {1}),
                         MakeLiteral("f32[2,2]", {1, 2, 3, 4}), MakeLiteral("f32[]", {1})});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("not supported yet: scaled-dot"));
}

// ROOT c = <out> convolution(x: <x>, k: <k>), window=<window>, b0f_0io->b0f.
absl::StatusOr<Literal> RunConv1d(std::string_view out, std::string_view x, std::string_view k,
                                  std::string_view window, std::vector<double> xs,
                                  std::vector<double> ks) {
  std::string text =
      absl::StrCat("HloModule m\nENTRY e {\n  x = ", AsAbsl(x), " parameter(0)\n  k = ", AsAbsl(k),
                   " parameter(1)\n  ROOT c = ", AsAbsl(out),
                   " convolution(x, k), window=", AsAbsl(window), ", dim_labels=b0f_0io->b0f\n}");
  std::vector<Literal> args;
  args.push_back(MakeLiteral(x, xs));
  args.push_back(MakeLiteral(k, ks));
  return EvaluateText(text, args);
}

TEST(Convolution, ByHand1d) {
  // x = [1 2 3 4], k = [1 0 -1], pad 1 each side: out[i] = x[i-1] - x[i+1].
  auto r = RunConv1d("f32[1,4,1]", "f32[1,4,1]", "f32[3,1,1]", "{size=3 pad=1_1}", {1, 2, 3, 4},
                     {1, 0, -1});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(-2, -2, -2, 3));
}

TEST(Convolution, Bf16AccumulatesInF32AndRoundsOnce) {
  // 256 + 1 + 1 = 258 is exact in bf16, but 256 + 1 rounds back to 256.
  auto r =
      RunConv1d("bf16[1,1,1]", "bf16[1,3,1]", "bf16[3,1,1]", "{size=3}", {256, 1, 1}, {1, 1, 1});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(258));
}

TEST(Cholesky, NotPositiveDefiniteGivesNaN) {
  auto r = EvaluateText(R"(
HloModule m
ENTRY e {
  a = f32[2,2,2] parameter(0)
  ROOT c = f32[2,2,2] cholesky(a), lower=true
})",
                        {MakeLiteral("f32[2,2,2]", {4, 0, 2, 5, 1, 0, 2, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<double> v = ToDoubles(*r);
  // [[4,.],[2,5]] -> [[2,0],[1,2]]; [[1,.],[2,1]] has pivot 1 - 4 < 0.
  EXPECT_THAT(std::vector<double>(v.begin(), v.begin() + 4), ElementsAre(2, 0, 1, 2));
  for (int i = 4; i < 8; ++i) EXPECT_TRUE(std::isnan(v[i])) << i;
}

// ------------------------------------------- fast path vs generic path

void ExpectClose(const Literal& a, const Literal& b, double tol) {
  ASSERT_EQ(a.element_count(), b.element_count());
  for (int64_t i = 0; i < a.element_count(); ++i) {
    ASSERT_NEAR(a.GetDouble(i), b.GetDouble(i), tol) << "element " << i;
  }
}

TEST(FastPath, DotAgreesWithGeneric) {
  uint64_t gen = 7;
  // Odd sizes cross every tile and block edge (4x8 tiles, 256-deep blocks).
  Shape lhs(PrimitiveType::F32, {3, 37, 2, 300});
  Shape rhs(PrimitiveType::F32, {300, 3, 2, 19});
  DotDimensions dims{{0}, {1}, {2, 3}, {2, 0}};  // batch lhs/rhs, contracting lhs/rhs
  // lhs free: 37; contracting: (2, 300); rhs free: 19.
  Shape result(PrimitiveType::F32, {3, 37, 19});
  Literal a = runtime::RandomLiteral(lhs, gen), b = runtime::RandomLiteral(rhs, gen);
  auto fast = EvaluateDot(a, b, dims, result, true);
  auto slow = EvaluateDot(a, b, dims, result, false);
  ASSERT_TRUE(fast.ok()) << fast.status();
  ASSERT_TRUE(slow.ok()) << slow.status();
  ExpectClose(*fast, *slow, 1e-3);
}

TEST(FastPath, ConvolutionAgreesWithGeneric) {
  uint64_t gen = 11;
  const char* kModules[] = {
      R"(HloModule m
ENTRY e {
  x = f32[2,9,8,6] parameter(0)
  k = f32[3,2,6,10] parameter(1)
  ROOT c = f32[2,5,4,10] convolution(x, k), window={size=3x2 stride=2x2 pad=1_1x0_1 rhs_dilate=1x1}, dim_labels=b01f_01io->b01f
})",
      R"(HloModule m
ENTRY e {
  x = f32[4,3,7,5] parameter(0)
  k = f32[6,1,2,2] parameter(1)
  ROOT c = f32[4,6,13,3] convolution(x, k), window={size=2x2 pad=1_0x-1_1 lhs_dilate=2x1 rhs_dilate=1x2 rhs_reversal=1x0}, dim_labels=bf01_oi01->bf01, feature_group_count=3
})",
      R"(HloModule m
ENTRY e {
  x = f32[6,5,5,2] parameter(0)
  k = f32[2,2,2,4] parameter(1)
  ROOT c = f32[3,4,4,4] convolution(x, k), window={size=2x2}, dim_labels=b01f_01io->b01f, batch_group_count=2
})"};
  for (const char* text : kModules) {
    SCOPED_TRACE(text);
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    const HloInstruction& conv = *(*module)->entry_computation()->root_instruction();
    Literal x = runtime::RandomLiteral(conv.operand(0)->shape(), gen);
    Literal k = runtime::RandomLiteral(conv.operand(1)->shape(), gen);
    const auto& attrs = conv.attrs<ConvolutionAttrs>();
    auto fast = EvaluateConvolution(x, k, attrs, conv.shape(), true);
    auto slow = EvaluateConvolution(x, k, attrs, conv.shape(), false);
    ASSERT_TRUE(fast.ok()) << fast.status();
    ASSERT_TRUE(slow.ok()) << slow.status();
    ExpectClose(*fast, *slow, 1e-4);
  }
}

}  // namespace
}  // namespace xlite::eval
