#include "xlite/runtime/random_inputs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "xlite/ir/computation.h"
#include "xlite/runtime/array_summary.h"
#include "xlite/text/parser.h"

namespace xlite::runtime {
namespace {

using ::testing::ElementsAre;

std::unique_ptr<HloModule> Parse(const char* text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

TEST(RandomInputsTest, DistributionsPerType) {
  uint64_t state = 7;
  Literal f = RandomLiteral(Shape(PrimitiveType::F32, {1000}), state);
  Literal s = RandomLiteral(Shape(PrimitiveType::S32, {1000}), state);
  Literal u = RandomLiteral(Shape(PrimitiveType::U8, {1000}), state);
  Literal p = RandomLiteral(Shape(PrimitiveType::PRED, {1000}), state);
  int64_t trues = 0;
  double lo = 1, hi = -1;
  for (int64_t i = 0; i < 1000; ++i) {
    lo = std::min(lo, f.GetDouble(i));
    hi = std::max(hi, f.GetDouble(i));
    EXPECT_GE(s.GetInt64(i), -4);
    EXPECT_LE(s.GetInt64(i), 4);
    EXPECT_LT(u.GetInt64(i), 8);
    trues += p.GetInt64(i);
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.9);  // 1000 draws cover the range
  EXPECT_GT(hi, 0.9);
  EXPECT_GT(trues, 400);
  EXPECT_LT(trues, 600);
}

TEST(RandomInputsTest, SameSeedSameValuesAcrossRuns) {
  const char* text = R"(
HloModule m
ENTRY e {
  a = f32[16] parameter(0)
  b = bf16[4] parameter(1)
  ROOT t = (f32[16], bf16[4]) tuple(a, b)
})";
  std::unique_ptr<HloModule> module = Parse(text);
  std::vector<Literal> first = RandomArguments(*module, 0);
  std::vector<Literal> again = RandomArguments(*module, 0);
  std::vector<Literal> other = RandomArguments(*module, 1);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_TRUE(first[0] == again[0]);
  EXPECT_TRUE(first[1] == again[1]);
  EXPECT_FALSE(first[0] == other[0]);
  // Pinned: the stream is SplitMix64, identical on every platform.
  EXPECT_EQ(LeafChecksum(first[0]), LeafChecksum(again[0]));
}

TEST(RandomInputsTest, IndicesStayInRangeThroughConvertsAndFusions) {
  const char* text = R"(
HloModule m

fused {
  p0 = f32[5,3] parameter(0)
  p1 = s64[] parameter(1)
  c = s32[] convert(p1)
  z = s32[] constant(0)
  ROOT ds = f32[2,3] dynamic-slice(p0, c, z), dynamic_slice_sizes={2,3}
}

ENTRY e {
  op = f32[5,3] parameter(0)
  idx = s64[] parameter(1)
  g_in = f32[7,2] parameter(2)
  g_idx = s32[40,1] parameter(3)
  f = f32[2,3] fusion(op, idx), kind=kLoop, calls=fused
  g = f32[40,2] gather(g_in, g_idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}
  ROOT t = (f32[2,3], f32[40,2]) tuple(f, g)
})";
  std::unique_ptr<HloModule> module = Parse(text);
  const HloComputation& entry = *module->entry_computation();
  EXPECT_EQ(IndexBound(*entry.parameter_instruction(0)), std::nullopt);
  EXPECT_EQ(IndexBound(*entry.parameter_instruction(1)), 4);  // starts 0..3 for 2 of 5 rows
  EXPECT_EQ(IndexBound(*entry.parameter_instruction(3)), 7);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    std::vector<Literal> args = RandomArguments(*module, seed);
    EXPECT_GE(args[1].GetInt64(0), 0);
    EXPECT_LT(args[1].GetInt64(0), 4);
    for (int64_t i = 0; i < 40; ++i) {
      EXPECT_GE(args[3].GetInt64(i), 0);
      EXPECT_LT(args[3].GetInt64(i), 7);
    }
  }
}

// A set-dimension-size size may be anything from 0 to the dimension's bound:
// random sizes stay in [0, 4] for f32[3,4] dimension 1.
TEST(RandomInputsTest, SetDimensionSizeSizesStayWithinTheBound) {
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule m
ENTRY e {
  p = f32[3,4] parameter(0)
  n = s32[] parameter(1)
  ROOT s = f32[3,<=4] set-dimension-size(p, n), dimensions={1}
})");
  const HloComputation& entry = *module->entry_computation();
  EXPECT_EQ(IndexBound(*entry.parameter_instruction(1)), 5);
  bool saw_full = false;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    int64_t n = RandomArguments(*module, seed)[1].GetInt64(0);
    EXPECT_GE(n, 0);
    EXPECT_LE(n, 4);
    saw_full |= n == 4;
  }
  EXPECT_TRUE(saw_full);
}

TEST(RandomInputsTest, FillsElidedConstantsOnly) {
  const char* text = R"(
HloModule m
ENTRY e {
  a = f32[3] constant({...})
  b = f32[2] constant({5, 6})
  ROOT t = (f32[3], f32[2]) tuple(a, b)
})";
  std::unique_ptr<HloModule> module = Parse(text);
  EXPECT_EQ(FillElidedConstants(*module, 3), 1);
  EXPECT_EQ(FillElidedConstants(*module, 3), 0);  // marks cleared
  const HloComputation& entry = *module->entry_computation();
  const HloInstruction* a = entry.root_instruction()->operand(0);
  const HloInstruction* b = entry.root_instruction()->operand(1);
  EXPECT_FALSE(a->attrs<ConstantAttrs>().elided);
  EXPECT_NE(a->literal().GetDouble(0), 0.0);
  EXPECT_EQ(b->literal().GetDouble(1), 6.0);
}

TEST(ArraySummaryTest, ChecksumIsFnv1aOfTheRawBytes) {
  // Reference values of FNV-1a 64: "" -> the offset basis, "a" -> af63dc4c8601ec8c.
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  Literal one(Shape(PrimitiveType::U8, {1}));
  one.Set<uint8_t>(0, 'a');
  EXPECT_EQ(LeafChecksum(one), "af63dc4c8601ec8c");
}

TEST(ArraySummaryTest, LeavesAreDepthFirstAndSummaryShowsStatistics) {
  Literal a(Shape(PrimitiveType::F32, {4}));
  for (int i = 0; i < 4; ++i) a.SetDouble(i, i - 1.5);
  Literal b(Shape(PrimitiveType::S32, {}));
  b.SetInt64(0, -7);
  std::vector<Literal> inner;
  inner.push_back(b);
  std::vector<Literal> outer;
  outer.push_back(Literal::Tuple(std::move(inner)));
  outer.push_back(a);
  Literal tuple = Literal::Tuple(std::move(outer));
  std::vector<const Literal*> leaves = Leaves(tuple);
  ASSERT_EQ(leaves.size(), 2u);
  EXPECT_EQ(leaves[0]->shape().element_type(), PrimitiveType::S32);
  std::string summary = SummarizeLeaf(a, 3);
  EXPECT_EQ(summary, "f32[4] min=-1.5 max=1.5 mean=0 first=[-1.5, -0.5, 0.5, ...] fnv1a64=" +
                         LeafChecksum(a));
  EXPECT_THAT(SummarizeLeaf(b), ::testing::StartsWith("s32[] min=-7 max=-7 mean=-7 first=[-7]"));
}

}  // namespace
}  // namespace xlite::runtime
