// Verifier rules found by running the HLO modules of XLA's pass tests through
// xlite: XLA's verifier does not check a collective's reducer, and its GPU
// tests reduce with computations over whole arrays; a scatter may update in
// another float precision; shardings of unpartitioned modules may name any
// distinct devices.
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

TEST(PassTestFormsTest, ScatterMayUpdateInAnotherFloatPrecision) {
  const std::string scatter =
      "HloModule m\n"
      "acc {\n"
      "  a = f32[] parameter(0)\n"
      "  b = f32[] parameter(1)\n"
      "  ROOT c = f32[] add(a, b)\n"
      "}\n"
      "ENTRY e {\n"
      "  t = bf16[6,2] parameter(0)\n"
      "  i = s32[3,1] parameter(1)\n"
      "  u = bf16[3,2] parameter(2)\n"
      "  ROOT s = bf16[6,2] scatter(t, i, u), update_window_dims={1}, inserted_window_dims={0},\n"
      "    scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=acc\n"
      "}\n";
  EXPECT_EQ(VerifyErrors(scatter), "");
  std::string integers = scatter;
  for (size_t at = integers.find("f32"); at != std::string::npos; at = integers.find("f32")) {
    integers.replace(at, 3, "s32");
  }
  EXPECT_THAT(VerifyErrors(integers), HasSubstr("scatter computation %acc parameter 0 must be"));
}

TEST(PassTestFormsTest, UnpartitionedShardingsMayNameDeviceSubsets) {
  const std::string subset =
      "HloModule m\n"
      "ENTRY e {\n"
      "  p = f32[8] parameter(0), sharding={devices=[2]5,2}\n"
      "  ROOT q = f32[8] negate(p), sharding={devices=[3,2]1,2,3,4,6,7 last_tile_dim_replicate}\n"
      "}\n";
  EXPECT_EQ(VerifyErrors(subset), "");
  std::string twice = subset;
  twice.replace(twice.find("5,2"), 3, "2,2");
  EXPECT_THAT(VerifyErrors(twice), HasSubstr("device 2 appears twice"));
}

}  // namespace
}  // namespace xlite
