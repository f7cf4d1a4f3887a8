#include "xlite/backends/cpu/fusion.h"

#include <gtest/gtest.h>

#include "xlite/ir/computation.h"
#include "xlite/passes/pass_test_util.h"

namespace xlite::cpu {
namespace {

int64_t CountOpcode(const HloComputation& c, HloOpcode op) {
  int64_t n = 0;
  for (const auto& inst : c.instructions()) n += inst->opcode() == op;
  return n;
}

TEST(LoopFusionTest, FusesElementwiseChainWithBroadcastsIntoOneLoopFusion) {
  LoopFusion pass;
  auto module = testing::RunPassAndCompare(R"(
HloModule m
ENTRY e {
  x = f32[4,8] parameter(0)
  b = f32[8] parameter(1)
  bb = f32[4,8] broadcast(b), dimensions={1}
  half = f32[] constant(0.5)
  hb = f32[4,8] broadcast(half), dimensions={}
  s = f32[4,8] multiply(x, hb)
  t = f32[4,8] tanh(s)
  ROOT y = f32[4,8] add(t, bb)
})",
                                           pass, /*expect_change=*/true);
  ASSERT_NE(module, nullptr);
  const HloComputation& entry = *module->entry_computation();
  EXPECT_EQ(entry.instruction_count(), 3);  // two parameters and the fusion
  const HloInstruction* root = entry.root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(root->attrs<FusionAttrs>().kind, FusionKind::kLoop);
  EXPECT_EQ(root->operand_count(), 2);
  EXPECT_EQ(root->to_apply()->instruction_count(), 8);
  EXPECT_NE(PrintModule(*module).find("kind=kLoop"), std::string::npos);
}

TEST(LoopFusionTest, NeverFusesDotRootsInputFusionsAtReducesWithTheirOperandAsSideOutput) {
  LoopFusion pass;
  auto module = testing::RunPassAndCompare(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,4] parameter(0)
  e = f32[4,4] exponential(x)
  d = f32[4,4] dot(e, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zero = f32[] constant(0)
  r = f32[4] reduce(e, zero), dimensions={1}, to_apply=add
  rb = f32[4,4] broadcast(r), dimensions={0}
  n = f32[4,4] negate(d)
  ROOT y = f32[4,4] add(n, rb)
})",
                                           pass, /*expect_change=*/true);
  ASSERT_NE(module, nullptr);
  const HloComputation& entry = *module->entry_computation();
  EXPECT_EQ(CountOpcode(entry, HloOpcode::kDot), 1);
  // exp, read by the reduce and the dot, is the reduce fusion's second
  // output (tuple(reduce, exp)), which the dot reads; negate and the
  // broadcast of the reduce's result join the root's kLoop fusion.
  EXPECT_EQ(CountOpcode(entry, HloOpcode::kExp), 0);
  EXPECT_EQ(CountOpcode(entry, HloOpcode::kReduce), 0);
  EXPECT_EQ(CountOpcode(entry, HloOpcode::kFusion), 2);
  EXPECT_EQ(CountOpcode(entry, HloOpcode::kGetTupleElement), 2);
  for (const auto& inst : entry.instructions()) {
    if (inst->opcode() != HloOpcode::kFusion) continue;
    const HloComputation& body = *inst->to_apply();
    EXPECT_EQ(CountOpcode(body, HloOpcode::kDot), 0);
    const bool input = body.root_instruction()->opcode() == HloOpcode::kTuple;
    EXPECT_EQ(CountOpcode(body, HloOpcode::kReduce), input ? 1 : 0);
    EXPECT_EQ(CountOpcode(body, HloOpcode::kExp), input ? 1 : 0);
    EXPECT_EQ(inst->attrs<FusionAttrs>().kind, input ? FusionKind::kInput : FusionKind::kLoop);
  }
}

TEST(LoopFusionTest, LeavesUnsupportedTypesAndLoneOpsAlone) {
  LoopFusion pass;
  testing::RunPassAndCompare(R"(
HloModule m
ENTRY e {
  x = f16[8] parameter(0)
  y = f16[8] negate(x)
  ROOT z = f16[8] abs(y)
})",
                             pass, /*expect_change=*/false);
  testing::RunPassAndCompare(R"(
HloModule m
ENTRY e {
  x = s32[8] parameter(0)
  ROOT y = s32[8] negate(x)
})",
                             pass, /*expect_change=*/false);
}

}  // namespace
}  // namespace xlite::cpu
