#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/eval/reduction_test_util.h"

namespace xlite::eval {
namespace {

using ::testing::ElementsAre;
using testing::EvaluateText;
using testing::MakeLiteral;
using testing::ToDoubles;
using testing::TupleDoubles;

// sort of one `shape` parameter along `dim` by `compare(<lhs>, <rhs>)`.
std::string SortModule(const std::string& shape, int dim, const std::string& compare) {
  std::string t = shape.substr(0, shape.find('['));
  return "HloModule m\ncmp {\n  a = " + t + "[] parameter(0)\n  b = " + t +
         "[] parameter(1)\n  ROOT c = pred[] compare(" + compare +
         "\n}\nENTRY e {\n  x = " + shape + " parameter(0)\n  ROOT s = " + shape +
         " sort(x), dimensions={" + std::to_string(dim) + "}, to_apply=cmp\n}\n";
}

TEST(Sort, AscendingAndDescending) {
  Literal x = MakeLiteral("f32[5]", {3, 1, 4, 1, 5});
  auto up = EvaluateText(SortModule("f32[5]", 0, "a, b), direction=LT"), {x});
  ASSERT_TRUE(up.ok()) << up.status();
  EXPECT_THAT(ToDoubles(*up), ElementsAre(1, 1, 3, 4, 5));
  auto down = EvaluateText(SortModule("f32[5]", 0, "a, b), direction=GT"), {x});
  ASSERT_TRUE(down.ok()) << down.status();
  EXPECT_THAT(ToDoubles(*down), ElementsAre(5, 4, 3, 1, 1));
  // compare(b, a) GT is LT written the other way round.
  auto swapped = EvaluateText(SortModule("f32[5]", 0, "b, a), direction=GT"), {x});
  ASSERT_TRUE(swapped.ok()) << swapped.status();
  EXPECT_THAT(ToDoubles(*swapped), ElementsAre(1, 1, 3, 4, 5));
}

TEST(Sort, AlongEitherDimensionOfAMatrix) {
  Literal x = MakeLiteral("s32[2,3]", {3, -1, 2, 0, 5, -4});
  auto rows = EvaluateText(SortModule("s32[2,3]", 1, "a, b), direction=LT"), {x});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(ToDoubles(*rows), ElementsAre(-1, 2, 3, -4, 0, 5));
  auto cols = EvaluateText(SortModule("s32[2,3]", 0, "a, b), direction=LT"), {x});
  ASSERT_TRUE(cols.ok()) << cols.status();
  EXPECT_THAT(ToDoubles(*cols), ElementsAre(0, -1, -4, 3, 5, 2));
}

TEST(Sort, UnsignedKeysCompareAsUnsigned) {
  Literal x = MakeLiteral("u8[4]", {200, 3, 255, 0});
  auto r = EvaluateText(SortModule("u8[4]", 0, "a, b), direction=LT"), {x});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(0, 3, 200, 255));
}

// sort of (s32[n] keys, f32[n] payload) by `compare` of the comparator's
// parameters ka, kb (keys) and pa, pb (payload).
std::string KeyPayloadModule(int n, const std::string& compare) {
  std::string dims = "[" + std::to_string(n) + "]";
  return "HloModule m\ncmp {\n  ka = s32[] parameter(0)\n  kb = s32[] parameter(1)\n"
         "  pa = f32[] parameter(2)\n  pb = f32[] parameter(3)\n  ROOT c = pred[] compare(" +
         compare + "\n}\nENTRY e {\n  k = s32" + dims + " parameter(0)\n  p = f32" + dims +
         " parameter(1)\n  ROOT s = (s32" + dims + ", f32" + dims +
         ") sort(k, p), dimensions={0}, is_stable=true, to_apply=cmp\n}\n";
}

TEST(Sort, KeyAndPayloadStableOnTies) {
  auto r = EvaluateText(
      KeyPayloadModule(6, "ka, kb), direction=LT"),
      {MakeLiteral("s32[6]", {3, 1, 4, 1, 3, 1}), MakeLiteral("f32[6]", {10, 20, 30, 40, 50, 60})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(TupleDoubles(*r, 0), ElementsAre(1, 1, 1, 3, 3, 4));
  EXPECT_THAT(TupleDoubles(*r, 1), ElementsAre(20, 40, 60, 10, 50, 30));
}

TEST(Sort, ByTheSecondOperand) {
  auto r =
      EvaluateText(KeyPayloadModule(4, "pa, pb), direction=GT"),
                   {MakeLiteral("s32[4]", {0, 1, 2, 3}), MakeLiteral("f32[4]", {2, 8, -1, 5})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(TupleDoubles(*r, 0), ElementsAre(1, 3, 0, 2));
  EXPECT_THAT(TupleDoubles(*r, 1), ElementsAre(8, 5, 2, -1));
}

TEST(Sort, TotalOrderPlacesNaNAndSignedZeros) {
  Literal x = MakeLiteral("f32[7]", {NAN, 1, -NAN, -INFINITY, 0.0, -0.0, INFINITY});
  auto r = EvaluateText(SortModule("f32[7]", 0, "a, b), direction=LT, type=TOTALORDER"), {x});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<double> v = ToDoubles(*r);
  ASSERT_EQ(v.size(), 7u);
  EXPECT_TRUE(std::isnan(v[0]) && std::signbit(v[0]));
  EXPECT_EQ(v[1], -INFINITY);
  EXPECT_TRUE(v[2] == 0 && std::signbit(v[2]));
  EXPECT_TRUE(v[3] == 0 && !std::signbit(v[3]));
  EXPECT_EQ(v[4], 1);
  EXPECT_EQ(v[5], INFINITY);
  EXPECT_TRUE(std::isnan(v[6]) && !std::signbit(v[6]));
}

TEST(Sort, ConstantComparatorTakesTheGeneralPathAndKeepsOrder) {
  auto r = EvaluateText(R"(
HloModule m
never {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT f = pred[] constant(false)
}
ENTRY e {
  x = f32[4] parameter(0)
  ROOT s = f32[4] sort(x), dimensions={0}, to_apply=never
})",
                        {MakeLiteral("f32[4]", {4, 2, 3, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(4, 2, 3, 1));
}

// General path (compare/select/and from the elementwise family): a JAX-style
// two-key comparator, key 0 then key 1.
TEST(Sort, TwoKeyComparator) {
  auto r =
      EvaluateText(R"(
HloModule m
cmp {
  a0 = s32[] parameter(0)
  b0 = s32[] parameter(1)
  a1 = s32[] parameter(2)
  b1 = s32[] parameter(3)
  eq = pred[] compare(a0, b0), direction=EQ
  lt0 = pred[] compare(a0, b0), direction=LT
  lt1 = pred[] compare(a1, b1), direction=LT
  ROOT c = pred[] select(eq, lt1, lt0)
}
ENTRY e {
  k0 = s32[4] parameter(0)
  k1 = s32[4] parameter(1)
  ROOT s = (s32[4], s32[4]) sort(k0, k1), dimensions={0}, to_apply=cmp
})",
                   {MakeLiteral("s32[4]", {2, 1, 2, 1}), MakeLiteral("s32[4]", {0, 5, -1, 3})});
  XLITE_SKIP_IF_NO_RULE(r);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(TupleDoubles(*r, 0), ElementsAre(1, 1, 2, 2));
  EXPECT_THAT(TupleDoubles(*r, 1), ElementsAre(3, 5, -1, 0));
}

// General path (and/compare from the elementwise family): a comparator the
// matcher does not take gives exactly the native answer, even for FLOAT
// compares of NaN, which are no strict weak order.
TEST(Sort, GeneralComparatorAgreesWithTheNativeOne) {
  Literal x = MakeLiteral("f32[9]", {3, NAN, -1, 2, NAN, 0, -0.0, 7, 2});
  auto native = EvaluateText(SortModule("f32[9]", 0, "a, b), direction=LT"), {x});
  auto general = EvaluateText(R"(
HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = pred[] compare(a, b), direction=LT
  ROOT r = pred[] and(c, c)
}
ENTRY e {
  x = f32[9] parameter(0)
  ROOT s = f32[9] sort(x), dimensions={0}, to_apply=cmp
})",
                              {x});
  XLITE_SKIP_IF_NO_RULE(general);
  ASSERT_TRUE(native.ok() && general.ok()) << native.status() << general.status();
  EXPECT_EQ(*native, *general);
}

std::string TopKModule(const std::string& shape, const std::string& out, int k, bool largest) {
  return "HloModule m\nENTRY e {\n  x = " + shape + " parameter(0)\n  ROOT t = (" + out + ", s32" +
         out.substr(out.find('[')) + ") topk(x), k=" + std::to_string(k) +
         ", largest=" + (largest ? "true" : "false") + "\n}\n";
}

TEST(TopK, LargestAndSmallestWithTiesAndNaN) {
  Literal x = MakeLiteral("f32[2,5]", {1, 5, 3, 5, 2, NAN, -1, 4, -NAN, 4});
  auto big = EvaluateText(TopKModule("f32[2,5]", "f32[2,3]", 3, true), {x});
  ASSERT_TRUE(big.ok()) << big.status();
  std::vector<double> v = TupleDoubles(*big, 0);
  EXPECT_THAT(std::vector<double>(v.begin(), v.begin() + 3), ElementsAre(5, 5, 3));
  EXPECT_TRUE(std::isnan(v[3]) && !std::signbit(v[3]));  // +NaN is the largest
  EXPECT_THAT(std::vector<double>(v.begin() + 4, v.end()), ElementsAre(4, 4));
  EXPECT_THAT(TupleDoubles(*big, 1), ElementsAre(1, 3, 2, 0, 2, 4));

  auto small = EvaluateText(TopKModule("f32[2,5]", "f32[2,3]", 3, false), {x});
  ASSERT_TRUE(small.ok()) << small.status();
  v = TupleDoubles(*small, 0);
  EXPECT_THAT(std::vector<double>(v.begin(), v.begin() + 3), ElementsAre(1, 2, 3));
  EXPECT_TRUE(std::isnan(v[3]) && std::signbit(v[3]));  // -NaN is the smallest
  EXPECT_THAT(std::vector<double>(v.begin() + 4, v.end()), ElementsAre(-1, 4));
  EXPECT_THAT(TupleDoubles(*small, 1), ElementsAre(0, 4, 2, 3, 1, 2));
}

TEST(TopK, IntegersAndTiesByLowerIndex) {
  Literal x = MakeLiteral("s32[6]", {7, -3, 7, 0, 7, -3});
  auto big = EvaluateText(TopKModule("s32[6]", "s32[2]", 2, true), {x});
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_THAT(TupleDoubles(*big, 0), ElementsAre(7, 7));
  EXPECT_THAT(TupleDoubles(*big, 1), ElementsAre(0, 2));
  auto small = EvaluateText(TopKModule("s32[6]", "s32[3]", 3, false), {x});
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_THAT(TupleDoubles(*small, 0), ElementsAre(-3, -3, 0));
  EXPECT_THAT(TupleDoubles(*small, 1), ElementsAre(1, 5, 3));
}

}  // namespace
}  // namespace xlite::eval
