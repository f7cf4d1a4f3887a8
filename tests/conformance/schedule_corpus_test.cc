// The latency hiding scheduler over the real modules of ../shared/corpus/hlo
// (skipped when absent), as `xlite sched` runs it on h100: on every module
// with collectives the schedule is never slower than the synchronous order
// and never above the memory order's peak (the default limit); on the
// already-partitioned llama3 context-parallel dump and on the deepseek dump
// partitioned by the `spmd` pipeline it is within 5% of the lower bound.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/conformance/corpus.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/analysis/verifier.h"
#include "xlite/passes/named_pipelines.h"
#include "xlite/passes/pipeline.h"
#include "xlite/sched/sched_passes.h"
#include "xlite/sched/schedule_module.h"
#include "xlite/spmd/propagation.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

// What `xlite sched FILE --device h100` computes, every sequence verified.
ScheduleModuleResult Schedule(HloModule& module) {
  auto device = LoadDeviceSpec("h100");
  EXPECT_TRUE(device.ok()) << device.status();
  if (!device.ok()) return {};
  LatencyModel model(*device);
  auto result = ScheduleModule(module, model, {});
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return {};
  for (const auto& c : module.computations()) {
    if (!module.schedule().has_sequence(*c)) continue;
    EXPECT_TRUE(VerifySequence(*c, module.schedule().sequence(*c)).ok()) << c->name();
  }
  return *std::move(result);
}

std::unique_ptr<HloModule> ParseCorpusFile(const std::string& name) {
  const std::string path = conformance::CorpusDir() + "/" + name;
  auto module = ParseHloModule(conformance::ReadFileOrDie(path));
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

double AboveLowerBound(const StepEstimate& e) { return e.step_seconds / e.lower_bound_seconds - 1; }

TEST(ScheduleCorpusTest, NeverSlowerNorAboveTheMemoryOrder) {
  if (conformance::CorpusFiles().empty()) {
    GTEST_SKIP() << "no corpus at " << conformance::CorpusDir();
  }
  int with_collectives = 0;
  conformance::ForEachVerifiedModule([&](HloModule& module) {
    const ScheduleModuleResult s = Schedule(module);
    if (s.sync.communication_seconds <= 0) return;
    EXPECT_LE(s.scheduled.step_seconds, s.sync.step_seconds * (1 + 1e-9));
    EXPECT_LE(s.peak_bytes, s.base_peak_bytes);
    EXPECT_TRUE(s.kept_base_order.empty());
    ++with_collectives;
  });
  EXPECT_GT(with_collectives, 0);
}

TEST(ScheduleCorpusTest, Llama3ContextParallelIsWithinFivePercentOfTheBound) {
  if (conformance::CorpusFiles().empty()) GTEST_SKIP() << "no corpus";
  auto module = ParseCorpusFile("xla__tools__benchmarks__hlo__hlo_llama3_8b_cp_bf16_1x4.hlo");
  ASSERT_NE(module, nullptr);
  const ScheduleModuleResult s = Schedule(*module);
  EXPECT_LT(AboveLowerBound(s.scheduled), 0.05);
  EXPECT_GT(AboveLowerBound(s.sync), 0.05);  // there was something to hide
}

TEST(ScheduleCorpusTest, DeepseekPartitionedBySpmdIsWithinFivePercentOfTheBound) {
  if (conformance::CorpusFiles().empty()) GTEST_SKIP() << "no corpus";
  auto module = ParseCorpusFile(
      "xla__tools__benchmarks__hlo__nv_maxtext_deepseek_1n4g_jit_train_step_before_"
      "optimization.hlo");
  ASSERT_NE(module, nullptr);
  spmd::RegisterSpmdPasses();
  auto pipeline = ParsePipelineSpec(*NamedPipelineSpec("spmd"));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  PipelineReport report;
  auto ran = pipeline->Run(*module, {}, &report);
  ASSERT_TRUE(ran.ok()) << ran.status();
  ASSERT_TRUE(VerifyModule(*module).ok());
  const ScheduleModuleResult s = Schedule(*module);
  EXPECT_GT(s.sync.communication_seconds, 0);
  EXPECT_LT(AboveLowerBound(s.scheduled), 0.05);
  EXPECT_LE(s.peak_bytes, s.base_peak_bytes);
}

}  // namespace
}  // namespace xlite
