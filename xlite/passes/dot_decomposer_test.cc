#include "xlite/passes/dot_decomposer.h"

#include "gtest/gtest.h"
#include "xlite/passes/pass_test_util.h"

namespace xlite {
namespace {

using testing::RunPassAndCompare;

int64_t CountOpcode(const HloModule& module, HloOpcode opcode) {
  int64_t n = 0;
  for (const auto& c : module.computations()) {
    for (const auto& i : c->instructions()) n += i->opcode() == opcode;
  }
  return n;
}

// Every dot left must be canonical: [B..,M,K] x [B..,K,N].
void ExpectCanonicalDots(const HloModule& module) {
  for (const auto& c : module.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->opcode() != HloOpcode::kDot) continue;
      const DotDimensions& d = i->attrs<DotAttrs>().dims;
      const int64_t nb = static_cast<int64_t>(d.lhs_batch.size());
      EXPECT_EQ(i->operand(0)->shape().rank(), nb + 2) << i->name();
      EXPECT_EQ(i->operand(1)->shape().rank(), nb + 2) << i->name();
      EXPECT_EQ(d.lhs_contracting, std::vector<int64_t>{nb + 1}) << i->name();
      EXPECT_EQ(d.rhs_contracting, std::vector<int64_t>{nb}) << i->name();
      for (int64_t b = 0; b < nb; ++b) {
        EXPECT_EQ(d.lhs_batch[b], b);
        EXPECT_EQ(d.rhs_batch[b], b);
      }
    }
  }
}

TEST(DotDecomposer, ManyDimensionsAndBatchInTheMiddleKeepTheBits) {
  DotDecomposerPass pass;
  auto module = RunPassAndCompare(R"(
HloModule m
ENTRY e {
  a = f32[3,2,5,4,7] parameter(0)
  b = f32[4,6,7,3,5] parameter(1)
  ROOT d = f32[3,2,6] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={3},
      lhs_contracting_dims={3,2,4}, rhs_contracting_dims={0,4,2},
      operand_precision={highest,default}
})",
                                  pass, true);
  ASSERT_NE(module, nullptr);
  ExpectCanonicalDots(*module);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kDot), 1);
  // [batch, M, N] is already the result shape: no reshape after the dot.
  const HloInstruction* dot = module->entry_computation()->root_instruction();
  ASSERT_EQ(dot->opcode(), HloOpcode::kDot);
  EXPECT_EQ(dot->operand(0)->shape().ToString(), "f32[3,2,140]");
  EXPECT_EQ(dot->shape().ToString(), "f32[3,2,6]");
  EXPECT_EQ(dot->attrs<DotAttrs>().precision.operand_precision.size(), 2u);
  EXPECT_EQ(dot->attrs<DotAttrs>().precision.operand_precision[0], Precision::kHighest);
}

TEST(DotDecomposer, VectorsOuterProductsAndMixedTypes) {
  DotDecomposerPass pass;
  // Matrix-vector, vector-vector, an outer product (no contracting dim)
  // and an s8 x s8 -> s32 dot.
  auto module = RunPassAndCompare(R"(
HloModule m
ENTRY e {
  a = f32[4,5] parameter(0)
  v = f32[5] parameter(1)
  w = f32[4] parameter(2)
  i = s8[2,3] parameter(3)
  j = s8[3,2] parameter(4)
  mv = f32[4] dot(a, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  vv = f32[] dot(w, mv), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  op = f32[4,5] dot(w, v), lhs_contracting_dims={}, rhs_contracting_dims={}
  ij = s32[3,3] dot(i, j), lhs_contracting_dims={0}, rhs_contracting_dims={1}
  ROOT t = (f32[], f32[4,5], s32[3,3]) tuple(vv, op, ij)
})",
                                  pass, true);
  ASSERT_NE(module, nullptr);
  ExpectCanonicalDots(*module);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kDot), 4);
}

TEST(DotDecomposer, CanonicalDotsAreLeftAlone) {
  DotDecomposerPass pass;
  RunPassAndCompare(R"(
HloModule m
ENTRY e {
  a = f32[2,4,5] parameter(0)
  b = f32[2,5,3] parameter(1)
  c = f32[4,5] parameter(2)
  d = f32[5,3] parameter(3)
  x = f32[2,4,3] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0},
      lhs_contracting_dims={2}, rhs_contracting_dims={1}
  y = f32[4,3] dot(c, d), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[2,4,3], f32[4,3]) tuple(x, y)
})",
                    pass, false);
}

}  // namespace
}  // namespace xlite
