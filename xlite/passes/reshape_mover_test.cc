#include "xlite/passes/reshape_mover.h"

#include "gtest/gtest.h"
#include "xlite/passes/pass_test_util.h"

namespace xlite {
namespace {

using testing::RunPassAndCompare;

TEST(ReshapeMover, SinksReshapesThroughAChainWithScalars) {
  ReshapeMoverPass pass;
  auto module = RunPassAndCompare(R"(
HloModule m
ENTRY e {
  a = f32[2,6] parameter(0)
  b = f32[2,6] parameter(1)
  c = f32[2,6] parameter(2)
  ra = f32[3,4] reshape(a)
  rb = f32[3,4] reshape(b)
  rc = f32[3,4] reshape(c)
  two = f32[] constant(2)
  bt = f32[3,4] broadcast(two), dimensions={}
  sum = f32[3,4] add(ra, rb)
  prod = f32[3,4] multiply(sum, bt)
  gt = pred[3,4] compare(prod, rc), direction=GT
  ROOT sel = f32[3,4] select(gt, prod, rc)
})",
                                  pass, true);
  ASSERT_NE(module, nullptr);
  // prod has two users, so only add and multiply move; compare and select
  // see a rearrange used twice and stay.
  const HloComputation& e = *module->entry_computation();
  int64_t reshapes = 0;
  for (const auto& i : e.instructions()) reshapes += i->opcode() == HloOpcode::kReshape;
  EXPECT_EQ(reshapes, 2);  // rc and the one below multiply
}

TEST(ReshapeMover, SinksTransposesWithAOneElementConstant) {
  ReshapeMoverPass pass;
  auto module = RunPassAndCompare(R"(
HloModule m
ENTRY e {
  a = f32[2,3,4] parameter(0)
  b = f32[2,3,4] parameter(1)
  ta = f32[4,2,3] transpose(a), dimensions={2,0,1}
  tb = f32[4,2,3] transpose(b), dimensions={2,0,1}
  m = f32[4,2,3] maximum(ta, tb)
  ROOT n = f32[4,2,3] negate(m)
})",
                                  pass, true);
  ASSERT_NE(module, nullptr);
  const HloInstruction* root = module->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kTranspose);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(root->operand(0)->shape().ToString(), "f32[2,3,4]");

  RunPassAndCompare(R"(
HloModule m
ENTRY e {
  a = f32[1,1] parameter(0)
  r = f32[] reshape(a)
  k = f32[] constant(3)
  ROOT s = f32[] subtract(r, k)
})",
                    pass, true);
}

TEST(ReshapeMover, LeavesOpsAloneWhenItWouldNotPay) {
  ReshapeMoverPass pass;
  // Different input shapes, different permutations, a reshape with a second
  // user, a non-scalar broadcast, a non-elementwise user, and a rearrange of
  // a scalar broadcast (trivial: nothing to gain).
  RunPassAndCompare(R"(
HloModule m
ENTRY e {
  a = f32[2,6] parameter(0)
  b = f32[4,3] parameter(1)
  c = f32[3,4] parameter(2)
  v = f32[4] parameter(3)
  ra = f32[3,4] reshape(a)
  rb = f32[3,4] reshape(b)
  x = f32[3,4] add(ra, rb)
  ta = f32[3,4] transpose(b), dimensions={1,0}
  y = f32[3,4] multiply(ta, c)
  rc = f32[3,4] reshape(a)
  z = f32[3,4] subtract(rc, rc)
  w = f32[3,4] exponential(rc)
  bv = f32[3,4] broadcast(v), dimensions={1}
  tv = f32[3,4] transpose(b), dimensions={1,0}
  u = f32[3,4] add(tv, bv)
  zero = f32[] constant(0)
  bz = f32[4,3] broadcast(zero), dimensions={}
  tz = f32[3,4] transpose(bz), dimensions={1,0}
  q = f32[3,4] add(tz, c)
  ROOT t = (f32[3,4], f32[3,4], f32[3,4], f32[3,4], f32[3,4], f32[3,4]) tuple(x, y, z, w, u, q)
})",
                    pass, false);
}

}  // namespace
}  // namespace xlite
