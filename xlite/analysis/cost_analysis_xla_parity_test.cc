// Cost analysis against the cases of XLA's hlo_cost_analysis_test.cc that
// involve tuples and variadic reductions: each module restates one of XLA's
// tests in HLO text (the figures are XLA's expectations, derived again in the
// comments), so that xlite's conventions cannot drift from HloCostAnalysis.
#include <memory>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/test_util.h"

namespace xlite {
namespace {

constexpr double kPointer = 8;  // XLA's tuple pointer size

// The cost of one execution of the root instruction of the entry.
Cost RootCost(std::string_view text) {
  std::unique_ptr<HloModule> module = testing::Parse(text);
  if (module == nullptr) return Cost();
  CostAnalysis analysis;
  absl::StatusOr<Cost> cost =
      analysis.InstructionCostOf(*module->entry_computation()->root_instruction());
  EXPECT_TRUE(cost.ok()) << cost.status();
  return cost.ok() ? *cost : Cost();
}

TEST(CostAnalysisXlaParity, TupleCostsItsPointerTableOnly) {
  // XLA's TupleCost: a 2-tuple of f32[123] and f32[42] writes 2 pointers and
  // reads nothing.
  Cost c = RootCost(R"(
HloModule m
ENTRY e {
  x = f32[123] parameter(0)
  y = f32[42] parameter(1)
  ROOT t = (f32[123], f32[42]) tuple(x, y)
})");
  EXPECT_EQ(c.flops, 0);
  EXPECT_EQ(c.bytes_accessed, 2 * kPointer);
}

TEST(CostAnalysisXlaParity, DomainIsFree) {
  // XLA's DomainCost.
  Cost c = RootCost(R"(
HloModule m
ENTRY e {
  x = f32[123] parameter(0)
  y = f32[42] parameter(1)
  t = (f32[123], f32[42]) tuple(x, y)
  ROOT d = (f32[123], f32[42]) domain(t), domain={kind="sharding", entry={maximal device=0}, exit={maximal device=1}}
})");
  EXPECT_EQ(c.bytes_accessed, 0);
}

TEST(CostAnalysisXlaParity, VariadicReduceWindowWritesItsArrays) {
  // XLA's ReduceWindowVariadic: two f32[10,20] inputs, 4x5 windows with
  // stride 4x5 give 2x4 outputs; the reducer does two mins per application:
  // 8 outputs x 19 applications x 2 flops. Bytes: both inputs (2 x 800), both
  // f32 inits (2 x 4) and both f32[2,4] outputs (2 x 32) = 1672, as jaxlib
  // 0.10.2 counts it (XLA's own test, with its pointer-table shape size,
  // counted the output as 16).
  Cost c = RootCost(R"(
HloModule m
minmin {
  x0 = f32[] parameter(0)
  x1 = f32[] parameter(1)
  y0 = f32[] parameter(2)
  y1 = f32[] parameter(3)
  m0 = f32[] minimum(x0, y0)
  m1 = f32[] minimum(x1, y1)
  ROOT t = (f32[], f32[]) tuple(m0, m1)
}
ENTRY e {
  a = f32[10,20] parameter(0)
  b = f32[10,20] parameter(1)
  z = f32[] constant(0)
  ROOT r = (f32[2,4], f32[2,4]) reduce-window(a, b, z, z), window={size=4x5 stride=4x5}, to_apply=minmin
})");
  EXPECT_EQ(c.flops, 2 * 4 * 2 * (4 * 5 - 1));
  EXPECT_EQ(c.bytes_accessed, 4 * (10 * 20 * 2 + 2 + 2 * 8));
}

TEST(CostAnalysisXlaParity, FusionTupleParameterReadThroughItsElements) {
  // XLA's NonTupleWithTupleParamBytesAccessed: both elements of the tuple
  // parameter are read through get-tuple-element (2 x 24 bytes, no pointer
  // table), the f32[3,2] output written: 72.
  Cost c = RootCost(R"(
HloModule m
fused {
  param = (f32[3,2], f32[3,2]) parameter(0)
  gte0 = f32[3,2] get-tuple-element(param), index=0
  gte1 = f32[3,2] get-tuple-element(param), index=1
  ROOT add = f32[3,2] add(gte0, gte1)
}
ENTRY e {
  p0 = f32[3,2] parameter(0)
  p1 = f32[3,2] parameter(1)
  t = (f32[3,2], f32[3,2]) tuple(p0, p1)
  ROOT f = f32[3,2] fusion(t), kind=kLoop, calls=fused
})");
  EXPECT_EQ(c.bytes_accessed, 4 * 3 * 2 * 3);
}

TEST(CostAnalysisXlaParity, FusionTupleInTupleOut) {
  // XLA's TupleBytesAccessed: two f32[2,2] elements read (32), two written
  // as the output's leaves (32, no pointer table for a fusion's output).
  Cost c = RootCost(R"(
HloModule m
fused {
  param = (f32[2,2], f32[2,2]) parameter(0)
  gte0 = f32[2,2] get-tuple-element(param), index=0
  gte1 = f32[2,2] get-tuple-element(param), index=1
  add = f32[2,2] add(gte0, gte1)
  mul = f32[2,2] multiply(gte0, gte1)
  ROOT root = (f32[2,2], f32[2,2]) tuple(add, mul)
}
ENTRY e {
  p0 = f32[2,2] parameter(0)
  p1 = f32[2,2] parameter(1)
  t = (f32[2,2], f32[2,2]) tuple(p0, p1)
  ROOT f = (f32[2,2], f32[2,2]) fusion(t), kind=kLoop, calls=fused
})");
  EXPECT_EQ(c.flops, 8);
  EXPECT_EQ(c.bytes_accessed, 4 * 2 * 2 * 4);
}

TEST(CostAnalysisXlaParity, FusionIgnoresUnreadTupleElements) {
  // XLA's IgnoreUnusedParameterShape: of the (s8[3], s8[100]) parameter only
  // element 0 is read (3 bytes); the unread s8[100] costs the pointer table
  // (2 x 8) instead. Plus the s8[3] constant inside (3) and the output (3).
  Cost c = RootCost(R"(
HloModule m
f {
  p0 = (s8[3], s8[100]) parameter(0)
  gte0 = s8[3] get-tuple-element(p0), index=0
  c1 = s8[3] constant({0, 0, 0})
  a1 = s8[3] add(gte0, c1)
  ROOT r1 = s8[3] add(a1, c1)
}
ENTRY e {
  param0 = (s8[3], s8[100]) parameter(0)
  ROOT r0 = s8[3] fusion(param0), kind=kInput, calls=f
})");
  EXPECT_EQ(c.bytes_accessed, 2 * kPointer + 3 + 3 + 3);
}

TEST(CostAnalysisXlaParity, FusionWithNestedTupleOutput) {
  // XLA's LoopFusionTupleOutput: add, clamp, multiply and subtract over
  // f32[2,2] (16 flops) and one exponential (4 transcendentals). The output
  // (sub, sub, mul, (c1, c2)) writes five f32[2,2] leaves (80 bytes). The
  // tuple operand (c1, c2) reaches the root without a get-tuple-element, so
  // each of its two leaves costs its pointer table (2 x 16); c1, c2 and c3
  // are read once each (3 x 16): 80 + 32 + 48 = 160.
  Cost c = RootCost(R"(
HloModule m
fused {
  p0 = (f32[2,2], f32[2,2]) parameter(0)
  p1 = f32[2,2] parameter(1)
  p2 = f32[2,2] parameter(2)
  p3 = f32[2,2] parameter(3)
  add = f32[2,2] add(p1, p2)
  clamp = f32[2,2] clamp(p2, add, add)
  exp = f32[2,2] exponential(add)
  mul = f32[2,2] multiply(exp, p3)
  sub = f32[2,2] subtract(mul, clamp)
  ROOT t = (f32[2,2], f32[2,2], f32[2,2], (f32[2,2], f32[2,2])) tuple(sub, sub, mul, p0)
}
ENTRY e {
  c1 = f32[2,2] constant({{0, 0.333333}, {0.666667, 1}})
  c2 = f32[2,2] constant({{1, 1.33333}, {1.66667, 2}})
  c3 = f32[2,2] constant({{2, 2.33333}, {2.66667, 3}})
  t1 = (f32[2,2], f32[2,2]) tuple(c1, c2)
  ROOT f = (f32[2,2], f32[2,2], f32[2,2], (f32[2,2], f32[2,2])) fusion(t1, c1, c2, c3), kind=kLoop, calls=fused
})");
  EXPECT_EQ(c.flops, 16);
  EXPECT_EQ(c.transcendentals, 4);
  EXPECT_EQ(c.bytes_accessed, 4 * (5 + 5) * 2 * 2);
}

TEST(CostAnalysisXlaParity, FusedDynamicUpdateSliceCostsAsTheBareOne) {
  // XLA's LoopFusionDynUpdateSlice: the updated operand aliases the output and
  // is not read; the fusion costs what the bare dynamic-update-slice does:
  // the bf16[1,32,256,1152] update read (through the dynamic-slice) and
  // written, plus the s32 index read once.
  constexpr double kUpdate = 2.0 * 32 * 256 * 1152;
  Cost fused = RootCost(R"(
HloModule m
fused {
  t0 = bf16[50,32,256,1152] parameter(0)
  t1 = bf16[50,32,256,1152] parameter(2)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  s = bf16[1,32,256,1152] dynamic-slice(t1, i, z, z, z), dynamic_slice_sizes={1,32,256,1152}
  u = bf16[50,32,256,1152] dynamic-update-slice(t0, s, i, z, z, z)
  ROOT t = (bf16[50,32,256,1152]) tuple(u)
}
ENTRY e {
  a = bf16[50,32,256,1152] parameter(0)
  i = s32[] parameter(1)
  b = bf16[50,32,256,1152] parameter(2)
  ROOT f = (bf16[50,32,256,1152]) fusion(a, i, b), kind=kLoop, calls=fused
})");
  Cost bare = RootCost(R"(
HloModule m
ENTRY e {
  a = bf16[50,32,256,1152] parameter(0)
  i = s32[] parameter(1)
  u = bf16[1,32,256,1152] parameter(2)
  ROOT d = bf16[50,32,256,1152] dynamic-update-slice(a, u, i, i, i, i)
})");
  // Of the bare one's four s32 indices XLA counts the first only.
  EXPECT_EQ(fused.bytes_accessed, 2 * kUpdate + 4);
  EXPECT_EQ(bare.bytes_accessed, fused.bytes_accessed);
}

TEST(CostAnalysisXlaParity, TupleAllReduceCountsItsArrays) {
  // XLA's AllReduceTupleBytesAccessed: two f32[2,2] operands read, two
  // written (the output's arrays, not its pointer table): 4 x 16.
  Cost c = RootCost(R"(
HloModule m
sum {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT a = f32[] add(l, r)
}
ENTRY e {
  p0 = f32[2,2] parameter(0)
  p1 = f32[2,2] parameter(1)
  ROOT ar = (f32[2,2], f32[2,2]) all-reduce(p0, p1), replica_groups={{0,1}}, to_apply=sum
})");
  EXPECT_EQ(c.bytes_accessed, 4 * 2 * 2 * 4);
}

TEST(CostAnalysisXlaParity, InfeedAndOutfeedCountTheirLeaves) {
  // XLA's InfeedOutfeed: the nested ((f32[2,3]), token[]) infeed writes one
  // f32[2,3] (24 bytes); the outfeed of a 1-tuple reads it (24 bytes).
  constexpr std::string_view kText = R"(
HloModule m
ENTRY e {
  tok0 = token[] after-all()
  infeed = ((f32[2,3]), token[]) infeed(tok0)
  gte0 = (f32[2,3]) get-tuple-element(infeed), index=0
  gte1 = f32[2,3] get-tuple-element(gte0), index=0
  add = f32[2,3] add(gte1, gte1)
  tuple = (f32[2,3]) tuple(add)
  tok = token[] get-tuple-element(infeed), index=1
  ROOT outfeed = token[] outfeed(tuple, tok)
})";
  std::unique_ptr<HloModule> module = testing::Parse(kText);
  ASSERT_NE(module, nullptr);
  CostAnalysis analysis;
  for (const auto& inst : module->entry_computation()->instructions()) {
    if (inst->name() != "infeed" && inst->name() != "outfeed") continue;
    absl::StatusOr<Cost> cost = analysis.InstructionCostOf(*inst);
    ASSERT_TRUE(cost.ok()) << cost.status();
    EXPECT_EQ(cost->bytes_accessed, 4 * 2 * 3) << inst->name();
  }
}

}  // namespace
}  // namespace xlite
