// The run-memory estimate: parameters, the live peak of the evaluation order
// (results with scratch, values dropped after their last read, called
// computations' peaks added) and the largest buffers, all saturating.
#include "xlite/analysis/memory_estimate.h"

#include <memory>

#include "gtest/gtest.h"
#include "xlite/analysis/test_util.h"

namespace xlite {
namespace {

TEST(MemoryEstimateTest, ChainFollowsTheEvaluationOrder) {
  // p (400 bytes) is the caller's. a = negate(p): 400 live + 2 x 400 while
  // computing = 1200 at the peak; then b = negate(a): a (400) live, b twice
  // (800) = 1200; a is dropped after b. Total: 400 + 1200.
  std::unique_ptr<HloModule> module = testing::Parse(R"(
HloModule m
ENTRY e {
  p = f32[100] parameter(0)
  a = f32[100] negate(p)
  ROOT b = f32[100] negate(a)
})");
  ASSERT_NE(module, nullptr);
  RunMemoryEstimate estimate = EstimateRunMemory(*module);
  EXPECT_EQ(estimate.parameter_bytes, 400);
  EXPECT_EQ(estimate.output_bytes, 400);
  EXPECT_EQ(estimate.total_bytes, 400 + 1200);
  ASSERT_EQ(estimate.largest.size(), 3u);
  EXPECT_EQ(estimate.largest[0].name, "%p");
  EXPECT_EQ(estimate.largest[0].bytes, 400);
}

TEST(MemoryEstimateTest, CalledComputationsAndDevicesAddUp) {
  // The larger of the condition's and the body's peaks (the body's add: 2 x 4
  // bytes; they never run at once) is added to the while's own (2 x 4); two
  // replicas double everything.
  std::unique_ptr<HloModule> module = testing::Parse(R"(
HloModule m, replica_count=2
cond {
  s = s32[] parameter(0)
  ROOT t = pred[] constant(false)
}
body {
  s = s32[] parameter(0)
  ROOT n = s32[] add(s, s)
}
ENTRY e {
  z = s32[] constant(0)
  ROOT w = s32[] while(z), condition=cond, body=body
})");
  ASSERT_NE(module, nullptr);
  RunMemoryEstimate estimate = EstimateRunMemory(*module);
  EXPECT_EQ(estimate.devices, 2);
  // Entry: z (4, live) then w: 4 + 2 x 4 + max(cond 2 x 1, body 2 x 4) = 20.
  EXPECT_EQ(estimate.total_bytes, 2 * 20);
}

TEST(MemoryEstimateTest, HugeModulesSaturateInsteadOfOverflowing) {
  std::unique_ptr<HloModule> module = testing::Parse(R"(
HloModule m
ENTRY e {
  p = s8[4611686018427387904] parameter(0)
  q = s8[4611686018427387904] parameter(1)
  ROOT t = (s8[4611686018427387904], s8[4611686018427387904]) tuple(p, q)
})");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(EstimateRunMemory(*module).total_bytes, INT64_MAX);
}

}  // namespace
}  // namespace xlite
