#include "xlite/spmd/autoshard/auto_sharding_pass.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/passes/pass_registry.h"
#include "xlite/passes/pipeline.h"
#include "xlite/spmd/propagation.h"
#include "xlite/text/parser.h"

namespace xlite::spmd {
namespace {

using ::testing::HasSubstr;

constexpr char kDot[] = R"(
HloModule dot

ENTRY %main (a: f32[64,256], b: f32[256,32]) -> f32[64,32] {
  %a = f32[64,256] parameter(0)
  %b = f32[256,32] parameter(1)
  ROOT %d = f32[64,32] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

TEST(AutoShardingPass, RunsInAPipelineBeforeThePartitioner) {
  RegisterSpmdPasses();
  RegisterAutoShardingPass();
  RegisterAutoShardingPass();  // idempotent
  absl::StatusOr<PassPipeline> pipeline =
      ParsePipelineSpec("auto-sharding{mesh=4,memory_limit=100000},spmd-partitioner");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto module = ParseHloModule(kDot);
  ASSERT_TRUE(module.ok()) << module.status();
  PipelineReport report;
  absl::StatusOr<bool> changed = pipeline->Run(**module, PipelineOptions{}, &report);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ((*module)->config().num_partitions, 4);
  // Under the limit something is split: the per-partition program is smaller.
  const HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_LT(root->shape().dimensions(0) * root->shape().dimensions(1), 64 * 32);
  EXPECT_TRUE(VerifyModule(**module).ok());
}

TEST(AutoShardingPass, ArgumentsAndErrors) {
  RegisterAutoShardingPass();
  absl::StatusOr<std::unique_ptr<HloPass>> pass = CreatePass(
      "auto-sharding{mesh=2x2,device=h100,memory_limit=1000000,keep_annotations=true,"
      "time_limit=2.5}");
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_EQ((*pass)->name(), "auto-sharding");
  EXPECT_THAT(std::string(CreatePass("auto-sharding").status().message()), HasSubstr("mesh="));
  EXPECT_THAT(std::string(CreatePass("auto-sharding{mesh=0}").status().message()),
              HasSubstr("auto-sharding mesh: bad mesh"));
  EXPECT_THAT(std::string(CreatePass("auto-sharding{mesh=4,time_limit=x}").status().message()),
              HasSubstr("time_limit"));
  // AutoShard's errors are the pass's.
  auto module = ParseHloModule(kDot);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<HloPass>> tiny =
      CreatePass("auto-sharding{mesh=4,memory_limit=100}");
  ASSERT_TRUE(tiny.ok()) << tiny.status();
  absl::StatusOr<bool> failed = (*tiny)->Run(**module);
  EXPECT_TRUE(absl::IsResourceExhausted(failed.status())) << failed.status();
}

}  // namespace
}  // namespace xlite::spmd
