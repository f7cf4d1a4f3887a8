// Flops of JAX's LAPACK custom-calls, worked out by hand from the formulas
// lapack_flops.cc cites.
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/test_util.h"

namespace xlite {
namespace {

double FlopsOf(const std::string& result, const std::string& params, const std::string& call) {
  std::unique_ptr<HloModule> module = testing::Parse("HloModule m\nENTRY e {\n" + params +
                                                     "\n  ROOT c = " + result + " " + call + "\n}");
  if (module == nullptr) return -1;
  absl::StatusOr<ModuleCost> cost = AnalyzeModuleCost(*module);
  EXPECT_TRUE(cost.ok()) << cost.status();
  return cost.ok() ? cost->total.flops : -1;
}

TEST(LapackFlops, CholeskyIsLawn41PerMatrixOfTheBatch) {
  // n = 4: n^3/6 + n^2/2 + n/3 = 20 multiplications, n^3/6 - n/6 = 10 additions.
  EXPECT_DOUBLE_EQ(FlopsOf("(f32[2,4,4], s32[2])", "  a = f32[2,4,4] parameter(0)",
                           "custom-call(a), custom_call_target=\"lapack_spotrf_ffi\", "
                           "backend_config={uplo = 76 : ui8}"),
                   2 * 30);
  // Complex: 6 flops a multiplication, 2 an addition.
  EXPECT_DOUBLE_EQ(FlopsOf("(c64[4,4], s32[])", "  a = c64[4,4] parameter(0)",
                           "custom-call(a), custom_call_target=\"lapack_cpotrf_ffi\", "
                           "backend_config={uplo = 76 : ui8}"),
                   6 * 20 + 2 * 10);
}

TEST(LapackFlops, TriangularSolveAndLu) {
  // Left, A 3x3, B 3x2: n m (m+1)/2 = 12 multiplications, n m (m-1)/2 = 6 additions.
  EXPECT_DOUBLE_EQ(FlopsOf("f32[3,2]", "  a = f32[3,3] parameter(0)\n  b = f32[3,2] parameter(1)",
                           "custom-call(a, b), custom_call_target=\"lapack_strsm_ffi\", "
                           "backend_config={diag = 78 : ui8, side = 76 : ui8, "
                           "trans_x = 78 : ui8, uplo = 76 : ui8}"),
                   18);
  // 4x4: mn^2/2 - n^3/6 + mn/2 - n^2/2 + 2n/3 = 24, mn^2/2 - n^3/6 - mn/2 + n/6 = 14.
  EXPECT_DOUBLE_EQ(FlopsOf("(f64[4,4], s32[4], s32[])", "  a = f64[4,4] parameter(0)",
                           "custom-call(a), custom_call_target=\"lapack_dgetrf_ffi\""),
                   38);
}

TEST(LapackFlops, IterativeSolversUseTheTextbookEstimates) {
  // Symmetric eigenvalues only: 4n^3/3 for n = 3.
  EXPECT_DOUBLE_EQ(FlopsOf("(f32[3,3], f32[3], s32[])", "  a = f32[3,3] parameter(0)",
                           "custom-call(a), custom_call_target=\"lapack_ssyevd_ffi\", "
                           "backend_config={mode = 78 : ui8, uplo = 76 : ui8}"),
                   36);
}

}  // namespace
}  // namespace xlite
