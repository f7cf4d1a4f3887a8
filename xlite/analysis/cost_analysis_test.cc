// Cost analysis tests: every figure is worked out by hand in the comment
// beside it, following the conventions of ../shared/spec/HLO.md §4.
#include "xlite/analysis/cost_analysis.h"

#include <memory>
#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xlite/analysis/test_util.h"

namespace xlite {
namespace {

using testing::Parse;

// The total cost of a module (while loops multiplied out unless told not to).
Cost TotalOf(std::string_view text, CostOptions options = {}) {
  std::unique_ptr<HloModule> module = Parse(text);
  if (module == nullptr) return Cost();
  absl::StatusOr<ModuleCost> cost = AnalyzeModuleCost(*module, options);
  EXPECT_TRUE(cost.ok()) << cost.status();
  return cost.ok() ? cost->total : Cost();
}

// The cost of the instruction named `name` in the flattened module.
Cost CostOfNamed(std::string_view text, std::string_view name) {
  std::unique_ptr<HloModule> module = Parse(text);
  if (module == nullptr) return Cost();
  absl::StatusOr<ModuleCost> cost = AnalyzeModuleCost(*module);
  EXPECT_TRUE(cost.ok()) << cost.status();
  if (!cost.ok()) return Cost();
  for (const InstructionCost& entry : cost->instructions) {
    if (entry.instruction->name() == name) return entry.cost;
  }
  ADD_FAILURE() << "no instruction " << name;
  return Cost();
}

// A module with the scalar f32 reducer `red` (computing `op`) and `entry`.
std::string WithReducer(std::string_view op, std::string_view entry,
                        std::string_view header = "HloModule m") {
  return std::string(header) + "\nred {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n" +
         "  ROOT acc = f32[] " + std::string(op) + "(x, y)\n}\n" + std::string(entry);
}

TEST(CostAnalysis, ElementwiseAddIsOneFlopPerElement) {
  // 6 elements; bytes: two f32[2,3] operands + the output = 3 x 24.
  Cost c = CostOfNamed(R"(
HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  ROOT r = f32[2,3] add(a, b)
})",
                       "r");
  EXPECT_EQ(c.flops, 6);
  EXPECT_EQ(c.transcendentals, 0);
  EXPECT_EQ(c.bytes_accessed, 72);
  ASSERT_EQ(c.flops_by_type.size(), 1u);
  EXPECT_EQ(c.flops_by_type[0].type, PrimitiveType::F32);
}

TEST(CostAnalysis, LogisticAndCbrtAreTranscendentals) {
  // 4 + 4 transcendentals, no flops; bf16 bytes: 8 in + 8 out each.
  constexpr std::string_view kText = R"(
HloModule m
ENTRY e {
  a = bf16[4] parameter(0)
  l = bf16[4] logistic(a)
  ROOT c = bf16[4] cbrt(l)
})";
  Cost logistic = CostOfNamed(kText, "l");
  EXPECT_EQ(logistic.transcendentals, 4);
  EXPECT_EQ(logistic.flops, 0);
  EXPECT_EQ(logistic.bytes_accessed, 16);
  Cost cbrt = CostOfNamed(kText, "c");
  EXPECT_EQ(cbrt.transcendentals, 4);
  EXPECT_EQ(cbrt.flops, 0);
  Cost total = TotalOf(kText);
  EXPECT_EQ(total.transcendentals, 8);
  EXPECT_EQ(total.flops, 0);
}

TEST(CostAnalysis, CompareAndConvertCountFlopsCopyDoesNot) {
  // compare: 5 flops in the operands' type (s32); convert: 5; copy: 0.
  constexpr std::string_view kText = R"(
HloModule m
ENTRY e {
  a = s32[5] parameter(0)
  b = s32[5] parameter(1)
  p = pred[5] compare(a, b), direction=LT
  f = f32[5] convert(a)
  ROOT c = f32[5] copy(f)
})";
  Cost compare = CostOfNamed(kText, "p");
  EXPECT_EQ(compare.flops, 5);
  ASSERT_EQ(compare.flops_by_type.size(), 1u);
  EXPECT_EQ(compare.flops_by_type[0].type, PrimitiveType::S32);
  EXPECT_EQ(CostOfNamed(kText, "f").flops, 5);
  Cost copy = CostOfNamed(kText, "c");
  EXPECT_EQ(copy.flops, 0);
  EXPECT_EQ(copy.bytes_accessed, 40);
}

TEST(CostAnalysis, DotWithBatchDimensions) {
  // [4,8,16] x [4,16,32] -> [4,8,32]: 1024 outputs x 16 multiply-adds x 2.
  // Bytes: (512 + 2048 + 1024) elements x 4.
  Cost c = CostOfNamed(R"(
HloModule m
ENTRY e {
  a = f32[4,8,16] parameter(0)
  b = f32[4,16,32] parameter(1)
  ROOT d = f32[4,8,32] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})",
                       "d");
  EXPECT_EQ(c.flops, 32768);
  EXPECT_EQ(c.bytes_accessed, 14336);
}

TEST(CostAnalysis, DotFlopsAreInTheOperandType) {
  // bf16 x bf16 -> f32: 2 x 4 outputs x 3 = 24 flops, priced as bf16.
  Cost c = CostOfNamed(R"(
HloModule m
ENTRY e {
  a = bf16[2,3] parameter(0)
  b = bf16[3,2] parameter(1)
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                       "d");
  EXPECT_EQ(c.flops, 24);
  ASSERT_EQ(c.flops_by_type.size(), 1u);
  EXPECT_EQ(c.flops_by_type[0].type, PrimitiveType::BF16);
}

TEST(CostAnalysis, ConvolutionWithFeatureGroupsCountsOnlyRealTaps) {
  // 3x3 window, padding 1, stride 1 over 8 positions: kernel taps 0 and 2 hit
  // padding at one edge, so each dimension has 7 + 8 + 7 = 22 valid pairs and
  // the plane 22 x 22 = 484. Two groups: 4/2 = 2 input features per output
  // feature, 4 output features, batch 1: 2 x 2 x 4 x 484 = 7744 flops.
  Cost c = CostOfNamed(R"(
HloModule m
ENTRY e {
  x = f32[1,8,8,4] parameter(0)
  k = f32[3,3,2,4] parameter(1)
  ROOT c = f32[1,8,8,4] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2
})",
                       "c");
  EXPECT_EQ(c.flops, 7744);
  // Bytes: input 256 + kernel 72 + output 256 elements, x 4.
  EXPECT_EQ(c.bytes_accessed, 2336);
}

TEST(CostAnalysis, ConvolutionSkipsBaseDilationHoles) {
  // Input of 3 dilated by 2 is x _ x _ x (5 positions); a 2-tap window gives
  // 4 outputs, each with exactly one tap on a real element: 4 MACs = 8 flops.
  Cost c = CostOfNamed(R"(
HloModule m
ENTRY e {
  x = f32[1,3,1] parameter(0)
  k = f32[2,1,1] parameter(1)
  ROOT c = f32[1,4,1] convolution(x, k), window={size=2 lhs_dilate=2}, dim_labels=b0f_0io->b0f
})",
                       "c");
  EXPECT_EQ(c.flops, 8);
}

TEST(CostAnalysis, ConvolutionWithStrideAndBatchGroups) {
  // Stride 2, size 2, no padding over 6 inputs: 3 outputs, 2 taps each = 6
  // pairs. batch_group_count=2 halves the batch of 4; features 1 in, 2 out:
  // 2 x 1 x 2 x (4/2) x 6 = 48 flops.
  Cost c = CostOfNamed(R"(
HloModule m
ENTRY e {
  x = f32[4,6,1] parameter(0)
  k = f32[2,1,2] parameter(1)
  ROOT c = f32[2,3,2] convolution(x, k), window={size=2 stride=2}, dim_labels=b0f_0io->b0f, batch_group_count=2
})",
                       "c");
  EXPECT_EQ(c.flops, 48);
}

TEST(CostAnalysis, ReduceAppliesItsReducerPerDroppedElement) {
  // 128 inputs reduced to 8 outputs: 120 additions.
  Cost c = CostOfNamed(WithReducer("add", R"(ENTRY e {
  a = f32[8,16] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[8] reduce(a, z), dimensions={1}, to_apply=red
})"),
                       "r");
  EXPECT_EQ(c.flops, 120);
  // Bytes: 128 + 1 + 8 elements x 4.
  EXPECT_EQ(c.bytes_accessed, 548);
}

TEST(CostAnalysis, ReduceWindow) {
  // 2x3 windows, stride 2x3 over [4,6]: 4 outputs x (6 - 1) = 20 maxima.
  // Bytes: (24 + 1 + 4) x 4 = 116.
  Cost c = CostOfNamed(WithReducer("maximum", R"(ENTRY e {
  a = f32[4,6] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2,2] reduce-window(a, z), window={size=2x3 stride=2x3}, to_apply=red
})"),
                       "r");
  EXPECT_EQ(c.flops, 20);
  EXPECT_EQ(c.bytes_accessed, 116);
}

TEST(CostAnalysis, ReduceWindowThatIsReduceThenBroadcast) {
  // A size-7 window padded 3 on each side of a dimension of 4 reduces that
  // whole dimension at every position; counted as one reduction of the 4
  // per row (2 rows x 4 / 4 = 2) plus 4 - 1 = 3: 5 additions.
  Cost c = CostOfNamed(WithReducer("add", R"(ENTRY e {
  a = f32[2,4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2,4] reduce-window(a, z), window={size=1x7 pad=0_0x3_3}, to_apply=red
})"),
                       "r");
  EXPECT_EQ(c.flops, 5);
}

constexpr std::string_view kCountedLoop = R"(
HloModule m
cond {
  s = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  x = f32[10] get-tuple-element(s), index=1
  sq = f32[10] multiply(x, x)
  ROOT t = (s32[], f32[10]) tuple(next, sq)
}
ENTRY e {
  x = f32[10] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[10]) tuple(zero, x)
  ROOT w = (s32[], f32[10]) while(init), condition=cond, body=body
})";

TEST(CostAnalysis, WhileWithKnownTripCountIsMultipliedOut) {
  // i = 0; i < 5; i += 1: 5 trips. Body: 1 (add) + 10 (multiply) = 11 flops,
  // run 5 times; condition: 1 compare, run 6 times. 55 + 6 = 61.
  EXPECT_EQ(TotalOf(kCountedLoop).flops, 61);
  std::unique_ptr<HloModule> module = Parse(kCountedLoop);
  ASSERT_NE(module, nullptr);
  const HloInstruction* w = module->entry_computation()->root_instruction();
  EXPECT_EQ(WhileTripCount(*w), 5);
  // The flattened list holds the body's multiply, run 5 times.
  absl::StatusOr<ModuleCost> cost = AnalyzeModuleCost(*module);
  ASSERT_TRUE(cost.ok()) << cost.status();
  bool found = false;
  for (const InstructionCost& entry : cost->instructions) {
    if (entry.instruction->name() != "sq") continue;
    found = true;
    EXPECT_EQ(entry.executions, 5);
    EXPECT_EQ(entry.cost.flops, 50);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(cost->loops_with_unknown_trip_count, 0);
}

TEST(CostAnalysis, WhileCountedOnceLikeXlaWhenAsked) {
  // Body once (11) + condition once (1).
  EXPECT_EQ(TotalOf(kCountedLoop, CostOptions{.multiply_trip_counts = false}).flops, 12);
}

// A loop whose limit is loop state: no pattern gives its trip count.
constexpr std::string_view kLimitInStateLoop = R"(
HloModule m
cond {
  s = (s32[], s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  x = f32[3] get-tuple-element(s), index=2
  y = f32[3] negate(x)
  ROOT t = (s32[], s32[], f32[3]) tuple(i, n, y)
}
ENTRY e {
  s = (s32[], s32[], f32[3]) parameter(0)
  ROOT w = (s32[], s32[], f32[3]) while(s), condition=cond, body=body
})";

TEST(CostAnalysis, WhileTripCountFromBackendConfig) {
  // XLA wrote the trip count: 7 passes of the 3-flop body, 8 of the 1-flop
  // condition.
  const std::string text = std::string(kLimitInStateLoop.substr(0, kLimitInStateLoop.size() - 2)) +
                           R"(, backend_config={"known_trip_count":{"n":"7"}}
})";
  EXPECT_EQ(TotalOf(text).flops, 7 * 3 + 8 * 1);
}

TEST(CostAnalysis, WhileWithUnknownTripCountIsCountedOnce) {
  std::unique_ptr<HloModule> module = Parse(kLimitInStateLoop);
  ASSERT_NE(module, nullptr);
  absl::StatusOr<ModuleCost> cost = AnalyzeModuleCost(*module);
  ASSERT_TRUE(cost.ok()) << cost.status();
  EXPECT_EQ(cost->total.flops, 3 + 1);  // one negate, one compare
  EXPECT_EQ(cost->loops_with_unknown_trip_count, 1);
}

TEST(CostAnalysis, TripCountPatternsOtherDirections) {
  // i = 10; i > 0; i += -3: 10, 7, 4, 1 -> 4 trips; compare written constant-first.
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule m
cond {
  s = (s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  z = s32[] constant(0)
  ROOT lt = pred[] compare(z, i), direction=LT
}
body {
  s = (s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  m = s32[] constant(-3)
  next = s32[] add(i, m)
  ROOT t = (s32[]) tuple(next)
}
ENTRY e {
  ten = s32[] constant(10)
  init = (s32[]) tuple(ten)
  ROOT w = (s32[]) while(init), condition=cond, body=body
})");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(WhileTripCount(*module->entry_computation()->root_instruction()), 4);
}

TEST(CostAnalysis, TripCountSeesThroughTupleElementsOfTuples) {
  // The partitioner's form of kCountedLoop's body: its result rebuilt from a
  // tuple it resharded, the counter read back with a get-tuple-element.
  std::string text(kCountedLoop);
  text = absl::StrReplaceAll(text, {{"ROOT t = (s32[], f32[10]) tuple(next, sq)",
                                     "inner = (s32[], f32[10]) tuple(next, sq)\n"
                                     "  counter = s32[] get-tuple-element(inner), index=0\n"
                                     "  value = f32[10] get-tuple-element(inner), index=1\n"
                                     "  ROOT t = (s32[], f32[10]) tuple(counter, value)"}});
  std::unique_ptr<HloModule> module = Parse(text);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(WhileTripCount(*module->entry_computation()->root_instruction()), 5);
}

TEST(CostAnalysis, TripCountLessOrEqualWithStep) {
  // i = 0; i <= 9; i += 2: 0, 2, 4, 6, 8 -> 5 trips.
  std::string text(kCountedLoop);
  text = absl::StrReplaceAll(text, {{"direction=LT", "direction=LE"},
                                    {"constant(5)", "constant(9)"},
                                    {"constant(1)", "constant(2)"}});
  std::unique_ptr<HloModule> module = Parse(text);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(WhileTripCount(*module->entry_computation()->root_instruction()), 5);
}

TEST(CostAnalysis, FusionCountsBodyArithmeticAndBoundaryBytes) {
  // Body: 16 adds + 16 exps. Bytes at the boundary only: two f32[16] reads
  // and one f32[16] write = 3 x 64; the intermediate sum is not counted.
  Cost c = CostOfNamed(R"(
HloModule m
fused {
  p0 = f32[16] parameter(0)
  p1 = f32[16] parameter(1)
  s = f32[16] add(p0, p1)
  ROOT x = f32[16] exponential(s)
}
ENTRY e {
  a = f32[16] parameter(0)
  b = f32[16] parameter(1)
  ROOT f = f32[16] fusion(a, b), kind=kLoop, calls=fused
})",
                       "f");
  EXPECT_EQ(c.flops, 16);
  EXPECT_EQ(c.transcendentals, 16);
  EXPECT_EQ(c.bytes_accessed, 192);
}

TEST(CostAnalysis, FusionReadsOnlySlicesAndWritesOnlyUpdates) {
  // p0 (f32[100]) is read only through a 10-element slice: 40 bytes. The
  // root updates p1 (f32[50]) in place with that slice: the output costs the
  // update's 40 bytes, p1 aliases the output and is not read (XLA's
  // LoopFusionDynUpdateSlice), the s32 index 4: 40 + 0 + 4 + 40 = 84.
  Cost c = CostOfNamed(R"(
HloModule m
fused {
  p0 = f32[100] parameter(0)
  p1 = f32[50] parameter(1)
  i = s32[] parameter(2)
  s = f32[10] slice(p0), slice={[0:10]}
  ROOT u = f32[50] dynamic-update-slice(p1, s, i)
}
ENTRY e {
  a = f32[100] parameter(0)
  b = f32[50] parameter(1)
  i = s32[] parameter(2)
  ROOT f = f32[50] fusion(a, b, i), kind=kLoop, calls=fused
})",
                       "f");
  EXPECT_EQ(c.flops, 0);
  EXPECT_EQ(c.bytes_accessed, 84);
}

TEST(CostAnalysis, DataMovementBytes) {
  constexpr std::string_view kText = R"(
HloModule m
ENTRY e {
  a = f32[8,4] parameter(0)
  s = f32[2,4] slice(a), slice={[0:2], [0:4]}
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  d = f32[2,4] dynamic-slice(a, i, j), dynamic_slice_sizes={2,4}
  u = f32[8,4] dynamic-update-slice(a, d, i, j)
  b = f32[4,8] bitcast(a)
  t = f32[4,8]{0,1} transpose(a), dimensions={1,0}
  tt = f32[4,8] transpose(a), dimensions={1,0}
  ROOT r = (f32[2,4], f32[2,4], f32[8,4], f32[4,8], f32[4,8]{0,1}, f32[4,8]) tuple(s, d, u, b, t, tt)
})";
  EXPECT_EQ(CostOfNamed(kText, "s").bytes_accessed, 64);  // 2 x 32
  // As XLA: the slice twice (update twice) plus the first s32 index only.
  EXPECT_EQ(CostOfNamed(kText, "d").bytes_accessed, 2 * 32 + 4);
  EXPECT_EQ(CostOfNamed(kText, "u").bytes_accessed, 2 * 32 + 4);
  EXPECT_EQ(CostOfNamed(kText, "r").bytes_accessed, 6 * 8);  // pointer table
  EXPECT_EQ(CostOfNamed(kText, "t").bytes_accessed, 0);      // layout makes it a bitcast
  EXPECT_EQ(CostOfNamed(kText, "tt").bytes_accessed, 256);   // a real transpose
  EXPECT_EQ(TotalOf(kText).flops, 0);
}

TEST(CostAnalysis, SortMapAndConditional) {
  constexpr std::string_view kText = R"(
HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
twice {
  x = f32[] parameter(0)
  ROOT y = f32[] add(x, x)
}
small {
  x = f32[4] parameter(0)
  ROOT y = f32[4] negate(x)
}
big {
  x = f32[4] parameter(0)
  n = f32[4] negate(x)
  ROOT y = f32[4] exponential(n)
}
ENTRY e {
  a = f32[10] parameter(0)
  s = f32[10] sort(a), dimensions={0}, to_apply=lt
  m = f32[10] map(a), dimensions={0}, to_apply=twice
  p = pred[] parameter(1)
  v = f32[4] parameter(2)
  ROOT c = f32[4] conditional(p, v, v), true_computation=small, false_computation=big
})";
  EXPECT_EQ(CostOfNamed(kText, "s").flops, 10 * 4);  // n ceil(log2 n)
  EXPECT_EQ(CostOfNamed(kText, "m").flops, 10);      // one add per element
  Cost c = CostOfNamed(kText, "c");                  // the larger branch
  EXPECT_EQ(c.flops, 4);
  EXPECT_EQ(c.transcendentals, 4);
}

TEST(CostAnalysis, AllReduceFlopsAndCollectiveBytes) {
  Cost c = CostOfNamed(WithReducer("add", R"(ENTRY e {
  a = f32[256] parameter(0)
  ROOT r = f32[256] all-reduce(a), replica_groups={{0,1}}, to_apply=red
})",
                                   "HloModule m, replica_count=2"),
                       "r");
  EXPECT_EQ(c.flops, 256);
  EXPECT_EQ(c.bytes_accessed, 2048);
  EXPECT_EQ(c.collective_bytes, 1024);
  EXPECT_EQ(c.collectives, 1);
}

TEST(CostAnalysis, CallsAreFlattenedIntoTheirInstructions) {
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule m
f {
  x = f32[3] parameter(0)
  ROOT y = f32[3] multiply(x, x)
}
ENTRY e {
  a = f32[3] parameter(0)
  c1 = f32[3] call(a), to_apply=f
  ROOT c2 = f32[3] call(c1), to_apply=f
})");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<ModuleCost> cost = AnalyzeModuleCost(*module);
  ASSERT_TRUE(cost.ok()) << cost.status();
  // One record for `y`, executed twice.
  ASSERT_EQ(cost->instructions.size(), 1u);
  EXPECT_EQ(cost->instructions[0].instruction->name(), "y");
  EXPECT_EQ(cost->instructions[0].executions, 2);
  EXPECT_EQ(cost->total.flops, 6);
}

}  // namespace
}  // namespace xlite
