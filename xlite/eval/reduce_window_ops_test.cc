#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/eval/reduction_test_util.h"

namespace xlite::eval {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::EvaluateText;
using testing::MakeLiteral;
using testing::ToDoubles;
using testing::TupleDoubles;

// reduce-window of parameter 0 (`in`) to `out` with `window`, the f32 scalar
// reducer `op` and init parameter 1.
std::string WindowModule(const std::string& in, const std::string& out, const std::string& window,
                         const std::string& op) {
  return "HloModule m\nr {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
         "  ROOT c = f32[] " +
         op + "(a, b)\n}\nENTRY e {\n  x = " + in +
         " parameter(0)\n  i = f32[] parameter(1)\n  ROOT y = " + out +
         " reduce-window(x, i), window={" + window + "}, to_apply=r\n}\n";
}

absl::StatusOr<Literal> Window1D(const std::string& out, const std::string& window,
                                 const std::vector<double>& x, double init) {
  std::string in = "f32[" + std::to_string(x.size()) + "]";
  return EvaluateText(WindowModule(in, out, window, "add"),
                      {MakeLiteral(in, x), MakeLiteral("f32[]", {init})});
}

TEST(ReduceWindow, StrideAndPadding) {
  // Padded [p 1 2 3 4 5 p], windows of 3 every 2: p+1+2, 2+3+4, 4+5+p.
  auto r = Window1D("f32[3]", "size=3 stride=2 pad=1_1", {1, 2, 3, 4, 5}, 0);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(3, 9, 9));
}

TEST(ReduceWindow, BaseDilationHolesReadNothing) {
  // Dilated base [1 h 2 h 3]; a window of one on a hole gives the init.
  auto ones = Window1D("f32[5]", "size=1 lhs_dilate=2", {1, 2, 3}, 10);
  ASSERT_TRUE(ones.ok()) << ones.status();
  EXPECT_THAT(ToDoubles(*ones), ElementsAre(11, 10, 12, 10, 13));
  auto pairs = Window1D("f32[4]", "size=2 lhs_dilate=2", {1, 2, 3}, 0);
  ASSERT_TRUE(pairs.ok()) << pairs.status();
  EXPECT_THAT(ToDoubles(*pairs), ElementsAre(1, 2, 2, 3));
}

TEST(ReduceWindow, WindowDilation) {
  // Taps 3 apart: x0+x3, x1+x4, x2+x5.
  auto r = Window1D("f32[3]", "size=2 rhs_dilate=3", {1, 2, 3, 4, 5, 6}, 0);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(5, 7, 9));
}

TEST(ReduceWindow, AllFeaturesTogether) {
  // x = [1 2 3], lhs_dilate=2 -> [1 h 2 h 3], pad 2_1 -> [p p 1 h 2 h 3 p]
  // (8 wide), size 2 with rhs_dilate 2 spans 3, stride 2: starts 0, 2, 4:
  // {p, 1}, {1, 2}, {2, 3}.
  auto r = Window1D("f32[3]", "size=2 stride=2 pad=2_1 lhs_dilate=2 rhs_dilate=2", {1, 2, 3}, 0);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(1, 3, 5));
}

TEST(ReduceWindow, MaxPool2D) {
  Literal x = MakeLiteral("f32[4,4]", {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3});
  Literal lo = MakeLiteral("f32[]", {-INFINITY});
  auto pool =
      EvaluateText(WindowModule("f32[4,4]", "f32[2,2]", "size=2x2 stride=2x2", "maximum"), {x, lo});
  ASSERT_TRUE(pool.ok()) << pool.status();
  EXPECT_THAT(ToDoubles(*pool), ElementsAre(9, 6, 9, 9));
  // 3x3 "same" pooling of 1..9: each output is the max of its neighbourhood.
  auto same = EvaluateText(WindowModule("f32[3,3]", "f32[3,3]", "size=3x3 pad=1_1x1_1", "maximum"),
                           {MakeLiteral("f32[3,3]", {1, 2, 3, 4, 5, 6, 7, 8, 9}), lo});
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_THAT(ToDoubles(*same), ElementsAre(5, 6, 6, 8, 9, 9, 8, 9, 9));
}

TEST(ReduceWindow, VariadicFoldsPairsInWindowOrder) {
  // (acc0, acc1, x0, x1) -> (x1, x0): the result is the window's last pair,
  // swapped; needs no arithmetic handler.
  auto r =
      EvaluateText(R"(
HloModule m
swap {
  a0 = f32[] parameter(0)
  a1 = f32[] parameter(1)
  x0 = f32[] parameter(2)
  x1 = f32[] parameter(3)
  ROOT t = (f32[], f32[]) tuple(x1, x0)
}
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  z = f32[] constant(0)
  ROOT r = (f32[3], f32[3]) reduce-window(a, b, z, z), window={size=2}, to_apply=swap
})",
                   {MakeLiteral("f32[4]", {1, 2, 3, 4}), MakeLiteral("f32[4]", {10, 20, 30, 40})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(TupleDoubles(*r, 0), ElementsAre(20, 30, 40));
  EXPECT_THAT(TupleDoubles(*r, 1), ElementsAre(2, 3, 4));
}

// General path (compare/select from the elementwise family): windowed argmax.
TEST(ReduceWindow, VariadicArgmax) {
  auto r = EvaluateText(std::string(testing::kArgmaxModuleHead) + R"(
ENTRY e {
  v = f32[4] parameter(0)
  k = s32[4] parameter(1)
  lo = f32[] constant(-inf)
  n = s32[] constant(-1)
  ROOT r = (f32[3], s32[3]) reduce-window(v, k, lo, n), window={size=2}, to_apply=argmax
})",
                        {MakeLiteral("f32[4]", {1, 3, 2, 5}), MakeLiteral("s32[4]", {0, 1, 2, 3})});
  XLITE_SKIP_IF_NO_RULE(r);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(TupleDoubles(*r, 0), ElementsAre(3, 3, 5));
  EXPECT_THAT(TupleDoubles(*r, 1), ElementsAre(1, 1, 3));
}

// select-and-scatter of parameter 0 with source parameter 1, init 0, the
// select computation `select` and add as scatter.
std::string ScatterModule(const std::string& in, const std::string& src, const std::string& window,
                          const std::string& select) {
  return "HloModule m\nsel {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = " +
         select +
         "\n}\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
         "  ROOT c = f32[] add(a, b)\n}\nENTRY e {\n  x = " +
         in + " parameter(0)\n  s = " + src +
         " parameter(1)\n  z = f32[] constant(0)\n  ROOT y = " + in +
         " select-and-scatter(x, s, z), window={" + window + "}, select=sel, scatter=add\n}\n";
}

TEST(SelectAndScatter, MaxPoolGradient) {
  auto r = EvaluateText(ScatterModule("f32[4,4]", "f32[2,2]", "size=2x2 stride=2x2",
                                      "pred[] compare(a, b), direction=GE"),
                        {MakeLiteral("f32[4,4]", {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3}),
                         MakeLiteral("f32[2,2]", {1, 2, 3, 4})});
  ASSERT_TRUE(r.ok()) << r.status();
  // The maxima sit at (1,1), (1,3), (3,0), (3,2).
  EXPECT_THAT(ToDoubles(*r), ElementsAreArray({0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 3, 0, 4, 0}));
}

TEST(SelectAndScatter, TiesAndOverlapAndPaddingNeverSelected) {
  // Windows of 3, stride 1, pad 1_1 over [-1 -5 -2 -5]: a padding element
  // would win every window if it counted as 0. GE keeps the first of equal
  // values, GT the last.
  Literal x = MakeLiteral("f32[4]", {-1, -5, -2, -5});
  Literal s = MakeLiteral("f32[4]", {1, 2, 3, 4});
  auto ge = EvaluateText(
      ScatterModule("f32[4]", "f32[4]", "size=3 pad=1_1", "pred[] compare(a, b), direction=GE"),
      {x, s});
  ASSERT_TRUE(ge.ok()) << ge.status();
  EXPECT_THAT(ToDoubles(*ge), ElementsAre(3, 0, 7, 0));
  Literal ties = MakeLiteral("f32[4]", {5, 5, 5, 5});
  auto first = EvaluateText(
      ScatterModule("f32[4]", "f32[4]", "size=3 pad=1_1", "pred[] compare(a, b), direction=GE"),
      {ties, s});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_THAT(ToDoubles(*first), ElementsAre(1 + 2, 3, 4, 0));
  // compare(b, a) LE is GE written the other way round: same answer.
  auto swapped = EvaluateText(
      ScatterModule("f32[4]", "f32[4]", "size=3 pad=1_1", "pred[] compare(b, a), direction=LE"),
      {ties, s});
  ASSERT_TRUE(swapped.ok()) << swapped.status();
  EXPECT_THAT(ToDoubles(*swapped), ElementsAre(1 + 2, 3, 4, 0));
  auto last = EvaluateText(
      ScatterModule("f32[4]", "f32[4]", "size=3 pad=1_1", "pred[] compare(a, b), direction=GT"),
      {ties, s});
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_THAT(ToDoubles(*last), ElementsAre(0, 1, 2, 3 + 4));
}

TEST(SelectAndScatter, GeneralSelectAndScatterComputations) {
  // select = constant true keeps the first valid element; scatter returns
  // its first argument, the source value (XLA calls scatter(source, output)).
  auto r = EvaluateText(R"(
HloModule m
sel {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT t = pred[] constant(true)
}
keep_source {
  ROOT s = f32[] parameter(0)
  o = f32[] parameter(1)
}
ENTRY e {
  x = f32[4] parameter(0)
  s = f32[4] parameter(1)
  z = f32[] constant(-7)
  ROOT y = f32[4] select-and-scatter(x, s, z), window={size=3 pad=1_1}, select=sel, scatter=keep_source
})",
                        {MakeLiteral("f32[4]", {9, 8, 7, 6}), MakeLiteral("f32[4]", {1, 2, 3, 4})});
  ASSERT_TRUE(r.ok()) << r.status();
  // First valid elements: 0, 0, 1, 2.
  EXPECT_THAT(ToDoubles(*r), ElementsAre(2, 3, 4, -7));
}

}  // namespace
}  // namespace xlite::eval
