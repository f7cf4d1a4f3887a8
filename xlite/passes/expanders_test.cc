// Each expander evaluated before and after on the same inputs (edge cases
// included): bit-exact for the exact rewrites, within the documented ulp
// bound for the approximations.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/eval/eval_test_util.h"
#include "xlite/eval/evaluator.h"
#include "xlite/ir/float_ulp.h"
#include "xlite/passes/pass_registry.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite {
namespace {

using eval::testing::MakeLiteral;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Edge cases plus a spread of magnitudes of both signs.
std::vector<double> EdgeInputs() {
  std::vector<double> v = {0.0,   -0.0,   kInf,  -kInf, kNaN, -kNaN, 1e-45, -1e-45,
                           1e-40, -3e-39, 1e-30, 1e30,  3e38, -3e38, 1.0,   -1.0,
                           0.5,   2.0,    3.0,   -2.5,  1e-7, 7.0,   100.0, 65504.0,
                           6e-8,  -6e-5,  0.1,   -0.3,  3.9,  4.0,   -4.5,  1e-300};
  for (int i = -600; i <= 600; ++i) v.push_back(i * 0.01 + 0.003);
  for (int e = -40; e <= 38; ++e) {
    v.push_back(1.37 * std::pow(10.0, e));
    v.push_back(-2.91 * std::pow(10.0, e));
  }
  return v;
}

// Distance in representable steps between element i of two literals of one
// float type (0 only when the bits are equal or both are NaN); for other
// types 0 when equal, else 1.
int64_t UlpDistance(const Literal& a, const Literal& b, int64_t i) {
  const int bytes = StorageBytes(a.shape().element_type());
  uint64_t x = 0, y = 0;
  std::memcpy(&x, a.raw_data().data() + i * bytes, bytes);
  std::memcpy(&y, b.raw_data().data() + i * bytes, bytes);
  if (x == y) return 0;
  if (!IsFloat(a.shape().element_type())) return 1;
  if (std::isnan(a.GetDouble(i)) && std::isnan(b.GetDouble(i))) return 0;
  int64_t d = xlite::UlpDistance(x, y, a.shape().element_type());
  return std::max<int64_t>(1, d);
}

struct Outcome {
  bool ok = false;
  bool changed = false;
  std::string after;  // the module's text after the pass
  Literal before_result, after_result;
};

// Runs `pass_spec` on `text`, checks the module still verifies, and
// evaluates it on `args` before and after.
Outcome RunBeforeAfter(std::string_view text, std::string_view pass_spec,
                       const std::vector<Literal>& args) {
  Outcome outcome;
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return outcome;
  EXPECT_TRUE(VerifyModule(**module).ok());
  Evaluator evaluator;
  auto before = evaluator.Run(**module, args);
  EXPECT_TRUE(before.ok()) << before.status();
  auto pass = CreatePass(pass_spec);
  EXPECT_TRUE(pass.ok()) << pass.status();
  if (!before.ok() || !pass.ok()) return outcome;
  auto changed = (*pass)->Run(**module);
  EXPECT_TRUE(changed.ok()) << changed.status();
  outcome.changed = changed.ok() && *changed;
  absl::Status verified = VerifyModule(**module);
  EXPECT_TRUE(verified.ok()) << verified;
  outcome.after = PrintModule(**module);
  // A fresh evaluator: one may keep per-module state from its last run.
  Evaluator fresh;
  auto after = fresh.Run(**module, args);
  EXPECT_TRUE(after.ok()) << after.status();
  if (!after.ok()) return outcome;
  EXPECT_EQ(before->shape().ToString(), after->shape().ToString());
  outcome.before_result = *std::move(before);
  outcome.after_result = *std::move(after);
  outcome.ok = true;
  return outcome;
}

// The arrays of a result (itself, or its tuple elements).
std::vector<const Literal*> Arrays(const Literal& l) {
  if (!l.shape().IsTuple()) return {&l};
  std::vector<const Literal*> out;
  for (const Literal& e : l.tuple_elements()) out.push_back(&e);
  return out;
}

// Runs the pass and requires every result element within `max_ulp` of the
// original's (0: bit-exact).
Outcome CheckPass(std::string_view text, std::string_view pass_spec,
                  const std::vector<Literal>& args, int64_t max_ulp) {
  Outcome outcome = RunBeforeAfter(text, pass_spec, args);
  if (!outcome.ok) return outcome;
  const Literal& before = outcome.before_result;
  const Literal& after = outcome.after_result;
  int64_t worst = 0;
  for (int64_t i = 0; i < before.element_count(); ++i) {
    int64_t d = UlpDistance(before, after, i);
    EXPECT_LE(d, max_ulp) << pass_spec << " element " << i << ": input " << args[0].GetDouble(i)
                          << " before " << before.GetDouble(i) << " after " << after.GetDouble(i);
    worst = std::max(worst, d);
  }
  std::printf("%s: worst %lld ulp\n", std::string(pass_spec).c_str(),
              static_cast<long long>(worst));
  return outcome;
}

// `x = T[n] parameter(0)` and `ROOT r = T[n] <body>` with T and n filled in.
std::string UnaryModule(const std::string& type, size_t n, const std::string& body) {
  std::string shape = absl::StrCat(type, "[", n, "]");
  return absl::StrCat("HloModule m\nENTRY e {\n  x = ", shape,
                      " parameter(0)\n  ROOT r = ", absl::StrReplaceAll(body, {{"$S", shape}}),
                      "\n}\n");
}

Literal Inputs(const std::string& type, const std::vector<double>& values) {
  return MakeLiteral(absl::StrCat(type, "[", values.size(), "]"), values);
}

// Expands `op` on every float type; each must change the module, leave no
// `op` behind and stay within its bound.
void CheckUnaryExpander(const std::string& op, const std::string& pass,
                        const std::vector<std::pair<std::string, int64_t>>& bounds) {
  std::vector<double> values = EdgeInputs();
  for (const auto& [type, bound] : bounds) {
    SCOPED_TRACE(type);
    std::vector<Literal> args;
    args.push_back(Inputs(type, values));
    Outcome out = CheckPass(
        UnaryModule(type, values.size(), absl::StrCat(type, "[", values.size(), "] ", op, "(x)")),
        pass, args, bound);
    EXPECT_TRUE(out.changed);
    EXPECT_EQ(out.after.find(absl::StrCat(" ", op, "(")), std::string::npos) << out.after;
  }
}

TEST(CbrtExpander, WithinBoundAndExactAtZeroInfNaN) {
  CheckUnaryExpander("cbrt", "cbrt-expander", {{"f32", 16}, {"f16", 1}, {"bf16", 1}, {"f64", 128}});
  // The edge cases themselves are bit-exact.
  std::vector<Literal> args;
  args.push_back(Inputs("f32", {0.0, -0.0, kInf, -kInf, kNaN, 8.0, -27.0}));
  CheckPass(UnaryModule("f32", 7, "f32[7] cbrt(x)"), "cbrt-expander", args, 0);
}

TEST(RsqrtExpander, BitExact) {
  CheckUnaryExpander("rsqrt", "rsqrt-expander", {{"f32", 0}, {"f16", 0}, {"f64", 0}});
}

TEST(ErfExpander, WithinBound) {
  CheckUnaryExpander("erf", "erf-expander", {{"f32", 8}, {"f16", 1}, {"bf16", 1}});
}

TEST(ErfExpander, LeavesF64Alone) {
  std::vector<Literal> args;
  args.push_back(Inputs("f64", {0.5}));
  Outcome out = CheckPass(UnaryModule("f64", 1, "f64[1] erf(x)"), "erf-expander", args, 0);
  EXPECT_FALSE(out.changed);
}

TEST(PowExpander, IntegersExactWithWrapAround) {
  std::vector<double> values = {0, 1, -1, 2, -3, 7, 1000, -46341, 65535, 2147483647};
  for (int n : {0, 1, 2, 3, 7, 13, 31, 64}) {
    SCOPED_TRACE(n);
    std::vector<Literal> args;
    args.push_back(Inputs("s32", values));
    std::string body = absl::StrCat("s32[10] power(x, b)");
    std::string text =
        absl::StrCat("HloModule m\nENTRY e {\n  x = s32[10] parameter(0)\n  c = s32[] constant(", n,
                     ")\n  b = s32[10] broadcast(c), dimensions={}\n  ROOT r = ", body, "\n}\n");
    Outcome out = CheckPass(text, "pow-expander", args, 0);
    EXPECT_TRUE(out.changed);
  }
}

TEST(PowExpander, FloatsWithinBound) {
  std::vector<double> values = EdgeInputs();
  // n - 1 ulp (see expanders.h).
  for (auto [n, bound] :
       std::vector<std::pair<int, int>>{{0, 0}, {1, 0}, {2, 0}, {3, 2}, {4, 3}, {5, 4}, {8, 7}}) {
    SCOPED_TRACE(n);
    std::vector<Literal> args;
    args.push_back(Inputs("f32", values));
    std::string text = absl::StrCat("HloModule m\nENTRY e {\n  x = f32[", values.size(),
                                    "] parameter(0)\n  c = f32[", values.size(), "] constant({",
                                    absl::StrJoin(std::vector<int>(values.size(), n), ","),
                                    "})\n  ROOT r = f32[", values.size(), "] power(x, c)\n}\n");
    Outcome out = CheckPass(text, "pow-expander", args, bound);
    EXPECT_TRUE(out.changed);
  }
}

TEST(PowExpander, LeavesNonIntegerNonUniformAndLargeExponentsAlone) {
  std::vector<Literal> args;
  args.push_back(Inputs("f32", {1.5, 2.0}));
  for (std::string exponent : {"{2.5, 2.5}", "{2, 3}", "{9, 9}", "{-2, -2}"}) {
    std::string text =
        absl::StrCat("HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  c = f32[2] constant(",
                     exponent, ")\n  ROOT r = f32[2] power(x, c)\n}\n");
    EXPECT_FALSE(CheckPass(text, "pow-expander", args, 0).changed) << exponent;
  }
  std::string text =
      "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  c = f32[2] constant({12, 12})\n"
      "  ROOT r = f32[2] power(x, c)\n}\n";
  EXPECT_TRUE(CheckPass(text, "pow-expander{max_exponent=12}", args, 11).changed);
}

TEST(ComparisonExpander, TotalOrderBitExact) {
  std::vector<double> a = {kNaN, -kNaN, 0.0,   -0.0,   1.0, -1.0,
                           kInf, -kInf, 1e-40, -1e-40, 3.0, kNaN};
  std::vector<double> b = {kNaN, kNaN, -0.0, 0.0, 2.0, -2.0, kNaN, -kNaN, 0.0, -0.0, 3.0, 1.0};
  for (std::string type : {"f32", "f16", "bf16", "f64"}) {
    for (std::string dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      SCOPED_TRACE(absl::StrCat(type, " ", dir));
      std::vector<Literal> args;
      args.push_back(Inputs(type, a));
      args.push_back(Inputs(type, b));
      std::string text =
          absl::StrCat("HloModule m\nENTRY e {\n  x = ", type, "[12] parameter(0)\n  y = ", type,
                       "[12] parameter(1)\n  ROOT r = pred[12] compare(x, y), "
                       "direction=",
                       dir, ", type=TOTALORDER\n}\n");
      Outcome out = CheckPass(text, "comparison-expander", args, 0);
      EXPECT_TRUE(out.changed);
      EXPECT_EQ(out.after.find("TOTALORDER"), std::string::npos) << out.after;
    }
  }
}

TEST(ComparisonExpander, LeavesOtherComparesAlone) {
  std::vector<Literal> args;
  args.push_back(Inputs("f32", {1.0, kNaN}));
  std::string text =
      "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n"
      "  ROOT r = pred[2] compare(x, x), direction=LT\n}\n";
  EXPECT_FALSE(CheckPass(text, "comparison-expander", args, 0).changed);
}

TEST(ReducePrecisionExpander, BitExact) {
  std::vector<double> values = EdgeInputs();
  const std::vector<std::pair<std::string, std::pair<int, int>>> cases = {
      {"f32", {5, 10}},  {"f32", {8, 7}}, {"f32", {4, 3}},  {"f32", {5, 0}},
      {"f32", {11, 52}}, {"f32", {2, 1}}, {"f64", {8, 23}}, {"f64", {5, 2}},
      {"f64", {11, 52}}, {"f16", {4, 3}}, {"bf16", {5, 2}}, {"f16", {8, 23}}};
  for (const auto& [type, widths] : cases) {
    SCOPED_TRACE(absl::StrCat(type, " e", widths.first, " m", widths.second));
    std::vector<Literal> args;
    args.push_back(Inputs(type, values));
    Outcome out =
        CheckPass(UnaryModule(type, values.size(),
                              absl::StrCat("$S reduce-precision(x), exponent_bits=", widths.first,
                                           ", mantissa_bits=", widths.second)),
                  "reduce-precision-expander", args, 0);
    EXPECT_TRUE(out.changed);
    EXPECT_EQ(out.after.find("reduce-precision("), std::string::npos) << out.after;
  }
}

// Inputs of `shape` with values spread over [-range, range) (a fixed
// sequence, no randomness).
Literal Spread(const std::string& shape, int64_t n, double range, double phase) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(range * std::sin(0.7 * i + phase));
  return MakeLiteral(shape, v);
}

constexpr std::string_view kBatchNorm = R"(
HloModule bn
ENTRY e {
  x = f32[3,4,5] parameter(0)
  scale = f32[4] parameter(1)
  offset = f32[4] parameter(2)
  mean = f32[4] parameter(3)
  var = f32[4] parameter(4)
  dy = f32[3,4,5] parameter(5)
  t = (f32[3,4,5], f32[4], f32[4]) batch-norm-training(x, scale, offset), epsilon=0.001, feature_index=1
  i = f32[3,4,5] batch-norm-inference(x, scale, offset, mean, var), epsilon=0.001, feature_index=1
  g = (f32[3,4,5], f32[4], f32[4]) batch-norm-grad(x, scale, mean, var, dy), epsilon=0.001, feature_index=1
  ROOT r = ((f32[3,4,5], f32[4], f32[4]), f32[3,4,5], (f32[3,4,5], f32[4], f32[4])) tuple(t, i, g)
})";

std::vector<Literal> BatchNormArgs() {
  std::vector<Literal> args;
  args.push_back(Spread("f32[3,4,5]", 60, 3.0, 0.1));
  args.push_back(Spread("f32[4]", 4, 2.0, 0.5));
  args.push_back(Spread("f32[4]", 4, 1.0, 0.9));
  args.push_back(Spread("f32[4]", 4, 0.5, 0.3));
  args.push_back(MakeLiteral("f32[4]", {0.5, 1.0, 2.0, 0.25}));
  args.push_back(Spread("f32[3,4,5]", 60, 1.0, 1.7));
  return args;
}

// Every array of both results within `tolerance` (absolute plus relative).
void ExpectClose(const Literal& a, const Literal& b, double tolerance) {
  std::vector<const Literal*> before = Arrays(a), after = Arrays(b);
  ASSERT_EQ(before.size(), after.size());
  for (size_t k = 0; k < before.size(); ++k) {
    for (int64_t i = 0; i < before[k]->element_count(); ++i) {
      double x = before[k]->GetDouble(i), y = after[k]->GetDouble(i);
      EXPECT_NEAR(x, y, tolerance * (1 + std::abs(x))) << "array " << k << " element " << i;
    }
  }
}

TEST(BatchNormExpander, MatchesTheEvaluatorToF32Rounding) {
  std::vector<Literal> args = BatchNormArgs();
  Outcome out = RunBeforeAfter(kBatchNorm, "batchnorm_expander", args);
  ASSERT_TRUE(out.ok);
  EXPECT_TRUE(out.changed);
  EXPECT_EQ(out.after.find("batch-norm"), std::string::npos) << out.after;
  const std::vector<Literal>& before = out.before_result.tuple_elements();
  const std::vector<Literal>& after = out.after_result.tuple_elements();
  // f32 sums of 15 terms and a few divisions: well within 1e-5 relative.
  for (size_t k = 0; k < before.size(); ++k) ExpectClose(before[k], after[k], 1e-5);
}

TEST(BatchNormExpander, FlagsChooseTheKinds) {
  std::vector<Literal> args = BatchNormArgs();
  Outcome out = RunBeforeAfter(
      kBatchNorm, "batchnorm_expander{rewrite_training_op=false,rewrite_grad_op=false}", args);
  ASSERT_TRUE(out.ok);
  EXPECT_TRUE(out.changed);
  EXPECT_NE(out.after.find("batch-norm-training("), std::string::npos);
  EXPECT_NE(out.after.find("batch-norm-grad("), std::string::npos);
  EXPECT_EQ(out.after.find("batch-norm-inference("), std::string::npos);
  EXPECT_FALSE(CreatePass("batchnorm_expander{rewrite_grad_op=maybe}").ok());
}

// Values of an rng-expanded module differ from the evaluator's rng by design:
// only ranges and rough moments are checked.
TEST(RngExpander, UniformStaysInRangeAndNormalHasItsMoments) {
  for (std::string type : {"f32", "f64", "bf16"}) {
    SCOPED_TRACE(type);
    std::string text =
        absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, "[] constant(-2)\n  b = ", type,
                     "[] constant(3)\n  u = ", type,
                     "[4000] rng(a, b), distribution=rng_uniform\n"
                     "  m = ",
                     type, "[] constant(1)\n  s = ", type, "[] constant(2)\n  n = ", type,
                     "[4000] rng(m, s), distribution=rng_normal\n  ROOT t = (", type, "[4000], ",
                     type, "[4000]) tuple(u, n)\n}\n");
    Outcome out = RunBeforeAfter(text, "rng-expander", {});
    ASSERT_TRUE(out.ok);
    EXPECT_TRUE(out.changed);
    EXPECT_EQ(out.after.find(" rng("), std::string::npos) << out.after;
    const Literal& uniform = out.after_result.tuple_elements()[0];
    const Literal& normal = out.after_result.tuple_elements()[1];
    double sum = 0, sum_sq = 0, usum = 0;
    for (int64_t i = 0; i < 4000; ++i) {
      double u = uniform.GetDouble(i);
      EXPECT_GE(u, -2.0);
      EXPECT_LT(u, 3.0);
      usum += u;
      double v = normal.GetDouble(i);
      EXPECT_TRUE(std::isfinite(v));
      sum += v;
      sum_sq += v * v;
    }
    double mean = sum / 4000, var = sum_sq / 4000 - mean * mean;
    EXPECT_NEAR(usum / 4000, 0.5, 0.15);
    EXPECT_NEAR(mean, 1.0, 0.15);
    EXPECT_NEAR(var, 4.0, 0.4);
  }
}

TEST(RngExpander, LeavesIntegerRngAlone) {
  std::string text =
      "HloModule m\nENTRY e {\n  a = s32[] constant(0)\n  b = s32[] constant(9)\n"
      "  ROOT u = s32[8] rng(a, b), distribution=rng_uniform\n}\n";
  Outcome out = RunBeforeAfter(text, "rng-expander", {});
  EXPECT_FALSE(out.changed);
}

}  // namespace
}  // namespace xlite
