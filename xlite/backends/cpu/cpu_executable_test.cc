// Each thunk kind of the cpu backend (JIT kernel, library dot, oneDNN
// convolution, reduce, fallback) against the interpreter on random inputs,
// plus the deadline and the profile report.
#include "xlite/backends/cpu/cpu_executable.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/differential/literal_compare.h"
#include "xlite/analysis/verifier.h"
#include "xlite/backends/cpu/cpu_test_util.h"
#include "xlite/backends/cpu/kernel_emitter.h"
#include "xlite/eval/interpreter_executable.h"
#include "xlite/runtime/random_inputs.h"
#include "xlite/text/parser.h"

namespace xlite::cpu {
namespace {

// The profile lists thunks by time, the most expensive first, each with its
// share, and ends with the total.
TEST(CpuExecutableTest, ProfileIsSortedByTimeAndEndsWithTheTotal) {
  std::string report = ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  x = f32[128,128] parameter(0)
  d = f32[128,128] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[128,128] exponential(d)
  s = f32[128,128] sort(e), dimensions={1}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT lt = pred[] compare(a, b), direction=LT
  }
  ROOT t = (f32[128,128], f32[128,128]) tuple(d, s)
})",
                                               1e-5);
  std::istringstream lines(report);
  std::string line;
  std::vector<double> times;
  double total = -1;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string kind;
    double ms = 0;
    if (!(fields >> kind >> ms)) continue;
    if (kind == "total") {
      total = ms;
    } else {
      times.push_back(ms);
    }
  }
  ASSERT_GE(times.size(), 2u) << report;
  EXPECT_TRUE(std::is_sorted(times.rbegin(), times.rend())) << report;
  double sum = 0;
  for (double t : times) sum += t;
  EXPECT_NEAR(total, sum, 1e-3 * static_cast<double>(times.size()) + 1e-9) << report;
  EXPECT_NE(report.find("%"), std::string::npos) << report;
}

// f32 exp, log, tanh and logistic are inline approximations (fast_math.h,
// within a few ulp), so the chain agrees within a small bound, not bit for bit.
TEST(CpuExecutableTest, JitFusionOfFloatChainMatchesWithinFastMathError) {
  std::string report = ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  x = f32[64,300] parameter(0)
  b = f32[300] parameter(1)
  bb = f32[64,300] broadcast(b), dimensions={1}
  l = f32[64,300] logistic(x)
  m = f32[64,300] multiply(l, x)
  t = f32[64,300] tanh(bb)
  mx = f32[64,300] maximum(m, t)
  sq = f32[64,300] sqrt(mx)
  ex = f32[64,300] exponential(sq)
  lg = f32[64,300] log(ex)
  fl = f32[64,300] floor(lg)
  ROOT y = f32[64,300] subtract(lg, fl)
})",
                                               1e-5);
  EXPECT_TRUE(HasLine(report, "jit", "fusion")) << report;
  EXPECT_NE(report.find("fallback to the evaluator: 0"), std::string::npos) << report;
}

TEST(CpuExecutableTest, JitKernelsCoverIntegersPredConvertAndDataMovement) {
  ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  a = s32[6,5] parameter(0)
  b = s32[6,5] parameter(1)
  d = s32[6,5] divide(a, b)
  r = s32[6,5] remainder(a, b)
  s = s32[6,5] add(d, r)
  n = s32[6,5] negate(s)
  ab = s32[6,5] abs(n)
  t = s32[5,6] transpose(ab), dimensions={1,0}
  rs = s32[30] reshape(t)
  sl = s32[10] slice(rs), slice={[3:23:2]}
  rv = s32[10] reverse(sl), dimensions={0}
  io = s32[10] iota(), iota_dimension=0
  c = pred[10] compare(rv, io), direction=GT
  f = f64[10] convert(rv)
  h = f64[10] multiply(f, f)
  ch = s64[10] convert(h)
  u = u8[10] convert(ch)
  z = u8[10] constant({1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
  mn = u8[10] minimum(u, z)
  w = u8[10] select(c, mn, z)
  ROOT out = (u8[10], pred[10], s64[10]) tuple(w, c, ch)
})");
}

// Pad (edge, negative and interior padding), concatenate (an empty operand
// among them) and dynamic-slice (random starts: out of range, negative,
// unsigned, and constant ones far out of range) read their operands only at
// clamped indices and select, fused
// with elementwise producers and consumers; none falls back.
TEST(CpuExecutableTest, JitKernelsPadConcatenateAndDynamicSlice) {
  std::string report = ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  a = f32[4,6] parameter(0)
  b = f32[4,3] parameter(1)
  i = s32[] parameter(2)
  j = u32[] parameter(3)
  k = s32[] parameter(4)
  zero = f32[] constant(0)
  empty = f32[4,0] constant({ {}, {}, {}, {} })
  ea = f32[4,6] exponential(a)
  p = f32[7,13] pad(ea, zero), padding=2_1x-1_-2_2
  c = f32[4,9] concatenate(a, empty, b), dimensions={1}
  n = f32[4,9] negate(c)
  d = f32[2,5] dynamic-slice(n, j, j), dynamic_slice_sizes={2,5}
  d2 = f32[3,4] dynamic-slice(p, k, i), dynamic_slice_sizes={3,4}
  s = f32[2,5] add(d, d)
  big = s32[] constant(100)
  neg = s32[] constant(-3)
  huge = u32[] constant(4000000000)
  one = u32[] constant(1)
  d3 = f32[3,4] dynamic-slice(p, neg, big), dynamic_slice_sizes={3,4}
  d4 = f32[2,5] dynamic-slice(n, huge, one), dynamic_slice_sizes={2,5}
  ROOT t = (f32[7,13], f32[4,9], f32[2,5], f32[3,4], f32[3,4], f32[2,5]) tuple(p, n, s, d2, d3, d4)
})",
                                               /*relative=*/1e-6);
  EXPECT_NE(report.find("fallback to the evaluator: 0 "), std::string::npos) << report;
}

// bf16 is computed as f32 and rounded to bf16 after every arithmetic
// instruction, as the evaluator does: arithmetic, converts, compare,
// select, max and data movement agree bit for bit; exp (inline f32, then
// rounded) within one bf16 ulp. A reduce and an s32 -> bf16 convert stay
// in the evaluator.
TEST(CpuExecutableTest, JitKernelsComputeBf16AsRoundedF32) {
  std::string report = ExpectSameAsInterpreter(R"(
HloModule m
add {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT s = bf16[] add(x, y)
}
ENTRY e {
  a = bf16[16,33] parameter(0)
  b = bf16[16,33] parameter(1)
  f = f32[16,33] parameter(2)
  i = s32[16,33] parameter(3)
  third = bf16[] constant(0.333)
  t = bf16[16,33] broadcast(third), dimensions={}
  m = bf16[16,33] multiply(a, t)
  s = bf16[16,33] add(m, b)
  d = bf16[16,33] divide(s, b)
  fb = bf16[16,33] convert(f)
  mx = bf16[16,33] maximum(d, fb)
  c = pred[16,33] compare(mx, a), direction=GT
  sel = bf16[16,33] select(c, mx, s)
  back = f32[16,33] convert(sel)
  zero = bf16[] constant(0)
  p = bf16[18,33] pad(sel, zero), padding=1_1x0_0
  ib = bf16[16,33] convert(i)
  r = bf16[16] reduce(a, zero), dimensions={1}, to_apply=add
  ROOT out = (f32[16,33], bf16[18,33], bf16[16,33], bf16[16]) tuple(back, p, ib, r)
})");
  EXPECT_TRUE(HasLine(report, "fallback", "ib (convert)")) << report;
  EXPECT_TRUE(HasLine(report, "fallback", "r (reduce)")) << report;
  EXPECT_NE(report.find("fallback to the evaluator: 2 "), std::string::npos) << report;
  ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  a = bf16[1000] parameter(0)
  ROOT x = bf16[1000] exponential(a)
})",
                          /*relative=*/1.0 / 128);
}

TEST(CpuExecutableTest, ShiftsTakeOutOfRangeCountsAndBitcastConvertKeepsTheBits) {
  // Counts from -4 to 35 cover negative (huge as unsigned), in-range and
  // too-large counts for s32, u32 and s8 values.
  std::string report = ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  a = s32[40] parameter(0)
  io = s32[40] iota(), iota_dimension=0
  four = s32[] constant(4)
  fb = s32[40] broadcast(four), dimensions={}
  n = s32[40] subtract(io, fb)
  big = s32[] constant(-1073741825)
  bb = s32[40] broadcast(big), dimensions={}
  x = s32[40] add(a, bb)
  l = s32[40] shift-left(x, n)
  ra = s32[40] shift-right-arithmetic(x, n)
  ux = u32[40] bitcast-convert(x)
  un = u32[40] bitcast-convert(n)
  rl = u32[40] shift-right-logical(ux, un)
  b8 = s8[40] convert(x)
  n8 = s8[40] convert(n)
  r8 = s8[40] shift-right-arithmetic(b8, n8)
  f = f32[40] bitcast-convert(l)
  back = s32[40] bitcast-convert(f)
  ROOT t = (s32[40], s32[40], u32[40], s8[40], s32[40]) tuple(l, ra, rl, r8, back)
})");
  EXPECT_NE(report.find("fallback to the evaluator: 0"), std::string::npos) << report;
}

TEST(CpuExecutableTest, KernelTilesSplitFewRowsAlongTheLastDimension) {
  auto tiling = [](std::vector<int64_t> dims) {
    KernelTiling t = TilingOf(Shape(PrimitiveType::F32, dims), 1);
    return std::vector<int64_t>{t.rows, t.chunk, t.chunks};
  };
  EXPECT_EQ(tiling({1, 512, 3072}), (std::vector<int64_t>{512, 3072, 1}));
  EXPECT_EQ(tiling({1, 600}), (std::vector<int64_t>{1, 256, 3}));
  EXPECT_EQ(tiling({3, 1000}), (std::vector<int64_t>{3, 256, 4}));
  EXPECT_EQ(tiling({1, 100000}), (std::vector<int64_t>{1, 1568, 64}));
  EXPECT_EQ(tiling({4, 0}), (std::vector<int64_t>{4, 1, 0}));
  EXPECT_EQ(TilingOf(Shape::Scalar(PrimitiveType::F32), 1).tiles(), 1);
  // A reduce to [96] of 10^6 elements each: 2 outputs per tile.
  EXPECT_EQ(TilingOf(Shape(PrimitiveType::F32, {96}), 1000000).chunk, 2);
  // Ragged last tiles, a reduce to few rows, on two threads (exact: integers).
  std::string report = ExpectSameAsInterpreter(R"(
HloModule m
add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] add(a, b)
}
ENTRY e {
  x = s32[1,3,11000] parameter(0)
  v = s32[11000] parameter(1)
  vb = s32[1,3,11000] broadcast(v), dimensions={2}
  y = s32[1,3,11000] multiply(x, vb)
  z = s32[1,600,70] parameter(2)
  zero = s32[] constant(0)
  r = s32[1,600] reduce(z, zero), dimensions={2}, to_apply=add_s32
  ROOT t = (s32[1,3,11000], s32[1,600]) tuple(y, r)
})");
  EXPECT_NE(report.find("fallback to the evaluator: 0"), std::string::npos) << report;
}

TEST(CpuExecutableTest, FloatToIntConvertSaturatesAndMapsNanToZero) {
  ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  x = f32[8] constant({nan, inf, -inf, 3e9, -3e9, 2.7, -2.7, 0})
  p = f32[8] parameter(0)
  y = f32[8] add(x, p)
  ROOT i = s32[8] convert(y)
})");
}

TEST(CpuExecutableTest, DotThunkHandlesTransposedOperandsAndBatches) {
  const double kRelative = 1e-5;
  EXPECT_TRUE(HasLine(ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  x = f32[33,70] parameter(0)
  w = f32[50,70] parameter(1)
  ROOT d = f32[33,50] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})",
                                              kRelative),
                      "dot", "d (dot)"));
  EXPECT_TRUE(HasLine(ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  x = f64[3,20,7] parameter(0)
  w = f64[3,20,9] parameter(1)
  ROOT d = f64[3,7,9] dot(x, w), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}
})",
                                              1e-12),
                      "dot", "d (dot)"));
  // A vector-matrix product, batch dimensions in the middle (attention's
  // bqhd,bkhd->bhqk) and a strided batch all take gemms; free dimensions
  // split by the contracting one do not and go through the evaluator.
  ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  v = f32[40] parameter(0)
  w = f32[40,12] parameter(1)
  ROOT d = f32[12] dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})",
                          kRelative);
  EXPECT_TRUE(HasLine(ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  q = f32[2,17,3,8] parameter(0)
  k = f32[2,19,3,8] parameter(1)
  ROOT d = f32[2,3,17,19] dot(q, k), lhs_batch_dims={0,2}, rhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_contracting_dims={3}
})",
                                              kRelative),
                      "dot", "d (dot)"));
  EXPECT_TRUE(HasLine(ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  x = f32[4,3,5] parameter(0)
  w = f32[5,3,6] parameter(1)
  ROOT d = f32[3,4,6] dot(x, w), lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={0}
})",
                                              kRelative),
                      "dot", "d (dot)"));
  std::string report = ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  x = f32[4,5,2] parameter(0)
  w = f32[5,6] parameter(1)
  ROOT d = f32[4,2,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                                               kRelative);
  EXPECT_TRUE(HasLine(report, "fallback", "d (dot)")) << report;
}

// A lone reduce is a JIT kernel; so is a chain feeding one (kInput fusion).
TEST(CpuExecutableTest, ReduceKernelsSumMaxAndMinOverAnyDimensions) {
  for (const char* dims : {"{1}", "{0}", "{0,2}", "{2}"}) {
    for (const char* op : {"add", "maximum", "minimum"}) {
      std::string text = absl::StrCat(R"(
HloModule m
r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] )",
                                      op, R"((a, b)
}
ENTRY e {
  x = f32[7,300,9] parameter(0)
  z = f32[] parameter(1)
  ROOT y = reduce(x, z), dimensions=)",
                                      dims, ", to_apply=r\n}\n");
      std::string report = ExpectSameAsInterpreter(text, 1e-5);
      EXPECT_TRUE(HasLine(report, "jit", "y (reduce)")) << text << report;
    }
  }
}

TEST(CpuExecutableTest, InputFusionComputesTheReducedChainInOnePass) {
  // softmax over the last dimension, integer and pred reductions, a
  // reduction to a scalar and a multiply reducer.
  std::string report = ExpectSameAsInterpreter(R"(
HloModule m
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[33,270] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  m = f32[33] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[33,270] broadcast(m), dimensions={0}
  d = f32[33,270] subtract(x, mb)
  ex = f32[33,270] exponential(d)
  s = f32[33] reduce(ex, zero), dimensions={1}, to_apply=add_f32
  sb = f32[33,270] broadcast(s), dimensions={0}
  ROOT y = f32[33,270] divide(ex, sb)
})",
                                               1e-5);
  EXPECT_NE(report.find("fallback to the evaluator: 0"), std::string::npos) << report;
  ExpectSameAsInterpreter(R"(
HloModule m
add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] add(a, b)
}
mul_f64 {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT c = f64[] multiply(a, b)
}
or_pred {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT c = pred[] or(a, b)
}
ENTRY e {
  x = s32[6,50,4] parameter(0)
  zero = s32[] constant(0)
  x1 = s32[6,50,4] add(x, x)
  s = s32[6,4] reduce(x1, zero), dimensions={1}, to_apply=add_s32
  y = f64[40] parameter(1)
  c = f64[] constant(1)
  y1 = f64[40] multiply(y, y)
  p = f64[] reduce(y1, c), dimensions={0}, to_apply=mul_f64
  f = pred[] constant(false)
  zb = s32[6,50,4] broadcast(zero), dimensions={}
  gt = pred[6,50,4] compare(x, zb), direction=GT
  any = pred[50] reduce(gt, f), dimensions={0,2}, to_apply=or_pred
  ROOT t = (s32[6,4], f64[], pred[50]) tuple(s, p, any)
})",
                          1e-12);
}

// A module of one convolution `c` of parameters x and w.
std::string ConvModule(const std::string& x, const std::string& w, const std::string& c) {
  return absl::StrCat("HloModule m\nENTRY e {\n  x = ", x, " parameter(0)\n  w = ", w,
                      " parameter(1)\n  ROOT c = ", c, "\n}\n");
}

// Runs the convolution `c` of x and w on both backends (oneDNN accumulates
// in its own order, so they agree within rounding) and checks which thunk
// took it.
void ExpectConvolutionIn(const std::string& kind, const std::string& x, const std::string& w,
                         const std::string& c) {
  std::string report = ExpectSameAsInterpreter(ConvModule(x, w, c), 1e-4);
  EXPECT_TRUE(HasLine(report, kind, "c (convolution)")) << c << "\n" << report;
}

TEST(CpuExecutableTest, ConvolutionThunkTakesPaddingStridesAndDilation) {
  // NCHW/OIHW, stride 2, uneven padding.
  ExpectConvolutionIn(kConvKind, "f32[2,8,15,15]", "f32[16,8,3,3]",
                      "f32[2,16,8,7] convolution(x, w), window={size=3x3 stride=2x2 pad=1_2x0_1}, "
                      "dim_labels=bf01_oi01->bf01");
  // rhs (window) dilation.
  ExpectConvolutionIn(kConvKind, "f32[1,4,20,20]", "f32[6,4,3,3]",
                      "f32[1,6,20,14] convolution(x, w), window={size=3x3 pad=2_2x0_0 "
                      "rhs_dilate=2x3}, dim_labels=bf01_oi01->bf01");
}

TEST(CpuExecutableTest, ConvolutionThunkTakesAnyDimensionLabels) {
  ExpectConvolutionIn(kConvKind, "f32[2,10,12,6]", "f32[3,3,6,5]",
                      "f32[2,10,12,5] convolution(x, w), window={size=3x3 pad=1_1x1_1}, "
                      "dim_labels=b01f_01io->b01f");
  // Every role somewhere else in each of the three arrays.
  ExpectConvolutionIn(kConvKind, "f32[7,3,2,9]", "f32[3,4,3,3]",
                      "f32[7,4,5,2] convolution(x, w), window={size=3x3}, "
                      "dim_labels=0fb1_io01->1f0b");
}

TEST(CpuExecutableTest, ConvolutionThunkTakesFeatureGroups) {
  ExpectConvolutionIn(kConvKind, "f32[2,8,9,9]", "f32[6,4,3,3]",
                      "f32[2,6,7,7] convolution(x, w), window={size=3x3}, "
                      "dim_labels=bf01_oi01->bf01, feature_group_count=2");
  // Depthwise, channels last.
  ExpectConvolutionIn(kConvKind, "f32[2,9,9,8]", "f32[3,3,1,8]",
                      "f32[2,9,9,8] convolution(x, w), window={size=3x3 pad=1_1x1_1}, "
                      "dim_labels=b01f_01io->b01f, feature_group_count=8");
}

TEST(CpuExecutableTest, ConvolutionThunkTakesOneAndThreeSpatialDimensions) {
  ExpectConvolutionIn(kConvKind, "f32[3,5,40]", "f32[7,5,4]",
                      "f32[3,7,14] convolution(x, w), window={size=4 stride=3 pad=2_1}, "
                      "dim_labels=bf0_oi0->bf0");
  ExpectConvolutionIn(kConvKind, "f32[1,3,6,7,8]", "f32[4,3,2,3,3]",
                      "f32[1,4,5,5,6] convolution(x, w), window={size=2x3x3}, "
                      "dim_labels=bf012_oi012->bf012");
}

TEST(CpuExecutableTest, ConvolutionsOneDnnCannotTakeFallBack) {
  ExpectConvolutionIn("fallback", "f32[1,3,5,5]", "f32[4,3,3,3]",
                      "f32[1,4,9,9] convolution(x, w), window={size=3x3 pad=1_1x1_1 "
                      "lhs_dilate=2x2}, dim_labels=bf01_oi01->bf01");
  ExpectConvolutionIn("fallback", "f32[4,3,5,5]", "f32[6,3,3,3]",
                      "f32[2,6,3,3] convolution(x, w), window={size=3x3}, "
                      "dim_labels=bf01_oi01->bf01, batch_group_count=2");
}

TEST(CpuExecutableTest, BatchNormGradientsOfHugeValuesStayFinite) {
  // Sums of squares of 1e18-sized values overflow f32; the evaluator's batch
  // norm does not, and the cpu backend must agree with it.
  constexpr char kText[] = R"(
HloModule m
ENTRY e {
  p = f32[64,4,30] parameter(0)
  big = f32[] constant(1e18)
  bb = f32[64,4,30] broadcast(big), dimensions={}
  x = f32[64,4,30] multiply(p, bb)
  scale = f32[4] parameter(1)
  offset = f32[4] parameter(2)
  t = (f32[64,4,30], f32[4], f32[4]) batch-norm-training(x, scale, offset), epsilon=0.001, feature_index=1
  mean = f32[4] get-tuple-element(t), index=1
  var = f32[4] get-tuple-element(t), index=2
  g = (f32[64,4,30], f32[4], f32[4]) batch-norm-grad(x, scale, mean, var, x), epsilon=0.001, feature_index=1
  ROOT gs = f32[4] get-tuple-element(g), index=1
})";
  std::string report = ExpectSameAsInterpreter(kText, 1e-4);
  EXPECT_TRUE(HasLine(report, "fallback", "g (batch-norm-grad)")) << report;
  // Equal NaNs would compare equal above: the gradient itself is finite.
  auto module = ParseHloModule(kText);
  ASSERT_TRUE(module.ok()) << module.status();
  auto cpu = CompileCpuExecutable(**module, {});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  auto got = (*cpu)->Execute(runtime::RandomArguments(**module, 1), {});
  ASSERT_TRUE(got.ok()) << got.status();
  for (int64_t i = 0; i < got->element_count(); ++i) {
    EXPECT_TRUE(std::isfinite(got->Get<float>(i))) << "element " << i;
  }
}

TEST(CpuExecutableTest, FallbackRunsWhileSortAndGatherThroughTheEvaluator) {
  std::string report = ExpectSameAsInterpreter(R"(
HloModule m
cond {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  v = f32[8] get-tuple-element(p), index=1
  w = f32[8] multiply(v, v)
  ROOT t = (s32[], f32[8]) tuple(j, w)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[8] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8]) tuple(zero, x)
  loop = (s32[], f32[8]) while(init), condition=cond, body=body
  v = f32[8] get-tuple-element(loop), index=1
  s = f32[8] sort(v), dimensions={0}, to_apply=less
  ROOT y = f32[8] add(s, x)
})");
  EXPECT_TRUE(HasLine(report, "fallback", "loop (while)")) << report;
  EXPECT_TRUE(HasLine(report, "fallback", "s (sort)")) << report;
  EXPECT_NE(report.find("fallback to the evaluator: 2"), std::string::npos) << report;
}

TEST(CpuExecutableTest, AnEndlessLoopStopsAtTheDeadline) {
  auto module = ParseHloModule(R"(
HloModule m
cond {
  p = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT q = s32[] add(p, one)
}
ENTRY e {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
})");
  ASSERT_TRUE(module.ok()) << module.status();
  auto cpu = CompileCpuExecutable(**module, {});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  runtime::ExecuteOptions options;
  options.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  std::vector<Literal> args = runtime::RandomArguments(**module, 0);
  auto result = (*cpu)->Execute(args, options);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded) << result.status();
}

// Array arguments are read in place and returned arrays computed in the
// result literal; repeats, parameters, constants and tuple elements of the
// result are copied, over several calls of one executable.
TEST(CpuExecutableTest, ArgumentsReadInPlaceAndResultsWrittenInPlace) {
  ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  p = f32[4,5] parameter(0)
  t = (f32[4,5], s32[3]) parameter(1)
  a = f32[4,5] add(p, p)
  g = f32[4,5] get-tuple-element(t), index=0
  s = f32[4,5] multiply(g, a)
  c = f32[2] constant({1, 2})
  inner = (f32[4,5], f32[4,5]) tuple(s, p)
  ROOT r = (f32[4,5], f32[4,5], f32[4,5], f32[2], f32[4,5], (f32[4,5], f32[4,5])) tuple(a, a, p, c, g, inner)
})");
  ExpectSameAsInterpreter(R"(
HloModule m
ENTRY e {
  ROOT p = f32[7] parameter(0)
})");
}

TEST(CpuExecutableTest, ArenaPlacesDeadBuffersOverEachOther) {
  // Eight chained dots of 128 KiB values: at most two of them (an operand
  // and the result) are live at once, so the arena holds two, not eight.
  std::string text = "HloModule m\nENTRY e {\n  x = f64[128,128] parameter(0)\n";
  std::string last = "x";
  for (int i = 0; i < 8; ++i) {
    std::string name = absl::StrCat("d", i);
    absl::StrAppend(&text, "  ", name, " = f64[128,128] dot(", last,
                    ", x), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n");
    last = name;
  }
  absl::StrAppend(&text, "  ROOT r = f64[128,128] negate(", last, ")\n}\n");
  std::string report = ExpectSameAsInterpreter(text, 1e-9);
  const size_t at = report.find("arena ");
  ASSERT_NE(at, std::string::npos) << report;
  EXPECT_EQ(std::stoll(report.substr(at + 6)), 2 * 128 * 128 * 8) << report;
}

TEST(CpuExecutableTest, RepeatedCallsReuseTheArenaAndCachedKernels) {
  const std::string text = R"(
HloModule m
ENTRY e {
  x = f32[100000] parameter(0)
  y = f32[100000] multiply(x, x)
  ROOT z = f32[100000] add(y, x)
})";
  ExpectSameAsInterpreter(text, 0, /*threads=*/1);
  std::string report = ExpectSameAsInterpreter(text, 0, /*threads=*/3);
  EXPECT_NE(report.find("JIT cached"), std::string::npos) << report;
  EXPECT_NE(report.find("3 threads"), std::string::npos) << report;
}

}  // namespace
}  // namespace xlite::cpu
