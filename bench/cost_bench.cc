// Speed of `xlite cost` on two real modules from ../shared/corpus/hlo: the
// analysis alone (flattened costs plus the roofline of every instruction),
// and what the command does end to end (parse, verify, analyse).
// XLITE_CORPUS_DIR names another corpus folder.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/corpus_file.h"
#include "benchmark/benchmark.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/analysis/verifier.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

constexpr const char* kLlama = "xla__tools__benchmarks__hlo__hlo_llama3_8b_cp_bf16_1x4.hlo";
constexpr const char* kMixtral = "xla__tools__benchmarks__hlo__hlo_mixtral_8x7b_bf16_2x8.hlo";

// The analysis and roofline of a parsed module; false (and the benchmark
// marked skipped or failed) when something is missing.
bool CostOnce(const HloModule& module, const DeviceSpec& device, benchmark::State& state) {
  absl::StatusOr<ModuleCost> cost = AnalyzeModuleCost(module);
  if (!cost.ok()) {
    state.SkipWithError(std::string(cost.status().message()).c_str());
    return false;
  }
  double seconds = 0;
  for (const InstructionCost& entry : cost->instructions) {
    seconds += Roofline(entry.cost, device).seconds;
  }
  benchmark::DoNotOptimize(seconds);
  return true;
}

void BM_CostAnalysis(benchmark::State& state, const char* name) {
  const std::string text = ReadCorpus(name);
  absl::StatusOr<DeviceSpec> device = LoadDeviceSpec("h200");
  if (text.empty() || !device.ok()) {
    state.SkipWithError("corpus module not found in ../shared/corpus/hlo");
    return;
  }
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) {
    state.SkipWithError(std::string(module.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    if (!CostOnce(**module, *device, state)) return;
  }
}

void BM_CostCommand(benchmark::State& state, const char* name) {
  const std::string text = ReadCorpus(name);
  absl::StatusOr<DeviceSpec> device = LoadDeviceSpec("h200");
  if (text.empty() || !device.ok()) {
    state.SkipWithError("corpus module not found in ../shared/corpus/hlo");
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    if (!module.ok()) {
      state.SkipWithError(std::string(module.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(VerifyModuleAll(**module, {}));
    if (!CostOnce(**module, *device, state)) return;
  }
}

BENCHMARK_CAPTURE(BM_CostAnalysis, llama3_8b, kLlama)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CostAnalysis, mixtral_8x7b, kMixtral)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CostCommand, llama3_8b, kLlama)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CostCommand, mixtral_8x7b, kMixtral)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xlite

BENCHMARK_MAIN();
