#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/eval/eval_test_util.h"

namespace xlite::eval {
namespace {

using ::testing::ElementsAre;
using testing::EvaluateText;
using ::testing::HasSubstr;
using testing::MakeLiteral;
using testing::ToDoubles;

TEST(ControlOps, TupleAndGetTupleElement) {
  auto r = EvaluateText(R"(
HloModule m
ENTRY e {
  a = s32[2] parameter(0)
  b = s32[] constant(7)
  t = (s32[2], s32[]) tuple(a, b)
  ROOT g = s32[] get-tuple-element(t), index=1
})",
                        {MakeLiteral("s32[2]", {1, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(7));
}

TEST(ControlOps, RootParameterIsCopiedOut) {
  auto r = EvaluateText("HloModule m\nENTRY e {\n ROOT p = f32[3] parameter(0)\n}",
                        {MakeLiteral("f32[3]", {1, 2, 3})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(1, 2, 3));
}

TEST(ControlOps, WhileCountsToTen) {
  // No arithmetic handler is needed: the body swaps in a constant chain
  // through a conditional on the loop counter's predicate.
  auto r = EvaluateText(R"(
HloModule m
cond {
  s = (pred[], s32[]) parameter(0)
  ROOT p = pred[] get-tuple-element(s), index=0
}
body {
  s = (pred[], s32[]) parameter(0)
  f = pred[] constant(false)
  v = s32[] constant(10)
  ROOT t = (pred[], s32[]) tuple(f, v)
}
ENTRY e {
  t = pred[] constant(true)
  z = s32[] constant(0)
  init = (pred[], s32[]) tuple(t, z)
  w = (pred[], s32[]) while(init), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(w), index=1
})",
                        {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(10));
}

TEST(ControlOps, ConditionalPredicateAndIndex) {
  constexpr const char* kText = R"(
HloModule m
b0 {
  x = s32[] parameter(0)
  ROOT c = s32[] constant(100)
}
b1 {
  ROOT x = s32[] parameter(0)
}
ENTRY e {
  i = s32[] parameter(0)
  v = s32[] constant(5)
  ROOT c = s32[] conditional(i, v, v), branch_computations={b0, b1}
})";
  for (auto [index, expected] : {std::pair{0, 100}, {1, 5}, {7, 5}, {-1, 5}}) {
    auto r = EvaluateText(kText, {MakeLiteral("s32[]", {double(index)})});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_THAT(ToDoubles(*r), ElementsAre(expected)) << "index " << index;
  }
  constexpr const char* kPred = R"(
HloModule m
t {
  x = s32[] parameter(0)
  ROOT c = s32[] constant(1)
}
f {
  x = s32[] parameter(0)
  ROOT c = s32[] constant(2)
}
ENTRY e {
  p = pred[] parameter(0)
  v = s32[] constant(5)
  ROOT c = s32[] conditional(p, v, v), true_computation=t, false_computation=f
})";
  for (auto [p, expected] : {std::pair{1, 1}, {0, 2}}) {
    auto r = EvaluateText(kPred, {MakeLiteral("pred[]", {double(p)})});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_THAT(ToDoubles(*r), ElementsAre(expected));
  }
}

TEST(ControlOps, DeviceIds) {
  EvalOptions options;
  options.replica_id = 3;
  options.partition_id = 5;
  auto r = EvaluateText(R"(
HloModule m
ENTRY e {
  r = u32[] replica-id()
  p = u32[] partition-id()
  ROOT t = (u32[], u32[]) tuple(r, p)
})",
                        {}, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tuple_elements()[0].GetInt64(0), 3);
  EXPECT_EQ(r->tuple_elements()[1].GetInt64(0), 5);
}

TEST(ControlOps, WrongArgumentShapeIsAnError) {
  auto r = EvaluateText("HloModule m\nENTRY e {\n ROOT p = f32[3] parameter(0)\n}",
                        {MakeLiteral("f32[2]", {1, 2})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("argument 0 has shape f32[2]"));
}

TEST(ControlOps, ElidedConstantIsRefused) {
  auto r = EvaluateText("HloModule m\nENTRY e {\n ROOT c = f32[3] constant({...})\n}", {});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("elided"));
}

}  // namespace
}  // namespace xlite::eval
