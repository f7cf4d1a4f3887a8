// Checks while-loop-simplifier and while-loop-invariant-code-motion: each
// module is evaluated before and after the pass on the same inputs and must
// give the same result; the expected rewrites are checked on the structure.
#include <memory>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/eval/eval_test_util.h"
#include "xlite/eval/evaluator.h"
#include "xlite/passes/while_loop_invariant_code_motion.h"
#include "xlite/passes/while_loop_simplifier.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

using eval::testing::MakeLiteral;

// Runs `pass` on `text`, checks that it reports `expect_changed`, that the
// module still verifies, and that the entry gives the same result on `args`
// before and after. Returns the rewritten module.
std::unique_ptr<HloModule> RunAndCompare(std::string_view text, HloPass& pass,
                                         const std::vector<Literal>& args, bool expect_changed) {
  auto parsed = ParseHloModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return nullptr;
  std::unique_ptr<HloModule> module = std::move(parsed).value();
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
  auto before = Evaluator().Run(*module, args);
  EXPECT_TRUE(before.ok()) << before.status();
  auto changed = pass.Run(*module);
  EXPECT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(changed.value_or(!expect_changed), expect_changed);
  absl::Status verified = VerifyModule(*module);
  EXPECT_TRUE(verified.ok()) << verified;
  if (!verified.ok() || !before.ok()) return module;
  auto after = Evaluator().Run(*module, args);
  EXPECT_TRUE(after.ok()) << after.status();
  if (after.ok()) {
    EXPECT_TRUE(*before == *after);
  }
  return module;
}

int64_t CountOpcode(const HloModule& module, HloOpcode opcode) {
  int64_t count = 0;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) count += inst->opcode() == opcode;
  }
  return count;
}

// The state of the first while loop of the entry.
const Shape* LoopState(const HloModule& module) {
  for (const auto& inst : module.entry_computation()->instructions()) {
    if (inst->opcode() == HloOpcode::kWhile) return &inst->shape();
  }
  return nullptr;
}

// A counted loop `for (i = START; i < LIMIT; ++i)` with a live accumulator
// (element 1), an element only updated from itself (2) and one computed from
// the accumulator but never read outside (3).
std::string CountedLoop(int start, int limit) {
  return absl::StrCat(R"(
HloModule counted
cond {
  p = (s32[], f32[4], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  lim = s32[] constant()",
                      limit, R"()
  ROOT lt = pred[] compare(i, lim), direction=LT
}
body {
  p = (s32[], f32[4], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  acc = f32[4] get-tuple-element(p), index=1
  self = f32[4] get-tuple-element(p), index=2
  dbl = f32[4] add(self, self)
  twice = f32[4] multiply(acc, acc)
  step = f32[4] add(acc, twice)
  ROOT t = (s32[], f32[4], f32[4], f32[4]) tuple(next, step, dbl, twice)
}
ENTRY e {
  x = f32[4] parameter(0)
  start = s32[] constant()",
                      start, R"()
  init = (s32[], f32[4], f32[4], f32[4]) tuple(start, x, x, x)
  w = (s32[], f32[4], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
})");
}

std::vector<Literal> VectorArg() {
  std::vector<Literal> args;
  args.push_back(MakeLiteral("f32[4]", {0.5, -0.25, 0.125, 1}));
  return args;
}

TEST(WhileLoopSimplifier, ManyIterationsDropsDeadElements) {
  WhileLoopSimplifierPass pass;
  auto module = RunAndCompare(CountedLoop(0, 3), pass, VectorArg(), true);
  ASSERT_NE(module, nullptr);
  const Shape* state = LoopState(*module);
  ASSERT_NE(state, nullptr);
  // Counter and accumulator stay; the two dead elements go.
  EXPECT_EQ(state->tuple_shapes().size(), 2u);
  // The old condition and body are removed with the old loop.
  EXPECT_EQ(module->computations().size(), 3u);
}

TEST(WhileLoopSimplifier, ZeroTripLoopBecomesItsInit) {
  WhileLoopSimplifierPass pass;
  auto module = RunAndCompare(CountedLoop(7, 3), pass, VectorArg(), true);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kWhile), 0);
  EXPECT_EQ(module->computations().size(), 1u);
}

TEST(WhileLoopSimplifier, OneTripLoopIsInlined) {
  WhileLoopSimplifierPass pass;
  auto module = RunAndCompare(CountedLoop(2, 3), pass, VectorArg(), true);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kWhile), 0);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kCall), 0);
}

TEST(WhileLoopSimplifier, KnownTripCountFromBackendConfig) {
  // The limit lives in the state, so only the backend config tells the count.
  constexpr std::string_view kText = R"(
HloModule known
cond {
  p = (s32[], s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  lim = s32[] get-tuple-element(p), index=1
  ROOT lt = pred[] compare(i, lim), direction=LT
}
body {
  p = (s32[], s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  lim = s32[] get-tuple-element(p), index=1
  v = f32[2] get-tuple-element(p), index=2
  e = f32[2] exponential(v)
  ROOT t = (s32[], s32[], f32[2]) tuple(next, lim, e)
}
ENTRY e {
  x = f32[2] parameter(0)
  zero = s32[] constant(0)
  one = s32[] constant(1)
  init = (s32[], s32[], f32[2]) tuple(zero, one, x)
  w = (s32[], s32[], f32[2]) while(init), condition=cond, body=body, backend_config={"known_trip_count":{"n":"1"}}
  ROOT r = f32[2] get-tuple-element(w), index=2
})";
  std::vector<Literal> args;
  args.push_back(MakeLiteral("f32[2]", {0.5, -1}));
  WhileLoopSimplifierPass pass;
  auto module = RunAndCompare(kText, pass, args, true);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kWhile), 0);
}

TEST(WhileLoopSimplifier, KeepsElementsThatFeedLiveOnes) {
  // Element 2 is never read outside, but the live accumulator is computed
  // from it, so nothing is dead; the trip count is unknown (limit is an input).
  constexpr std::string_view kText = R"(
HloModule feeds
cond {
  p = (s32[], f32[3], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  lim = s32[] constant(10)
  ROOT lt = pred[] compare(i, lim), direction=LT
}
body {
  p = (s32[], f32[3], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  acc = f32[3] get-tuple-element(p), index=1
  y = f32[3] get-tuple-element(p), index=2
  sum = f32[3] add(acc, y)
  half = f32[3] constant({0.5, 0.5, 0.5})
  y2 = f32[3] multiply(y, half)
  ROOT t = (s32[], f32[3], f32[3]) tuple(next, sum, y2)
}
ENTRY e {
  x = f32[3] parameter(0)
  start = s32[] parameter(1)
  init = (s32[], f32[3], f32[3]) tuple(start, x, x)
  w = (s32[], f32[3], f32[3]) while(init), condition=cond, body=body
  ROOT r = f32[3] get-tuple-element(w), index=1
})";
  std::vector<Literal> args;
  args.push_back(MakeLiteral("f32[3]", {1, 2, 4}));
  args.push_back(MakeLiteral("s32[]", {6}));
  WhileLoopSimplifierPass pass;
  auto module = RunAndCompare(kText, pass, args, false);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(LoopState(*module)->tuple_shapes().size(), 3u);
}

TEST(WhileLoopSimplifier, LoopWithSideEffectIsKept) {
  // One trip, a dead element, and an rng in the body: the loop stays whole.
  constexpr std::string_view kText = R"(
HloModule effects
cond {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  lim = s32[] constant(1)
  ROOT lt = pred[] compare(i, lim), direction=LT
}
body {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  noise = f32[4] rng(lo, hi), distribution=rng_uniform
  acc = f32[4] get-tuple-element(p), index=1
  sum = f32[4] add(acc, noise)
  dead = f32[4] get-tuple-element(p), index=2
  ROOT t = (s32[], f32[4], f32[4]) tuple(next, sum, dead)
}
ENTRY e {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4], f32[4]) tuple(zero, x, x)
  w = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
})";
  WhileLoopSimplifierPass pass;
  auto module = RunAndCompare(kText, pass, VectorArg(), false);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kWhile), 1);
}

// An outer loop (3 trips) around an inner loop (4 trips). The inner loop
// carries a dead element and invariant work (exp of the passed-through
// element 2); the outer loop carries a dead element too.
constexpr std::string_view kNested = R"(
HloModule nested
inner_cond {
  p = (s32[], f32[4], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  lim = s32[] constant(4)
  ROOT lt = pred[] compare(i, lim), direction=LT
}
inner_body {
  p = (s32[], f32[4], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  acc = f32[4] get-tuple-element(p), index=1
  inv = f32[4] get-tuple-element(p), index=2
  ex = f32[4] exponential(inv)
  scale = f32[4] constant({0.5, 0.25, 2, 1})
  work = f32[4] multiply(ex, scale)
  sum = f32[4] add(acc, work)
  junk = f32[4] get-tuple-element(p), index=3
  junk2 = f32[4] subtract(junk, acc)
  ROOT t = (s32[], f32[4], f32[4], f32[4]) tuple(next, sum, inv, junk2)
}
outer_cond {
  p = (s32[], f32[4], f32[4]) parameter(0)
  k = s32[] get-tuple-element(p), index=0
  lim = s32[] constant(3)
  ROOT lt = pred[] compare(k, lim), direction=LT
}
outer_body {
  p = (s32[], f32[4], f32[4]) parameter(0)
  k = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(k, one)
  acc = f32[4] get-tuple-element(p), index=1
  zero = s32[] constant(0)
  init = (s32[], f32[4], f32[4], f32[4]) tuple(zero, acc, acc, acc)
  w = (s32[], f32[4], f32[4], f32[4]) while(init), condition=inner_cond, body=inner_body
  out = f32[4] get-tuple-element(w), index=1
  dead = f32[4] get-tuple-element(p), index=2
  dead2 = f32[4] negate(dead)
  ROOT t = (s32[], f32[4], f32[4]) tuple(next, out, dead2)
}
ENTRY e {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4], f32[4]) tuple(zero, x, x)
  w = (s32[], f32[4], f32[4]) while(init), condition=outer_cond, body=outer_body
  ROOT r = f32[4] get-tuple-element(w), index=1
})";

TEST(WhileLoopSimplifier, NestedLoopsLoseDeadElementsAtBothLevels) {
  WhileLoopSimplifierPass pass;
  auto module = RunAndCompare(kNested, pass, VectorArg(), true);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(LoopState(*module)->tuple_shapes().size(), 2u);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kWhile), 2);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kSubtract), 0);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kNegate), 0);
}

TEST(WhileLoopInvariantCodeMotion, HoistsInvariantWorkOfNestedLoop) {
  WhileLoopInvariantCodeMotionPass pass;
  auto module = RunAndCompare(kNested, pass, VectorArg(), true);
  ASSERT_NE(module, nullptr);
  // exp and the multiply by a constant leave the inner body for the outer
  // body: the inner state gains one element.
  const HloComputation* inner = module->GetComputation("inner_body");
  ASSERT_NE(inner, nullptr);
  for (const auto& inst : inner->instructions()) {
    EXPECT_NE(inst->opcode(), HloOpcode::kExp) << inst->name();
    EXPECT_NE(inst->opcode(), HloOpcode::kMultiply) << inst->name();
  }
  EXPECT_EQ(inner->parameter_instruction(0)->shape().tuple_shapes().size(), 5u);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kExp), 1);
}

TEST(WhileLoopInvariantCodeMotion, ZeroOneAndManyTripsKeepResults) {
  for (int start : {7, 2, 0}) {
    // Body of CountedLoop has no invariant element: nothing moves.
    WhileLoopInvariantCodeMotionPass pass;
    RunAndCompare(CountedLoop(start, 3), pass, VectorArg(), false);
  }
}

// A loop whose body has invariant work (sqrt of the passed-through element
// 1), an invariant broadcast and constant (not worth hoisting alone), an
// invariant rng (side effect: stays) and variant work.
constexpr std::string_view kLicm = R"(
HloModule licm
cond {
  p = (s32[], f32[4], f32[4], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  lim = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4], f32[4], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  base = f32[4] get-tuple-element(p), index=1
  root2 = f32[4] sqrt(base)
  acc = f32[4] get-tuple-element(p), index=2
  sum = f32[4] add(acc, root2)
  s = f32[] get-tuple-element(p), index=3
  bs = f32[4] broadcast(s), dimensions={}
  sum2 = f32[4] add(sum, bs)
  lo = f32[] constant(0)
  noise = f32[] rng(lo, s), distribution=rng_uniform
  ns = f32[] add(s, noise)
  ROOT t = (s32[], f32[4], f32[4], f32[]) tuple(next, base, sum2, s)
}
ENTRY e {
  x = f32[4] parameter(0)
  s = f32[] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4], f32[4], f32[]) tuple(zero, x, x, s)
  ROOT w = (s32[], f32[4], f32[4], f32[]) while(init), condition=cond, body=body
})";

TEST(WhileLoopInvariantCodeMotion, HoistsWorkButNotBroadcastsOrSideEffects) {
  std::vector<Literal> args;
  args.push_back(MakeLiteral("f32[4]", {1, 4, 9, 2}));
  args.push_back(MakeLiteral("f32[]", {0.75}));
  WhileLoopInvariantCodeMotionPass pass;
  // The loop is the entry root: the result keeps its four elements.
  auto module = RunAndCompare(kLicm, pass, args, true);
  ASSERT_NE(module, nullptr);
  const HloComputation* body = module->GetComputation("body");
  ASSERT_NE(body, nullptr);
  int sqrt = 0, broadcast = 0, rng = 0;
  for (const auto& inst : body->instructions()) {
    sqrt += inst->opcode() == HloOpcode::kSqrt;
    broadcast += inst->opcode() == HloOpcode::kBroadcast;
    rng += inst->opcode() == HloOpcode::kRng;
  }
  EXPECT_EQ(sqrt, 0);
  EXPECT_EQ(broadcast, 1);
  EXPECT_EQ(rng, 1);
  EXPECT_EQ(body->parameter_instruction(0)->shape().tuple_shapes().size(), 5u);
  EXPECT_EQ(module->entry_computation()->root_instruction()->shape().tuple_shapes().size(), 4u);
  // A second run finds nothing more worth moving.
  auto again = pass.Run(*module);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST(WhileLoopPasses, SimplifierAfterCodeMotionKeepsResults) {
  WhileLoopInvariantCodeMotionPass licm;
  auto module = RunAndCompare(kNested, licm, VectorArg(), true);
  ASSERT_NE(module, nullptr);
  auto before = Evaluator().Run(*module, VectorArg());
  ASSERT_TRUE(before.ok()) << before.status();
  WhileLoopSimplifierPass simplifier;
  auto changed = simplifier.Run(*module);
  ASSERT_TRUE(changed.ok() && *changed);
  ASSERT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
  auto after = Evaluator().Run(*module, VectorArg());
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(*before == *after);
}

}  // namespace
}  // namespace xlite
