// Data-movement handlers on small modules; every expected value is worked
// out by hand in the comment beside it.
#include <complex>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/eval/eval_test_util.h"

namespace xlite::eval {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::EvaluateText;
using ::testing::HasSubstr;
using testing::MakeLiteral;
using testing::ToDoubles;

// Evaluates `body` (the entry's instructions) with `args` and returns the
// root's values; fails the test on an error.
std::vector<double> Entry(const std::string& params_and_body, const std::vector<Literal>& args) {
  auto r = EvaluateText("HloModule m\nENTRY e {\n" + params_and_body + "\n}\n", args);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? ToDoubles(*r) : std::vector<double>{};
}

std::vector<double> Iota(int n) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(DataMovement, BroadcastIntoMiddleDims) {
  // out[i,j,k] = x[j]: each x value repeated along k, the block twice along i.
  EXPECT_THAT(Entry(R"(x = s32[3] parameter(0)
  ROOT b = s32[2,3,2] broadcast(x), dimensions={1})",
                    {MakeLiteral("s32[3]", {1, 2, 3})}),
              ElementsAre(1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3));
  // out[i,j,k] = x[i,k]: the rows repeated along the middle dim.
  EXPECT_THAT(Entry(R"(x = f32[2,3] parameter(0)
  ROOT b = f32[2,2,3] broadcast(x), dimensions={0,2})",
                    {MakeLiteral("f32[2,3]", {1, 2, 3, 4, 5, 6})}),
              ElementsAre(1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6));
  // An unsorted mapping transposes: out[i,j] = x[j,i].
  EXPECT_THAT(Entry(R"(x = f32[2,3] parameter(0)
  ROOT b = f32[3,2] broadcast(x), dimensions={1,0})",
                    {MakeLiteral("f32[2,3]", {1, 2, 3, 4, 5, 6})}),
              ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_THAT(Entry(R"(x = bf16[] parameter(0)
  ROOT b = bf16[3] broadcast(x), dimensions={})",
                    {MakeLiteral("bf16[]", {2.5})}),
              ElementsAre(2.5, 2.5, 2.5));
}

TEST(DataMovement, Transpose3D) {
  // x[a,b,c] = 12a + 4b + c; out[i,j,k] = x[j,k,i] = 12j + 4k + i.
  EXPECT_THAT(Entry(R"(x = s32[2,3,4] parameter(0)
  ROOT t = s32[4,2,3] transpose(x), dimensions={2,0,1})",
                    {MakeLiteral("s32[2,3,4]", Iota(24))}),
              ElementsAre(0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11,
                          15, 19, 23));
}

TEST(DataMovement, TransposeOfPredAndSubByte) {
  EXPECT_THAT(Entry(R"(x = pred[2,2] parameter(0)
  ROOT t = pred[2,2] transpose(x), dimensions={1,0})",
                    {MakeLiteral("pred[2,2]", {1, 1, 0, 1})}),
              ElementsAre(1, 0, 1, 1));
  EXPECT_THAT(Entry(R"(x = s4[2,2] parameter(0)
  ROOT t = s4[2,2] transpose(x), dimensions={1,0})",
                    {MakeLiteral("s4[2,2]", {-8, 7, -1, 3})}),
              ElementsAre(-8, -1, 7, 3));
}

TEST(DataMovement, SliceWithStrides) {
  // x[r,c] = 5r + c; rows 1,3 and columns 0,3.
  EXPECT_THAT(Entry(R"(x = f32[4,5] parameter(0)
  ROOT s = f32[2,2] slice(x), slice={[1:4:2], [0:5:3]})",
                    {MakeLiteral("f32[4,5]", Iota(20))}),
              ElementsAre(5, 8, 15, 18));
}

TEST(DataMovement, DynamicSliceClampsStarts) {
  constexpr const char* kBody = R"(x = f32[4,5] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  ROOT d = f32[2,3] dynamic-slice(x, i, j), dynamic_slice_sizes={2,3})";
  Literal x = MakeLiteral("f32[4,5]", Iota(20));  // x[r,c] = 5r + c
  // (3, -1) clamps to (2, 0).
  EXPECT_THAT(Entry(kBody, {x, MakeLiteral("s32[]", {3}), MakeLiteral("s32[]", {-1})}),
              ElementsAre(10, 11, 12, 15, 16, 17));
  // (-5, 9) clamps to (0, 2).
  EXPECT_THAT(Entry(kBody, {x, MakeLiteral("s32[]", {-5}), MakeLiteral("s32[]", {9})}),
              ElementsAre(2, 3, 4, 7, 8, 9));
  // In range: (1, 1).
  EXPECT_THAT(Entry(kBody, {x, MakeLiteral("s32[]", {1}), MakeLiteral("s32[]", {1})}),
              ElementsAre(6, 7, 8, 11, 12, 13));
}

TEST(DataMovement, DynamicSliceUnsignedIndices) {
  // u32 4294967295 and u64 2^64-1 are huge, not -1: both clamp to the end.
  Literal big32(Shape::Scalar(PrimitiveType::U32));
  big32.SetInt64(0, 4294967295);
  EXPECT_THAT(Entry(R"(x = f32[5] parameter(0)
  i = u32[] parameter(1)
  ROOT d = f32[2] dynamic-slice(x, i), dynamic_slice_sizes={2})",
                    {MakeLiteral("f32[5]", Iota(5)), big32}),
              ElementsAre(3, 4));
  Literal big64(Shape::Scalar(PrimitiveType::U64));
  big64.Set<uint64_t>(0, ~uint64_t{0});
  EXPECT_THAT(Entry(R"(x = f32[5] parameter(0)
  i = u64[] parameter(1)
  ROOT d = f32[2] dynamic-slice(x, i), dynamic_slice_sizes={2})",
                    {MakeLiteral("f32[5]", Iota(5)), big64}),
              ElementsAre(3, 4));
  EXPECT_THAT(Entry(R"(x = f32[5] parameter(0)
  i = u8[] parameter(1)
  ROOT d = f32[2] dynamic-slice(x, i), dynamic_slice_sizes={2})",
                    {MakeLiteral("f32[5]", Iota(5)), MakeLiteral("u8[]", {1})}),
              ElementsAre(1, 2));
}

TEST(DataMovement, DynamicUpdateSliceClampsStarts) {
  constexpr const char* kBody = R"(x = s32[3,4] parameter(0)
  u = s32[2,2] parameter(1)
  i = s64[] parameter(2)
  j = s64[] parameter(3)
  ROOT d = s32[3,4] dynamic-update-slice(x, u, i, j))";
  Literal x = MakeLiteral("s32[3,4]", std::vector<double>(12, 0));
  Literal u = MakeLiteral("s32[2,2]", {1, 2, 3, 4});
  // (2, 3) clamps to (1, 2): rows 1-2, columns 2-3.
  EXPECT_THAT(Entry(kBody, {x, u, MakeLiteral("s64[]", {2}), MakeLiteral("s64[]", {3})}),
              ElementsAre(0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4));
  // (-1, 1) clamps to (0, 1).
  EXPECT_THAT(Entry(kBody, {x, u, MakeLiteral("s64[]", {-1}), MakeLiteral("s64[]", {1})}),
              ElementsAre(0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0));
}

TEST(DataMovement, PadNegativeAndInterior) {
  constexpr const char* kBody1 = R"(x = f32[3] parameter(0)
  v = f32[] constant(9)
  ROOT p = f32[6] pad(x, v), padding=-1_2_1)";
  // Interior: 1 9 2 9 3; low -1 drops the 1; high 2 appends 9 9.
  EXPECT_THAT(Entry(kBody1, {MakeLiteral("f32[3]", {1, 2, 3})}), ElementsAre(9, 2, 9, 3, 9, 9));
  // Interior 2: 1 9 9 2 9 9 3; low -2 drops "1 9".
  EXPECT_THAT(Entry(R"(x = f32[3] parameter(0)
  v = f32[] constant(9)
  ROOT p = f32[5] pad(x, v), padding=-2_0_2)",
                    {MakeLiteral("f32[3]", {1, 2, 3})}),
              ElementsAre(9, 2, 9, 9, 3));
  // Rows: 9-row, r0, 9-row, r1 (low 1, interior 1); columns: only the
  // middle one survives -1_-1.
  EXPECT_THAT(Entry(R"(x = f32[2,3] parameter(0)
  v = f32[] constant(9)
  ROOT p = f32[4,1] pad(x, v), padding=1_0_1x-1_-1)",
                    {MakeLiteral("f32[2,3]", {1, 2, 3, 4, 5, 6})}),
              ElementsAre(9, 2, 9, 5));
  // Cropping everything but padding: high -3 of [1 9 2 9 3] keeps "1 9".
  EXPECT_THAT(Entry(R"(x = f32[3] parameter(0)
  v = f32[] constant(9)
  ROOT p = f32[2] pad(x, v), padding=0_-3_1)",
                    {MakeLiteral("f32[3]", {1, 2, 3})}),
              ElementsAre(1, 9));
}

TEST(DataMovement, ReverseMultipleDims) {
  EXPECT_THAT(Entry(R"(x = s32[2,3] parameter(0)
  ROOT r = s32[2,3] reverse(x), dimensions={0,1})",
                    {MakeLiteral("s32[2,3]", Iota(6))}),
              ElementsAre(5, 4, 3, 2, 1, 0));
  // out[i,j,k] = x[1-i, j, 1-k] with x[a,b,c] = 4a + 2b + c.
  EXPECT_THAT(Entry(R"(x = s32[2,2,2] parameter(0)
  ROOT r = s32[2,2,2] reverse(x), dimensions={0,2})",
                    {MakeLiteral("s32[2,2,2]", Iota(8))}),
              ElementsAre(5, 4, 7, 6, 1, 0, 3, 2));
}

TEST(DataMovement, ReverseComplex) {
  Literal x(Shape(PrimitiveType::C64, {2}));
  x.SetComplex(0, {1, 2});
  x.SetComplex(1, {3, 4});
  auto r = EvaluateText(R"(HloModule m
ENTRY e {
  x = c64[2] parameter(0)
  ROOT r = c64[2] reverse(x), dimensions={0}
})",
                        {x});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->GetComplex(0), std::complex<double>(3, 4));
  EXPECT_EQ(r->GetComplex(1), std::complex<double>(1, 2));
}

TEST(DataMovement, ConcatenateThreeOperands) {
  // Operands a, b, c of the given shapes hold 1-2, 3-6 and 7-8.
  auto concat = [](const std::string& a, const std::string& b, const std::string& c,
                   const std::string& out, int dim) {
    return Entry("a = " + a + " parameter(0)\n  b = " + b + " parameter(1)\n  c = " + c +
                     " parameter(2)\n  ROOT r = " + out + " concatenate(a, b, c), dimensions={" +
                     std::to_string(dim) + "}",
                 {MakeLiteral(a, {1, 2}), MakeLiteral(b, {3, 4, 5, 6}), MakeLiteral(c, {7, 8})});
  };
  // Along columns: rows [1 | 3 4 | 7] and [2 | 5 6 | 8].
  EXPECT_THAT(concat("f32[2,1]", "f32[2,2]", "f32[2,1]", "f32[2,4]", 1),
              ElementsAre(1, 3, 4, 7, 2, 5, 6, 8));
  // Along rows: the operands one after another.
  EXPECT_THAT(concat("s8[1,2]", "s8[2,2]", "s8[1,2]", "s8[4,2]", 0),
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
}

TEST(DataMovement, BitcastBetweenLayouts) {
  Literal x = MakeLiteral("f32[2,3]", {1, 2, 3, 4, 5, 6});
  // Column-major [[1,2,3],[4,5,6]] is stored 1 4 2 5 3 6; read back row-major
  // as [3,2] that is [[1,4],[2,5],[3,6]].
  EXPECT_THAT(Entry(R"(x = f32[2,3]{0,1} parameter(0)
  ROOT b = f32[3,2]{1,0} bitcast(x))",
                    {x}),
              ElementsAre(1, 4, 2, 5, 3, 6));
  // Row-major storage 1..6 read as column-major [3,2]: element (i,j) is at
  // i + 3j, so rows are (1,4), (2,5), (3,6).
  EXPECT_THAT(Entry(R"(x = f32[2,3]{1,0} parameter(0)
  ROOT b = f32[3,2]{0,1} bitcast(x))",
                    {x}),
              ElementsAre(1, 4, 2, 5, 3, 6));
  // Both row-major: a reshape.
  EXPECT_THAT(Entry(R"(x = f32[2,3]{1,0} parameter(0)
  ROOT b = f32[6]{0} bitcast(x))",
                    {x}),
              ElementsAre(1, 2, 3, 4, 5, 6));
  // No layouts at all: row-major too.
  EXPECT_THAT(Entry(R"(x = f32[2,3] parameter(0)
  ROOT b = f32[3,2] bitcast(x))",
                    {x}),
              ElementsAre(1, 2, 3, 4, 5, 6));
  // 3-D, {1,2,0}: dim 0 most major, then 2, then 1. x[a,b,c] = 4a + 2b + c is
  // stored in order (a,c,b): 0 2 1 3 4 6 5 7.
  EXPECT_THAT(Entry(R"(x = s32[2,2,2]{1,2,0} parameter(0)
  ROOT b = s32[8]{0} bitcast(x))",
                    {MakeLiteral("s32[2,2,2]", Iota(8))}),
              ElementsAre(0, 2, 1, 3, 4, 6, 5, 7));
}

TEST(DataMovement, BitcastSameWidthTypes) {
  auto r = EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  ROOT b = s32[2] bitcast(x)
})",
                        {MakeLiteral("f32[2]", {1, -2})});
  ASSERT_TRUE(r.ok()) << r.status();
  // 1.0f is 0x3f800000; -2.0f is 0xc0000000.
  EXPECT_EQ(r->GetInt64(0), 0x3f800000);
  EXPECT_EQ(r->GetInt64(1), static_cast<int32_t>(0xc0000000u));
}

TEST(DataMovement, BitcastTiledLayoutIsUnsupported) {
  auto r = EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[8,128]{1,0:T(8,128)} parameter(0)
  ROOT b = f32[1024]{0} bitcast(x)
})",
                        {MakeLiteral("f32[8,128]", std::vector<double>(1024, 0))});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("not supported yet"));
}

TEST(DataMovement, Reshape) {
  EXPECT_THAT(Entry(R"(x = u16[2,3] parameter(0)
  ROOT r = u16[3,1,2] reshape(x))",
                    {MakeLiteral("u16[2,3]", {1, 2, 3, 4, 5, 6})}),
              ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(DataMovement, DimensionSizes) {
  EXPECT_THAT(Entry(R"(x = f32[3,5] parameter(0)
  ROOT g = s32[] get-dimension-size(x), dimensions={1})",
                    {MakeLiteral("f32[3,5]", std::vector<double>(15, 0))}),
              ElementsAre(5));
  EXPECT_THAT(Entry(R"(x = f32[4] parameter(0)
  n = s32[] constant(2)
  ROOT s = f32[<=4] set-dimension-size(x, n), dimensions={0})",
                    {MakeLiteral("f32[4]", {1, 2, 3, 4})}),
              ElementsAre(1, 2, 3, 4));
}

TEST(DataMovement, DynamicReshape) {
  // Runtime sizes (2,3) of a [<=4,3] bound: rows 0-1 hold x, rows 2-3 zero.
  EXPECT_THAT(Entry(R"(x = f32[6] parameter(0)
  a = s32[] constant(2)
  b = s32[] constant(3)
  ROOT r = f32[<=4,3] dynamic-reshape(x, a, b))",
                    {MakeLiteral("f32[6]", {1, 2, 3, 4, 5, 6})}),
              ElementsAreArray({1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0}));
  // Sizes equal to the bounds: a plain reshape.
  EXPECT_THAT(Entry(R"(x = f32[6] parameter(0)
  a = s32[] constant(3)
  b = s32[] constant(2)
  ROOT r = f32[3,2] dynamic-reshape(x, a, b))",
                    {MakeLiteral("f32[6]", {1, 2, 3, 4, 5, 6})}),
              ElementsAre(1, 2, 3, 4, 5, 6));
}

}  // namespace
}  // namespace xlite::eval
