#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "xlite/eval/eval_test_util.h"

namespace xlite::eval {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using testing::EvaluateText;
using ::testing::HasSubstr;
using testing::MakeLiteral;
using testing::ToDoubles;

// A module whose entry applies one custom-call to parameters of `params`.
std::string Module(const std::string& params, const std::string& call) {
  return absl::StrCat("HloModule m\nENTRY e {\n", params, "\n  ROOT c = ", call, "\n}\n");
}

#if XLITE_HAVE_LAPACK

const Literal& Element(const Literal& tuple, int i) { return tuple.tuple_elements()[i]; }

TEST(LapackTest, PotrfFactorsEachMatrixAndReportsNotPositiveDefinite) {
  const std::string text = Module(
      "  a = f32[2,2,2]{1,2,0} parameter(0)",
      "(f32[2,2,2]{1,2,0}, s32[2]) custom-call(a), custom_call_target=\"lapack_spotrf_ffi\", "
      "api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}");
  auto out = EvaluateText(text, {MakeLiteral("f32[2,2,2]", {4, 2, 2, 3, 1, 2, 2, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> l = ToDoubles(Element(*out, 0));
  EXPECT_EQ(l[0], 2);
  EXPECT_EQ(l[1], 2);  // the upper triangle keeps the input, as in jaxlib
  EXPECT_EQ(l[2], 1);
  EXPECT_THAT(l[3], DoubleNear(std::sqrt(2.0), 1e-6));
  EXPECT_THAT(ToDoubles(Element(*out, 1)), ElementsAre(0, 2));  // the second is not PD
}

TEST(LapackTest, GetrfPivotsOneBasedAndFlagsSingular) {
  const std::string text = Module("  a = f64[2,2,2] parameter(0)",
                                  "(f64[2,2,2], s32[2,2], s32[2]) custom-call(a), "
                                  "custom_call_target=\"lapack_dgetrf_ffi\", backend_config={}");
  auto out = EvaluateText(text, {MakeLiteral("f64[2,2,2]", {1, 2, 3, 4, 1, 2, 2, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> lu = ToDoubles(Element(*out, 0));
  EXPECT_THAT(std::vector<double>(lu.begin(), lu.begin() + 4),
              ElementsAre(3, 4, DoubleNear(1.0 / 3, 1e-15), DoubleNear(2.0 / 3, 1e-15)));
  EXPECT_THAT(ToDoubles(Element(*out, 1)), ElementsAre(2, 2, 2, 2));
  EXPECT_THAT(ToDoubles(Element(*out, 2)), ElementsAre(0, 2));
}

TEST(LapackTest, TrsmSolvesOnTheLeftAndRight) {
  const std::string params = "  a = f32[2,2] parameter(0)\n  b = f32[2,2] parameter(1)";
  auto solve = [&](const char* side) {
    return EvaluateText(
        Module(params, absl::StrCat("f32[2,2] custom-call(a, b), "
                                    "custom_call_target=\"lapack_strsm_ffi\", backend_config={"
                                    "diag = 78 : ui8, side = ",
                                    side, " : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}")),
        {MakeLiteral("f32[2,2]", {2, 0, 1, 1}), MakeLiteral("f32[2,2]", {2, 4, 3, 5})});
  };
  auto left = solve("76");  // a x = b
  ASSERT_TRUE(left.ok()) << left.status();
  EXPECT_THAT(ToDoubles(*left), ElementsAre(1, 2, 2, 3));
  auto right = solve("82");  // x a = b
  ASSERT_TRUE(right.ok()) << right.status();
  EXPECT_THAT(ToDoubles(*right), ElementsAre(-1, 4, -1, 5));
}

TEST(LapackTest, HeevdGivesRealEigenvaluesAscending) {
  const std::string text =
      Module("  a = c64[2,2] parameter(0)",
             "(c64[2,2], f32[2], s32[]) custom-call(a), custom_call_target=\"lapack_cheevd_ffi\", "
             "backend_config={mode = 86 : ui8, uplo = 76 : ui8}");
  auto out = EvaluateText(text, {MakeLiteral("c64[2,2]", {2, 1, 1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(ToDoubles(Element(*out, 1)), ElementsAre(DoubleNear(1, 1e-6), DoubleNear(3, 1e-6)));
  EXPECT_THAT(ToDoubles(Element(*out, 2)), ElementsAre(0));
}

TEST(LapackTest, GesddWithoutVectorsTakesTheDeclaredShapes) {
  const std::string text =
      Module("  a = f32[2,2] parameter(0)",
             "(f32[2,2], f32[2], f32[2,2], f32[2,2], s32[]) custom-call(a), "
             "custom_call_target=\"lapack_sgesdd_ffi\", backend_config={mode = 78 : ui8}");
  auto out = EvaluateText(text, {MakeLiteral("f32[2,2]", {3, 0, 0, -4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(ToDoubles(Element(*out, 1)), ElementsAre(DoubleNear(4, 1e-6), DoubleNear(3, 1e-6)));
}

TEST(LapackTest, GeevUnpacksConjugatePairsAndRejectsNonFinite) {
  const std::string text =
      Module("  a = f64[2,2,2] parameter(0)",
             "(f64[2,2], f64[2,2], c128[2,2,2], c128[2,2,2], s32[2]) custom-call(a), "
             "custom_call_target=\"lapack_dgeev_ffi\", "
             "backend_config={compute_left = 78 : ui8, compute_right = 86 : ui8}");
  auto out = EvaluateText(text, {MakeLiteral("f64[2,2,2]", {0, -1, 1, 0, NAN, 0, 0, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(ToDoubles(Element(*out, 1)),
              ElementsAre(DoubleNear(1, 1e-12), DoubleNear(-1, 1e-12), 0, 0));
  EXPECT_THAT(ToDoubles(Element(*out, 4)), ElementsAre(0, -4));
  const Literal& vr = Element(*out, 3);
  for (int64_t i = 0; i < 2; ++i) {  // column 1 is column 0's conjugate
    auto v0 = vr.Get<std::complex<double>>(i * 2), v1 = vr.Get<std::complex<double>>(i * 2 + 1);
    EXPECT_EQ(v1, std::conj(v0));
  }
}

TEST(LapackTest, GeqrfThenUngqrGivesOrthonormalColumns) {
  const std::string text = R"(
HloModule m
ENTRY e {
  a = c128[3,2] parameter(0)
  qr = (c128[3,2], c128[2]) custom-call(a), custom_call_target="lapack_zgeqrf_ffi", backend_config={}
  r = c128[3,2] get-tuple-element(qr), index=0
  tau = c128[2] get-tuple-element(qr), index=1
  ROOT q = c128[3,2] custom-call(r, tau), custom_call_target="lapack_zungqr_ffi", backend_config={}
})";
  auto out = EvaluateText(text, {MakeLiteral("c128[3,2]", {1, 2, 3, 4, 5, 7})});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      std::complex<double> dot = 0;
      for (int64_t r = 0; r < 3; ++r) {
        dot += std::conj(out->Get<std::complex<double>>(r * 2 + i)) *
               out->Get<std::complex<double>>(r * 2 + j);
      }
      EXPECT_NEAR(std::abs(dot - (i == j ? 1.0 : 0.0)), 0, 1e-12);
    }
  }
}

TEST(LapackTest, GeesSytrdGehrdOfTriangularAndDiagonal) {
  const std::string text = R"(
HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  s = (f32[2,2], f32[2,2], f32[2], f32[2], s32[], s32[]) custom-call(a), custom_call_target="lapack_sgees_ffi", backend_config={mode = 86 : ui8, sort = 78 : ui8}
  t = (f32[2,2], f32[2], f32[1], f32[1], s32[]) custom-call(a), custom_call_target="lapack_ssytrd_ffi", backend_config={uplo = 76 : ui8}
  h = (f32[2,2], f32[1], s32[]) custom-call(a), custom_call_target="lapack_sgehrd_ffi", backend_config={high = 2 : i32, low = 1 : i32}
  w = f32[2] get-tuple-element(s), index=2
  d = f32[2] get-tuple-element(t), index=1
  info = s32[] get-tuple-element(h), index=2
  ROOT all = (f32[2], f32[2], s32[]) tuple(w, d, info)
})";
  auto out = EvaluateText(text, {MakeLiteral("f32[2,2]", {5, 0, 0, 7})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(ToDoubles(Element(*out, 0)), ElementsAre(5, 7));  // eigenvalues
  EXPECT_THAT(ToDoubles(Element(*out, 1)), ElementsAre(5, 7));  // the tridiagonal's diagonal
  EXPECT_THAT(ToDoubles(Element(*out, 2)), ElementsAre(0));
}

TEST(LapackTest, BadCallsAreErrorsNamingTheProblem) {
  const std::string params = "  a = f32[2,3] parameter(0)";
  struct Case {
    const char* call;
    const char* message;
  } cases[] = {
      {"(f32[2,3], s32[]) custom-call(a), custom_call_target=\"lapack_spotrf_ffi\", "
       "backend_config={uplo = 76 : ui8}",
       "must be square"},
      {"(f32[2,3], s32[3]) custom-call(a), custom_call_target=\"lapack_sgetrf_ffi\", "
       "backend_config={}",
       "is not the convention's"},
      {"(f32[2,3], f32[2], f32[2,2], f32[3,3], s32[]) custom-call(a), "
       "custom_call_target=\"lapack_sgesdd_ffi\", backend_config={}",
       "lacks the attribute mode"},
      {"(f32[2,3], f32[2], f32[2,2], f32[3,3], s32[]) custom-call(a), "
       "custom_call_target=\"lapack_sgesdd_ffi\", backend_config={mode = 79 : ui8}",
       "is not one of"},
      {"(f32[2,3], f32[2]) custom-call(a), custom_call_target=\"lapack_dgeqrf_ffi\", "
       "backend_config={}",
       "must be a f64 array"},
      {"(f32[2,3], f32[2]) custom-call(a), custom_call_target=\"lapack_sgeqrf_ffi\", "
       "backend_config=\"not a dict\"",
       "typed-FFI attribute dictionary"},
  };
  for (const Case& c : cases) {
    auto out = EvaluateText(Module(params, c.call), {MakeLiteral("f32[2,3]", {1, 2, 3, 4, 5, 6})});
    ASSERT_FALSE(out.ok()) << c.call;
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
    EXPECT_THAT(out.status().message(), HasSubstr(c.message)) << out.status();
  }
}

#else

TEST(LapackTest, WithoutLapackTheTargetsSayWhy) {
  auto out = EvaluateText(
      Module("  a = f32[2,2] parameter(0)",
             "(f32[2,2], s32[]) custom-call(a), custom_call_target=\"lapack_spotrf_ffi\", "
             "backend_config={uplo = 76 : ui8}"),
      {MakeLiteral("f32[2,2]", {4, 2, 2, 3})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(out.status().message(), HasSubstr("xlite was built without LAPACK"));
}

#endif

}  // namespace
}  // namespace xlite::eval
