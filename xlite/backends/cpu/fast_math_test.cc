// The inline f32 exp, log, tanh, logistic and erf of the cpu backend against
// double-precision libm rounded to f32, over a sweep of the whole f32 range
// (every 1021st bit pattern, both signs, NaN and infinities included) and
// the edges where each function changes regime: the error stays within
// kFastMathMaxUlp and the special values are IEEE's.
#include "xlite/backends/cpu/fast_math.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xlite/backends/cpu/cpu_executable.h"
#include "xlite/text/parser.h"

namespace xlite::cpu {
namespace {

std::vector<float> Inputs() {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 1021) {
    xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {0.0f,
                  -0.0f,
                  inf,
                  -inf,
                  std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::min(),
                  std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::max(),
                  88.72283f,
                  88.7229f,
                  88.8f,
                  89.0f,
                  -87.33654f,
                  -103.27893f,
                  -103.97208f,
                  -104.0f,
                  -105.0f,
                  0.625f,
                  0.62499994f,
                  -0.625f,
                  1e-30f,
                  -1e-30f,
                  0.70710677f,
                  0.7071068f,
                  1.0f,
                  0.99999994f,
                  -1.0f,
                  3.9999998f,
                  4.0f,
                  -4.0f,
                  2.0f}) {
    xs.push_back(x);
  }
  return xs;
}

// Distance in representable f32 values (0 and -0 are one apart).
int64_t UlpDistance(float a, float b) {
  auto ordered = [](float f) {
    int64_t i = std::bit_cast<int32_t>(f);
    return i < 0 ? -(i & 0x7fffffff) - 1 : i;
  };
  return std::llabs(ordered(a) - ordered(b));
}

struct Case {
  const char* name;
  std::function<double(double)> reference;
};

TEST(FastMathTest, WithinDocumentedUlpOfCorrectlyRoundedResult) {
  const std::vector<float> xs = Inputs();
  const int64_t n = static_cast<int64_t>(xs.size());
  const std::string shape = absl::StrCat("f32[", n, "]");
  auto module = ParseHloModule(absl::StrCat(
      "HloModule fast_math\nENTRY e {\n  x = ", shape, " parameter(0)\n  a = ", shape,
      " exponential(x)\n  b = ", shape, " log(x)\n  c = ", shape, " tanh(x)\n  d = ", shape,
      " logistic(x)\n  f = ", shape, " erf(x)\n  ROOT t = (", shape, ", ", shape, ", ", shape, ", ",
      shape, ", ", shape, ") tuple(a, b, c, d, f)\n}\n"));
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = CompileCpuExecutable(**module, runtime::CompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  Literal arg(Shape(PrimitiveType::F32, {n}));
  for (int64_t i = 0; i < n; ++i) arg.Set<float>(i, xs[i]);
  auto result = (*executable)->Execute({&arg, 1}, {});
  ASSERT_TRUE(result.ok()) << result.status();

  const Case cases[] = {
      {"exp", [](double x) { return std::exp(x); }},
      {"log", [](double x) { return std::log(x); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"logistic", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
      {"erf", [](double x) { return std::erf(x); }},
  };
  for (int k = 0; k < 5; ++k) {
    const Literal& got = result->tuple_elements()[k];
    int64_t worst = 0;
    float worst_x = 0;
    for (int64_t i = 0; i < n; ++i) {
      const float want = static_cast<float>(cases[k].reference(xs[i]));
      const float have = got.Get<float>(i);
      if (std::isnan(want) || std::isnan(have)) {
        EXPECT_TRUE(std::isnan(want) && std::isnan(have))
            << cases[k].name << "(" << xs[i] << ") = " << have << ", want " << want;
        continue;
      }
      const int64_t ulp = UlpDistance(want, have);
      if (ulp > worst) worst = ulp, worst_x = xs[i];
    }
    EXPECT_LE(worst, kFastMathMaxUlp) << cases[k].name << " worst at x = " << worst_x;
    std::printf("%s: max error %lld ulp (at x = %.9g) over %lld inputs\n", cases[k].name,
                static_cast<long long>(worst), worst_x, static_cast<long long>(n));
  }
}

}  // namespace
}  // namespace xlite::cpu
