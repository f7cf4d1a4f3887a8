#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/eval/reduction_test_util.h"

namespace xlite::eval {
namespace {

using ::testing::ElementsAre;
using testing::EvaluateText;
using ::testing::HasSubstr;
using testing::MakeLiteral;
using testing::ToDoubles;
using testing::TupleDoubles;

// A module reducing parameter 0 of `in` to `out` over `dims` with the scalar
// reducer `op` of type `t` (add, maximum, ...), init parameter 1.
std::string ReduceModule(const std::string& t, const std::string& in, const std::string& out,
                         const std::string& dims, const std::string& op) {
  return "HloModule m\nr {\n  a = " + t + "[] parameter(0)\n  b = " + t +
         "[] parameter(1)\n  ROOT c = " + t + "[] " + op + "(a, b)\n}\nENTRY e {\n  x = " + in +
         " parameter(0)\n  i = " + t + "[] parameter(1)\n  ROOT y = " + out +
         " reduce(x, i), dimensions={" + dims + "}, to_apply=r\n}\n";
}

TEST(Reduce, OneDimension) {
  Literal x = MakeLiteral("f32[2,3]", {1, 2, 3, 4, 5, 6});
  auto rows = EvaluateText(ReduceModule("f32", "f32[2,3]", "f32[2]", "1", "add"),
                           {x, MakeLiteral("f32[]", {0})});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(ToDoubles(*rows), ElementsAre(6, 15));
  auto cols = EvaluateText(ReduceModule("f32", "f32[2,3]", "f32[3]", "0", "add"),
                           {x, MakeLiteral("f32[]", {0})});
  ASSERT_TRUE(cols.ok()) << cols.status();
  EXPECT_THAT(ToDoubles(*cols), ElementsAre(5, 7, 9));
}

TEST(Reduce, SeveralDimensionsInAnyListedOrder) {
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;
  Literal x = MakeLiteral("f32[2,3,4]", v);
  // y[j] = sum over i, k of 12i + 4j + k = 60 + 32j.
  for (const char* dims : {"0,2", "2,0"}) {
    auto r = EvaluateText(ReduceModule("f32", "f32[2,3,4]", "f32[3]", dims, "add"),
                          {x, MakeLiteral("f32[]", {0})});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_THAT(ToDoubles(*r), ElementsAre(60, 92, 124)) << dims;
  }
}

TEST(Reduce, AllDimensionsCountsTheInitOnce) {
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;
  auto r = EvaluateText(ReduceModule("s32", "s32[2,3,4]", "s32[]", "0,1,2", "add"),
                        {MakeLiteral("s32[2,3,4]", v), MakeLiteral("s32[]", {10})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(276 + 10));
}

TEST(Reduce, MaxAndMinPropagateNaN) {
  Literal x = MakeLiteral("f32[4]", {1, NAN, 3, 2});
  for (const char* op : {"maximum", "minimum"}) {
    auto r = EvaluateText(ReduceModule("f32", "f32[4]", "f32[]", "0", op),
                          {x, MakeLiteral("f32[]", {0})});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(std::isnan(r->GetDouble(0))) << op;
  }
  auto max = EvaluateText(ReduceModule("f32", "f32[3]", "f32[]", "0", "maximum"),
                          {MakeLiteral("f32[3]", {1, 7, 3}), MakeLiteral("f32[]", {-INFINITY})});
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_THAT(ToDoubles(*max), ElementsAre(7));
}

TEST(Reduce, IntegersWrapAndPredicatesUseLogic) {
  auto s8 = EvaluateText(ReduceModule("s8", "s8[3]", "s8[]", "0", "add"),
                         {MakeLiteral("s8[3]", {100, 100, 100}), MakeLiteral("s8[]", {0})});
  ASSERT_TRUE(s8.ok()) << s8.status();
  EXPECT_THAT(ToDoubles(*s8), ElementsAre(44));  // 300 mod 256
  auto s4 = EvaluateText(ReduceModule("s4", "s4[2]", "s4[]", "0", "add"),
                         {MakeLiteral("s4[2]", {7, 1}), MakeLiteral("s4[]", {0})});
  ASSERT_TRUE(s4.ok()) << s4.status();
  EXPECT_THAT(ToDoubles(*s4), ElementsAre(-8));
  auto u32 = EvaluateText(ReduceModule("u32", "u32[3]", "u32[]", "0", "xor"),
                          {MakeLiteral("u32[3]", {12, 10, 6}), MakeLiteral("u32[]", {1})});
  ASSERT_TRUE(u32.ok()) << u32.status();
  EXPECT_THAT(ToDoubles(*u32), ElementsAre(1 ^ 12 ^ 10 ^ 6));
  Literal p = MakeLiteral("pred[4]", {1, 1, 0, 1});
  auto all = EvaluateText(ReduceModule("pred", "pred[4]", "pred[]", "0", "and"),
                          {p, MakeLiteral("pred[]", {1})});
  auto any = EvaluateText(ReduceModule("pred", "pred[4]", "pred[]", "0", "or"),
                          {p, MakeLiteral("pred[]", {0})});
  ASSERT_TRUE(all.ok() && any.ok());
  EXPECT_THAT(ToDoubles(*all), ElementsAre(0));
  EXPECT_THAT(ToDoubles(*any), ElementsAre(1));
}

TEST(Reduce, NarrowFloatSumAccumulatesInF32) {
  // 1 + 2^-8 is a tie in bf16 and rounds back to 1 each time; the f32 sum
  // 1 + 3 * 2^-8 rounded once gives 1 + 2^-6.
  auto r = EvaluateText(
      ReduceModule("bf16", "bf16[4]", "bf16[]", "0", "add"),
      {MakeLiteral("bf16[4]", {1, 1.0 / 256, 1.0 / 256, 1.0 / 256}), MakeLiteral("bf16[]", {0})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(1.0 + 1.0 / 64));
  // 4096 times f16(0.1) = 0.0999755859375: rounded per step the sum stalls
  // at 256 (0.1 is under half of f16's spacing there); in f32 it is 409.5.
  auto f16 = EvaluateText(
      ReduceModule("f16", "f16[4096]", "f16[]", "0", "add"),
      {MakeLiteral("f16[4096]", std::vector<double>(4096, 0.1)), MakeLiteral("f16[]", {0})});
  ASSERT_TRUE(f16.ok()) << f16.status();
  EXPECT_THAT(ToDoubles(*f16), ElementsAre(409.5));
}

// General path (multiply/convert from the elementwise family): the same bf16
// product through a reducer the matcher does not take rounds identically.
TEST(Reduce, GeneralBf16ReducerAgreesWithTheNativeOne) {
  std::vector<double> v;
  for (int i = 0; i < 64; ++i) v.push_back(1.0 + i / 128.0);
  Literal x = MakeLiteral("bf16[64]", v);
  Literal one = MakeLiteral("bf16[]", {1});
  auto native = EvaluateText(ReduceModule("bf16", "bf16[64]", "bf16[]", "0", "multiply"), {x, one});
  auto general = EvaluateText(R"(
HloModule m
r {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  c = bf16[] multiply(a, b)
  ROOT d = bf16[] convert(c)
}
ENTRY e {
  x = bf16[64] parameter(0)
  i = bf16[] parameter(1)
  ROOT y = bf16[] reduce(x, i), dimensions={0}, to_apply=r
})",
                              {x, one});
  XLITE_SKIP_IF_NO_RULE(general);
  ASSERT_TRUE(native.ok() && general.ok()) << native.status() << general.status();
  EXPECT_EQ(*native, *general);
}

TEST(Reduce, EmptyReducedDimensionGivesTheInit) {
  auto r = EvaluateText(ReduceModule("f32", "f32[0,3]", "f32[3]", "0", "add"),
                        {Literal(Shape(PrimitiveType::F32, {0, 3})), MakeLiteral("f32[]", {7})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(7, 7, 7));
}

// The documented order, seen through reducers that keep one argument: the
// fold starts at the init and visits reduced elements row-major.
TEST(Reduce, FoldsInitThenRowMajorOrder) {
  constexpr const char* kKeep = R"(
HloModule m
last {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
first {
  ROOT a = f32[] parameter(0)
  b = f32[] parameter(1)
}
ENTRY e {
  x = f32[2,3,2] parameter(0)
  i = f32[] parameter(1)
  l = f32[3] reduce(x, i), dimensions={2,0}, to_apply=last
  f = f32[3] reduce(x, i), dimensions={0,2}, to_apply=first
  ROOT t = (f32[3], f32[3]) tuple(l, f)
})";
  std::vector<double> v(12);
  for (int i = 0; i < 12; ++i) v[i] = i;
  auto r = EvaluateText(kKeep, {MakeLiteral("f32[2,3,2]", v), MakeLiteral("f32[]", {-1})});
  ASSERT_TRUE(r.ok()) << r.status();
  // The last element of line j is x[1, j, 1] = 6 + 2j + 1.
  EXPECT_THAT(TupleDoubles(*r, 0), ElementsAre(7, 9, 11));
  EXPECT_THAT(TupleDoubles(*r, 1), ElementsAre(-1, -1, -1));
}

TEST(Reduce, VariadicTupleOfParameters) {
  auto r = EvaluateText(R"(
HloModule m
pick {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  x0 = f32[] parameter(2)
  x1 = s32[] parameter(3)
  ROOT t = (f32[], s32[]) tuple(x0, a1)
}
ENTRY e {
  v = f32[2,3] parameter(0)
  k = s32[2,3] parameter(1)
  z = f32[] constant(0)
  n = s32[] constant(-1)
  ROOT r = (f32[2], s32[2]) reduce(v, k, z, n), dimensions={1}, to_apply=pick
})",
                        {MakeLiteral("f32[2,3]", {1, 2, 3, 4, 5, 6}),
                         MakeLiteral("s32[2,3]", {10, 20, 30, 40, 50, 60})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(TupleDoubles(*r, 0), ElementsAre(3, 6));    // the last value
  EXPECT_THAT(TupleDoubles(*r, 1), ElementsAre(-1, -1));  // the init kept
}

// General path (calls compare/select/add from the elementwise family).
TEST(Reduce, VariadicArgmax) {
  auto r = EvaluateText(std::string(testing::kArgmaxModuleHead) + R"(
ENTRY e {
  v = f32[2,4] parameter(0)
  k = s32[2,4] parameter(1)
  lo = f32[] constant(-inf)
  n = s32[] constant(-1)
  ROOT r = (f32[2], s32[2]) reduce(v, k, lo, n), dimensions={1}, to_apply=argmax
})",
                        {MakeLiteral("f32[2,4]", {3, 1, 4, 1, 5, 9, 2, 9}),
                         MakeLiteral("s32[2,4]", {0, 1, 2, 3, 0, 1, 2, 3})});
  XLITE_SKIP_IF_NO_RULE(r);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(TupleDoubles(*r, 0), ElementsAre(4, 9));
  EXPECT_THAT(TupleDoubles(*r, 1), ElementsAre(2, 1));  // ties keep the first
}

// General path: a*b+1 is neither associative nor fast-path; the sequential
// order gives ((1*1+1)*2+1)*3+1 = 16.
TEST(Reduce, NonFastPathReducer) {
  auto r = EvaluateText(R"(
HloModule m
f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  m = f32[] multiply(a, b)
  one = f32[] constant(1)
  ROOT s = f32[] add(m, one)
}
ENTRY e {
  x = f32[3] parameter(0)
  i = f32[] constant(1)
  ROOT r = f32[] reduce(x, i), dimensions={0}, to_apply=f
})",
                        {MakeLiteral("f32[3]", {1, 2, 3})});
  XLITE_SKIP_IF_NO_RULE(r);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(16));
}

TEST(Reduce, TenMillionF32TakesWellUnderASecond) {
  constexpr int64_t kN = 10'000'000;
  std::vector<Literal> args;
  args.emplace_back(Shape(PrimitiveType::F32, {kN}));
  for (int64_t i = 0; i < kN; ++i) args[0].Set<float>(i, 1.0f);
  args.push_back(MakeLiteral("f32[]", {0}));
  auto module = ParseHloModule(ReduceModule("f32", "f32[10000000]", "f32[]", "0", "add"));
  ASSERT_TRUE(module.ok()) << module.status();
  Evaluator evaluator;
  // CPU time, not wall time: the build machine is shared.
  std::clock_t start = std::clock();
  auto r = evaluator.Run(**module, args);
  double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(1e7));  // exact: below 2^24
  EXPECT_LT(seconds, 0.5);
  std::printf("reduce of 10M f32 (add): %.3f s CPU\n", seconds);
}

TEST(Reduce, ScanIsRefusedClearly) {
  auto r = EvaluateText(R"(
HloModule m
body {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT t = (f32[], f32[]) tuple(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  c = f32[] constant(0)
  ROOT s = (f32[4], f32[]) scan(x, c), dimensions={0}, num_carries=1, to_apply=body
})",
                        {MakeLiteral("f32[4]", {1, 2, 3, 4})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("not supported yet: scan"));
}

}  // namespace
}  // namespace xlite::eval
