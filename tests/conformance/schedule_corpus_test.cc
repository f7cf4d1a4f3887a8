// The latency hiding scheduler over the real modules of ../shared/corpus/hlo
// (skipped when absent), as `xlite sched` runs it on h100: on every module
// with collectives the schedule is never slower than the synchronous order
// and never above the memory order's peak (the default limit); on the
// already-partitioned llama3 context-parallel dump and on the deepseek dump
// partitioned by the compile pipeline it is within 5% of the lower bound,
// with every collective the partitioned program executes scheduled.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/conformance/corpus.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/analysis/verifier.h"
#include "xlite/compiler/compile.h"
#include "xlite/ir/computation.h"
#include "xlite/sched/schedule_module.h"
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

// How many times the collectives of a module without conditionals run: each
// once per execution of its computation (a called computation per call
// site, a while body trip-count times).
double CollectiveExecutions(const HloComputation& computation, double times) {
  double total = 0;
  for (const auto& inst : computation.instructions()) {
    const HloOpcode op = inst->opcode();
    const bool collective =
        IsCollectiveOpcode(op) && !absl::EndsWith(std::string(OpcodeName(op)), "-done");
    if (collective) total += times;
    if (op == HloOpcode::kConditional) ADD_FAILURE() << "a conditional: " << inst->name();
    if (op == HloOpcode::kCall) total += CollectiveExecutions(*inst->to_apply(), times);
    if (op == HloOpcode::kWhile) {
      const double trips =
          static_cast<double>(std::max<int64_t>(WhileTripCount(*inst).value_or(1), 0));
      // called_computations: the condition, then the body.
      total += CollectiveExecutions(*inst->called_computations()[0], times * (trips + 1));
      total += CollectiveExecutions(*inst->called_computations()[1], times * trips);
    }
  }
  return total;
}

// `xlite sched --spmd` on the deepseek dump: every collective the
// partitioned program executes is scheduled (JAX puts the layers' bodies in
// calls), and the schedule is within 5% of the bound.
TEST(ScheduleCorpusTest, DeepseekPartitionedBySpmdIsWithinFivePercentOfTheBound) {
  if (conformance::CorpusFiles().empty()) GTEST_SKIP() << "no corpus";
  auto module = ParseCorpusFile(
      "xla__tools__benchmarks__hlo__nv_maxtext_deepseek_1n4g_jit_train_step_before_"
      "optimization.hlo");
  ASSERT_NE(module, nullptr);
  compiler::CompileOptions partition;
  partition.partition = true;
  auto partitioned = compiler::Compile(*module, partition);
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();
  const double executed = CollectiveExecutions(*module->entry_computation(), 1);
  EXPECT_GT(executed, 300);
  const ScheduleModuleResult s = Schedule(*module);
  double scheduled = 0;
  for (const CollectiveTiming& c : s.scheduled.collectives) scheduled += c.executions;
  EXPECT_EQ(scheduled, executed);
  EXPECT_GT(s.sync.communication_seconds, 0);
  EXPECT_LT(AboveLowerBound(s.scheduled), 0.05);
  EXPECT_LE(s.peak_bytes, s.base_peak_bytes);
}

}  // namespace
}  // namespace xlite
