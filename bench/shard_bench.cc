// Speed of sharding propagation (`sharding-propagation`, the header's
// settings) on real pre-partition modules of ../shared/corpus/hlo, beside
// parsing the same text as the peer measured in the same run; the modules
// span 1.7k to 30k instructions to show that the cost grows linearly.
// Target: the deepseek 1n4g train step under 1 s.
#include <memory>
#include <string>

#include "bench/corpus_file.h"
#include "bench/untimed_parse.h"
#include "benchmark/benchmark.h"
#include "xlite/spmd/partitioner.h"
#include "xlite/spmd/propagation.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

void BM_Parse(benchmark::State& state, const char* name) {
  const std::string text = ReadCorpus(name);
  if (text.empty()) {
    state.SkipWithError("corpus module not found in ../shared/corpus/hlo");
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    if (!module.ok()) {
      state.SkipWithError(std::string(module.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(module->get());
  }
}

void BM_ShardingPropagation(benchmark::State& state, const char* name) {
  const std::string text = ReadCorpus(name);
  if (text.empty()) {
    state.SkipWithError("corpus module not found in ../shared/corpus/hlo");
    return;
  }
  int64_t instructions = 0;
  for (auto _ : state) {
    std::unique_ptr<HloModule> module = UntimedParse(state, text);
    if (module == nullptr) return;
    absl::StatusOr<spmd::PropagationResult> result = spmd::PropagateShardings(*module, {});
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    instructions = static_cast<int64_t>(result->instructions.size());
    benchmark::DoNotOptimize(result->changed);
  }
  state.counters["instructions"] = static_cast<double>(instructions);
  state.counters["us_per_instruction"] = benchmark::Counter(
      static_cast<double>(instructions),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Propagation then partitioning (the spmd pipeline without its cleanup).
void BM_PropagateAndPartition(benchmark::State& state, const char* name) {
  const std::string text = ReadCorpus(name);
  if (text.empty()) {
    state.SkipWithError("corpus module not found in ../shared/corpus/hlo");
    return;
  }
  for (auto _ : state) {
    std::unique_ptr<HloModule> module = UntimedParse(state, text);
    if (module == nullptr) return;
    spmd::ShardingPropagationPass propagate({});
    spmd::SpmdPartitionerPass partition;
    absl::StatusOr<bool> done = propagate.Run(*module);
    if (done.ok()) done = partition.Run(*module);
    if (!done.ok()) {
      state.SkipWithError(std::string(done.status().message()).c_str());
      return;
    }
  }
}
BENCHMARK_CAPTURE(
    BM_PropagateAndPartition, deepseek_1n4g,
    "xla__tools__benchmarks__hlo__nv_maxtext_deepseek_1n4g_jit_train_step_before_optimization.hlo")
    ->Unit(benchmark::kMillisecond);

#define XLITE_SHARD_BENCH(label, file)                                                   \
  BENCHMARK_CAPTURE(BM_ShardingPropagation, label, file)->Unit(benchmark::kMillisecond); \
  BENCHMARK_CAPTURE(BM_Parse, label, file)->Unit(benchmark::kMillisecond)

XLITE_SHARD_BENCH(
    maxtext_1n1g,
    "xla__tools__benchmarks__hlo__nv_maxtext_1n1g_jit_train_step_before_optimization.hlo");
XLITE_SHARD_BENCH(llama31_70b_fp8_16x8,
                  "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo");
XLITE_SHARD_BENCH(
    deepseek_1n4g,
    "xla__tools__benchmarks__hlo__nv_maxtext_deepseek_1n4g_jit_train_step_before_optimization.hlo");
XLITE_SHARD_BENCH(llama31_8b_bf16_1x8, "xla__tools__benchmarks__hlo__hlo_llama31_8b_bf16_1x8.hlo");
XLITE_SHARD_BENCH(mixtral_8x7b_bf16_1x8,
                  "xla__tools__benchmarks__hlo__hlo_mixtral_8x7b_bf16_1x8.hlo");

}  // namespace
}  // namespace xlite

BENCHMARK_MAIN();
