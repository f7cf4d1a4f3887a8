// Verifier rules found by running the HLO modules of XLA's pass tests through
// xlite: XLA's verifier does not check a collective's reducer, and its GPU
// tests reduce with computations over whole arrays.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/analysis/test_util.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;
using testing::VerifyErrors;

// An all-reduce / all-reduce-start of s32[3] reduced by `reducer_param`
// parameters returning `reducer_result`.
std::string ArrayReducerModule(const std::string& reducer_param,
                               const std::string& reducer_result) {
  return "HloModule m\n"
         "sum {\n"
         "  a = " +
         reducer_param +
         " parameter(0)\n"
         "  b = " +
         reducer_param +
         " parameter(1)\n"
         "  ROOT c = " +
         reducer_result +
         " add(a, b)\n"
         "}\n"
         "ENTRY e {\n"
         "  p = s32[3] parameter(0)\n"
         "  r = s32[3] all-reduce(p), replica_groups={}, to_apply=sum\n"
         "  s = s32[3] all-reduce-start(r), replica_groups={}, to_apply=sum\n"
         "  ROOT d = s32[3] all-reduce-done(s)\n"
         "}\n";
}

TEST(PassTestFormsTest, CollectiveReducerMayTakeWholeArrays) {
  EXPECT_EQ(VerifyErrors(ArrayReducerModule("s32[3]", "s32[3]")), "");
  // The same reducer shape need not match the operand: XLA does not look.
  EXPECT_EQ(VerifyErrors(ArrayReducerModule("s32[5]", "s32[5]")), "");
}

TEST(PassTestFormsTest, ArrayReducerStillNeedsOneElementTypeAndShape) {
  // Parameters of another element type, or a result of another shape than
  // the parameters, are still reported.
  std::string wrong_type =
      "HloModule m\n"
      "sum {\n"
      "  a = f32[3] parameter(0)\n"
      "  b = f32[3] parameter(1)\n"
      "  ROOT c = f32[3] add(a, b)\n"
      "}\n"
      "ENTRY e {\n"
      "  p = s32[3] parameter(0)\n"
      "  ROOT r = s32[3] all-reduce(p), replica_groups={}, to_apply=sum\n"
      "}\n";
  EXPECT_THAT(VerifyErrors(wrong_type), HasSubstr("reducer computation %sum parameter 0 must "
                                                  "be s32[], got f32[3]"));
  std::string wrong_result =
      "HloModule m\n"
      "sum {\n"
      "  a = s32[3] parameter(0)\n"
      "  b = s32[3] parameter(1)\n"
      "  c = s32[3] add(a, b)\n"
      "  ROOT s = s32[1] slice(c), slice={[0:1]}\n"
      "}\n"
      "ENTRY e {\n"
      "  p = s32[3] parameter(0)\n"
      "  ROOT r = s32[3] all-reduce(p), replica_groups={}, to_apply=sum\n"
      "}\n";
  EXPECT_THAT(VerifyErrors(wrong_result), HasSubstr("must return s32[3], returns s32[1]"));
}

}  // namespace
}  // namespace xlite
